//! Fuzz harness: drives the public API with arbitrary, hostile input and checks that nothing
//! panics and every answer keeps the crate's promises.
//!
//! ```text
//! cargo run --example fuzz -- --inputs 10000000          # the full run
//! cargo run --example fuzz -- --inputs 3000000 --seed 2  # CI's slice (another stream)
//! cargo run --example fuzz -- --target collide --inputs 100000 --seed 7
//! cargo run --example fuzz -- --replay world:1:12345     # one input again, printed
//! ```
//!
//! Run it in the dev profile (no `--release`): the dev profile is optimised (opt-level 2)
//! and keeps overflow checks and debug assertions on, so an integer overflow counts as a
//! panic here. On a failure the harness prints the target, seed and input index with the
//! input itself, keeps going, and exits non-zero at the end; `--replay TARGET:SEED:INDEX`
//! rebuilds that one input, prints it with `Debug` and runs it without catching the panic
//! (set `RUST_BACKTRACE=1` for a backtrace).
//!
//! Why a driver of our own on the `arbitrary` crate rather than `cargo fuzz`: cargo fuzz
//! runs libFuzzer, which needs nightly's `-Z sanitizer` flags, and the machines this crate
//! is built and checked on have the stable toolchain only. The targets are written the way
//! a libFuzzer target is (an `arbitrary::Unstructured` in, invariants checked), so they
//! would move to cargo fuzz unchanged; what this driver gives up is coverage guidance, and
//! it makes up for it with generators that make hostile values common (see `hostile.rs`) and
//! with volume. Each input's bytes come from ChaCha8 keyed by (seed, target, index), so an
//! input is reproducible from those three numbers alone, on any number of threads.
//!
//! Targets (see each module): `shapes` (constructors and decomposition), `collide` (pair
//! tests and time of impact), `batch` (CPU narrow phases and the time-of-impact batch),
//! `gpu` (the GPU narrow phase and time of impact against the CPU; skipped without an
//! adapter unless `WGPU_SAT_REQUIRE_GPU=1`), `world` (sequences of calls on a `World`,
//! removals and stale handles among them), `snapshot` (`World::from_snapshot` on mutated real
//! snapshots), `roundtrip` (worlds built and stepped with hostile values read their own
//! snapshots back).

mod batch;
mod collide;
mod gpu;
mod hostile;
mod inputs;
// The tally and the kind names are the property test's (tests/cpu/snapshot_roundtrip.rs).
#[allow(dead_code)]
mod roundtrip;
mod shapes;
mod snapshot;
mod world;
mod world_model;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use clap::Parser;
use rayon::prelude::*;

#[derive(Parser)]
#[command(
    about = "Fuzz the public API with hostile input; exits non-zero on any panic or broken invariant"
)]
struct Args {
    /// Inputs in total, split between the targets by their weights (a world sequence costs
    /// far more than a pair test).
    #[arg(long, default_value_t = 100_000)]
    inputs: u64,
    /// Seed of the input stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run this target only, with all the inputs.
    #[arg(long)]
    target: Option<String>,
    /// Re-run one input, `TARGET:SEED:INDEX` as a failure report prints it, and print it.
    #[arg(long)]
    replay: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Failures printed in full per target; the rest are counted.
    #[arg(long, default_value_t = 3)]
    show: usize,
}

/// One fuzz target: how to make an input from bytes, and how to check it.
pub trait Target: Sync {
    type Input: Debug;
    /// The target's name on the command line and in the table.
    fn name(&self) -> &'static str;
    /// Share of the inputs, relative to the other targets.
    fn weight(&self) -> u64;
    /// Whether inputs may run on several threads at once (the GPU target holds one device).
    fn parallel(&self) -> bool {
        true
    }
    fn generate(&self, u: &mut Unstructured) -> arbitrary::Result<Self::Input>;
    /// `Err` names a broken invariant; a panic is caught by the driver.
    fn check(&self, input: &Self::Input) -> Result<(), String>;
}

/// A failed input.
struct Failure {
    index: u64,
    /// The panic message and place, or the broken invariant.
    message: String,
    input: String,
}

#[derive(Default)]
struct Tally {
    inputs: AtomicU64,
    panics: AtomicU64,
    violations: AtomicU64,
    /// Inputs whose bytes could not be made into an input (counted, not run).
    unusable: AtomicU64,
    /// The first failures found, with their inputs.
    failures: Mutex<Vec<Failure>>,
    /// Every failure, grouped by [`signature`]: how many, and the smallest input index.
    kinds: Mutex<BTreeMap<String, (u64, u64)>>,
}

/// Failures kept with their input text; the rest are only counted by kind.
const KEPT_FAILURES: usize = 64;

thread_local! {
    /// The message of the last panic on this thread, recorded by the hook instead of
    /// printed, so that a run that finds many panics prints each one once, with its input.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn quiet_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(non-string payload)".into());
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panic at {place}: {payload}")));
    }));
}

/// What the driver needs of a target, whatever its input type.
trait Runner: Sync {
    fn name(&self) -> &'static str;
    fn weight(&self) -> u64;
    fn run(&self, seed: u64, range: std::ops::Range<u64>, tally: &Tally, threads: usize);
    fn replay(&self, seed: u64, index: u64) -> Result<(), String>;
}

impl<T: Target> Runner for T {
    fn name(&self) -> &'static str {
        Target::name(self)
    }

    fn weight(&self) -> u64 {
        Target::weight(self)
    }

    fn run(&self, seed: u64, range: std::ops::Range<u64>, tally: &Tally, threads: usize) {
        let one = |index: u64, buffer: &mut Vec<u8>| {
            inputs::input_bytes(seed, self.name(), index, buffer);
            let mut u = Unstructured::new(buffer);
            let Ok(input) = self.generate(&mut u) else {
                tally.unusable.fetch_add(1, Ordering::Relaxed);
                return;
            };
            tally.inputs.fetch_add(1, Ordering::Relaxed);
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| self.check(&input)));
            let message = match outcome {
                Ok(Ok(())) => return,
                Ok(Err(violation)) => {
                    tally.violations.fetch_add(1, Ordering::Relaxed);
                    format!("invariant broken: {violation}")
                }
                Err(_) => {
                    tally.panics.fetch_add(1, Ordering::Relaxed);
                    LAST_PANIC
                        .with(|p| p.borrow_mut().take())
                        .unwrap_or_else(|| "panic (no message)".into())
                }
            };
            {
                let mut kinds = tally.kinds.lock().unwrap();
                let kind = kinds.entry(signature(&message)).or_insert((0, index));
                kind.0 += 1;
                kind.1 = kind.1.min(index);
            }
            // Keep the first few whole: a broken invariant can fail millions of inputs.
            let mut failures = tally.failures.lock().unwrap();
            if failures.len() < KEPT_FAILURES {
                failures.push(Failure {
                    index,
                    message,
                    input: format!("{input:#?}"),
                });
            }
        };
        if self.parallel() && threads > 1 {
            // Chunks of consecutive indices, one buffer per chunk.
            let chunk = 256;
            let starts: Vec<u64> = range.clone().step_by(chunk).collect();
            starts.into_par_iter().for_each(|start| {
                let mut buffer = Vec::new();
                for index in start..(start + chunk as u64).min(range.end) {
                    one(index, &mut buffer);
                }
            });
        } else {
            let mut buffer = Vec::new();
            for index in range {
                one(index, &mut buffer);
            }
        }
    }

    fn replay(&self, seed: u64, index: u64) -> Result<(), String> {
        let mut buffer = Vec::new();
        inputs::input_bytes(seed, self.name(), index, &mut buffer);
        let mut u = Unstructured::new(&buffer);
        let input = self
            .generate(&mut u)
            .map_err(|e| format!("the bytes make no input: {e}"))?;
        println!("{}:{seed}:{index} input:\n{input:#?}", self.name());
        // Not caught: the default hook prints the panic (and a backtrace when asked).
        self.check(&input)
    }
}

/// The `roundtrip` target. Its module holds no `Target` impl of its own: the property test
/// `tests/cpu/snapshot_roundtrip.rs` includes that module without this driver.
struct RoundTrip;

impl Target for RoundTrip {
    type Input = roundtrip::RoundTripInput;

    fn name(&self) -> &'static str {
        "roundtrip"
    }

    fn weight(&self) -> u64 {
        // Up to 53 calls of small worlds, each call compared by snapshot, and round trips that
        // step two worlds: some thirty times a pair test (3 million inputs in all give it
        // 85,000, about 10 s on two cores).
        3
    }

    fn generate(&self, u: &mut Unstructured) -> arbitrary::Result<Self::Input> {
        roundtrip::generate(u)
    }

    fn check(&self, input: &Self::Input) -> Result<(), String> {
        roundtrip::check(input).map(|_| ())
    }
}

/// The kind of a failure, for grouping: a panic's place and the words of its message, or
/// the words of a broken invariant, up to the first number or value, so that the same
/// broken rule with other numbers counts once.
fn signature(message: &str) -> String {
    let first_line = message.lines().next().unwrap_or("");
    let (place, rest) = match first_line.strip_prefix("panic at ") {
        Some(rest) => match rest.split_once(": ") {
            Some((place, text)) => (format!("panic at {place}: "), text),
            None => (String::new(), first_line),
        },
        None => (String::new(), first_line),
    };
    let words: String = rest
        .chars()
        .take_while(|c| !c.is_ascii_digit() && !"({[-".contains(*c))
        .collect();
    format!("{place}{}", words.trim_end())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .expect("the global thread pool is built once");

    let gpu = gpu::GpuTarget::new();
    let targets: Vec<&dyn Runner> = vec![
        &shapes::Shapes,
        &collide::Collide,
        &batch::Batch,
        &world::WorldTarget,
        &snapshot::SnapshotTarget,
        &RoundTrip,
        &gpu,
    ];

    if let Some(spec) = &args.replay {
        let parts: Vec<&str> = spec.split(':').collect();
        let [name, seed, index] = parts[..] else {
            eprintln!("--replay takes TARGET:SEED:INDEX, got {spec}");
            return ExitCode::FAILURE;
        };
        let (Ok(seed), Ok(index)) = (seed.parse(), index.parse()) else {
            eprintln!("--replay: SEED and INDEX are integers, got {spec}");
            return ExitCode::FAILURE;
        };
        let Some(target) = targets.iter().find(|t| t.name() == name) else {
            eprintln!("no target named {name}");
            return ExitCode::FAILURE;
        };
        return match target.replay(seed, index) {
            Ok(()) => {
                println!("passed");
                ExitCode::SUCCESS
            }
            Err(e) => {
                println!("invariant broken: {e}");
                ExitCode::FAILURE
            }
        };
    }

    let chosen: Vec<&dyn Runner> = match &args.target {
        Some(name) => match targets.iter().find(|t| t.name() == name) {
            Some(t) => vec![*t],
            None => {
                let names: Vec<_> = targets.iter().map(|t| t.name()).collect();
                eprintln!("no target named {name}; targets: {}", names.join(", "));
                return ExitCode::FAILURE;
            }
        },
        None => targets.clone(),
    };
    let total_weight: u64 = chosen.iter().map(|t| t.weight()).sum();
    let mut shares: Vec<u64> = chosen
        .iter()
        .map(|t| {
            (u128::from(args.inputs) * u128::from(t.weight()) / u128::from(total_weight)) as u64
        })
        .collect();
    // The remainder of the division goes to the first target, so the total is exact.
    shares[0] += args.inputs - shares.iter().sum::<u64>();

    quiet_panic_hook();
    println!(
        "fuzz: {} inputs, seed {}, {threads} threads{}",
        args.inputs,
        args.seed,
        if cfg!(debug_assertions) {
            ", overflow checks on"
        } else {
            " (release build: integer overflow is NOT checked; run without --release)"
        }
    );
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut failed = false;
    for (target, &share) in chosen.iter().zip(&shares) {
        let tally = Tally::default();
        let begin = Instant::now();
        if target.name() == "gpu" && share > 0 && !gpu.available() {
            println!("gpu: SKIPPED ({})", gpu.skip_reason());
            if gpu.required() {
                println!("gpu: WGPU_SAT_REQUIRE_GPU=1, so a missing adapter is a failure");
                failed = true;
            }
            rows.push((target.name(), tally, Duration::ZERO));
            continue;
        }
        target.run(args.seed, 0..share, &tally, threads);
        let elapsed = begin.elapsed();
        report(target.name(), args.seed, &tally, args.show);
        failed |=
            tally.panics.load(Ordering::Relaxed) + tally.violations.load(Ordering::Relaxed) > 0;
        rows.push((target.name(), tally, elapsed));
    }

    println!();
    println!(
        "{:<8} {:>12} {:>8} {:>10} {:>9} {:>10}",
        "target", "inputs", "panics", "violations", "unusable", "seconds"
    );
    let (mut inputs, mut panics, mut violations) = (0, 0, 0);
    for (name, tally, elapsed) in &rows {
        let i = tally.inputs.load(Ordering::Relaxed);
        let p = tally.panics.load(Ordering::Relaxed);
        let v = tally.violations.load(Ordering::Relaxed);
        inputs += i;
        panics += p;
        violations += v;
        println!(
            "{name:<8} {i:>12} {p:>8} {v:>10} {:>9} {:>10.1}",
            tally.unusable.load(Ordering::Relaxed),
            elapsed.as_secs_f64()
        );
    }
    println!(
        "{:<8} {inputs:>12} {panics:>8} {violations:>10} {:>9} {:>10.1}",
        "total",
        "",
        started.elapsed().as_secs_f64()
    );
    if failed {
        println!("FAILED");
        ExitCode::FAILURE
    } else {
        println!("passed");
        ExitCode::SUCCESS
    }
}

/// Prints a target's failures: the first `show` in full, then one line per kind.
fn report(name: &str, seed: u64, tally: &Tally, show: usize) {
    let mut failures = tally.failures.lock().unwrap();
    if failures.is_empty() {
        return;
    }
    failures.sort_by_key(|f| f.index);
    let kinds = tally.kinds.lock().unwrap();
    let count: u64 = kinds.values().map(|k| k.0).sum();
    println!("\n=== {name}: {count} failing inputs ===");
    for f in failures.iter().take(show) {
        println!(
            "--- replay: cargo run --example fuzz -- --replay {name}:{seed}:{}",
            f.index
        );
        println!("{}", f.message);
        let text: String = f.input.chars().take(4000).collect();
        println!(
            "input: {text}{}",
            if text.len() < f.input.len() {
                "\n..."
            } else {
                ""
            }
        );
    }
    println!("--- {name}: failures by kind (count, first replay):");
    for (kind, (count, first)) in kinds.iter() {
        println!("{count:>9}  --replay {name}:{seed}:{first}  {kind}");
    }
}
