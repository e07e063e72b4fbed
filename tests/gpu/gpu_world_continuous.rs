//! The GPU world's continuous stage and sleep on the device (`shaders/continuous.wgsl`,
//! `sleep.wgsl`): fast bodies of every kind of piece shot at thin static walls are stopped
//! there, on the device, to the host's bits; a world with a bullet is swept by the host
//! alone; a pyramid falls asleep on the device and wakes when a body is pushed; sleeping
//! islands are woken on the device by a body that lands on them and by a joint.

use crate::common;
use crate::gpu_world::gpu_world;
use common::state_bits;

use wgpu_sat::glam::Vec2;
use wgpu_sat::shapes::Capsule;
use wgpu_sat::{
    BodyDef, BodyShape, Circle, CpuNarrowPhase, Filter, JointDef, Polygon, Shape, World, scenes,
};

const DT: f32 = 1.0 / 60.0;

/// Thin static walls to the right, above and below a row of projectiles: boxes, circles,
/// capsules, rounded boxes, triangles and two-piece bodies, fired at 150 to 400 units per
/// second, spinning, some bouncy, a few of them sensors' neighbours and filtered.
fn shooting_gallery() -> World {
    let mut world = World::default();
    let wall = |h: f32| Polygon::rectangle(0.05, h);
    world
        .add_body(&BodyDef::fixed(wall(12.0), Vec2::new(20.0, 0.0)))
        .unwrap();
    world
        .add_body(&BodyDef::fixed(wall(12.0), Vec2::new(-20.0, 0.0)))
        .unwrap();
    let floor = Polygon::rectangle(20.0, 0.05);
    world
        .add_body(&BodyDef::fixed(floor, Vec2::new(0.0, -12.0)))
        .unwrap();
    world
        .add_body(&BodyDef::fixed(floor, Vec2::new(0.0, 12.0)))
        .unwrap();
    let pieces: Vec<BodyShape> = vec![
        Polygon::rectangle(0.2, 0.1).into(),
        Circle::new(0.15).unwrap().into(),
        Capsule::new(Vec2::new(-0.2, 0.0), Vec2::new(0.2, 0.0), 0.08)
            .unwrap()
            .into(),
        Polygon::rectangle(0.15, 0.15)
            .with_radius(0.05)
            .unwrap()
            .into(),
        Polygon::new(&[
            Vec2::new(-0.2, -0.1),
            Vec2::new(0.2, -0.1),
            Vec2::new(0.0, 0.2),
        ])
        .unwrap()
        .into(),
        BodyShape::compound(vec![
            Shape::from(Polygon::rectangle(0.1, 0.1)),
            Shape::from(Circle::with_center(Vec2::new(0.25, 0.0), 0.1).unwrap()),
        ])
        .unwrap(),
    ];
    for k in 0..36 {
        let shape = pieces[k % pieces.len()].clone();
        let y = -10.0 + 0.55 * k as f32;
        let mut def = BodyDef::dynamic(shape, Vec2::new(0.0, y));
        let speed = 150.0 + 7.0 * k as f32;
        let angle = 0.4 * (k as f32 * 0.7).sin();
        let direction = if k % 2 == 0 { 1.0 } else { -1.0 };
        def.linear_velocity = Vec2::new(direction * speed, speed * angle);
        def.angular_velocity = 3.0 * (k % 5) as f32 - 6.0;
        def.restitution = if k % 3 == 0 { 0.6 } else { 0.0 };
        world.add_body(&def).unwrap();
    }
    world
}

/// Steps `world` `steps` times on the CPU and as a GPU world, comparing every step's bits;
/// returns the GPU world's continuous steps, its misses and the CPU's impacts, and the GPU
/// world after.
fn step_both(world: World, steps: usize) -> Option<([u64; 2], u64, usize, World)> {
    let (device, queue) = common::gpu()?;
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut impacts = 0;
    for step in 0..steps {
        impacts += cpu.step(DT, &mut narrow).unwrap().impacts;
        gpu.step(DT).unwrap();
        if common::adapter_gives_cpu_bits() {
            let on_gpu = gpu.read_world().unwrap();
            assert_eq!(state_bits(&cpu), state_bits(&on_gpu), "step {step}");
        }
    }
    let after = gpu.read_world().unwrap();
    Some((
        gpu.continuous_steps(),
        gpu.continuous_misses(),
        impacts,
        after,
    ))
}

#[test]
fn fast_bodies_stop_at_thin_walls_on_the_device_to_the_host_bits() {
    let Some((steps, misses, impacts, after)) = step_both(shooting_gallery(), 90) else {
        return;
    };
    assert!(
        impacts > 36,
        "the projectiles should hit the walls: {impacts} impacts"
    );
    // Every projectile is still inside the walls (their inner faces at x = ±19.95 and
    // y = ±11.95), the spinning capsule that sinks deep into the right wall included.
    for body in after.bodies().filter(|&b| !after.is_static(b)) {
        let c = after.center_of_mass(body);
        assert!(
            c.x.abs() < 19.95 && c.y.abs() < 11.95,
            "{body:?} left the gallery: centre {c}"
        );
    }
    assert_eq!(steps, [90, 0], "the device ran every step's stage");
    if common::adapter_gives_cpu_bits() {
        assert_eq!(
            misses, 0,
            "the device's stage moved bodies otherwise than the host's"
        );
    }
}

/// A static wall's filter changed mid-run (no new static revision: its pose and box stay)
/// lets the projectiles through it on the device as on the host.
#[test]
fn a_wall_refiltered_mid_run_lets_bodies_through_on_the_device_too() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = shooting_gallery();
    let right_wall = world.bodies().next().unwrap();
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    // In category 2 and touching only it: the projectiles (category 1) pass.
    let ghost = Filter {
        category_bits: 2,
        mask_bits: 2,
        group_index: 0,
    };
    for step in 0..30 {
        if step == 2 {
            let refilter = |w: &mut World| w.set_filter(right_wall, ghost);
            refilter(&mut cpu).unwrap();
            gpu.edit(refilter).unwrap().unwrap();
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        if common::adapter_gives_cpu_bits() {
            let on_gpu = gpu.read_world().unwrap();
            assert_eq!(state_bits(&cpu), state_bits(&on_gpu), "step {step}");
        }
    }
    let escaped = (cpu.bodies()).filter(|&b| cpu.transform(b).translation().x > 21.0);
    assert!(
        escaped.count() > 5,
        "the projectiles should pass the refiltered wall"
    );
    assert_eq!(gpu.continuous_steps(), [30, 0]);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.continuous_misses(), 0);
    }
}

#[test]
fn a_world_with_a_bullet_is_swept_by_the_host_alone() {
    let mut world = shooting_gallery();
    let mut bullet = BodyDef::dynamic(Circle::new(0.05).unwrap(), Vec2::new(0.0, 11.0));
    bullet.is_bullet = true;
    bullet.linear_velocity = Vec2::new(300.0, 0.0);
    world.add_body(&bullet).unwrap();
    let Some((steps, misses, impacts, _)) = step_both(world, 30) else {
        return;
    };
    assert!(impacts > 0);
    assert_eq!((steps, misses), ([0, 30], 0));
}

#[test]
fn switched_off_the_device_leaves_the_stage_to_the_host() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = shooting_gallery();
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    gpu.set_continuous_on_device(false);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..20 {
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        if step == 9 {
            gpu.set_continuous_on_device(true);
        }
    }
    if common::adapter_gives_cpu_bits() {
        assert_eq!(state_bits(&cpu), state_bits(&gpu.read_world().unwrap()));
        assert_eq!(gpu.continuous_misses(), 0);
    }
    assert_eq!(gpu.continuous_steps(), [10, 10]);
}

#[test]
fn a_pyramid_falls_asleep_on_the_device_and_wakes_when_pushed() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pyramid(12);
    let dynamic: Vec<_> = world.bodies().filter(|&b| !world.is_static(b)).collect();
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut fewest_awake = usize::MAX;
    for step in 0..150 {
        if step == 110 {
            // A push wakes the pushed body's island, on the host; the device's sleep goes
            // on from the records the host sends.
            let push = |w: &mut World| w.apply_linear_impulse_to_center(dynamic[0], Vec2::Y);
            push(&mut cpu).unwrap();
            gpu.edit(push).unwrap().unwrap();
        }
        let stats = cpu.step(DT, &mut narrow).unwrap();
        fewest_awake = fewest_awake.min(stats.awake_bodies);
        gpu.step(DT).unwrap();
        let on_gpu = gpu.read_world().unwrap();
        if common::adapter_gives_cpu_bits() {
            assert_eq!(state_bits(&cpu), state_bits(&on_gpu), "step {step}");
        }
        if step == 100 {
            assert!(!on_gpu.is_awake(dynamic[0]), "the pyramid should be asleep");
        }
        if step == 110 {
            assert!(
                on_gpu.is_awake(dynamic[0]),
                "the pushed body should be awake"
            );
        }
    }
    assert!(
        fewest_awake < dynamic.len() / 2,
        "the pyramid should sleep: {fewest_awake} awake"
    );
    assert_eq!(gpu.sleep_steps(), [150, 0], "the device slept every step");
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.sleep_misses(), 0);
    }
}

/// A box dropped onto a sleeping pyramid wakes it through their contact, and a kinematic arm
/// set moving wakes the weight that hangs from it through their joint: both woken on the
/// device, which held no records of theirs to send, to the host's bits.
#[test]
fn sleeping_islands_are_woken_on_the_device_by_a_contact_and_by_a_joint() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pyramid(8);
    let pyramid: Vec<_> = world.bodies().filter(|&b| !world.is_static(b)).collect();
    let top = *pyramid
        .iter()
        .max_by(|&&a, &&b| {
            let y = |body| world.transform(body).translation().y;
            y(a).total_cmp(&y(b))
        })
        .unwrap();
    let pivot = Vec2::new(30.0, 6.0);
    let arm = BodyDef::kinematic(Polygon::rectangle(0.5, 0.1), pivot);
    let arm = world.add_body(&arm).unwrap();
    let hanging = BodyDef::dynamic(Polygon::rectangle(0.3, 0.3), pivot - Vec2::new(0.0, 2.0));
    let weight = world.add_body(&hanging).unwrap();
    world
        .add_joint(&JointDef::revolute(arm, weight, pivot))
        .unwrap();
    let above_top = world.transform(top).translation() + Vec2::new(0.0, 1.5);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..190 {
        // What each edit is to wake, by a contact or a joint: not the call itself.
        let to_wake = match step {
            120 => Some(top),
            150 => Some(weight),
            _ => None,
        };
        if let Some(to_wake) = to_wake {
            assert!(
                !cpu.is_awake(to_wake),
                "step {step}: asleep before the edit"
            );
            let edit = |w: &mut World| {
                if step == 120 {
                    // Added in the air, touching nothing, falling onto the top.
                    let mut def = BodyDef::dynamic(Polygon::rectangle(0.3, 0.3), above_top);
                    def.linear_velocity = Vec2::new(0.0, -8.0);
                    w.add_body(&def).unwrap();
                } else {
                    w.set_velocity(arm, Vec2::new(1.0, 0.0), 0.0).unwrap();
                }
            };
            edit(&mut cpu);
            gpu.edit(edit).unwrap();
            assert!(!cpu.is_awake(to_wake), "step {step}: not woken by the edit");
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        let on_gpu = gpu.read_world().unwrap();
        if common::adapter_gives_cpu_bits() {
            assert_eq!(state_bits(&cpu), state_bits(&on_gpu), "step {step}");
        }
        if step == 145 {
            assert!(
                on_gpu.is_awake(top),
                "the landed box should wake the pyramid"
            );
            assert!(!on_gpu.is_awake(weight), "the weight should still sleep");
        }
    }
    assert!(
        gpu.read_world().unwrap().is_awake(weight),
        "the arm should wake the weight"
    );
    // The device's wake ran at every step (it sleeps at every step).
    let [here, host] = gpu.wake_steps();
    assert_eq!(
        here, 190,
        "{here} steps woken on the device, {host} on the host"
    );
    if common::adapter_gives_cpu_bits() {
        // Every wake the host made, the device made: else its hash missed.
        assert_eq!(gpu.wake_misses(), 0);
        assert_eq!(host, 0, "a wake went up with the records");
    }
}
