//! Forces, impulses, damping, gravity scale and fixed rotation: each against the formula it
//! follows, and each bad value an error that names it.

use crate::bodies_common;

use bodies_common::{DT, ground, step, unit_box};
use wgpu_sat::error::WorldError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyId, CpuNarrowPhase, Error, Polygon, World};

/// A 1 x 2 box (mass 2 at density 1) alone in a world with `gravity`.
fn lone_box(gravity: Vec2) -> (World, BodyId) {
    let mut world = World::new(gravity);
    let body = world
        .add_body(&BodyDef::dynamic(Polygon::rectangle(0.5, 1.0), Vec2::ZERO))
        .unwrap();
    (world, body)
}

/// The error's message names `field` (and it is a body error).
fn names(result: Result<(), Error>, field: &str) {
    let e = result.expect_err(field);
    assert!(
        matches!(e, Error::World(WorldError::InvalidBody { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains(field), "{e} should name {field}");
}

#[test]
fn an_upward_force_of_m_g_cancels_gravity() {
    let (mut world, body) = lone_box(Vec2::new(0.0, -10.0));
    let lift = -world.mass(body) * world.gravity();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..60 {
        let center = world.center_of_mass(body);
        world.apply_force(body, lift, center).unwrap();
        world.step(DT, &mut narrow).unwrap();
        // inv_mass * (m g) rounds to g within an ulp or two: 1e-6 per second at most.
        assert!(world.linear_velocity(body).length() < 1e-5);
    }
    assert!(world.center_of_mass(body).length() < 1e-5);
    assert_eq!(world.angular_velocity(body), 0.0);
    // Without the force it falls: the test sees gravity.
    step(&mut world, 6);
    assert!(world.linear_velocity(body).y < -0.9);
}

#[test]
fn a_force_off_the_centre_turns_the_body_by_r_cross_f() {
    let (mut world, body) = lone_box(Vec2::ZERO);
    let (force, r) = (Vec2::new(0.0, 3.0), Vec2::new(0.5, 0.25));
    let center = world.center_of_mass(body);
    world.apply_force(body, force, center + r).unwrap();
    step(&mut world, 1);
    let torque = r.perp_dot(force);
    let expected_w = torque / world.rotational_inertia(body) * DT;
    let w = world.angular_velocity(body);
    assert!(
        (w - expected_w).abs() <= 1e-5 * expected_w.abs(),
        "{w} vs {expected_w}"
    );
    let v = world.linear_velocity(body);
    let expected_v = force / world.mass(body) * DT;
    assert!((v - expected_v).length() < 1e-6, "{v} vs {expected_v}");
    // A torque alone turns it the same way, without moving it.
    let (mut world, body) = lone_box(Vec2::ZERO);
    world.apply_torque(body, torque).unwrap();
    step(&mut world, 1);
    assert!((world.angular_velocity(body) - expected_w).abs() <= 1e-5 * expected_w.abs());
    assert_eq!(world.linear_velocity(body), Vec2::ZERO);
}

#[test]
fn forces_are_cleared_after_a_step() {
    let (mut world, body) = lone_box(Vec2::ZERO);
    world
        .apply_force_to_center(body, Vec2::new(4.0, 0.0))
        .unwrap();
    world
        .apply_force_to_center(body, Vec2::new(2.0, 0.0))
        .unwrap();
    world.apply_torque(body, 1.0).unwrap();
    step(&mut world, 1);
    let (v, w) = (world.linear_velocity(body), world.angular_velocity(body));
    // The two forces added up: 6 / mass 2 for 1/60 s.
    assert!((v.x - 3.0 * DT).abs() < 1e-6, "{v}");
    assert!(w > 0.0);
    step(&mut world, 3);
    assert_eq!(world.linear_velocity(body), v);
    assert_eq!(world.angular_velocity(body), w);
}

#[test]
fn an_impulse_changes_the_velocity_at_once() {
    let (mut world, body) = lone_box(Vec2::ZERO);
    let center = world.center_of_mass(body);
    let (impulse, r) = (Vec2::new(1.0, -2.0), Vec2::new(-0.25, 0.5));
    world
        .apply_linear_impulse(body, impulse, center + r)
        .unwrap();
    assert_eq!(world.linear_velocity(body), impulse / world.mass(body));
    let w = r.perp_dot(impulse) / world.rotational_inertia(body);
    assert!((world.angular_velocity(body) - w).abs() < 1e-6);
    world.apply_angular_impulse(body, -1.0).unwrap();
    let w = w - 1.0 / world.rotational_inertia(body);
    assert!((world.angular_velocity(body) - w).abs() < 1e-6);
    world
        .apply_linear_impulse_to_center(body, -impulse)
        .unwrap();
    assert!(world.linear_velocity(body).length() < 1e-6);
}

#[test]
fn forces_and_impulses_wake_a_sleeping_body() {
    let mut world = World::default();
    ground(&mut world, 0.0, 5.0);
    let body = unit_box(&mut world, Vec2::new(0.0, 0.5));
    step(&mut world, 90);
    assert!(!world.is_awake(body));
    world.apply_torque(body, 0.0).unwrap();
    assert!(world.is_awake(body));
    step(&mut world, 90);
    assert!(!world.is_awake(body));
    world
        .apply_linear_impulse_to_center(body, Vec2::new(0.0, 5.0))
        .unwrap();
    assert!(world.is_awake(body));
    step(&mut world, 1);
    assert!(world.center_of_mass(body).y > 0.5 + 1e-3, "it jumped");
}

#[test]
fn linear_and_angular_damping_decay_as_box2d_integrates_them() {
    let (d_linear, d_angular) = (0.5, 2.0);
    let mut world = World::new(Vec2::ZERO);
    let body = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(4.0, 0.0),
            angular_velocity: 3.0,
            linear_damping: d_linear,
            angular_damping: d_angular,
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
        })
        .unwrap();
    let steps = 120;
    step(&mut world, steps);
    let substeps = (steps * world.substeps()) as i32;
    let h = DT / world.substeps() as f32;
    let t = steps as f32 * DT;
    let v = world.linear_velocity(body).x;
    let w = world.angular_velocity(body);
    // The discrete closed form, v0 / (1 + h d)^n: equal but for f32 rounding, about an
    // ulp per substep (480 of them: 3e-5 relative); 1e-4 leaves room.
    let discrete = |v0: f32, d: f32| v0 * (1.0 + h * d).powi(-substeps);
    assert!((v / discrete(4.0, d_linear) - 1.0).abs() < 1e-4, "{v}");
    assert!((w / discrete(3.0, d_angular) - 1.0).abs() < 1e-4, "{w}");
    // And the continuous one, v0 exp(-d t): n ln(1 + h d) = d t - t h d^2 / 2 + ..., so the
    // two part by a relative t h d^2 / 2 (1e-3 for the linear damping here, 1.7e-2 for the
    // angular); a fifth more covers the next terms, and a damping applied per step instead
    // of per substep (four times the gap), or twice, fails it.
    let continuous = |v0: f32, d: f32| v0 * (-d * t).exp();
    let gap = |d: f32| 1.2 * t * h * d * d / 2.0;
    assert!(
        (v / continuous(4.0, d_linear) - 1.0).abs() < gap(d_linear),
        "{v}"
    );
    assert!(
        (w / continuous(3.0, d_angular) - 1.0).abs() < gap(d_angular),
        "{w}"
    );
    // A setter changes it: no damping, no decay.
    world.set_linear_damping(body, 0.0).unwrap();
    world.set_angular_damping(body, 0.0).unwrap();
    step(&mut world, 10);
    assert_eq!(world.linear_velocity(body).x, v);
    assert_eq!(world.angular_velocity(body), w);
    assert_eq!(world.linear_damping(body), 0.0);
}

#[test]
fn gravity_scale_zero_floats_and_two_falls_twice_as_fast() {
    let mut world = World::new(Vec2::new(0.0, -10.0));
    let floating = world
        .add_body(&BodyDef {
            gravity_scale: 0.0,
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
        })
        .unwrap();
    let heavy = unit_box(&mut world, Vec2::new(5.0, 0.0));
    world.set_gravity_scale(heavy, 2.0).unwrap();
    assert_eq!(world.gravity_scale(heavy), 2.0);
    step(&mut world, 60);
    assert_eq!(world.center_of_mass(floating), Vec2::ZERO);
    assert_eq!(world.linear_velocity(floating), Vec2::ZERO);
    let v = world.linear_velocity(heavy).y;
    assert!((v + 20.0).abs() < 1e-3, "{v}");
}

#[test]
fn a_fixed_rotation_keeps_the_angle_under_an_off_centre_impulse() {
    let mut world = World::default();
    ground(&mut world, 0.0, 5.0);
    let body = world
        .add_body(&BodyDef {
            fixed_rotation: true,
            angular_velocity: 5.0,
            ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 2.0))
        })
        .unwrap();
    assert!(world.fixed_rotation(body));
    assert_eq!(world.angular_velocity(body), 0.0);
    let corner = world.center_of_mass(body) + Vec2::new(0.5, 0.5);
    world
        .apply_linear_impulse(body, Vec2::new(-3.0, 0.0), corner)
        .unwrap();
    world.apply_torque(body, 10.0).unwrap();
    world.apply_angular_impulse(body, 10.0).unwrap();
    world.set_velocity(body, Vec2::ZERO, 4.0).unwrap();
    // Falls onto the ground and slides: contacts cannot turn it either.
    world
        .apply_linear_impulse_to_center(body, Vec2::new(3.0, 0.0))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..90 {
        world.step(DT, &mut narrow).unwrap();
        assert_eq!(world.transform(body).angle(), 0.0);
        assert_eq!(world.angular_velocity(body), 0.0);
    }
    // Free to turn again, the same impulse turns it.
    world.set_fixed_rotation(body, false).unwrap();
    let corner = world.center_of_mass(body) + Vec2::new(0.5, 0.5);
    world
        .apply_linear_impulse(body, Vec2::new(-3.0, 0.0), corner)
        .unwrap();
    assert!(world.angular_velocity(body) > 1.0);
}

#[test]
fn forces_on_static_and_kinematic_bodies_do_nothing() {
    let mut world = World::new(Vec2::ZERO);
    let wall = world
        .add_body(&BodyDef::fixed(Polygon::rectangle(0.5, 0.5), Vec2::ZERO))
        .unwrap();
    let platform = world
        .add_body(&BodyDef {
            linear_velocity: Vec2::new(1.0, 0.0),
            ..BodyDef::kinematic(Polygon::rectangle(0.5, 0.5), Vec2::new(0.0, 5.0))
        })
        .unwrap();
    for body in [wall, platform] {
        let before = world.linear_velocity(body);
        world
            .apply_force(body, Vec2::new(100.0, 0.0), Vec2::ONE)
            .unwrap();
        world
            .apply_force_to_center(body, Vec2::new(100.0, 0.0))
            .unwrap();
        world.apply_torque(body, 100.0).unwrap();
        world
            .apply_linear_impulse(body, Vec2::new(100.0, 0.0), Vec2::ONE)
            .unwrap();
        world.apply_angular_impulse(body, 100.0).unwrap();
        assert_eq!(world.linear_velocity(body), before);
        assert_eq!(world.angular_velocity(body), 0.0);
        // Checked all the same.
        names(world.apply_torque(body, f32::NAN), "torque");
    }
    step(&mut world, 10);
    assert_eq!(world.center_of_mass(wall), Vec2::ZERO);
    assert_eq!(world.linear_velocity(platform), Vec2::new(1.0, 0.0));
    assert_eq!(world.angular_velocity(platform), 0.0);
}

#[test]
fn bad_forces_impulses_and_settings_are_errors_naming_the_value() {
    let (mut world, body) = lone_box(Vec2::new(0.0, -10.0));
    let at = world.center_of_mass(body);
    names(
        world.apply_force(body, Vec2::new(f32::NAN, 0.0), at),
        "force",
    );
    names(
        world.apply_force(body, Vec2::X, Vec2::new(0.0, f32::INFINITY)),
        "point",
    );
    names(
        world.apply_force_to_center(body, Vec2::splat(f32::NAN)),
        "force",
    );
    names(world.apply_torque(body, f32::NEG_INFINITY), "torque");
    names(
        world.apply_linear_impulse(body, Vec2::new(0.0, f32::NAN), at),
        "impulse",
    );
    names(
        world.apply_linear_impulse(body, Vec2::X, Vec2::new(f32::NAN, 0.0)),
        "point",
    );
    names(
        world.apply_angular_impulse(body, f32::NAN),
        "angular_impulse",
    );
    // Finite but past what f32 can integrate: 1e38 on a mass of 2.
    names(
        world.apply_force_to_center(body, Vec2::new(1e38, 0.0)),
        "force",
    );
    names(world.apply_torque(body, 3e38), "torque");
    // Two forces each within the limit whose sum is not: the second is refused.
    world
        .apply_force_to_center(body, Vec2::new(1.5e12, 0.0))
        .unwrap();
    names(
        world.apply_force_to_center(body, Vec2::new(1.5e12, 0.0)),
        "force",
    );
    names(world.set_linear_damping(body, -0.1), "linear_damping");
    names(world.set_angular_damping(body, f32::NAN), "angular_damping");
    names(
        world.set_gravity_scale(body, f32::INFINITY),
        "gravity_scale",
    );
    names(world.set_gravity_scale(body, 1e7), "gravity_scale");
    assert_eq!(world.linear_damping(body), 0.0);
    assert_eq!(world.gravity_scale(body), 1.0);
    // Definitions are checked the same way.
    let good = BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO);
    for (field, def) in [
        (
            "linear_damping",
            BodyDef {
                linear_damping: -1.0,
                ..good.clone()
            },
        ),
        (
            "angular_damping",
            BodyDef {
                angular_damping: f32::INFINITY,
                ..good.clone()
            },
        ),
        (
            "gravity_scale",
            BodyDef {
                gravity_scale: f32::NAN,
                ..good.clone()
            },
        ),
    ] {
        let e = world.add_body(&def).unwrap_err();
        assert!(e.to_string().contains(field), "{e}");
    }
    assert_eq!(world.body_count(), 1);
    // Nothing was left half applied: the one accepted force acts, then is gone.
    step(&mut world, 1);
    let v = world.linear_velocity(body);
    assert!(v.is_finite() && v.x > 0.0, "{v}");
    step(&mut world, 1);
    assert!(world.linear_velocity(body).is_finite());
}
