//! The query benches' inputs: a world of many static colliders and a batch of rays, cast
//! through wgpu-sat's `World::cast_ray_closest` and through parry2d's BVH on the same
//! shapes and poses.
//!
//! The world: `n` random convex polygons and circles (about a unit across) scattered over a
//! square holding about one per 4 square units, as static bodies (nothing to step). The rays:
//! random origins in that square, random directions, 20 units of reach. Each side returns
//! the closest hit per ray; `RayScene::check` compares the two once, outside the timing.

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Rotation, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy};
use parry2d::query::{Ray, RayCast};
use parry2d::shape::{Ball, ConvexPolygon};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Aabb, BodyDef, Collider, Filter, Polygon, Shape, World, query::Ray as SatRay,
    query::WorldRayHit,
};

/// Rays per timed call.
pub const RAYS_PER_CALL: usize = 1_000;
/// How far each ray reaches, world units.
const REACH: f32 = 20.0;

/// One collider as parry2d sees it.
enum ParryShape {
    Polygon(ConvexPolygon),
    Ball(Ball),
}

/// The same world in both libraries, and the rays.
pub struct RayScene {
    pub world: World,
    bvh: Bvh,
    shapes: Vec<(ParryShape, Pose)>,
    /// Origins and translations, ours and parry2d's.
    rays: Vec<(Vec2, Vec2)>,
    parry_rays: Vec<Ray>,
}

fn to_parry(v: Vec2) -> Vector {
    Vector::new(v.x, v.y)
}

fn random_shape(rng: &mut ChaCha8Rng) -> Shape {
    let size = rng.random_range(0.3..1.0);
    if rng.random_bool(0.3) {
        return Shape::from(wgpu_sat::Circle::new(0.5 * size).expect("a positive radius"));
    }
    let sides = rng.random_range(3..=8);
    let polygon = Polygon::regular(sides, 0.5 * size).expect("a regular polygon is valid");
    Shape::from(polygon)
}

impl RayScene {
    pub fn new(colliders: usize, seed: u64) -> RayScene {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let side = (4.0 * colliders as f32).sqrt();
        let mut world = World::new(Vec2::ZERO);
        let mut shapes = Vec::with_capacity(colliders);
        let mut leaves = Vec::with_capacity(colliders);
        for _ in 0..colliders {
            let shape = random_shape(&mut rng);
            let position = Vec2::new(rng.random_range(0.0..side), rng.random_range(0.0..side));
            let angle = rng.random_range(-3.1..3.1);
            let body = world
                .add_body(&BodyDef {
                    angle,
                    ..BodyDef::fixed(shape, position)
                })
                .expect("a finite static body");
            let t = world.transform(body);
            let aabb = shape.aabb(&t);
            leaves.push(ParryAabb::new(to_parry(aabb.min), to_parry(aabb.max)));
            let r = t.rotation();
            let pose = Pose::from_parts(
                to_parry(t.translation()),
                Rotation::from_cos_sin_unchecked(r.x, r.y),
            );
            shapes.push(match shape {
                Shape::Polygon(p) => {
                    let points = p.vertices().iter().map(|&v| to_parry(v)).collect();
                    let polygon = ConvexPolygon::from_convex_polyline(points)
                        .expect("a regular polygon is convex");
                    (ParryShape::Polygon(polygon), pose)
                }
                Shape::Circle(c) => {
                    let center = t.transform_point(c.center());
                    let pose = Pose::from_parts(to_parry(center), Rotation::IDENTITY);
                    (ParryShape::Ball(Ball::new(c.radius())), pose)
                }
                other => panic!("the query bench builds polygons and circles, not {other:?}"),
            });
        }
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let rays: Vec<(Vec2, Vec2)> = (0..RAYS_PER_CALL)
            .map(|_| {
                let origin = Vec2::new(rng.random_range(0.0..side), rng.random_range(0.0..side));
                let direction = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
                (origin, direction * REACH)
            })
            .collect();
        let parry_rays = rays
            .iter()
            .map(|&(o, d)| Ray::new(to_parry(o), to_parry(d)))
            .collect();
        // Build our query tree now, outside any timing (the first query would).
        let _ = world.cast_ray(Vec2::ZERO, Vec2::X);
        RayScene {
            world,
            bvh,
            shapes,
            rays,
            parry_rays,
        }
    }

    /// Our closest hit of ray `i`.
    fn ours(&self, i: usize) -> Option<WorldRayHit> {
        let (origin, translation) = self.rays[i];
        self.world
            .cast_ray_closest(origin, translation, &Filter::default())
            .expect("finite, non-zero rays")
    }

    /// parry2d's closest hit of ray `i`: (collider, fraction).
    fn theirs(&self, i: usize) -> Option<(u32, f32)> {
        let ray = &self.parry_rays[i];
        self.bvh.cast_ray(ray, 1.0, |leaf, best| {
            let (shape, pose) = &self.shapes[leaf as usize];
            match shape {
                ParryShape::Polygon(p) => p.cast_ray(pose, ray, best, true),
                ParryShape::Ball(b) => b.cast_ray(pose, ray, best, true),
            }
        })
    }

    /// Casts every ray through wgpu-sat; returns how many hit.
    pub fn cast_ours(&self) -> usize {
        (0..self.rays.len())
            .filter(|&i| self.ours(i).is_some())
            .count()
    }

    /// Casts every ray through parry2d's BVH; returns how many hit.
    pub fn cast_parry(&self) -> usize {
        (0..self.rays.len())
            .filter(|&i| self.theirs(i).is_some())
            .count()
    }

    /// The batch form of the same rays, for `GpuRayCast` and `cast_ray_pairs`: the world's
    /// colliders, the rays, and each ray paired with every collider whose box meets the
    /// ray's box (the world's box query as the broad phase).
    pub fn batch(&self) -> (Vec<Collider>, Vec<SatRay>, Vec<[u32; 2]>) {
        let colliders = self.world.colliders().to_vec();
        let rays: Vec<SatRay> = self
            .rays
            .iter()
            .map(|&(origin, translation)| SatRay {
                origin,
                translation,
            })
            .collect();
        let mut pairs = Vec::new();
        let mut found = Vec::new();
        for (r, ray) in rays.iter().enumerate() {
            let end = ray.origin + ray.translation;
            let bounds = Aabb::new(ray.origin.min(end), ray.origin.max(end));
            self.world
                .colliders_in_aabb(&bounds, &Filter::default(), &mut found)
                .expect("a finite box");
            // A collider's slot indexes `colliders` (and parry2d's leaves: nothing was removed).
            pairs.extend(found.iter().map(|&c| [r as u32, c.index() as u32]));
        }
        (colliders, rays, pairs)
    }

    /// How many rays the two answer differently (another collider, or a fraction more than
    /// 1e-3 apart), and how many hit at all; a ray that starts inside a collider is parry2d's
    /// hit at 0 and not ours (see `cast_ray`), so those are left out.
    pub fn check(&self) -> (usize, usize) {
        let mut differ = 0;
        let mut hits = 0;
        for i in 0..self.rays.len() {
            let (origin, _) = self.rays[i];
            if self.world.body_at(origin).is_some() {
                continue;
            }
            let ours = self
                .ours(i)
                .map(|h| (h.collider.index() as u32, h.hit.fraction));
            let theirs = self.theirs(i);
            hits += usize::from(ours.is_some());
            let same = match (ours, theirs) {
                (Some((a, t)), Some((b, u))) => a == b && (t - u).abs() < 1e-3,
                (None, None) => true,
                _ => false,
            };
            differ += usize::from(!same);
        }
        (differ, hits)
    }
}
