//! Rollback, in miniature: the way a networked game predicts and corrects.
//!
//! Two players push their own body with impulses. Their inputs reach this peer late, from 0 to
//! `--max-delay` frames after the frame they belong to. The peer does not wait: each frame it
//! steps with the inputs it has (a prediction), after keeping a snapshot of the frame's start.
//! When an input arrives for a frame already stepped, it restores that frame's snapshot and
//! re-simulates to the present with every input it now knows. A second world gets every input
//! on time. At the end the two must have the same state hash: the restored world went on
//! exactly as the original would have, bit for bit, or the example fails.
//!
//! ```text
//! cargo run --release --example rollback                 # 1,000 bodies, 600 frames, inputs up to 8 frames late
//! cargo run --release --example rollback -- --frames 240 # what CI runs
//! ```
//!
//! It prints how often the peer rolled back, how many frames it re-simulated, and the cost
//! of one rollback of 8 frames (restore a snapshot, step 8 frames) against 8 plain steps.

use std::collections::VecDeque;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyId, Capsule, CpuNarrowPhase, World, scenes};

/// The example's errors: the crate's, or a rollback past the snapshots kept.
type Error = Box<dyn std::error::Error>;

const DT: f32 = 1.0 / 60.0;
/// How far back a rollback is timed on its own (the issue's measure: 8 frames).
const TIMED_ROLLBACK: usize = 8;

#[derive(Parser)]
#[command(
    about = "Predict, roll back on late inputs and re-simulate; end where on-time inputs end"
)]
struct Args {
    /// Bodies in the pile the players push through.
    #[arg(long, default_value_t = 1_000)]
    bodies: usize,
    /// Frames to simulate.
    #[arg(long, default_value_t = 600)]
    frames: usize,
    /// The latest an input may arrive, in frames after its own.
    #[arg(long, default_value_t = 8)]
    max_delay: usize,
    /// Seed of the pile and of the inputs' schedule.
    #[arg(long, default_value_t = 5)]
    seed: u64,
}

/// One player's push: an impulse on their body at the start of `frame`, known to the peer
/// from `arrives` on.
#[derive(Clone, Copy, Debug)]
struct Input {
    frame: usize,
    arrives: usize,
    player: usize,
    impulse: Vec2,
}

/// A small deterministic generator for the schedule (the same inputs on every run and
/// machine): SplitMix64.
struct Schedule(u64);

impl Schedule {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every input of the run: each player pushes on about one frame in six, sideways and up,
/// and each push arrives 0 to `max_delay` frames late (by the last frame at the latest).
fn inputs(args: &Args) -> Vec<Input> {
    let mut schedule = Schedule(args.seed);
    let mut out = Vec::new();
    for frame in 0..args.frames {
        for player in 0..2 {
            if schedule.below(6) != 0 {
                continue;
            }
            let side = if schedule.below(2) == 0 { -1.0 } else { 1.0 };
            let impulse = Vec2::new(side * 6.0, 4.0 + schedule.below(4) as f32);
            // Every input has arrived by the last frame, so that both worlds end on the
            // same inputs.
            let arrives = (frame + schedule.below(args.max_delay + 1)).min(args.frames - 1);
            out.push(Input {
                frame,
                arrives,
                player,
                impulse,
            });
        }
    }
    out
}

/// The pile with the two players' bodies (capsules) standing on it.
fn world(args: &Args) -> Result<(World, [BodyId; 2]), Error> {
    let mut world = scenes::pile(args.bodies, args.seed);
    let width = scenes::pile_width(args.bodies);
    let capsule = Capsule::new(Vec2::new(0.0, -0.4), Vec2::new(0.0, 0.4), 0.3)?;
    let top = 1.5 * width;
    let mut player = |k: usize| {
        let x = (k as f32 - 0.5) * 0.5 * width;
        world.add_body(&BodyDef::dynamic(capsule, Vec2::new(x, top)))
    };
    let players = [player(0)?, player(1)?];
    Ok((world, players))
}

/// Applies the inputs of `frame` that `known` holds.
fn apply(
    world: &mut World,
    players: &[BodyId; 2],
    known: &[Input],
    frame: usize,
) -> Result<(), Error> {
    for input in known.iter().filter(|i| i.frame == frame) {
        world.apply_linear_impulse_to_center(players[input.player], input.impulse)?;
    }
    Ok(())
}

/// What the peer did.
#[derive(Default)]
struct Tally {
    rollbacks: usize,
    resimulated: usize,
    deepest: usize,
    snapshot_bytes: usize,
    writing: Duration,
    reading: Duration,
}

/// The peer: predicts with the inputs it has, rolls back on late ones.
fn predicting_peer(args: &Args, all: &[Input]) -> Result<(World, Tally), Error> {
    let (mut world, players) = world(args)?;
    let mut narrow = CpuNarrowPhase::new();
    let mut known: Vec<Input> = Vec::new();
    // The snapshot of each of the last max_delay + 1 frames' start, oldest first.
    let mut kept: VecDeque<(usize, Vec<u8>)> = VecDeque::new();
    let mut tally = Tally::default();
    for frame in 0..args.frames {
        let arriving: Vec<Input> = all.iter().filter(|i| i.arrives == frame).copied().collect();
        let late = arriving
            .iter()
            .map(|i| i.frame)
            .filter(|&f| f < frame)
            .min();
        known.extend(arriving);
        if let Some(from) = late {
            // Back to the start of the late input's frame, then forward again to this one,
            // keeping fresh snapshots of the frames re-simulated (the old ones predicted
            // without the input).
            let Some(at) = kept.iter().position(|(f, _)| *f == from) else {
                return Err(format!(
                    "no snapshot of frame {from} (inputs later than --max-delay?)"
                )
                .into());
            };
            let started = Instant::now();
            // Into the world's own memory: no fresh allocation at each rollback.
            world.restore_snapshot(&kept[at].1)?;
            tally.reading += started.elapsed();
            kept.truncate(at);
            tally.rollbacks += 1;
            tally.resimulated += frame - from;
            tally.deepest = tally.deepest.max(frame - from);
            for past in from..frame {
                keep(&mut kept, &world, past, args.max_delay, &mut tally);
                apply(&mut world, &players, &known, past)?;
                world.step(DT, &mut narrow)?;
            }
        }
        keep(&mut kept, &world, frame, args.max_delay, &mut tally);
        apply(&mut world, &players, &known, frame)?;
        world.step(DT, &mut narrow)?;
    }
    Ok((world, tally))
}

/// Keeps the snapshot of `frame`'s start, dropping those too old for any input to reach.
fn keep(
    kept: &mut VecDeque<(usize, Vec<u8>)>,
    world: &World,
    frame: usize,
    max_delay: usize,
    tally: &mut Tally,
) {
    let started = Instant::now();
    let bytes = world.snapshot();
    tally.writing += started.elapsed();
    tally.snapshot_bytes = tally.snapshot_bytes.max(bytes.len());
    kept.push_back((frame, bytes));
    while kept.len() > max_delay + 1 {
        kept.pop_front();
    }
}

/// The world that got every input on its frame.
fn on_time(args: &Args, all: &[Input]) -> Result<World, Error> {
    let (mut world, players) = world(args)?;
    let mut narrow = CpuNarrowPhase::new();
    for frame in 0..args.frames {
        apply(&mut world, &players, all, frame)?;
        world.step(DT, &mut narrow)?;
    }
    Ok(world)
}

/// One rollback of `TIMED_ROLLBACK` frames on the settled world, against as many plain steps:
/// (restore and re-simulate, plain steps), the median of several tries.
fn rollback_cost(mut world: World) -> Result<(Duration, Duration), Error> {
    let mut narrow = CpuNarrowPhase::new();
    let (mut rolled, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let snapshot = world.snapshot();
        let started = Instant::now();
        for _ in 0..TIMED_ROLLBACK {
            world.step(DT, &mut narrow)?;
        }
        plain.push(started.elapsed());
        let started = Instant::now();
        world.restore_snapshot(&snapshot)?;
        for _ in 0..TIMED_ROLLBACK {
            world.step(DT, &mut narrow)?;
        }
        rolled.push(started.elapsed());
    }
    rolled.sort();
    plain.sort();
    Ok((rolled[2], plain[2]))
}

fn run(args: &Args) -> Result<bool, Error> {
    let all = inputs(args);
    let late = all.iter().filter(|i| i.arrives > i.frame).count();
    println!(
        "rollback: {} bodies, {} frames, {} inputs ({} late, up to {} frames)",
        args.bodies + 2,
        args.frames,
        all.len(),
        late,
        args.max_delay
    );
    let reference = on_time(args, &all)?;
    let (peer, tally) = predicting_peer(args, &all)?;
    let per = |d: Duration, n: usize| d.as_secs_f64() * 1e3 / n.max(1) as f64;
    println!(
        "peer: {} rollbacks, {} frames re-simulated (deepest {}); snapshot {} bytes ({:.1} per body), \
         write {:.3} ms, read {:.3} ms on average",
        tally.rollbacks,
        tally.resimulated,
        tally.deepest,
        tally.snapshot_bytes,
        tally.snapshot_bytes as f64 / (args.bodies + 2) as f64,
        per(tally.writing, args.frames + tally.resimulated),
        per(tally.reading, tally.rollbacks),
    );
    let (ours, theirs) = (peer.state_hash(), reference.state_hash());
    let (rolled, plain) = rollback_cost(peer)?;
    println!(
        "one rollback of {TIMED_ROLLBACK} frames: {:.2} ms (restore + {TIMED_ROLLBACK} steps) against {:.2} ms for {TIMED_ROLLBACK} plain steps ({:.2}x)",
        rolled.as_secs_f64() * 1e3,
        plain.as_secs_f64() * 1e3,
        rolled.as_secs_f64() / plain.as_secs_f64()
    );
    println!("state hash: peer {ours:016x}, on-time world {theirs:016x}");
    Ok(ours == theirs)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => {
            println!("the peer that rolled back ends in the on-time world's state");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("the peer's state differs from the on-time world's");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("rollback: {e}");
            ExitCode::FAILURE
        }
    }
}
