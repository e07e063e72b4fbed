//! Ray casts and point queries against parry2d on random convex polygons and circles, and
//! the world's queries against brute force over every collider.

use crate::common;

use parry2d::math::{Pose, Rotation, Vector};
use parry2d::query::{PointQuery, Ray, RayCast};
use parry2d::shape::{Ball, ConvexPolygon};
use rand::Rng;
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::{Aabb, BodyDef, Error, Filter, Polygon, Shape, Transform, World, cast_ray};
#[cfg(feature = "scenes")]
use wgpu_sat::{BodyId, ColliderId, CpuNarrowPhase, Sweep, collide_shapes, scenes, time_of_impact};

fn to_parry(v: Vec2) -> Vector {
    Vector::new(v.x, v.y)
}

/// The shape and its pose in parry2d: a polygon as a `ConvexPolygon` with the same pose, a
/// circle as a `Ball` at its centre's world position. `None` for the rare polygon parry2d
/// refuses (it drops nearly collinear vertices, and may find too few left).
fn parry_shape(shape: &Shape, t: &Transform) -> Option<(Box<dyn ParryShape>, Pose)> {
    let r = t.rotation();
    let pose = Pose::from_parts(
        to_parry(t.translation()),
        Rotation::from_cos_sin_unchecked(r.x, r.y),
    );
    match shape {
        Shape::Polygon(p) => {
            let points = p.vertices().iter().map(|&v| to_parry(v)).collect();
            let polygon = ConvexPolygon::from_convex_polyline(points)?;
            // Only when parry2d kept every vertex as it was is it the same polygon (it
            // may merge or move vertices of a very short edge).
            let same = polygon
                .points()
                .iter()
                .map(|v| Vec2::new(v.x, v.y))
                .eq(p.vertices().iter().copied());
            same.then(|| (Box::new(polygon) as _, pose))
        }
        Shape::Circle(c) => {
            let center = t.transform_point(c.center());
            let pose = Pose::from_parts(to_parry(center), Rotation::IDENTITY);
            Some((Box::new(Ball::new(c.radius())), pose))
        }
        // These tests place polygons and circles; the new shapes have tests of their own.
        _ => None,
    }
}

/// What the tests ask of a parry2d shape.
trait ParryShape: RayCast + PointQuery {}
impl<T: RayCast + PointQuery> ParryShape for T {}

/// Where the ray `o + t d`, `t` in [0, 1], enters the shape, in f64 from the f32 world
/// vertices (or centre): the exact answer ours must match within f32 rounding. Edge
/// normals come from the vertices, not from the polygon's f32 normals.
fn exact_entry(shape: &Shape, t: &Transform, o: DVec2, d: DVec2) -> Option<f64> {
    match shape {
        Shape::Polygon(p) => {
            let v = common::world_vertices(p, t);
            let (mut lower, mut upper, mut entered) = (0.0f64, 1.0f64, false);
            for i in 0..v.len() {
                let e = v[(i + 1) % v.len()] - v[i];
                let n = DVec2::new(e.y, -e.x).normalize();
                let (num, den) = (n.dot(v[i] - o), n.dot(d));
                if den == 0.0 {
                    if num < 0.0 {
                        return None;
                    }
                } else if den < 0.0 {
                    if num / den > lower {
                        (lower, entered) = (num / den, true);
                    }
                } else {
                    upper = upper.min(num / den);
                }
            }
            (entered && lower <= upper).then_some(lower)
        }
        Shape::Circle(c) => {
            let s = o - t.transform_point(c.center()).as_dvec2();
            let r = c.radius() as f64;
            let (a, b, cc) = (d.dot(d), s.dot(d), s.dot(s) - r * r);
            let disc = b * b - a * cc;
            if cc <= 0.0 || disc < 0.0 {
                return None;
            }
            let t = (-b - disc.sqrt()) / a;
            (0.0..=1.0).contains(&t).then_some(t)
        }
        other => panic!("exact_entry takes polygons and circles, not {other:?}"),
    }
}

/// Hits and misses closer than this to the shape (the shapes are about a unit across)
/// are rounding's call, and left out: f32 poses round at about 1e-7 of coordinates near 5.
const BAND: f32 = 1e-4;

#[test]
fn ray_casts_agree_with_parry2d() {
    let mut rng = common::rng(0x7a1);
    let (mut hits, mut misses, mut compared) = (0, 0, 0);
    for case in 0..60_000 {
        let size = rng.random_range(0.2..2.0);
        let shape = common::random_shape(&mut rng, size);
        let t = common::random_transform(&mut rng, 3.0);
        let origin = Vec2::new(rng.random_range(-6.0..6.0), rng.random_range(-6.0..6.0));
        // Aimed near the shape (most hit, some fall short or pass by), or anywhere.
        let translation = if rng.random_bool(0.7) {
            let aim = t.translation()
                + Vec2::new(rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5)) * size;
            (aim - origin) * rng.random_range(0.5..2.0)
        } else {
            Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
                * rng.random_range(0.1..12.0)
        };
        let Some((parry, pose)) = parry_shape(&shape, &t) else {
            continue;
        };
        // Rays that start inside or at the boundary are ours to miss by rule, parry's to
        // hit at 0: compared apart below.
        let start_distance = parry.distance_to_point(&pose, to_parry(origin), true);
        if start_distance < BAND {
            continue;
        }
        let ray = Ray::new(to_parry(origin), to_parry(translation));
        let theirs = parry.cast_ray_and_get_normal(&pose, &ray, 1.0, true);
        let ours = cast_ray(&shape, &t, origin, translation);
        compared += 1;
        match (ours, theirs) {
            (Some(a), Some(b)) => {
                hits += 1;
                // Compared along the normal: a grazing ray meets the surface at a point that
                // rounding moves far along the ray, but not off the surface. parry2d casts
                // against polygons by GJK with a tolerance, which can be off by 1e-4 on a
                // polygon with a very short edge; the exact f64 answer is held to f32
                // rounding.
                let theirs_normal = Vec2::new(b.normal.x, b.normal.y);
                let across = translation.dot(a.normal).abs() as f64;
                let exact = exact_entry(&shape, &t, origin.as_dvec2(), translation.as_dvec2())
                    .expect("a hit both libraries see is a hit in f64");
                assert!(
                    (a.fraction as f64 - exact).abs() * across < 1e-5,
                    "case {case}: fraction {} against exact {exact}",
                    a.fraction
                );
                assert!(
                    (a.fraction - b.time_of_impact).abs() * (across as f32) < 10.0 * BAND,
                    "case {case}: fraction {} against parry's {} ({a:?}, parry's normal {}; {shape:?} at {t:?}, ray {origin} + {translation})",
                    a.fraction,
                    b.time_of_impact,
                    b.normal
                );
                // At a corner either face's normal is right.
                let at_corner = shape.as_polygon().is_some_and(|p| {
                    p.vertices()
                        .iter()
                        .any(|&v| t.transform_point(v).distance(a.point) < 10.0 * BAND)
                });
                assert!(
                    at_corner || a.normal.dot(theirs_normal) > 0.999,
                    "case {case}: normal {} against parry's {theirs_normal}",
                    a.normal
                );
                assert!((a.normal.length() - 1.0).abs() < 1e-5);
                assert_eq!(a.point, origin + a.fraction * translation);
            }
            (None, None) => misses += 1,
            (ours, theirs) => {
                // Only a graze may differ: a ray that passes within the band of the
                // shape, or ends within it.
                let graze = parry.cast_ray(&pose, &ray, 1.0 + BAND, true).is_some()
                    != parry.cast_ray(&pose, &ray, 1.0 - BAND, true).is_some();
                let end = origin + translation;
                let near_end = parry.distance_to_point(&pose, to_parry(end), true) < BAND;
                let skims = skims(&*parry, &pose, origin, translation);
                assert!(
                    graze || near_end || skims,
                    "case {case}: ours {ours:?}, parry's {theirs:?}"
                );
            }
        }
    }
    eprintln!("{compared} rays compared: {hits} hits, {misses} misses");
    assert!(hits > 10_000 && misses > 10_000);
}

/// Whether the ray passes within `BAND` of the shape without entering it by more: the ray
/// moved sideways by the band hits on one side and misses on the other.
fn skims(parry: &dyn ParryShape, pose: &Pose, origin: Vec2, translation: Vec2) -> bool {
    let side = translation.perp().normalize() * BAND;
    let cast = |o: Vec2| {
        let ray = Ray::new(to_parry(o), to_parry(translation));
        parry.cast_ray(pose, &ray, 1.0, true).is_some()
    };
    cast(origin + side) != cast(origin - side)
}

#[test]
fn rays_from_inside_miss_and_point_queries_agree_with_parry2d() {
    let mut rng = common::rng(0x9017);
    let (mut inside, mut outside) = (0, 0);
    for case in 0..60_000 {
        let size = rng.random_range(0.2..2.0);
        let shape = common::random_shape(&mut rng, size);
        let t = common::random_transform(&mut rng, 2.0);
        let point = Vec2::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0));
        let Some((parry, pose)) = parry_shape(&shape, &t) else {
            continue;
        };
        let distance = parry.distance_to_point(&pose, to_parry(point), true);
        let contained = parry.contains_point(&pose, to_parry(point));
        if distance < BAND && !contained {
            continue;
        }
        // Solid or not, parry2d's distance is signed (negative inside): its size is the
        // distance to the boundary.
        if contained && parry.distance_to_point(&pose, to_parry(point), false).abs() < BAND {
            continue;
        }
        assert_eq!(
            shape.contains_point(&t, point),
            contained,
            "case {case}: {point}"
        );
        if contained {
            inside += 1;
            let out = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU)) * 10.0;
            assert!(cast_ray(&shape, &t, point, out).is_none(), "case {case}");
        } else {
            outside += 1;
        }
    }
    assert!(
        inside > 1_000 && outside > 20_000,
        "{inside} inside, {outside} outside"
    );
}

/// A settled-in-part mixed pile, with a third of its bodies in category 2.
#[cfg(feature = "scenes")]
fn query_world() -> World {
    let mut world = scenes::mixed(300, 11);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..40 {
        world.step(1.0 / 60.0, &mut narrow).unwrap();
    }
    let bodies: Vec<_> = world.bodies().collect();
    for &body in bodies.iter().step_by(3) {
        world
            .set_filter(
                body,
                Filter {
                    category_bits: 2,
                    ..Filter::default()
                },
            )
            .unwrap();
    }
    world
}

#[cfg(feature = "scenes")]
#[test]
fn world_queries_equal_brute_force_over_every_collider() {
    let mut world = query_world();
    let mut rng = common::rng(0x51);
    let mut narrow = CpuNarrowPhase::new();
    let only_default = Filter {
        mask_bits: 1,
        ..Filter::default()
    };
    let (mut all, mut points) = (Vec::new(), Vec::new());
    let (mut hit_rays, mut found_points) = (0, 0);
    // Steps in between: the tree must follow the bodies.
    for round in 0..6 {
        world.step(1.0 / 60.0, &mut narrow).unwrap();
        let colliders = world.colliders();
        // Nothing is removed here, so every collider slot is live.
        let id = |c: usize| world.collider_id(c).expect("a live collider slot");
        let seen = |c: usize, filter: &Filter| {
            filter.should_collide(&world.collider_filter(id(c)).unwrap())
        };
        for _ in 0..500 {
            let origin = Vec2::new(rng.random_range(-25.0..25.0), rng.random_range(-5.0..30.0));
            let translation = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
                * rng.random_range(0.5..40.0);
            for filter in [Filter::default(), only_default] {
                let mut brute: Vec<(f32, ColliderId)> = (0..colliders.len())
                    .filter(|&c| seen(c, &filter) && !world.is_sensor(id(c)).unwrap())
                    .filter_map(|c| {
                        let shape = &world.shapes()[colliders[c].shape as usize];
                        cast_ray(shape, &colliders[c].transform, origin, translation)
                            .map(|h| (h.fraction, id(c)))
                    })
                    .collect();
                brute.sort_by(|a, b| a.partial_cmp(b).unwrap());
                let closest = world
                    .cast_ray_closest(origin, translation, &filter)
                    .unwrap();
                assert_eq!(
                    closest.map(|h| (h.hit.fraction, h.collider)),
                    brute.first().copied(),
                    "round {round}: closest"
                );
                world
                    .cast_ray_all(origin, translation, &filter, &mut all)
                    .unwrap();
                let listed: Vec<(f32, ColliderId)> =
                    all.iter().map(|h| (h.hit.fraction, h.collider)).collect();
                assert_eq!(listed, brute, "round {round}: all hits");
                for h in &all {
                    assert_eq!(h.body, world.collider_body(h.collider).unwrap());
                }
                hit_rays += usize::from(!brute.is_empty());
            }
            let expected = world.cast_ray(origin, translation);
            assert_eq!(
                expected.map(|(b, h)| (b, h.fraction)),
                world
                    .cast_ray_closest(origin, translation, &Filter::default())
                    .unwrap()
                    .map(|h| (h.body, h.hit.fraction))
            );

            let point = origin;
            world
                .colliders_at(point, &only_default, &mut points)
                .unwrap();
            let brute: Vec<ColliderId> = (0..colliders.len())
                .filter(|&c| {
                    seen(c, &only_default)
                        && world.shapes()[colliders[c].shape as usize]
                            .contains_point(&colliders[c].transform, point)
                })
                .map(id)
                .collect();
            assert_eq!(points, brute, "round {round}: point {point}");
            found_points += points.len();
            let top = brute.iter().map(|&c| world.collider_body(c).unwrap()).max();
            if world.body_at(point).is_some() || top.is_some() {
                // body_at sees every category; with none in category 2 here it is the
                // top of the brute list or a category-2 body above it.
                // (Bodies were added in slot order and none removed, so the highest body is
                // the one of the highest collider slot.)
                let any: Option<BodyId> = (0..colliders.len())
                    .filter(|&c| {
                        world.shapes()[colliders[c].shape as usize]
                            .contains_point(&colliders[c].transform, point)
                    })
                    .map(|c| world.collider_body(id(c)).unwrap())
                    .max();
                assert_eq!(world.body_at(point), any);
            }

            let query = Aabb::new(origin, origin + translation.abs() * 0.1);
            world
                .colliders_in_aabb(&query, &Filter::default(), &mut points)
                .unwrap();
            let boxes: Vec<ColliderId> = (0..colliders.len())
                .filter(|&c| world_box(&world, c).overlaps(&query))
                .map(id)
                .collect();
            assert_eq!(points, boxes, "round {round}: box {query:?}");
        }
    }
    assert!(hit_rays > 1000, "only {hit_rays} rays hit");
    shape_queries_equal_brute_force(&world, &mut rng);
    assert!(
        found_points > 50,
        "only {found_points} points inside bodies"
    );
}

/// `overlap_shape` and `cast_shape` against collide_shapes and time_of_impact over every
/// collider.
#[cfg(feature = "scenes")]
fn shape_queries_equal_brute_force(world: &World, rng: &mut impl Rng) {
    let colliders = world.colliders();
    // Nothing is removed here, so every collider slot is live.
    let id = |c: usize| world.collider_id(c).expect("a live collider slot");
    let (mut found, mut overlaps, mut casts) = (Vec::new(), 0, 0);
    for case in 0..400 {
        let size = rng.random_range(0.2..1.5);
        let shape = common::random_shape(rng, size);
        let at = Transform::new(
            Vec2::new(rng.random_range(-22.0..22.0), rng.random_range(-2.0..25.0)),
            rng.random_range(-3.0..3.0),
        );
        world
            .overlap_shape(&shape, &at, &Filter::default(), &mut found)
            .unwrap();
        let brute: Vec<ColliderId> = (0..colliders.len())
            .filter(|&c| {
                let other = &colliders[c];
                collide_shapes(
                    &shape,
                    &at,
                    &world.shapes()[other.shape as usize],
                    &other.transform,
                )
                .is_some()
            })
            .map(id)
            .collect();
        assert_eq!(found, brute, "case {case}: overlap");
        overlaps += found.len();

        let translation = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
            * rng.random_range(0.5..15.0);
        let sweep = Sweep {
            local_center: Vec2::ZERO,
            c0: at.translation(),
            c1: at.translation() + translation,
            a0: at.angle(),
            a1: at.angle(),
        };
        let brute = (0..colliders.len())
            .filter(|&c| !world.is_sensor(id(c)).unwrap())
            .filter_map(|c| {
                let other = &colliders[c];
                let fixed = Sweep::fixed(&other.transform);
                time_of_impact(
                    &shape,
                    &sweep,
                    &world.shapes()[other.shape as usize],
                    &fixed,
                )
                .filter(|h| h.t <= 1.0)
                .map(|h| (h.t, id(c)))
            })
            .min_by(|a, b| a.partial_cmp(b).unwrap());
        let hit = world
            .cast_shape(&shape, &at, translation, &Filter::default())
            .unwrap();
        assert_eq!(
            hit.map(|h| (h.fraction, h.collider)),
            brute,
            "case {case}: cast"
        );
        if let Some(h) = hit {
            casts += 1;
            assert_eq!(h.body, world.collider_body(h.collider).unwrap());
            assert!((h.normal.length() - 1.0).abs() < 1e-4);
        }
    }
    assert!(
        overlaps > 20 && casts > 100,
        "{overlaps} overlaps, {casts} casts hit"
    );
}

#[cfg(feature = "scenes")]
fn world_box(world: &World, collider: usize) -> Aabb {
    let c = &world.colliders()[collider];
    world.shapes()[c.shape as usize].aabb(&c.transform)
}

#[test]
fn bad_queries_are_errors_naming_the_input() {
    let mut world = World::default();
    let block = world
        .add_body(&BodyDef::fixed(Polygon::rectangle(1.0, 1.0), Vec2::ZERO))
        .unwrap();
    let any = Filter::default();
    let mut out = Vec::new();
    let mut hits = Vec::new();
    let square = Shape::from(Polygon::rectangle(0.5, 0.5));
    let cases: [(&str, Result<(), Error>); 8] = [
        (
            "shape translation",
            world
                .cast_shape(&square, &Transform::IDENTITY, Vec2::ZERO, &any)
                .map(|_| ()),
        ),
        (
            "shape position",
            world.overlap_shape(
                &square,
                &Transform::new(Vec2::new(f32::NAN, 0.0), 0.0),
                &any,
                &mut out,
            ),
        ),
        (
            "ray origin",
            world
                .cast_ray_closest(Vec2::new(f32::NAN, 0.0), Vec2::X, &any)
                .map(|_| ()),
        ),
        (
            "ray translation",
            world
                .cast_ray_closest(Vec2::ZERO, Vec2::ZERO, &any)
                .map(|_| ()),
        ),
        (
            "ray translation",
            world.cast_ray_all(Vec2::ZERO, Vec2::new(0.0, f32::INFINITY), &any, &mut hits),
        ),
        (
            "point",
            world.colliders_at(Vec2::new(0.0, f32::NAN), &any, &mut out),
        ),
        (
            "aabb min",
            world.colliders_in_aabb(&Aabb::new(Vec2::ONE, Vec2::ZERO), &any, &mut out),
        ),
        (
            "category_bits",
            world.colliders_at(
                Vec2::ZERO,
                &Filter {
                    category_bits: 0,
                    ..any
                },
                &mut out,
            ),
        ),
    ];
    for (field, result) in cases {
        let e = result.expect_err(field);
        assert!(e.to_string().contains(field), "{field}: {e}");
    }
    // The plain forms answer "nothing" instead.
    assert!(world.cast_ray(Vec2::new(f32::NAN, 0.0), Vec2::X).is_none());
    assert!(world.body_at(Vec2::splat(f32::NAN)).is_none());
    assert_eq!(
        world
            .cast_ray(Vec2::new(-5.0, 0.0), Vec2::new(10.0, 0.0))
            .map(|(b, h)| (b, h.point)),
        Some((block, Vec2::new(-1.0, 0.0)))
    );
}
