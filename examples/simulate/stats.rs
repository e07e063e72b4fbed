//! The running statistics: step times summed over a window of frames, the last step's
//! counts and events, and the adapter, as one line for the title or the headless log.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use wgpu_sat::world::BodyType;
use wgpu_sat::{StepStats, World};

use crate::sim::{Sim, Stepped};

/// Step statistics summed over a window of frames, for a line of averages.
pub struct StatsWindow {
    started: Instant,
    frames: u32,
    steps: u32,
    broad: Duration,
    narrow: Duration,
    solver: Duration,
    continuous: Duration,
    /// GPU breakdown: upload, dispatch, readback, and how many steps had one.
    detail: [Duration; 3],
    detail_steps: u32,
    /// The compute pass alone (timestamp queries), and how many steps measured it.
    kernel: Duration,
    kernel_steps: u32,
    /// Steps of the GPU world, their summed wall time (it times no stages apart), and their
    /// device time where measured, with how many steps measured it.
    device_steps: u32,
    device: Duration,
    device_kernels: Duration,
    device_kernel_steps: u32,
    /// The last host step's counts and events (contacts begun, ended, hits, sensor entries,
    /// exits); the GPU world's are read from the world in `summary`.
    last: StepStats,
    last_events: [usize; 5],
}

impl StatsWindow {
    /// A window that starts now, showing `previous`'s last counts and events until a step
    /// replaces them (so a paused world still shows its pairs and contacts).
    pub fn after(previous: &StatsWindow) -> StatsWindow {
        StatsWindow {
            last: previous.last,
            last_events: previous.last_events,
            ..StatsWindow::new()
        }
    }

    pub fn new() -> StatsWindow {
        StatsWindow {
            started: Instant::now(),
            frames: 0,
            steps: 0,
            broad: Duration::ZERO,
            narrow: Duration::ZERO,
            solver: Duration::ZERO,
            continuous: Duration::ZERO,
            detail: [Duration::ZERO; 3],
            detail_steps: 0,
            kernel: Duration::ZERO,
            kernel_steps: 0,
            device_steps: 0,
            device: Duration::ZERO,
            device_kernels: Duration::ZERO,
            device_kernel_steps: 0,
            last: StepStats::default(),
            last_events: [0; 5],
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub fn frame(&mut self) {
        self.frames += 1;
    }

    /// Adds what a step reports: a host step's times, counts and events (read from
    /// `world`, which it stepped), or a GPU world step's wall time (its world, a snapshot,
    /// is not read here: see `summary`).
    pub fn record(&mut self, stepped: &Stepped, world: &World) {
        match stepped {
            Stepped::Host(stats) => self.host_step(stats, world),
            Stepped::Device { wall, kernels } => {
                self.device_steps += 1;
                self.device += *wall;
                if let Some(kernels) = kernels {
                    self.device_kernels += *kernels;
                    self.device_kernel_steps += 1;
                }
            }
        }
    }

    fn host_step(&mut self, stats: &StepStats, world: &World) {
        self.last_events = event_counts(world);
        self.steps += 1;
        self.broad += stats.broad_phase;
        self.narrow += stats.narrow_phase;
        self.solver += stats.solver;
        self.continuous += stats.continuous;
        if let Some(d) = stats.narrow_phase_detail {
            self.detail[0] += d.upload;
            self.detail[1] += d.dispatch;
            self.detail[2] += d.readback;
            self.detail_steps += 1;
            if let Some(kernel) = d.kernel {
                self.kernel += kernel;
                self.kernel_steps += 1;
            }
        }
        self.last = *stats;
    }

    /// One line: rate, counts (of the last step), mean ms per stage, backend and adapter.
    /// `rate_unit` is "fps" in the window, "steps/s" headless. On the GPU world the counts
    /// and events are `sim.world`'s: call `Sim::sync_world` first.
    pub fn summary(&self, rate_unit: &str, sim: &Sim, adapter: &AdapterLabel) -> String {
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        let ms = |d: Duration, n: u32| 1e3 * d.as_secs_f64() / n.max(1) as f64;
        let mut line = format!("{:.1} {rate_unit} | ", self.frames as f64 / seconds);
        let world = &sim.world;
        let events = if sim.on_device() {
            // The GPU world gives no step statistics: count what the world read back holds
            // (it has no count of the broad phase's candidate pairs, so none is shown). The
            // awake bodies are the dynamic ones, as `StepStats::awake_bodies` counts them.
            let dynamic = |b| world.body_type(b) == Some(BodyType::Dynamic);
            let awake = world
                .bodies()
                .filter(|&b| dynamic(b) && world.is_awake(b))
                .count();
            let _ = write!(
                line,
                "{} bodies ({awake} awake), {} contacts | ",
                world.body_count(),
                world.contacts().len()
            );
            event_counts(world)
        } else {
            let _ = write!(
                line,
                "{} bodies ({} awake), {} pairs, {} contacts | ",
                world.body_count(),
                self.last.awake_bodies,
                self.last.pairs,
                self.last.contacts,
            );
            self.last_events
        };
        let [begun, ended, hits, entered, left] = events;
        let _ = write!(
            line,
            "events +{begun} -{ended} contacts, {hits} hits, +{entered} -{left} sensor | "
        );
        if self.device_steps > 0 {
            let _ = write!(
                line,
                "step {:.2} ms (GpuWorld::step, host wall time",
                ms(self.device, self.device_steps)
            );
            if self.device_kernel_steps > 0 {
                let kernels = ms(self.device_kernels, self.device_kernel_steps);
                let _ = write!(line, "; kernels {kernels:.2}");
            }
            if sim.on_device() {
                let [sent, read] = sim.device_bytes().map(|b| b as f64 / 1024.0);
                let _ = write!(
                    line,
                    "; the last step's solver sent {sent:.0} KiB, read {read:.0} KiB back"
                );
            }
            line.push(')');
            if self.steps > 0 {
                line.push_str("; then on the host: ");
            }
        }
        if self.steps == 0 && self.device_steps == 0 {
            line.push_str("no steps");
        } else if self.steps > 0 {
            let _ = write!(
                line,
                "broad {:.2} ms, narrow {:.2} ms",
                ms(self.broad, self.steps),
                ms(self.narrow, self.steps)
            );
            if self.detail_steps > 0 {
                let [upload, dispatch, readback] = self.detail.map(|d| ms(d, self.detail_steps));
                let _ = write!(
                    line,
                    " (upload {upload:.2}, dispatch {dispatch:.2}, readback {readback:.2}"
                );
                // The kernel alone, from timestamp queries, where the device has them.
                if self.kernel_steps > 0 {
                    let kernel = ms(self.kernel, self.kernel_steps);
                    let _ = write!(line, "; kernel {kernel:.2}");
                }
                line.push(')');
            }
            let _ = write!(
                line,
                ", solver {:.2} ms, continuous {:.2} ms ({} swept)",
                ms(self.solver, self.steps),
                ms(self.continuous, self.steps),
                self.last.swept_bodies
            );
        }
        let _ = write!(line, " | {} | {}", sim.backend_label(), adapter.name);
        if adapter.software {
            line.push_str(" | software adapter: GPU times are CPU times");
        }
        if sim.paused {
            line.push_str(" | PAUSED");
        }
        line
    }
}

/// The adapter as the statistics name it.
pub struct AdapterLabel {
    pub name: String,
    /// A CPU implementation (such as lavapipe): its "GPU" time is CPU time.
    pub software: bool,
}

impl AdapterLabel {
    pub fn of(device: Option<&wgpu::Device>) -> AdapterLabel {
        match device {
            Some(device) => {
                let info = device.adapter_info();
                AdapterLabel {
                    software: info.device_type == wgpu::DeviceType::Cpu,
                    name: format!("{} ({:?})", info.name, info.backend),
                }
            }
            None => AdapterLabel {
                name: "no adapter".into(),
                software: false,
            },
        }
    }
}

/// The last step's events: contacts begun, ended, hits, sensor entries and exits.
fn event_counts(world: &World) -> [usize; 5] {
    let events = world.events();
    [
        events.contact_begin.len(),
        events.contact_end.len(),
        events.contact_hit.len(),
        events.sensor_begin.len(),
        events.sensor_end.len(),
    ]
}
