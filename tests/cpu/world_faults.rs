//! The world against bad input and failing narrow phases: every bad value is an error that
//! names it, extreme accepted values stay finite, a failed step changes nothing, and the
//! checked accessors return an error naming a stale handle where the plain ones panic naming it.

#[cfg(feature = "gpu")]
use crate::common;

#[cfg(feature = "gpu")]
use wgpu_sat::GpuNarrowPhase;
use wgpu_sat::error::{GpuError, WorldError};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, Circle, Collider, Contact, CpuNarrowPhase, Error, NarrowPhase, Polygon, Shape,
    World, scenes, world::StaleReason,
};

const DT: f32 = 1.0 / 60.0;

/// Everything a caller can observe of a world, bit for bit: poses, velocities, boxes, the
/// last step's contacts and impulses.
fn snapshot(world: &World) -> Vec<u32> {
    let mut bits = Vec::new();
    let push =
        |bits: &mut Vec<u32>, values: &[f32]| bits.extend(values.iter().map(|v| v.to_bits()));
    for i in world.bodies() {
        let t = world.transform(i);
        let aabb = world.body_aabb(i);
        let v = world.linear_velocity(i);
        push(
            &mut bits,
            &[
                t.translation().x,
                t.translation().y,
                t.rotation().x,
                t.rotation().y,
                v.x,
                v.y,
                world.angular_velocity(i),
                aabb.min.x,
                aabb.min.y,
                aabb.max.x,
                aabb.max.y,
            ],
        );
    }
    for c in world.collider_contacts() {
        bits.extend([c.a, c.b]);
        push(
            &mut bits,
            &[c.manifold.normal.x, c.manifold.normal.y, c.manifold.depth],
        );
        for p in c.manifold.points() {
            push(&mut bits, &[p.point.x, p.point.y, p.depth]);
        }
    }
    bits.extend(world.contact_impulses().map(f32::to_bits));
    bits
}

/// Every body's pose, velocity and box finite.
fn assert_finite(world: &World) {
    for i in world.bodies() {
        let body = world.body(i).unwrap();
        let t = body.transform();
        let aabb = body.aabb();
        assert!(
            t.translation().is_finite()
                && t.rotation().is_finite()
                && body.linear_velocity().is_finite()
                && body.angular_velocity().is_finite()
                && aabb.min.is_finite()
                && aabb.max.is_finite(),
            "body {i} is not finite: {t:?} {:?} {}",
            body.linear_velocity(),
            body.angular_velocity()
        );
    }
}

/// A narrow phase that defers to the CPU and misbehaves as told: it fails on one call, like
/// a device lost mid-simulation, or it breaks its contract by adding, after the CPU's
/// contacts, one between colliders that do not exist and one for a pair it was not given.
struct FaultyNarrowPhase {
    inner: CpuNarrowPhase,
    calls: usize,
    fail_at: Option<usize>,
    stray_reports: bool,
}

impl FaultyNarrowPhase {
    fn new() -> FaultyNarrowPhase {
        FaultyNarrowPhase {
            inner: CpuNarrowPhase::new(),
            calls: 0,
            fail_at: None,
            stray_reports: false,
        }
    }
}

impl NarrowPhase for FaultyNarrowPhase {
    fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.inner.set_shape_table(shapes)
    }

    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        self.inner.set_speculative_distance(margin)
    }

    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        self.calls += 1;
        self.inner.collide_pairs_into(colliders, pairs, out)?;
        if self.fail_at == Some(self.calls) {
            // Half-written output, as a backend that failed mid-batch might leave it.
            out.truncate(out.len() / 2);
            return Err(Error::Gpu(GpuError::Device(
                "simulated loss of the device".into(),
            )));
        }
        if let Some(&first) = out.first().filter(|_| self.stray_reports) {
            out.push(Contact {
                a: u32::MAX,
                b: u32::MAX - 1,
                ..first
            });
            out.push(Contact {
                a: 0,
                b: 0,
                ..first
            });
        }
        Ok(())
    }
}

#[test]
fn stray_reports_of_a_narrow_phase_are_ignored_not_a_panic() {
    // The world matches the reports to the pairs it asked about; what matches nothing is
    // not looked at (an index out of range used to be read while keeping manifolds).
    let mut world = scenes::mixed(400, 3);
    let mut reference = world.clone();
    let mut stray = FaultyNarrowPhase {
        stray_reports: true,
        ..FaultyNarrowPhase::new()
    };
    for _ in 0..60 {
        world.step(DT, &mut stray).unwrap();
        reference.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    }
    assert!(
        world.collider_contacts().len() > 100,
        "the pile is in contact"
    );
    assert_eq!(snapshot(&world), snapshot(&reference));
}

#[test]
fn a_failed_narrow_phase_leaves_the_world_as_it_was_and_the_cpu_carries_on() {
    let mut world = scenes::mixed(400, 3);
    let mut failing = FaultyNarrowPhase {
        fail_at: Some(121),
        ..FaultyNarrowPhase::new()
    };
    let mut cpu = CpuNarrowPhase::new();
    for _ in 0..120 {
        world.step(DT, &mut failing).unwrap();
    }
    assert!(
        world.collider_contacts().len() > 100,
        "the pile has settled into contact"
    );
    let before = snapshot(&world);
    let mut reference = world.clone();

    let e = world.step(DT, &mut failing).unwrap_err();
    assert!(matches!(e, Error::Gpu(GpuError::Device(_))), "{e}");
    assert_eq!(snapshot(&world), before, "a failed step changed the world");

    // Carrying on with the CPU gives exactly the step that never failed.
    for _ in 0..20 {
        world.step(DT, &mut cpu).unwrap();
        reference.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    }
    assert_eq!(snapshot(&world), snapshot(&reference));
}

#[cfg(feature = "gpu")]
#[test]
fn a_destroyed_gpu_device_fails_the_step_and_the_world_carries_on_with_the_cpu() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::mixed(300, 8);
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    let mut cpu = CpuNarrowPhase::new();
    for _ in 0..120 {
        world.step(DT, &mut gpu).unwrap();
    }
    assert!(
        world.collider_contacts().len() > 50,
        "the pile has settled into contact"
    );
    let before = snapshot(&world);
    let bodies = world.body_count();
    let mut reference = world.clone();

    device.destroy();
    let e = world.step(DT, &mut gpu).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::Readback(_))
                | Error::Gpu(GpuError::Poll(_))
                | Error::Gpu(GpuError::Device(_))
        ),
        "{e:?}"
    );
    assert_eq!(snapshot(&world), before, "a failed step changed the world");
    assert_eq!(world.body_count(), bodies);

    for _ in 0..10 {
        world.step(DT, &mut cpu).unwrap();
        reference.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    }
    assert_eq!(snapshot(&world), snapshot(&reference));
    assert_finite(&world);
}

#[test]
fn bad_body_fields_are_errors_naming_the_field_and_change_nothing() {
    let mut world = scenes::pyramid(3);
    let bodies = world.body_count();
    let before = snapshot(&world);
    let square = Polygon::rectangle(0.5, 0.5);
    let cases: Vec<(&str, BodyDef)> = vec![
        (
            "position",
            BodyDef::dynamic(square, Vec2::new(f32::NAN, 0.0)),
        ),
        ("position", BodyDef::dynamic(square, Vec2::new(0.0, 2e12))),
        (
            "angle",
            BodyDef {
                angle: f32::INFINITY,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "linear_velocity",
            BodyDef {
                linear_velocity: Vec2::new(0.0, f32::NEG_INFINITY),
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "density",
            BodyDef {
                density: 0.0,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "density",
            BodyDef {
                density: f32::NAN,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        // A finite density whose mass cannot be simulated beside ordinary bodies.
        (
            "mass",
            BodyDef {
                density: 1e30,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "mass",
            BodyDef {
                density: 1e-30,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "friction",
            BodyDef {
                friction: -1.0,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "restitution",
            BodyDef {
                restitution: 1.5,
                ..BodyDef::dynamic(square, Vec2::ZERO)
            },
        ),
        (
            "shape extent",
            BodyDef::fixed(Polygon::rectangle(1e13, 1e13), Vec2::ZERO),
        ),
    ];
    for (field, def) in cases {
        match world.add_body(&def) {
            Err(Error::World(WorldError::InvalidBody { field: named, .. })) => {
                assert_eq!(named, field, "{def:?}");
            }
            other => panic!("{field}: expected an error naming it, got {other:?}"),
        }
        assert_eq!(world.body_count(), bodies);
    }
    assert_eq!(snapshot(&world), before);
    // Still usable.
    world
        .add_body(&BodyDef::dynamic(square, Vec2::new(0.0, 10.0)))
        .unwrap();
    world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
}

#[test]
fn bad_settings_and_time_steps_are_errors_naming_them() {
    let mut world = scenes::pyramid(2);
    let mut cpu = CpuNarrowPhase::new();
    for dt in [0.0, -DT, f32::NAN, f32::INFINITY, 1e-9, 11.0] {
        assert!(
            matches!(
                world.step(dt, &mut cpu),
                Err(Error::World(WorldError::InvalidTimeStep { .. }))
            ),
            "{dt}"
        );
    }
    for substeps in [0, 65, usize::MAX] {
        assert!(matches!(
            world.set_substeps(substeps),
            Err(Error::World(WorldError::InvalidSetting {
                name: "substeps",
                ..
            }))
        ));
    }
    assert_eq!(world.substeps(), 4);
    for speed in [0.0, -1.0, f32::NAN, 2e6] {
        assert!(matches!(
            world.set_max_linear_speed(speed),
            Err(Error::World(WorldError::InvalidSetting {
                name: "max_linear_speed",
                ..
            }))
        ));
    }
    assert!(matches!(
        world.set_gravity(Vec2::new(f32::NAN, 0.0)),
        Err(Error::World(WorldError::InvalidSetting {
            name: "gravity",
            ..
        }))
    ));
    // A world made with a bad gravity says so at its first step.
    let mut bad = World::new(Vec2::new(0.0, f32::INFINITY));
    let ball = bad
        .add_body(&BodyDef::dynamic(Circle::new(0.5).unwrap(), Vec2::ZERO))
        .unwrap();
    assert!(matches!(
        bad.step(DT, &mut cpu),
        Err(Error::World(WorldError::InvalidSetting {
            name: "gravity",
            ..
        }))
    ));
    assert!(bad.transform(ball).translation().is_finite());
    world.step(DT, &mut cpu).unwrap();
}

#[test]
fn a_body_at_the_fastest_speed_given_is_clamped_and_its_neighbours_stay_finite() {
    use wgpu_sat::world::{MAX_ANGULAR_SPEED, MAX_LINEAR_SPEED_LIMIT};
    let mut world = scenes::mixed(200, 5);
    let mut cpu = CpuNarrowPhase::new();
    for _ in 0..30 {
        world.step(DT, &mut cpu).unwrap();
    }
    // Past the table's speeds a body is refused (no step would keep it, and its snapshot
    // could not hold it), naming the field.
    let shape = Polygon::rectangle(0.3, 0.3);
    let too_fast = BodyDef {
        linear_velocity: Vec2::new(1e30, -1e30),
        ..BodyDef::dynamic(shape, Vec2::new(-5.0, 12.0))
    };
    assert!(matches!(
        world.add_body(&too_fast),
        Err(Error::World(WorldError::InvalidBody {
            field: "linear_velocity",
            ..
        }))
    ));
    // The fastest and the heaviest bodies the world accepts, thrown into the pile.
    let edge = MAX_LINEAR_SPEED_LIMIT * Vec2::new(0.6, -0.8);
    let rocket = world
        .add_body(&BodyDef {
            linear_velocity: edge,
            angular_velocity: -MAX_ANGULAR_SPEED,
            ..BodyDef::dynamic(shape, Vec2::new(-5.0, 12.0))
        })
        .unwrap();
    let anvil = world
        .add_body(&BodyDef {
            density: 1e22,
            linear_velocity: Vec2::new(0.0, -MAX_LINEAR_SPEED_LIMIT),
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(3.0, 12.0))
        })
        .unwrap();
    let first = world.bodies().next().unwrap();
    world.set_velocity(first, -edge, MAX_ANGULAR_SPEED).unwrap();
    for _ in 0..120 {
        world.step(DT, &mut cpu).unwrap();
        assert_finite(&world);
        for body in [rocket, anvil, first] {
            let speed = world.linear_velocity(body).length();
            // Clamped before and during each substep, and once more at the step's end.
            assert!(speed <= world.max_linear_speed() * 1.0001, "{speed}");
        }
    }
}

#[test]
fn the_checked_accessors_return_errors_where_the_plain_ones_read_nan() {
    let world = scenes::pyramid(3);
    let ids: Vec<BodyId> = world.bodies().collect();
    let n = world.body_count();
    assert_eq!(ids.len(), n);
    let last_id = ids[n - 1];
    let last = world.body(last_id).expect("a live body");
    assert_eq!(last.id(), last_id);
    assert_eq!(last.transform(), world.transform(last_id));
    assert!(last.colliders().eq(world.body_colliders(last_id)));
    assert_eq!(last.pieces().len(), world.body_pieces(last_id).len());
    // Handles this world never made: a clone keeps the world's number, so the clone's next
    // body and collider are named as if by this world, in slots it never handed out.
    let mut clone = world.clone();
    let never = clone
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))
        .unwrap();
    let never_collider = clone.body_colliders(never).next().unwrap();
    assert!(matches!(
        world.body(never),
        Err(Error::World(WorldError::StaleBody { body, reason: StaleReason::NeverMade })) if body == never
    ));
    // And another world's, in a slot this world holds.
    let foreign = scenes::pyramid(3).bodies().last().unwrap();
    assert_eq!(foreign.index(), last_id.index());
    assert!(matches!(
        world.body(foreign),
        Err(Error::World(WorldError::StaleBody { body, reason: StaleReason::OtherWorld })) if body == foreign
    ));
    let colliders = world.colliders().len();
    let last_collider = world.collider_id(colliders - 1).expect("a live slot");
    assert_eq!(world.collider_body(last_collider).unwrap(), last_id);
    assert_eq!(world.collider_id(colliders), None);
    assert!(matches!(
        world.collider_body(never_collider),
        Err(Error::World(WorldError::StaleCollider { collider, reason: StaleReason::NeverMade }))
            if collider == never_collider
    ));
    let mut world = world;
    assert!(matches!(
        world.set_velocity(never, Vec2::ZERO, 0.0),
        Err(Error::World(WorldError::StaleBody { body, reason: StaleReason::NeverMade })) if body == never
    ));
    // Removed: the body's and its colliders' handles are refused, naming them.
    world.remove_body(last_id).unwrap();
    assert_eq!(world.body_count(), n - 1);
    assert!(matches!(
        world.body(last_id),
        Err(Error::World(WorldError::StaleBody { body, reason: StaleReason::Removed })) if body == last_id
    ));
    assert!(matches!(
        world.collider_body(last_collider),
        Err(Error::World(WorldError::StaleCollider { collider, reason: StaleReason::Removed }))
            if collider == last_collider
    ));
    assert_eq!(world.collider_id(colliders - 1), None);
}

#[test]
fn the_plain_accessors_panic_on_a_stale_handle_naming_it() {
    let mut world = scenes::pyramid(2);
    let gone = world.bodies().last().unwrap();
    world.remove_body(gone).unwrap();
    // The slot is free after the next step; the new body takes it, under a new generation.
    world.step(DT, &mut CpuNarrowPhase::new()).unwrap();
    let square = Polygon::rectangle(0.5, 0.5);
    let new = world
        .add_body(&BodyDef {
            user_data: 7,
            ..BodyDef::dynamic(square, Vec2::new(5.0, 5.0))
        })
        .unwrap();
    assert_eq!(new.index(), gone.index(), "the slot was reused");
    assert_ne!(new, gone);
    assert!(!world.contains(gone) && world.contains(new));
    // Nothing of the new body's reads through the old handle: every plain reader panics,
    // and its message names the handle and why it is stale.
    let w = &world;
    let readers: [(&str, &dyn Fn()); 22] = [
        ("transform", &|| {
            std::hint::black_box(w.transform(gone));
        }),
        ("center_of_mass", &|| {
            std::hint::black_box(w.center_of_mass(gone));
        }),
        ("linear_velocity", &|| {
            std::hint::black_box(w.linear_velocity(gone));
        }),
        ("angular_velocity", &|| {
            std::hint::black_box(w.angular_velocity(gone));
        }),
        ("mass", &|| {
            std::hint::black_box(w.mass(gone));
        }),
        ("rotational_inertia", &|| {
            std::hint::black_box(w.rotational_inertia(gone));
        }),
        ("friction", &|| {
            std::hint::black_box(w.friction(gone));
        }),
        ("restitution", &|| {
            std::hint::black_box(w.restitution(gone));
        }),
        ("is_awake", &|| {
            std::hint::black_box(w.is_awake(gone));
        }),
        ("is_static", &|| {
            std::hint::black_box(w.is_static(gone));
        }),
        ("is_kinematic", &|| {
            std::hint::black_box(w.is_kinematic(gone));
        }),
        ("is_bullet", &|| {
            std::hint::black_box(w.is_bullet(gone));
        }),
        ("user_data", &|| {
            std::hint::black_box(w.user_data(gone));
        }),
        ("body_type", &|| {
            std::hint::black_box(w.body_type(gone));
        }),
        ("body_pieces", &|| {
            std::hint::black_box(w.body_pieces(gone).len());
        }),
        ("body_colliders", &|| {
            std::hint::black_box(w.body_colliders(gone).len());
        }),
        ("body_aabb", &|| {
            std::hint::black_box(w.body_aabb(gone));
        }),
        ("linear_damping", &|| {
            std::hint::black_box(w.linear_damping(gone));
        }),
        ("angular_damping", &|| {
            std::hint::black_box(w.angular_damping(gone));
        }),
        ("gravity_scale", &|| {
            std::hint::black_box(w.gravity_scale(gone));
        }),
        ("fixed_rotation", &|| {
            std::hint::black_box(w.fixed_rotation(gone));
        }),
        ("another world's", &|| {
            std::hint::black_box(World::default().transform(new));
        }),
    ];
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let messages: Vec<(&str, Option<String>)> = readers
        .iter()
        .map(|(name, read)| {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
            let message = outcome.err().map(|payload| {
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_default()
            });
            (*name, message)
        })
        .collect();
    std::panic::set_hook(previous);
    for (name, message) in messages {
        let message = message.unwrap_or_else(|| panic!("{name} read a stale handle"));
        let handle = if name == "another world's" { new } else { gone };
        assert!(
            message.contains(&handle.to_string()),
            "{name}: {message:?} does not name {handle}"
        );
        let why = if name == "another world's" {
            "another world"
        } else {
            "removed"
        };
        assert!(
            message.contains(why),
            "{name}: {message:?} does not say {why:?}"
        );
    }
    // While the new one reads as itself.
    assert_eq!(world.transform(new).translation(), Vec2::new(5.0, 5.0));
    assert_eq!(world.user_data(new), Some(7));
    assert!(world.is_awake(new));
    assert_eq!(world.body_colliders(new).len(), 1);
}
