//! The GPU world's colliders placed on the device (`src/gpu/place.rs`): each step's
//! collision stage reads the colliders' poses from the transforms buffer its solver wrote,
//! and computes their boxes there, instead of being sent those of the colliders that
//! moved; and its pair set found there (`src/gpu/world/pairs.rs`). Held against the CPU world's bits and the plain GPU collision stage's uploads,
//! and its safety net (the band entries the device's boxes span) made to catch a
//! transforms buffer that is not the world's.

use crate::common;
use common::state_bits;

use super::gpu_world::gpu_world;
use wgpu_sat::gpu::layout::BodyTransformGpu;
use wgpu_sat::gpu::{GpuCollision, GpuWorld};
use wgpu_sat::{CpuNarrowPhase, World, scenes};

const DT: f32 = 1.0 / 60.0;

/// Where the adapter keeps the CPU's bits, asserts that `b`'s bodies have `a`'s.
fn check_bits(a: &World, b: &World, what: &str, step: usize) {
    if common::adapter_gives_cpu_bits() {
        let (a, b) = (state_bits(a), state_bits(b));
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            panic!(
                "{what}, step {step}, body {i}: {:?} against {:?}",
                a[i], b[i]
            );
        }
    }
}

#[test]
fn a_falling_pile_is_placed_on_the_device_to_the_cpu_bits_and_sends_no_pose() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(1500, 7);
    let colliders = world.colliders().len() as u64;
    let mut cpu = world.clone();
    let mut sent = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut collision = GpuCollision::new(&device, &queue).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut moved_steps = 0;
    for step in 0..40 {
        cpu.step(DT, &mut narrow).unwrap();
        let stats = sent.step_on_gpu(DT, &mut collision).unwrap();
        gpu.step(DT).unwrap();
        moved_steps += u64::from(gpu.stats().proxy_moves > 0);
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
        check_bits(&cpu, &sent, "step_on_gpu", step);
        // After the first step (every collider up, both ways), the stage that is sent the
        // moved colliders sends 48 bytes each (36 when most moved); the placed one none.
        // Both send the sweep's uniforms, and the placed one those of its two dispatches
        // (256 bytes each): at least 32 bytes a collider less while the pile falls.
        let up = |s: &wgpu_sat::StepStats| s.narrow_phase_detail.unwrap().uploaded_bytes;
        let (placed, moved) = (up(gpu.stats()), up(&stats));
        if step > 0 {
            assert!(
                placed + 32 * colliders <= moved,
                "step {step}: {placed} bytes placed, {moved} sent, {colliders} colliders"
            );
        }
    }
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.placement_misses(), 0);
    }
    // Every step's pair set whose fat boxes moved from the device but the first (the host
    // sweeps its own then, which the device's copy becomes).
    assert_eq!(gpu.pair_set_steps(), [moved_steps - 1, 1]);
    assert!(moved_steps > 20, "{moved_steps}");
}

#[test]
fn a_transforms_buffer_a_host_wrote_to_is_caught_and_the_step_keeps_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(300, 3);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..20 {
        if step == 10 {
            // A body's transform scaled a thousandfold: its placed box spans hundreds of
            // bands where the host's spans one or two.
            let body = gpu.read_world().unwrap().bodies().last().unwrap();
            let bad = BodyTransformGpu {
                origin: [0.0, 5.0],
                rotation: [0.0, 1000.0],
            };
            let at = (body.index() * size_of::<BodyTransformGpu>()) as u64;
            queue.write_buffer(gpu.transforms(), at, bytemuck::bytes_of(&bad));
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
        let misses = u64::from(step >= 10);
        assert_eq!(gpu.placement_misses(), misses, "step {step}");
    }
}

/// The pair set found on the host (`set_pair_set_on_device(false)`, and the default on a
/// software adapter) gives the same bits, and the device takes over when switched on, its
/// first step swept on the host.
#[test]
fn the_pair_set_goes_to_the_host_and_back_to_the_same_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(400, 9);
    let mut cpu = world.clone();
    let mut gpu = GpuWorld::new(&device, &queue, &world).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    // The default: on the device but on a software adapter. A first step moves every
    // collider into its fat box: the host sweeps, where the device is asked at all.
    let on_device = !common::adapter_gives_cpu_bits();
    gpu.step(DT).unwrap();
    assert_eq!(gpu.pair_set_steps(), [0, u64::from(on_device)]);
    let mut forced = gpu_world(&device, &queue, &world);
    forced.step(DT).unwrap();
    assert_eq!(forced.pair_set_steps(), [0, 1]);
    let mut gpu = GpuWorld::new(&device, &queue, &world).unwrap();
    gpu.set_pair_set_on_device(false);
    let mut moved_after = 0;
    for step in 0..60 {
        if step == 30 {
            assert_eq!(gpu.pair_set_steps(), [0, 0], "none on the device while off");
            gpu.set_pair_set_on_device(true);
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        if step >= 30 {
            moved_after += u64::from(gpu.stats().proxy_moves > 0);
        }
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
    }
    assert!(moved_after > 10, "{moved_after}");
    assert_eq!(gpu.pair_set_steps(), [moved_after - 1, 1]);
}
