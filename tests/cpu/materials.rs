//! Per-collider materials: friction on a slope piece by piece, restitution's max rule, the
//! mass of pieces of different densities (at creation and after `set_material`), conveyor
//! belts (tangent speed), and every bad input as an error naming it.

use wgpu_sat::error::WorldError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::world::Material;
use wgpu_sat::{BodyDef, BodyId, BodyShape, Circle, CpuNarrowPhase, Error, Polygon, Shape, World};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;

/// The square `[x, x + 1] × [y, y + 1]` as a polygon in a body's local frame.
fn square(x: f32, y: f32) -> Shape {
    let corners = [[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0]].map(Vec2::from);
    Shape::Polygon(Polygon::new(&corners).unwrap())
}

fn grip(friction: f32) -> Material {
    Material {
        friction,
        ..Material::default()
    }
}

fn run(world: &mut World, seconds: f32) {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..(seconds / DT).round() as usize {
        world.step(DT, &mut narrow).unwrap();
    }
}

/// A flat static ground along the x axis (top at y = 0) with `material`.
fn ground(world: &mut World, material: Material) -> BodyId {
    let def = BodyDef::fixed(Polygon::rectangle(100.0, 0.5), Vec2::new(0.0, -0.5));
    world.add_body(&def.with_material(material)).unwrap()
}

/// A body of two unit squares stacked: a foot on the ground and a top that touches
/// nothing, each of its own friction. The foot is piece 0, or piece 1 when `foot_last`, so
/// that neither the body's first piece nor its last decides alone.
fn two_piece_block(world: &mut World, x: f32, [foot, top]: [f32; 2], foot_last: bool) -> BodyId {
    let (mut pieces, mut frictions) = (vec![square(-0.5, 0.0), square(-0.5, 1.0)], [foot, top]);
    if foot_last {
        pieces.reverse();
        frictions.reverse();
    }
    let def = BodyDef::dynamic(BodyShape::compound(pieces).unwrap(), Vec2::new(x, 0.0))
        .with_piece_material(0, grip(frictions[0]))
        .with_piece_material(1, grip(frictions[1]));
    world.add_body(&def).unwrap()
}

/// A slope of angle θ, tan θ = 0.5, as gravity tilted by θ over flat ground of friction 1:
/// a contact's friction is then the root of its piece's (`sqrt(f * 1)`), and a block slides
/// iff that is below tan θ, accelerating at `g (sin θ - μ cos θ)` down the slope (+x). The
/// blocks are the same two materials, slippery and grippy, on the foot or on the top: only
/// the piece that touches decides.
#[test]
fn a_block_slides_down_a_slope_iff_the_friction_of_the_piece_that_touches_is_below_tan_theta() {
    let tan = 0.5f32;
    let theta = tan.atan();
    let mut world = World::new(G * Vec2::new(theta.sin(), -theta.cos()));
    ground(&mut world, grip(1.0));
    // Contact frictions (the roots of these) 0.3, 0.4, 0.45 slide; 0.55, 0.6, 0.8 hold.
    let slides = [0.3f32, 0.4, 0.45];
    let holds = [0.55f32, 0.6, 0.8];
    let mut blocks = Vec::new();
    for (k, &mu) in slides.iter().chain(&holds).enumerate() {
        let x = -40.0 + 5.0 * k as f32;
        // The other piece is the opposite: grippy above a slippery foot, and the reverse.
        let other = if mu < tan { 1.0 } else { 0.0 };
        let block = two_piece_block(&mut world, x, [mu * mu, other], k % 2 == 1);
        blocks.push((mu, block));
    }
    // Measured after the first half second: a held block creeps a centimetre before its
    // contact's friction is warm-started, then stops.
    let seconds = 1.5;
    run(&mut world, 0.5);
    let start: Vec<f32> = blocks
        .iter()
        .map(|&(_, b)| world.center_of_mass(b).x)
        .collect();
    let settled: Vec<f32> = blocks
        .iter()
        .map(|&(_, b)| world.linear_velocity(b).x)
        .collect();
    run(&mut world, seconds - 0.5);
    for (k, &(mu, block)) in blocks.iter().enumerate() {
        let v = world.linear_velocity(block);
        let moved = world.center_of_mass(block).x - start[k];
        if mu < tan {
            let expected = G * (theta.sin() - mu * theta.cos());
            let measured = (v.x - settled[k]) / (seconds - 0.5);
            assert!(
                (measured - expected).abs() < 0.1 * expected,
                "friction {mu}: slides at {measured} per s², expected {expected}"
            );
        } else {
            assert!(
                v.length() < 0.01 && moved.abs() < 0.002,
                "friction {mu} (above tan θ = {tan}) slid: velocity {v}, moved {moved}"
            );
        }
    }
}

/// The highest the ball's bottom rises after its first bounce, dropped from `height` above
/// ground of restitution `ground_e`, the ball's own being `ball_e`.
fn bounce_height(ball_e: f32, ground_e: f32, height: f32) -> f32 {
    let mut world = World::new(Vec2::new(0.0, -G));
    ground(
        &mut world,
        Material {
            restitution: ground_e,
            ..Material::default()
        },
    );
    let radius = 0.25;
    let def = BodyDef::dynamic(
        Circle::new(radius).unwrap(),
        Vec2::new(0.0, height + radius),
    );
    let ball = world
        .add_body(&def.with_material(Material {
            restitution: ball_e,
            ..Material::default()
        }))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut bounced = false;
    let mut peak = f32::NEG_INFINITY;
    for _ in 0..(3.0 / DT) as usize {
        world.step(DT, &mut narrow).unwrap();
        let vy = world.linear_velocity(ball).y;
        let bottom = world.center_of_mass(ball).y - radius;
        if vy > 0.0 {
            bounced = true;
        }
        if bounced {
            peak = peak.max(bottom);
            if vy < 0.0 {
                break;
            }
        }
    }
    peak
}

/// Restitution mixes by the larger: a ball of restitution e on ground of 0 bounces back to
/// about e² of its height, as does a ball of 0 on ground of e; both 0 barely leave it.
#[test]
fn a_ball_bounces_to_e_squared_of_its_height_by_the_larger_restitution() {
    let (e, height) = (0.8f32, 2.0f32);
    let expected = e * e * height;
    for (ball_e, ground_e) in [(e, 0.0), (0.0, e), (e, 0.3)] {
        let peak = bounce_height(ball_e, ground_e, height);
        assert!(
            (peak - expected).abs() < 0.08 * expected,
            "ball {ball_e} on ground {ground_e}: bounced to {peak}, expected about {expected}"
        );
    }
    let dead = bounce_height(0.0, 0.0, height);
    assert!(dead < 0.05, "no restitution, yet it bounced to {dead}");
}

/// Two unit squares side by side, the right one three times as dense.
fn two_densities(world: &mut World) -> BodyId {
    let shape = BodyShape::compound(vec![square(0.0, 0.0), square(1.0, 0.0)]).unwrap();
    let heavy = Material {
        density: 3.0,
        ..Material::default()
    };
    let def = BodyDef::dynamic(shape, Vec2::ZERO).with_piece_material(1, heavy);
    world.add_body(&def).unwrap()
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * b.abs().max(1.0)
}

/// Mass, centre and inertia of two unit squares of masses `m0` (centroid (0.5, 0.5)) and
/// `m1` (centroid (1.5, 0.5)): each square's own inertia is m/6 about its centroid, plus
/// the parallel axis term.
fn closed_form(m0: f32, m1: f32) -> (f32, Vec2, f32) {
    let mass = m0 + m1;
    let cx = (0.5 * m0 + 1.5 * m1) / mass;
    let inertia = (m0 + m1) / 6.0 + m0 * (cx - 0.5).powi(2) + m1 * (1.5 - cx).powi(2);
    (mass, Vec2::new(cx, 0.5), inertia)
}

#[test]
fn pieces_of_different_densities_weigh_as_the_closed_form() {
    let mut world = World::new(Vec2::ZERO);
    let body = two_densities(&mut world);
    let (mass, center, inertia) = closed_form(1.0, 3.0);
    assert!(close(world.mass(body), mass), "mass {}", world.mass(body));
    let c = world.center_of_mass(body);
    assert!(close(c.x, center.x) && close(c.y, center.y), "centre {c}");
    let i = world.rotational_inertia(body);
    assert!(close(i, inertia), "inertia {i}, expected {inertia}");
    let colliders: Vec<_> = world.body_colliders(body).collect();
    assert_eq!(world.material(colliders[0]).unwrap().density, 1.0);
    assert_eq!(world.material(colliders[1]).unwrap().density, 3.0);
}

/// `set_material` with a new density reweighs the body: mass, centre and inertia follow,
/// its frame stays put, and its centre's velocity is its new centre's (`v + w × shift`).
#[test]
fn set_material_density_changes_mass_centre_and_inertia() {
    let mut world = World::new(Vec2::ZERO);
    let body = two_densities(&mut world);
    let before = world.transform(body);
    world.set_velocity(body, Vec2::ZERO, 1.0).unwrap();
    let heavy = world.body_colliders(body).nth(1).unwrap();
    world.set_material(heavy, Material::default()).unwrap();
    let (mass, center, inertia) = closed_form(1.0, 1.0);
    assert!(close(world.mass(body), mass), "mass {}", world.mass(body));
    let c = world.center_of_mass(body);
    assert!(close(c.x, center.x) && close(c.y, center.y), "centre {c}");
    assert!(close(world.rotational_inertia(body), inertia));
    let after = world.transform(body);
    assert!((after.translation() - before.translation()).length() < 1e-6);
    // The centre moved by (-0.25, 0); spinning at 1 rad/s, the new centre moves at
    // w × (-0.25, 0) = (0, -0.25).
    let v = world.linear_velocity(body);
    assert!((v - Vec2::new(0.0, -0.25)).length() < 1e-6, "velocity {v}");
    // And back: three times as heavy on the right again.
    let three = Material {
        density: 3.0,
        ..Material::default()
    };
    world.set_material(heavy, three).unwrap();
    assert!(close(world.mass(body), 4.0));
    assert_eq!(world.material(heavy).unwrap(), three);
}

/// Friction, restitution and tangent speed changed later take effect, and the body's
/// readers report its first piece.
#[test]
fn set_material_is_read_back_and_the_body_readers_report_the_first_piece() {
    let mut world = World::new(Vec2::ZERO);
    let body = two_densities(&mut world);
    let first = world.body_colliders(body).next().unwrap();
    let m = Material {
        friction: 0.1,
        restitution: 0.5,
        density: 1.0,
        tangent_speed: -3.0,
    };
    world.set_material(first, m).unwrap();
    assert_eq!(world.material(first).unwrap(), m);
    assert_eq!(world.friction(body), 0.1);
    assert_eq!(world.restitution(body), 0.5);
}

/// A box on a static conveyor of tangent speed `speed`: its fastest speed along x, and its
/// speed at the end, after `seconds`.
fn ride(speed: f32, seconds: f32) -> (f32, f32) {
    let mut world = World::new(Vec2::new(0.0, -G));
    let belt = Material {
        tangent_speed: speed,
        ..Material::default()
    };
    ground(&mut world, belt);
    let block = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.0, 0.5),
        ))
        .unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut fastest = 0.0f32;
    for _ in 0..(seconds / DT) as usize {
        world.step(DT, &mut narrow).unwrap();
        let vx = world.linear_velocity(block).x;
        if vx.abs() > fastest.abs() {
            fastest = vx;
        }
    }
    (fastest, world.linear_velocity(block).x)
}

/// A positive tangent speed carries a box on the belt's top towards +x (clockwise round
/// the belt, Box2D's sign), a negative one towards -x; the box reaches the belt's speed
/// (friction 0.6 gets it there within a second) and never passes it.
#[test]
fn a_box_on_a_conveyor_reaches_the_belt_speed_in_its_direction_and_no_faster() {
    for speed in [2.0f32, -1.5] {
        let (fastest, last) = ride(speed, 2.0);
        assert!(
            (last - speed).abs() < 0.01 * speed.abs(),
            "belt at {speed}: box at {last}"
        );
        assert!(
            fastest.abs() <= speed.abs() * 1.005 && fastest.signum() == speed.signum(),
            "belt at {speed}: box reached {fastest}"
        );
    }
}

/// A belt switched on under a box asleep on it wakes the box and carries it.
#[test]
fn a_belt_switched_on_wakes_and_carries_what_sleeps_on_it() {
    let mut world = World::new(Vec2::new(0.0, -G));
    let belt = ground(&mut world, Material::default());
    let block = world
        .add_body(&BodyDef::dynamic(
            Polygon::rectangle(0.5, 0.5),
            Vec2::new(0.0, 0.5),
        ))
        .unwrap();
    run(&mut world, 2.0);
    assert!(
        !world.is_awake(block),
        "the box should sleep on the still belt"
    );
    let surface = world.body_colliders(belt).next().unwrap();
    let moving = Material {
        tangent_speed: 1.0,
        ..Material::default()
    };
    world.set_material(surface, moving).unwrap();
    assert!(world.is_awake(block));
    run(&mut world, 1.0);
    let v = world.linear_velocity(block).x;
    assert!((v - 1.0).abs() < 0.01, "box at {v} on a belt at 1");
}

fn is_invalid_material(result: Result<impl std::fmt::Debug, Error>, piece: usize, field: &str) {
    match result {
        Err(e @ Error::World(WorldError::InvalidMaterial { .. })) => {
            let Error::World(WorldError::InvalidMaterial {
                piece: p, field: f, ..
            }) = &e
            else {
                unreachable!()
            };
            assert_eq!((*p, *f), (piece, field), "{e}");
            let text = e.to_string();
            assert!(text.contains(field) && text.contains("must be"), "{text}");
        }
        other => panic!("expected InvalidMaterial for piece {piece} {field}, got {other:?}"),
    }
}

fn bad_materials() -> Vec<(Material, &'static str)> {
    let ok = Material::default();
    vec![
        (grip(-0.1), "friction"),
        (grip(f32::NAN), "friction"),
        (grip(f32::INFINITY), "friction"),
        (
            Material {
                restitution: 1.5,
                ..ok
            },
            "restitution",
        ),
        (
            Material {
                restitution: -0.1,
                ..ok
            },
            "restitution",
        ),
        (
            Material {
                restitution: f32::NAN,
                ..ok
            },
            "restitution",
        ),
        (Material { density: 0.0, ..ok }, "density"),
        (
            Material {
                density: -1.0,
                ..ok
            },
            "density",
        ),
        (
            Material {
                density: f32::NAN,
                ..ok
            },
            "density",
        ),
        (
            Material {
                tangent_speed: f32::NAN,
                ..ok
            },
            "tangent_speed",
        ),
        (
            Material {
                tangent_speed: f32::INFINITY,
                ..ok
            },
            "tangent_speed",
        ),
    ]
}

#[test]
fn every_bad_piece_material_is_an_error_naming_the_piece_and_the_field() {
    let shape = BodyShape::compound(vec![square(0.0, 0.0), square(1.0, 0.0)]).unwrap();
    let mut world = World::new(Vec2::ZERO);
    for (bad, field) in bad_materials() {
        let def = BodyDef::dynamic(shape.clone(), Vec2::ZERO).with_piece_material(1, bad);
        is_invalid_material(world.add_body(&def), 1, field);
    }
    assert_eq!(
        world.body_count(),
        0,
        "a rejected body left something behind"
    );

    // A static body's pieces have no mass: any density goes, the rest is checked.
    let fixed = BodyDef::fixed(shape.clone(), Vec2::ZERO);
    let weightless = Material {
        density: -1.0,
        ..Material::default()
    };
    world
        .add_body(&fixed.clone().with_piece_material(0, weightless))
        .unwrap();
    is_invalid_material(
        world.add_body(&fixed.with_piece_material(0, grip(-1.0))),
        0,
        "friction",
    );

    // A piece the shape does not have.
    let def = BodyDef::dynamic(shape.clone(), Vec2::ZERO).with_piece_material(2, grip(0.5));
    match world.add_body(&def) {
        Err(Error::World(WorldError::PieceOutOfRange {
            piece: 2,
            pieces: 2,
        })) => {}
        other => panic!("expected PieceOutOfRange, got {other:?}"),
    }

    // The body's own tangent speed.
    let def = BodyDef {
        tangent_speed: f32::NAN,
        ..BodyDef::dynamic(shape, Vec2::ZERO)
    };
    match world.add_body(&def) {
        Err(Error::World(WorldError::InvalidBody {
            field: "tangent_speed",
            ..
        })) => {}
        other => panic!("expected InvalidBody tangent_speed, got {other:?}"),
    }
}

#[test]
fn every_bad_set_material_is_an_error_and_changes_nothing() {
    let mut world = World::new(Vec2::ZERO);
    let body = two_densities(&mut world);
    let colliders: Vec<_> = world.body_colliders(body).collect();
    let before = world.material(colliders[1]).unwrap();
    let mass = world.mass(body);
    for (bad, field) in bad_materials() {
        is_invalid_material(world.set_material(colliders[1], bad), 1, field);
    }
    // A density that would put the mass outside MASS_RANGE.
    let dense = Material {
        density: 1e30,
        ..Material::default()
    };
    match world.set_material(colliders[1], dense) {
        Err(Error::World(WorldError::InvalidBody { field: "mass", .. })) => {}
        other => panic!("expected the mass out of range, got {other:?}"),
    }
    assert_eq!(world.material(colliders[1]).unwrap(), before);
    assert_eq!(world.mass(body), mass);

    // A removed body's collider, and another world's.
    world.remove_body(body).unwrap();
    for result in [
        world.set_material(colliders[0], Material::default()),
        world.material(colliders[0]).map(|_| ()),
    ] {
        assert!(
            matches!(result, Err(Error::World(WorldError::StaleCollider { .. }))),
            "{result:?}"
        );
    }
    let mut other = World::new(Vec2::ZERO);
    let foreign = two_densities(&mut other);
    let foreign = other.body_colliders(foreign).next().unwrap();
    assert!(matches!(
        world.set_material(foreign, Material::default()),
        Err(Error::World(WorldError::StaleCollider { .. }))
    ));
}
