//! The GPU world (`gpu::GpuWorld`, issue 33) against the CPU world: the same world stepped
//! both ways reaches the same bits after every step, on the adapter docs/reliability.md
//! promises them on (lavapipe in CI); its transforms buffer holds what the world's
//! transforms are; what it cannot step is refused by name, and a bad step changes nothing.

use crate::common;

use wgpu_sat::glam::Vec2;
use wgpu_sat::gpu::GpuWorld;
use wgpu_sat::gpu::layout::BodyTransformGpu;
use wgpu_sat::{BodyDef, CpuNarrowPhase, Error, JointDef, Polygon, World, scenes};

const DT: f32 = 1.0 / 60.0;

/// Every body's pose and velocity, as bits.
fn state_bits(world: &World) -> Vec<[u32; 7]> {
    world
        .bodies()
        .map(|k| {
            let t = world.transform(k);
            let v = world.linear_velocity(k);
            [
                t.translation().x,
                t.translation().y,
                t.rotation().x,
                t.rotation().y,
                v.x,
                v.y,
                world.angular_velocity(k),
            ]
            .map(f32::to_bits)
        })
        .collect()
}

/// Steps `world` `steps` times on the CPU and as a GPU world, comparing after every step;
/// returns both at the end.
fn step_both(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    world: World,
    steps: usize,
) -> (World, World) {
    let mut cpu = world.clone();
    let mut gpu = GpuWorld::new(device, queue, &world).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..steps {
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        let on_gpu = gpu.read_world().unwrap();
        if common::adapter_gives_cpu_bits() {
            let (a, b) = (state_bits(&cpu), state_bits(&on_gpu));
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "step {step}, body {i}: cpu {:?} gpu {:?}",
                    a[i].map(f32::from_bits),
                    b[i].map(f32::from_bits)
                );
            }
        }
    }
    let on_gpu = gpu.read_world().unwrap();
    (cpu, on_gpu)
}

#[test]
fn a_pyramid_stands_on_the_gpu_world_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pyramid(20);
    let top = world.bodies().last().unwrap();
    let start = world.transform(top).translation();
    let (cpu, gpu) = step_both(&device, &queue, world, 240);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(cpu.state_hash(), gpu.state_hash());
    }
    let end = gpu.transform(top).translation();
    assert!(
        (end - start).length() < 0.05,
        "the top moved from {start} to {end}"
    );
}

/// A pile of polygons and circles with what the GPU world steps besides contacts: a body
/// with damping and a gravity scale, one pushed by a force every step, a kinematic paddle
/// sweeping through the pile, bouncy pieces and hit events, sleeping and continuous
/// collision (the world's defaults).
#[test]
fn a_mixed_pile_with_forces_kinematics_and_bounces_steps_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::mixed(400, 7);
    world.set_hit_event_threshold(Some(0.5)).unwrap();
    let bodies: Vec<_> = world.bodies().collect();
    world.set_linear_damping(bodies[10], 0.8).unwrap();
    world.set_gravity_scale(bodies[20], -0.3).unwrap();
    let mut paddle = BodyDef::kinematic(Polygon::rectangle(2.0, 0.2), Vec2::new(-6.0, 1.0));
    paddle.linear_velocity = Vec2::new(2.0, 0.0);
    paddle.angular_velocity = 0.5;
    world.add_body(&paddle).unwrap();
    let mut bouncy = BodyDef::dynamic(Polygon::rectangle(0.3, 0.3), Vec2::new(0.5, 12.0));
    bouncy.restitution = 0.8;
    world.add_body(&bouncy).unwrap();
    // A force applied before the first step (forces are cleared after each).
    world
        .apply_force_to_center(bodies[30], Vec2::new(300.0, 0.0))
        .unwrap();
    let mut cpu = world.clone();
    let mut gpu = GpuWorld::new(&device, &queue, &world).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut hits = 0;
    for step in 0..240 {
        cpu.step(DT, &mut narrow).unwrap();
        hits += cpu.events().contact_hit.len();
        gpu.step(DT).unwrap();
        let on_gpu = gpu.read_world().unwrap();
        if common::adapter_gives_cpu_bits() {
            assert_eq!(state_bits(&cpu), state_bits(&on_gpu), "step {step}");
            assert_eq!(
                cpu.events().contact_hit.len(),
                on_gpu.events().contact_hit.len()
            );
        }
    }
    assert!(hits > 0, "no hit events: the scene should have bounced");
}

/// The transforms buffer holds each body's transform after a step, as the world gives it.
#[test]
fn the_transforms_buffer_holds_the_worlds_transforms() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuWorld::new(&device, &queue, &scenes::pile(300, 3)).unwrap();
    for _ in 0..30 {
        gpu.step(DT).unwrap();
    }
    let world = gpu.read_world().unwrap();
    assert_eq!(gpu.body_slots(), world.bodies().count());
    let bytes = gpu.transforms().size();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(gpu.transforms(), 0, &staging, 0, bytes);
    queue.submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let view = staging.slice(..).get_mapped_range().unwrap();
    let read: Vec<BodyTransformGpu> = bytemuck::cast_slice(&view).to_vec();
    drop(view);
    let mut moved = 0;
    for (k, body) in world.bodies().enumerate() {
        let t = world.transform(body);
        let g = read[body.index()];
        let expected = BodyTransformGpu::from(&t);
        if common::adapter_gives_cpu_bits() {
            assert_eq!(g, expected, "body {k}");
        } else {
            let close = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).abs() + (a[1] - b[1]).abs() < 1e-4;
            assert!(close(g.origin, expected.origin) && close(g.rotation, expected.rotation));
        }
        moved += usize::from(g.origin[1] != 0.0);
    }
    assert!(moved > 200);
}

/// What the GPU world cannot step is refused by name, and a bad time step changes nothing.
#[test]
fn unsupported_worlds_and_bad_steps_are_refused() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pyramid(3);
    let bodies: Vec<_> = world.bodies().collect();
    let at = world.transform(bodies[1]).translation();
    world
        .add_joint(&JointDef::revolute(bodies[1], bodies[2], at))
        .unwrap();
    match GpuWorld::new(&device, &queue, &world) {
        Err(Error::Gpu(e)) => assert!(e.to_string().contains("revolute"), "{e}"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a revolute joint was accepted"),
    }
    let mut gpu = GpuWorld::new(&device, &queue, &scenes::pyramid(3)).unwrap();
    let before = gpu.read_world().unwrap().state_hash();
    for dt in [0.0, -1.0, f32::NAN, 11.0] {
        let e = gpu.step(dt).unwrap_err();
        assert!(e.to_string().contains("time step"), "{e}");
        assert_eq!(gpu.read_world().unwrap().state_hash(), before);
    }
}

/// A device lost mid-run: the step says so, and the world read back is the CPU world's
/// after the steps taken, from which the CPU carries on.
#[test]
fn a_lost_device_is_reported_and_the_world_carries_on_on_the_cpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pyramid(8);
    let mut cpu = world.clone();
    let mut gpu = GpuWorld::new(&device, &queue, &world).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..20 {
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
    }
    device.destroy();
    assert!(gpu.step(DT).is_err());
    let mut carried = gpu.read_world().unwrap();
    if common::adapter_gives_cpu_bits() {
        assert_eq!(carried.state_hash(), cpu.state_hash());
    }
    for _ in 0..20 {
        cpu.step(DT, &mut narrow).unwrap();
        carried.step(DT, &mut narrow).unwrap();
    }
    if common::adapter_gives_cpu_bits() {
        assert_eq!(carried.state_hash(), cpu.state_hash());
    }
}
