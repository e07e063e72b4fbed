//! The GPU world (`gpu::GpuWorld`, issue 33) against the CPU world: the same world stepped
//! both ways reaches the same bits after every step, on the adapter docs/reliability.md
//! promises them on (lavapipe in CI); its transforms buffer holds what the world's
//! transforms are; what it cannot step is refused by name, and a bad step changes nothing.

use std::time::Duration;

use crate::common;
use common::state_bits;

use wgpu_sat::glam::Vec2;
use wgpu_sat::gpu::GpuWorld;
use wgpu_sat::gpu::layout::BodyTransformGpu;
use wgpu_sat::{BodyDef, CpuNarrowPhase, Error, JointDef, Polygon, World, scenes};

const DT: f32 = 1.0 / 60.0;

/// A GPU world of `world` with its pair set, continuous stage and sleep on the device
/// whatever the adapter (on a software one they are on the host by default): the tests
/// hold the device's path to the CPU's bits.
pub(crate) fn gpu_world(device: &wgpu::Device, queue: &wgpu::Queue, world: &World) -> GpuWorld {
    let mut gpu = GpuWorld::new(device, queue, world).unwrap();
    gpu.set_pair_set_on_device(true);
    gpu.set_continuous_on_device(true);
    gpu
}

/// Removes two dynamic bodies in three (all but every third) from `cpu` and from `gpu`
/// alike.
pub(crate) fn remove_two_in_three(cpu: &mut World, gpu: &mut GpuWorld) {
    let gone: Vec<_> = (cpu.bodies())
        .filter(|&b| !cpu.is_static(b))
        .enumerate()
        .filter(|(k, _)| k % 3 != 0)
        .map(|(_, b)| b)
        .collect();
    for &body in &gone {
        cpu.remove_body(body).unwrap();
    }
    gpu.edit(|world| gone.iter().try_for_each(|&b| world.remove_body(b)))
        .unwrap()
        .unwrap();
}

/// A static box of half extents `[w, h]` centred at `at`.
fn add_fixed(world: &mut World, [w, h]: [f32; 2], at: Vec2) -> wgpu_sat::BodyId {
    world
        .add_body(&BodyDef::fixed(Polygon::rectangle(w, h), at))
        .unwrap()
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
    let mut gpu = gpu_world(device, queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..steps {
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        check_bits(&cpu, &gpu.read_world().unwrap(), step);
    }
    // A world with joints prepares them on the device from the second step on (the
    // first sends the host's: the device holds no impulses of its own yet), to the
    // host's prepare's bits.
    // The continuous stage, sleep and wake ran on the device too, to the host's bits.
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.continuous_misses(), 0);
        assert_eq!(gpu.sleep_misses(), 0);
        assert_eq!(gpu.wake_misses(), 0);
    }
    let [here, sent] = gpu.joint_prepare_steps();
    if here + sent > 0 && common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.joint_misses(), 0);
        assert_eq!([here, sent], [steps as u64 - 1, 1]);
    }
    let on_gpu = gpu.read_world().unwrap();
    (cpu, on_gpu)
}

/// Where the adapter keeps the CPU's bits, asserts that `on_gpu`'s bodies have `cpu`'s,
/// naming the first that differs.
fn check_bits(cpu: &World, on_gpu: &World, step: usize) {
    if common::adapter_gives_cpu_bits() {
        let (a, b) = (state_bits(cpu), state_bits(on_gpu));
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            panic!(
                "step {step}, body {i}: cpu {:?} gpu {:?}",
                a[i].map(f32::from_bits),
                b[i].map(f32::from_bits)
            );
        }
    }
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
    let mut gpu = gpu_world(&device, &queue, &world);
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
    // The world's continuous stage and sleep ran on the device at every step, to the
    // host's bits.
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.continuous_steps(), [240, 0]);
        assert_eq!(gpu.sleep_steps(), [240, 0]);
    }
}

/// A pile of random polygons falls into its container, settles and stays in it, on the GPU
/// world to the CPU world's bits.
#[test]
fn a_pile_settles_and_stays_in_its_container() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    const BODIES: usize = 600;
    let world = scenes::pile(BODIES, 11);
    let (cpu, gpu) = step_both(&device, &queue, world, 420);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(cpu.state_hash(), gpu.state_hash());
    }
    let half = scenes::pile_width(BODIES) / 2.0;
    let mut fastest: f32 = 0.0;
    for body in gpu.bodies().filter(|&b| !gpu.body(b).unwrap().is_static()) {
        let c = gpu.center_of_mass(body);
        assert!(
            c.x.abs() < half && c.y > 0.0,
            "body {body:?} at {c} left the container"
        );
        fastest = fastest.max(gpu.linear_velocity(body).length());
    }
    assert!(
        fastest < 0.5,
        "the pile has not settled: a body moves at {fastest}"
    );
}

/// The transforms buffer holds each body's transform after a step, as the world gives it.
#[test]
fn the_transforms_buffer_holds_the_worlds_transforms() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = gpu_world(&device, &queue, &scenes::pile(300, 3));
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

/// A bad time step is refused, as the CPU world refuses it, and changes nothing.
#[test]
fn bad_steps_are_refused_and_change_nothing() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = gpu_world(&device, &queue, &scenes::pyramid(3));
    let before = gpu.read_world().unwrap().state_hash();
    let mut cpu = scenes::pyramid(3);
    for dt in [0.0, -1.0, f32::NAN, 11.0] {
        let e = gpu.step(dt).unwrap_err();
        let on_cpu = cpu.step(dt, &mut CpuNarrowPhase::new()).unwrap_err();
        assert_eq!(e.to_string(), on_cpu.to_string());
        assert!(matches!(e, Error::World(_)), "{e}");
        assert_eq!(gpu.read_world().unwrap().state_hash(), before);
    }
}

/// Every joint kind, and a world edited between steps: the scene of joints (a chain, a
/// bridge, ragdolls, a car on wheel joints driven by its motor), with a motor joint and a
/// mouse joint added by `GpuWorld::edit` and the car's motor sped up half way; the level's
/// kinematic movers set by its driver through `edit` before every step. Both to the CPU
/// world's bits, edit for edit.
#[test]
fn every_joint_kind_and_edits_between_steps_match_the_cpu_world() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let (mut world, scene) = scenes::joints();
    let chain_end = *scene.chain_links.last().unwrap();
    let load = scene.bridge_planks[3];
    let edits = |world: &mut World, step: usize| {
        if step == 30 {
            world
                .add_joint(&JointDef::motor(scene.terrain, load).with_max_torque(50.0))
                .unwrap();
            let at = world.center_of_mass(chain_end);
            world
                .add_joint(&JointDef::mouse(
                    scene.terrain,
                    chain_end,
                    at + Vec2::new(2.0, 3.0),
                ))
                .unwrap();
        }
        if step == 90 {
            let body = world
                .add_body(&BodyDef::dynamic(
                    Polygon::rectangle(0.3, 0.3),
                    Vec2::new(0.0, 6.0),
                ))
                .unwrap();
            world.set_velocity(body, Vec2::new(3.0, 0.0), 1.0).unwrap();
        }
    };
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..180 {
        edits(&mut world, step);
        gpu.edit(|w| edits(w, step)).unwrap();
        world.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        if common::adapter_gives_cpu_bits() {
            assert_eq!(
                state_bits(&world),
                state_bits(&gpu.read_world().unwrap()),
                "joints, step {step}"
            );
        }
    }
    assert_eq!(gpu.body_slots(), world.bodies().count());
    // Every kind's prepare (the motor, mouse and wheel joints' among them) ran on the
    // device at the steps whose edit left the joints' impulses as they were, to the
    // host's bits.
    if common::adapter_gives_cpu_bits() {
        let [here, sent] = gpu.joint_prepare_steps();
        assert!(
            here > 150 && sent < 30,
            "{here} steps on the device, {sent} sent"
        );
        assert_eq!(gpu.joint_misses(), 0);
    }

    let (mut world, driver) = scenes::level(5);
    let mut gpu = gpu_world(&device, &queue, &world);
    for step in 0..120 {
        let time = step as f32 * DT;
        driver.drive(&mut world, time, DT).unwrap();
        gpu.edit(|w| driver.drive(w, time, DT)).unwrap().unwrap();
        world.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        if common::adapter_gives_cpu_bits() {
            assert_eq!(
                state_bits(&world),
                state_bits(&gpu.read_world().unwrap()),
                "level, step {step}"
            );
        }
    }
}

/// A pendulum on a revolute pin keeps its period, 2π √(L / g) at a small swing, on the GPU
/// world, to the CPU world's bits.
#[test]
fn a_pendulum_keeps_its_period() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    const LENGTH: f32 = 2.0;
    const SWING: f32 = 0.1;
    let mut world = World::default();
    world.set_sleeping(false);
    let pivot = Vec2::new(0.0, 5.0);
    let ground = world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.2, 0.2), pivot))
        .unwrap();
    let at = pivot + LENGTH * Vec2::new(SWING.sin(), -SWING.cos());
    let bob = world
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.05, 0.05), at))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, bob, pivot))
        .unwrap();
    let steps = 600;
    let (_, _) = step_both(&device, &queue, world.clone(), steps);
    // The swing's crossings of the vertical, from the GPU world's poses.
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut crossings = Vec::new();
    let mut last_x = at.x;
    for k in 1..=steps {
        gpu.step(DT).unwrap();
        let x = gpu.read_world().unwrap().center_of_mass(bob).x;
        if (last_x > 0.0) != (x > 0.0) {
            // Linear between the two steps.
            crossings.push((k as f32 - 1.0 + last_x / (last_x - x)) * DT);
        }
        last_x = x;
    }
    assert!(crossings.len() >= 6, "{} crossings", crossings.len());
    let half_periods: Vec<f32> = crossings.windows(2).map(|w| w[1] - w[0]).collect();
    let period = 2.0 * half_periods.iter().sum::<f32>() / half_periods.len() as f32;
    let g = world.gravity().length();
    // A box bob: the period of a compound pendulum, with its own inertia about its centre.
    let side: f32 = 0.1;
    let expected = std::f32::consts::TAU * ((LENGTH + side * side / (6.0 * LENGTH)) / g).sqrt();
    assert!(
        (period - expected).abs() < 0.02 * expected,
        "period {period} s, expected {expected} s"
    );
}

/// A hanging chain of distance joints (rigid links, a rope with limits, a spring) and a
/// motor-driven wheel on a revolute pin, with boxes falling on it: the GPU world's joint
/// passes against the CPU world's, step by step to the bit.
#[test]
fn chains_ropes_springs_and_motors_step_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = World::default();
    let ground = add_fixed(&mut world, [20.0, 0.5], Vec2::new(0.0, -0.5));
    let top = add_fixed(&mut world, [0.2, 0.2], Vec2::new(-4.0, 8.0));
    let mut last = top;
    for k in 0..8 {
        let at = Vec2::new(-4.0 + 0.6 * (k + 1) as f32, 8.0);
        let link = world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.25, 0.08), at))
            .unwrap();
        let from = world.center_of_mass(last);
        let def = match k % 3 {
            0 => JointDef::distance(last, link, from, at),
            1 => JointDef::distance(last, link, from, at).with_limits(0.3, 0.7),
            _ => JointDef::distance(last, link, from, at).with_spring(4.0, 0.3),
        };
        world.add_joint(&def).unwrap();
        last = link;
    }
    let wheel = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(1.0, 0.1),
            Vec2::new(3.0, 2.0),
        ))
        .unwrap();
    world
        .add_joint(&JointDef::revolute(ground, wheel, Vec2::new(3.0, 2.0)).with_motor(2.0, 50.0))
        .unwrap();
    for k in 0..12 {
        let at = Vec2::new(2.2 + 0.3 * (k % 6) as f32, 4.0 + 0.5 * (k / 6) as f32);
        world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.12, 0.12), at))
            .unwrap();
    }
    let start = world.center_of_mass(last);
    let (cpu, gpu) = step_both(&device, &queue, world, 300);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(cpu.state_hash(), gpu.state_hash());
    }
    // The chain swung down from the horizontal and the wheel turned.
    assert!(gpu.center_of_mass(last).y < start.y - 1.0);
    assert!(gpu.angular_velocity(wheel).abs() > 0.5);
}

/// Revolute joints with limits and springs read the joint angle; a wheel spun fast turns
/// past 7 degrees within a step, where the host takes the angle through atan2 in f64 (the
/// kernel's soft_f64.wgsl), and the ragdolls of Box2D's rain scene flail within their
/// limits: both to the CPU world's bits.
#[test]
fn revolute_limits_and_springs_step_to_the_cpu_bits_through_wide_turns() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = World::default();
    world.set_sleeping(false);
    let ground = add_fixed(&mut world, [20.0, 0.5], Vec2::new(0.0, -0.5));
    for (k, spin) in [25.0f32, -40.0, 12.0].into_iter().enumerate() {
        let at = Vec2::new(-4.0 + 4.0 * k as f32, 3.0);
        let mut def = BodyDef::dynamic(Polygon::rectangle(1.0, 0.1), at);
        def.angular_velocity = spin;
        let wheel = world.add_body(&def).unwrap();
        let joint = JointDef::revolute(ground, wheel, at);
        let joint = match k {
            0 => joint.with_spring(2.0, 0.1),
            1 => joint.with_limits(-2.5, 2.5),
            _ => joint
                .with_limits(-0.5, 1.5)
                .with_spring(1.0, 0.5)
                .with_motor(3.0, 20.0),
        };
        world.add_joint(&joint).unwrap();
    }
    let (cpu, gpu) = step_both(&device, &queue, world, 240);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(cpu.state_hash(), gpu.state_hash());
    }
    let (cpu, gpu) = step_both(&device, &queue, scenes::rain(), 120);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(cpu.state_hash(), gpu.state_hash());
    }
}

/// Weld joints (rigid, and through springs) holding a bent beam, and prismatic joints (with
/// limits, a motor and a spring) sliding boxes along tilted axes under falling boxes: to the
/// CPU world's bits.
#[test]
fn welds_and_prismatic_joints_step_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = World::default();
    world.set_sleeping(false);
    let ground = add_fixed(&mut world, [20.0, 0.5], Vec2::new(0.0, -0.5));
    let wall = add_fixed(&mut world, [0.2, 2.0], Vec2::new(-6.0, 4.0));
    let mut last = wall;
    for k in 0..6 {
        let at = Vec2::new(-5.5 + 0.8 * k as f32, 5.0);
        let beam = world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.4, 0.1), at))
            .unwrap();
        let joint = JointDef::weld(last, beam, at - Vec2::new(0.4, 0.0));
        let joint = match k % 3 {
            0 => joint,
            1 => joint.with_weld_springs(3.0, 0.0, 0.4),
            _ => joint.with_weld_springs(5.0, 2.0, 0.7),
        };
        world.add_joint(&joint).unwrap();
        last = beam;
    }
    for (k, axis) in [Vec2::new(1.0, 0.3), Vec2::new(-0.5, 1.0), Vec2::X]
        .into_iter()
        .enumerate()
    {
        let at = Vec2::new(1.0 + 3.0 * k as f32, 2.0);
        let slider = world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.4, 0.3), at))
            .unwrap();
        let joint = JointDef::prismatic(ground, slider, at, axis.normalize());
        let joint = match k {
            0 => joint.with_limits(-1.0, 1.5),
            1 => joint.with_motor(1.5, 80.0).with_limits(-0.5, 2.0),
            _ => joint.with_spring(1.5, 0.3).with_limits(-2.0, 2.0),
        };
        world.add_joint(&joint).unwrap();
        for j in 0..3 {
            let drop = at + Vec2::new(0.1 * j as f32, 1.0 + 0.5 * j as f32);
            world
                .add_body(&BodyDef::dynamic(Polygon::rectangle(0.15, 0.15), drop))
                .unwrap();
        }
    }
    let tip = world.center_of_mass(last);
    let (cpu, gpu) = step_both(&device, &queue, world, 300);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(cpu.state_hash(), gpu.state_hash());
    }
    // The beam, soft at two of its joints, sagged under its own weight but held together:
    // its tip stays within the beam's length (six pieces of 0.8) of the wall.
    let sagged = gpu.center_of_mass(last);
    let from_wall = (sagged - Vec2::new(-5.9, 5.0)).length();
    assert!(
        sagged.y < tip.y && from_wall < 6.0 * 0.8,
        "{tip} -> {sagged}"
    );
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
    let mut gpu = gpu_world(&device, &queue, &world);
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

/// The colouring runs on the device, to the host's colours, from its own last step: every
/// step but the first, and but the one after an edit that restored a snapshot (the host's
/// colouring is replaced then, and the device starts from it), to the CPU world's bits.
#[test]
fn the_colouring_and_the_pair_set_run_on_the_device_and_follow_a_restored_snapshot() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(300, 5);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut snapshot = Vec::new();
    let mut seeded = Vec::new();
    for step in 0..90 {
        if step == 30 {
            snapshot = cpu.snapshot();
        }
        if step == 60 {
            cpu.restore_snapshot(&snapshot).unwrap();
            gpu.edit(|world| world.restore_snapshot(&snapshot))
                .unwrap()
                .unwrap();
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        seeded.push(gpu.colouring_seeded());
        check_bits(&cpu, &gpu.read_world().unwrap(), step);
    }
    let expected: Vec<bool> = (0..90).map(|step| step == 0 || step == 60).collect();
    assert_eq!(seeded, expected);
    // The pair set: found on the device but at the first step and after the restore,
    // when the device's copy was not the world's list and the host swept its own.
    let [on_device, on_host] = gpu.pair_set_steps();
    assert_eq!(on_host, 2, "{on_device} steps on the device");
    assert!(on_device >= 60, "{on_device}");
}

/// A step whose solver the device cannot hold (a device whose storage bindings hold 64 KiB:
/// 372 contact constraints) is solved on the host, its colouring too, to the CPU bits, and
/// reported; once the pile is thinned below that, the device solves again, its colouring
/// started from the host's last step, to the same bits.
#[test]
fn a_step_the_device_cannot_solve_is_coloured_and_solved_on_the_host() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let world = scenes::pile(300, 5);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    // Per step: whether the device refused the solver's stages, and whether its colouring
    // was seeded from the host's.
    let mut steps = Vec::new();
    for step in 0..160 {
        if step == 110 {
            // Two bodies in three gone: the pile's contacts fall below the device's room.
            remove_two_in_three(&mut cpu, &mut gpu);
        }
        cpu.step(DT, &mut narrow).unwrap();
        let refused = match gpu.step(DT) {
            Ok(()) => false,
            Err(Error::Gpu(wgpu_sat::error::GpuError::TooLarge { what, .. })) => {
                assert_eq!(what, "contacts", "step {step}");
                true
            }
            Err(e) => panic!("step {step}: {e}"),
        };
        steps.push((refused, gpu.colouring_seeded()));
        check_bits(&cpu, &gpu.read_world().unwrap(), step);
    }
    let first = steps
        .iter()
        .position(|s| s.0)
        .expect("the full pile is refused");
    let last = steps.iter().rposition(|s| s.0).unwrap();
    assert!(
        first > 0 && last < 110,
        "refused from step {first} to {last}"
    );
    // The step after the last refusal starts from the host's colours; the ones after it
    // from the device's own.
    assert!(steps[last + 1].1, "step {}", last + 1);
    assert!(steps[last + 2..].iter().all(|s| !s.0 && !s.1));
}

/// A world with no body steps (nothing to solve, nothing read back), and one whose bodies
/// are added by an edit after such steps steps to the CPU world's bits, its snapshot the
/// CPU world's.
#[test]
fn an_empty_world_steps_and_takes_bodies_later() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut cpu = World::default();
    let mut gpu = gpu_world(&device, &queue, &cpu);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..3 {
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        // No body, no solver pass: nothing was timed.
        assert_eq!(gpu.step_times(), None);
        assert_eq!(gpu.stats().bodies, 0);
    }
    assert_eq!(gpu.read_world().unwrap().snapshot(), cpu.snapshot());
    let add = |world: &mut World| {
        add_fixed(world, [10.0, 0.5], Vec2::new(0.0, -0.5));
        for k in 0..4 {
            let at = Vec2::new(0.1 * k as f32, 0.5 + 1.01 * k as f32);
            let box_def = BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), at);
            world.add_body(&box_def).unwrap();
        }
    };
    add(&mut cpu);
    gpu.edit(add).unwrap();
    let timed = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    for step in 0..40 {
        let stats = cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        check_bits(&cpu, &gpu.read_world().unwrap(), step);
        check_step_report(&gpu, &stats, timed, step);
    }
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.read_world().unwrap().snapshot(), cpu.snapshot());
    }
}

/// `gpu`'s report of its last step: the CPU world's counts (`stats`, the same step), and
/// on a device with timestamp queries (`timed`) a time for every stage that ran, whose sum
/// fits inside the span from the first pass's start to the last's end.
fn check_step_report(gpu: &GpuWorld, stats: &wgpu_sat::StepStats, timed: bool, step: usize) {
    let own = gpu.stats();
    let counts = |s: &wgpu_sat::StepStats| (s.bodies, s.colliders, s.pairs, s.contacts);
    assert_eq!(counts(own), counts(stats), "step {step}");
    assert!(own.solver > Duration::ZERO, "step {step}");
    let Some(t) = gpu.step_times() else {
        assert!(
            !timed,
            "step {step}: a device with timestamps gave no times"
        );
        return;
    };
    let ran = [
        ("collision", t.collision),
        ("colouring", t.colouring),
        ("prepare", t.prepare),
        ("integrate", t.integrate),
        ("warm start", t.warm_start),
        ("solve", t.solve),
        ("relax", t.relax),
        ("restitution", t.restitution),
        ("store", t.store),
    ];
    for (stage, time) in ran {
        assert!(time > Duration::ZERO, "step {step}: {stage} took no time");
    }
    let span = gpu.kernel_time().expect("timed");
    assert!(
        t.total() <= span,
        "step {step}: {t:?} past the span {span:?}"
    );
}

/// A plank in contact with 250 boxes: at most 24 of its contacts take a colour, and the
/// rest, over 200, are the overflow's, solved in order in chunks of 64 a dispatch (lavapipe
/// stops an invocation's loops after 65,535 iterations), and dispatched only because the
/// host's bound says constraints can overflow. Every step reaches the CPU world's bits,
/// which a chunk left out or run out of order would not. (Past about 270 boxes, the
/// colouring's finisher walks the plank's list more often than lavapipe lets one
/// invocation loop: docs/reliability.md.)
#[test]
fn an_overflow_of_hundreds_is_solved_in_order_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = plank_under_boxes(250, 1.6);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..40 {
        let stats = cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        check_bits(&cpu, &gpu.read_world().unwrap(), step);
        // Every box rests on the plank, and the plank on the ground: 227 contacts or more
        // overflow, four chunks.
        assert!(
            stats.contacts > 250,
            "step {step}: {} contacts",
            stats.contacts
        );
    }
}

/// A plank under 700 boxes, all new at the first step: past the 24 fresh rounds each of its
/// contacts left for the colouring's finisher walks the plank's whole list, and on lavapipe
/// the finisher's loops stop after 65,535 iterations with constraints undecided. The device
/// marks them, the step fails with an error that says so, and the host solves it: every
/// step reaches the CPU world's bits all the same. (A hardware GPU runs the loops to the
/// end.)
#[test]
fn a_hub_the_colouring_cannot_finish_is_solved_on_the_host_to_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = plank_under_boxes(700, 0.6);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut on_host = 0;
    let mut after_host = false;
    for step in 0..20 {
        cpu.step(DT, &mut narrow).unwrap();
        let [_, warm_from_host] = gpu.warm_start_steps();
        let solved_on_host = match gpu.step(DT) {
            Ok(()) => false,
            Err(Error::Gpu(wgpu_sat::error::GpuError::Device(why)))
                if why.contains("undecided") =>
            {
                on_host += 1;
                true
            }
            Err(e) => panic!("step {step}: {e}"),
        };
        check_bits(&cpu, &gpu.read_world().unwrap(), step);
        // A step solved on the host leaves the device no contacts of its own: the next
        // step's warm starts are the host's.
        if after_host {
            assert_eq!(gpu.warm_start_steps()[1], warm_from_host + 1, "step {step}");
        }
        after_host = solved_on_host;
    }
    eprintln!("{on_host} of 20 steps solved on the host");
}

/// A dynamic plank 440 long on a static floor, under `boxes` boxes 0.4 wide set on it
/// `spacing` apart from its left end: every box's contact and the floor's share the plank.
fn plank_under_boxes(boxes: usize, spacing: f32) -> World {
    let mut world = World::default();
    add_fixed(&mut world, [300.0, 0.5], Vec2::new(0.0, -0.5));
    let plank = BodyDef::dynamic(Polygon::rectangle(220.0, 0.25), Vec2::new(0.0, 0.25));
    world.add_body(&plank).unwrap();
    for k in 0..boxes {
        let at = Vec2::new(-210.0 + spacing * k as f32, 0.7);
        world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.2, 0.2), at))
            .unwrap();
    }
    world
}
