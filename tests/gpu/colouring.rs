//! The GPU's constraint colouring (`gpu::GpuColouring`, `shaders/colouring.wgsl`) against
//! its CPU twin (`dynamics::ConstraintColouring`, the world's own colouring): the same colour
//! for every constraint, step after step, on walls of boxes whose contacts come and go,
//! whose bodies fall asleep and wake in patches, with joints, a body in more constraints
//! than there are colours, and steps that repeat the last; with no parallel round at all
//! (the finishers colour everything, a chunk a dispatch), with the default rounds, and with
//! one round; the shuffle's draws against SplitMix64; bad input
//! refused with the twin's error and the last step kept; an empty step. The solve order
//! (the constraints sorted by colour on the device) is the twin's too.

use crate::common;

use rand::Rng;
use rand::seq::SliceRandom;
use wgpu_sat::Error;
use wgpu_sat::dynamics::{COLOURS, ConstraintColouring, ContactKey, JointKey, LEFT_OUT, OVERFLOW};
use wgpu_sat::error::BatchError;
use wgpu_sat::gpu::{DEFAULT_ROUNDS, GpuColouring};

/// A step's constraints: contacts (keys ascending), joints (slots ascending), moving bodies.
#[derive(Clone)]
struct Step {
    contacts: Vec<ContactKey>,
    joints: Vec<JointKey>,
    moving: Vec<bool>,
}

/// A wall of `rows` x `columns` boxes on a ground of `columns` static colliders (body 0),
/// each box touching its right and upper neighbours (two contacts, through two colliders,
/// for every third pair) and the ground under the bottom row; body 1 is a hub touching 40
/// boxes. Colliders: 0..columns the ground's, then two per box.
struct Wall {
    rows: usize,
    columns: usize,
}

impl Wall {
    fn bodies(&self) -> usize {
        2 + self.rows * self.columns
    }

    fn body(&self, row: usize, column: usize) -> u32 {
        (2 + row * self.columns + column) as u32
    }

    fn collider(&self, body: u32, second: bool) -> u32 {
        (self.columns + 2 * body as usize + usize::from(second)) as u32
    }

    /// Every contact the wall can have, as (key, bodies), keys ascending.
    fn all_contacts(&self) -> Vec<ContactKey> {
        let mut contacts = Vec::new();
        let mut touch = |a: u32, b: u32, twice: bool| {
            contacts.push(([self.collider(a, false), self.collider(b, false)], [a, b]));
            if twice {
                contacts.push(([self.collider(a, true), self.collider(b, true)], [a, b]));
            }
        };
        for row in 0..self.rows {
            for column in 0..self.columns {
                let body = self.body(row, column);
                if column + 1 < self.columns {
                    touch(body, self.body(row, column + 1), (row + column) % 3 == 0);
                }
                if row + 1 < self.rows {
                    touch(body, self.body(row + 1, column), (row * column) % 3 == 1);
                }
            }
        }
        for k in 0..40 {
            let body = self.body(k % self.rows, (7 * k) % self.columns);
            contacts.push((
                [self.collider(1, false), self.collider(body, true)],
                [1, body],
            ));
        }
        for column in 0..self.columns {
            let body = self.body(0, column);
            contacts.push(([column as u32, self.collider(body, false)], [0, body]));
        }
        contacts.sort_unstable();
        contacts.dedup_by_key(|c| c.0);
        contacts
    }
}

/// `steps` steps of a wall whose contacts come and go, whose bodies sleep and wake in
/// patches, with joints added and removed, and every fifth step the last one again.
fn wall_steps(seed: u64, wall: &Wall, steps: usize) -> Vec<Step> {
    let mut rng = common::rng(seed);
    let all = wall.all_contacts();
    let bodies = wall.bodies();
    let mut present: Vec<bool> = all.iter().map(|_| rng.random_bool(0.7)).collect();
    let mut moving: Vec<bool> = (0..bodies).map(|b| b != 0).collect();
    let mut joints: Vec<JointKey> = Vec::new();
    let mut out: Vec<Step> = Vec::new();
    for step in 0..steps {
        if step > 0 && step % 5 == 0 {
            let last = out[step - 1].clone();
            out.push(last);
            continue;
        }
        for p in &mut present {
            if rng.random_bool(0.05) {
                *p = !*p;
            }
        }
        // A patch of bodies falls asleep, or wakes.
        let centre = rng.random_range(2..bodies);
        let awake = rng.random_bool(0.5);
        let patch = centre.saturating_sub(30).max(2)..(centre + 30).min(bodies);
        moving[patch].fill(awake);
        if rng.random_bool(0.4) {
            let slot = rng.random_range(0..200);
            let a = rng.random_range(0..bodies as u32);
            let b = rng.random_range(0..bodies as u32);
            match joints.iter().position(|j| j.0 == slot) {
                Some(at) => {
                    joints.remove(at);
                }
                None => {
                    joints.push((slot, [a, b]));
                    joints.sort_unstable();
                }
            }
        }
        out.push(Step {
            contacts: all
                .iter()
                .zip(&present)
                .filter(|(_, p)| **p)
                .map(|(c, _)| *c)
                .collect(),
            joints: joints.clone(),
            moving: moving.clone(),
        });
    }
    out
}

/// Colours `steps` on the CPU twin and on the GPU with `rounds`, step by step, and asserts
/// every colour equal. Returns the steps whose finishers had work, and the colours seen.
fn compare(
    gpu: &mut GpuColouring,
    steps: &[Step],
    rounds: [u32; 2],
) -> (Vec<[bool; 2]>, [usize; 3]) {
    gpu.set_rounds(rounds);
    let mut cpu = ConstraintColouring::new();
    let mut finished = Vec::new();
    // Colours below COLOURS, overflows, left out.
    let mut seen = [0; 3];
    for (k, step) in steps.iter().enumerate() {
        cpu.colour(&step.contacts, &step.joints, &step.moving)
            .expect("the twin colours the step");
        gpu.colour(&step.contacts, &step.joints, &step.moving)
            .expect("the GPU colours the step");
        let read = gpu.read_colours().expect("the colours come back");
        let expected = cpu.colours();
        assert_eq!(read.colours.len(), expected.len(), "step {k}");
        if let Some(i) = (0..expected.len()).find(|&i| read.colours[i] != expected[i]) {
            panic!(
                "step {k} (rounds {rounds:?}): constraint {i} of {} is coloured {} on the GPU, \
                 {} on the CPU",
                expected.len(),
                read.colours[i],
                expected[i]
            );
        }
        assert_eq!(read.order, cpu.order(), "step {k}: the solve order");
        assert_eq!(read.ranges, cpu.ranges(), "step {k}: the colour ranges");
        assert_eq!(
            read.joint_order,
            cpu.joint_order(),
            "step {k}: the joint order"
        );
        for &c in expected {
            let kind = match c {
                c if (c as usize) < COLOURS => 0,
                OVERFLOW => 1,
                _ => 2,
            };
            seen[kind] += 1;
        }
        finished.push(read.finished_serially);
    }
    (finished, seen)
}

#[test]
fn gpu_colours_equal_the_cpu_twins_step_after_step() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    // 17,000 constraints: with no rounds, the finishers' walks are longer than llvmpipe
    // lets one invocation's loops run (65,535 iterations), so they must go a chunk a
    // dispatch (see gpu/world/colouring/).
    let wall = Wall {
        rows: 100,
        columns: 100,
    };
    let steps = wall_steps(0xc01, &wall, 30);
    for rounds in [[0, 0], [1, 1], DEFAULT_ROUNDS] {
        let mut gpu = GpuColouring::new(&device, &queue);
        let (finished, seen) = compare(&mut gpu, &steps, rounds);
        // The scene exercises every kind of colour.
        assert!(seen.iter().all(|&n| n > 0), "colours seen {seen:?}");
        match rounds {
            [0, 0] => assert!(
                finished
                    .iter()
                    .all(|f| *f == [true, true] || *f == [false, true])
            ),
            [1, 1] => assert!(
                finished.iter().any(|f| f[1]),
                "one round decides everything?"
            ),
            _ => {
                let serial = finished.iter().filter(|f| f[1]).count();
                println!(
                    "default rounds: the fresh finisher had work in {serial} of {} steps",
                    finished.len()
                );
            }
        }
    }
}

#[test]
fn many_random_walls_colour_alike() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuColouring::new(&device, &queue);
    for seed in 0..6u64 {
        let mut rng = common::rng(seed);
        let wall = Wall {
            rows: rng.random_range(1..30),
            columns: rng.random_range(1..50),
        };
        let mut steps = wall_steps(seed, &wall, 12);
        // Constraints listed in a shuffled-then-sorted order are still sorted: shuffle the
        // joints' bodies instead, for variety.
        for step in &mut steps {
            step.joints.shuffle(&mut rng);
            step.joints.sort_unstable();
        }
        // A fresh GPU colouring per wall: the CPU twin in `compare` starts fresh too.
        gpu = GpuColouring::new(&device, &queue);
        compare(&mut gpu, &steps, DEFAULT_ROUNDS);
    }
    drop(gpu);
}

#[test]
fn bad_input_is_refused_as_the_twin_refuses_it_and_the_last_step_kept() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let wall = Wall {
        rows: 10,
        columns: 10,
    };
    let steps = wall_steps(7, &wall, 3);
    let mut gpu = GpuColouring::new(&device, &queue);
    let mut cpu = ConstraintColouring::new();
    let step = &steps[0];
    cpu.colour(&step.contacts, &step.joints, &step.moving)
        .unwrap();
    gpu.colour(&step.contacts, &step.joints, &step.moving)
        .unwrap();

    let mut unsorted = step.contacts.clone();
    unsorted.swap(3, 4);
    let mut reserved = step.contacts.clone();
    reserved.push(([u32::MAX, 0], [2, 3]));
    let mut far = step.contacts.clone();
    far[5].1[1] = 5000;
    let joints_down = vec![(9, [2, 3]), (4, [3, 4])];
    let cases: [(&[ContactKey], &[JointKey], &str); 4] = [
        (&unsorted, &[], "unsorted"),
        (&reserved, &[], "reserved"),
        (&far, &[], "far"),
        (&step.contacts, &joints_down, "joints down"),
    ];
    for (contacts, joints, what) in cases {
        let on_cpu = cpu.colour(contacts, joints, &step.moving).unwrap_err();
        let on_gpu = gpu.colour(contacts, joints, &step.moving).unwrap_err();
        assert_eq!(on_cpu.to_string(), on_gpu.to_string(), "{what}");
        let expected = match what {
            "unsorted" => BatchError::UnsortedConstraint { index: 4 },
            "reserved" => BatchError::UnsortedConstraint {
                index: step.contacts.len(),
            },
            "far" => BatchError::ConstraintBodyOutOfRange {
                constraint: 5,
                body: 5000,
                body_count: wall.bodies(),
            },
            _ => BatchError::UnsortedConstraint {
                index: step.contacts.len() + 1,
            },
        };
        assert!(
            matches!(&on_gpu, Error::Batch(e) if e.to_string() == expected.to_string()),
            "{what}: {on_gpu}"
        );
    }
    // The refused calls changed nothing: the next step's colours still agree.
    let step = &steps[1];
    cpu.colour(&step.contacts, &step.joints, &step.moving)
        .unwrap();
    gpu.colour(&step.contacts, &step.joints, &step.moving)
        .unwrap();
    assert_eq!(gpu.read_colours().unwrap().colours, cpu.colours());

    // An empty step, then the first again: every constraint new.
    cpu.colour(&[], &[], &step.moving).unwrap();
    gpu.colour(&[], &[], &step.moving).unwrap();
    assert!(gpu.read_colours().unwrap().colours.is_empty());
    cpu.colour(&step.contacts, &step.joints, &step.moving)
        .unwrap();
    gpu.colour(&step.contacts, &step.joints, &step.moving)
        .unwrap();
    let colours = gpu.read_colours().unwrap().colours;
    assert_eq!(colours, cpu.colours());
    assert!(colours.iter().any(|&c| c != LEFT_OUT));
    assert_eq!(gpu.read_colours().unwrap().order, cpu.order());
}

/// A probe entry point over the colouring's module: `draw(k)` of each input position.
const DRAW_PROBE: &str = "
@group(1) @binding(0) var<storage, read> probe_in: array<u32>;
@group(1) @binding(1) var<storage, read_write> probe_out: array<u32>;

@compute @workgroup_size(64)
fn draw_probe(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&probe_in) {
        probe_out[id.x] = draw(probe_in[id.x]);
    }
}
";

/// The shuffle's draws, `k` from 0 up to `u32::MAX - 1`: the GPU's 64-bit arithmetic on
/// pairs of words against SplitMix64 in native `u64` and the 128-bit product the host's
/// shuffle takes its draw from. Small positions are what a step shuffles; large ones are
/// where the product's carry between words is common (rare below a million).
#[test]
fn the_shuffles_draws_are_the_hosts() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    // SplitMix64's output function (Steele, Lea and Flood, 2014), and the draw of
    // colouring.rs's shuffle from it; the seed is colouring.rs's VISIT_SEED (its unit
    // tests hold the WGSL's constant to it).
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let draw = |k: u32| {
        let d = mix(0x5eed_c010_0b1e_u64.wrapping_add(u64::from(k)));
        ((u128::from(d) * (u128::from(k) + 1)) >> 64) as u32
    };
    let mut rng = common::rng(0xd7a3);
    let mut positions: Vec<u32> = (0..50_000).collect();
    positions.extend((0..200_000).map(|_| rng.random_range(0..u32::MAX)));
    positions.extend([u32::MAX - 1, 0x3ff4_f3e1, 0xffff_ffff - 0xc010_0b1e]);
    let got = common::run_probe(
        &device,
        &queue,
        &format!("{}\n{DRAW_PROBE}", wgpu_sat::gpu::COLOURING_WGSL),
        "draw_probe",
        bytemuck::cast_slice(&positions),
        positions.len(),
    );
    let wrong: Vec<_> = positions
        .iter()
        .zip(&got)
        .filter(|&(&k, &g)| draw(k) != g)
        .take(5)
        .map(|(&k, &g)| (k, draw(k), g))
        .collect();
    assert!(wrong.is_empty(), "(position, host, GPU): {wrong:?}");
    // Each draw is within 0..=k.
    assert!(positions.iter().zip(&got).all(|(&k, &g)| g <= k));
}

/// A first step of 84,000 new contacts: their shuffle is more swaps than llvmpipe lets
/// one invocation's loops run, so it goes a chunk a dispatch, and the colours and order
/// are still the twin's.
#[test]
fn a_first_step_of_more_new_contacts_than_one_invocation_loops_over() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let wall = Wall {
        rows: 220,
        columns: 220,
    };
    let steps = wall_steps(0xb16, &wall, 1);
    assert!(
        steps[0].contacts.len() > 65_535,
        "{}",
        steps[0].contacts.len()
    );
    let mut gpu = GpuColouring::new(&device, &queue);
    compare(&mut gpu, &steps, DEFAULT_ROUNDS);
}
