//! The one form every shape takes in the rounded narrow phase: a core polygon of 1 to
//! [`MAX_POLYGON_VERTICES`] vertices and a radius (Box2D v3's model). The shape is every
//! point within the radius of the core:
//!
//! ```text
//! circle          1 vertex (the centre),          radius r
//! capsule         2 vertices (the two centres),   radius r
//! segment         2 vertices,                     radius 0
//! rounded polygon 3 to 8 vertices,                radius r (0: the sharp polygon)
//! ```
//!
//! A 2-vertex core has two edges, the segment walked both ways, whose normals are opposite;
//! a 1-vertex core has none. Unused slots repeat vertex 0 and normal 0, as in
//! [`Polygon::raw`](crate::Polygon), so a search over every slot finds what a search over
//! the used ones finds.
//!
//! Mass properties of a rounded core, exactly: the core polygon, plus one rectangle of
//! width `r` on the outside of each edge, plus one circular sector of radius `r` at each
//! vertex, whose angle is the turn between the normals of the two edges that meet there
//! (the angles add up to a full turn):
//!
//! ```text
//! area   A = A_core + r · perimeter + π r²
//! centre C = (A_core c_core + Σ a_k c_k) / A
//! inertia about C (unit density) = Σ (I_k + a_k |c_k - C|²)
//!   rectangle of length L:  a = L r, I = a (L² + r²) / 12, c = edge midpoint + n r / 2
//!   sector of angle θ:      a = θ r² / 2, c at 4 r sin(θ/2) / (3 θ) along its bisector,
//!                           I = θ r⁴ / 4 - a |c - apex|²
//! ```

use crate::math;
use glam::{DVec2, Vec2};

/// The most vertices a [`Polygon`](crate::Polygon) (and so any shape's core) can have.
/// Box2D uses the same bound; it keeps a polygon small enough to live in registers on the
/// GPU.
pub const MAX_POLYGON_VERTICES: usize = 8;

/// A core polygon and its radius, in the shape's local frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rounded {
    /// Counter-clockwise vertices; slots past `count` repeat vertex 0.
    pub vertices: [Vec2; MAX_POLYGON_VERTICES],
    /// Outward unit normals, `normals[i]` for the edge from vertex `i` to the next; zero for
    /// a 1-vertex core; slots past `count` repeat normal 0.
    pub normals: [Vec2; MAX_POLYGON_VERTICES],
    /// 1 to 8.
    pub count: usize,
    /// The rounding radius, 0 or more.
    pub radius: f32,
    /// The length scale the tolerances are relative to: the core's bounding radius plus the
    /// rounding radius.
    pub scale: f32,
}

impl Rounded {
    /// A core of one point (a circle of `radius` about `center`).
    pub fn point(center: Vec2, radius: f32) -> Rounded {
        Rounded {
            vertices: [center; MAX_POLYGON_VERTICES],
            normals: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            count: 1,
            radius,
            scale: radius,
        }
    }

    /// A core of two points, `a` then `b`, grown by `radius` (a capsule, or a segment with
    /// radius 0). Edge 0 runs from `a` to `b` with the normal on its right, edge 1 back.
    /// `a` and `b` must differ.
    pub fn segment(a: Vec2, b: Vec2, radius: f32) -> Rounded {
        let normal = segment_normal(a, b);
        let mut vertices = [a; MAX_POLYGON_VERTICES];
        vertices[1] = b;
        let mut normals = [normal; MAX_POLYGON_VERTICES];
        normals[1] = -normal;
        Rounded {
            vertices,
            normals,
            count: 2,
            radius,
            scale: half_length(a, b) + radius,
        }
    }

    /// The used vertices.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices[..self.count]
    }

    /// Area, centroid and polar moment about the centroid at unit density (see the module
    /// header). `core` is the core polygon's own (area, centroid, polar moment), exact from
    /// the polygon; zero area for 1 and 2 vertices.
    pub fn mass(&self, core: (f32, Vec2, f32)) -> (f32, Vec2, f32) {
        let r = f64::from(self.radius);
        let (core_area, core_center, core_moment) = core;
        let mut parts: Vec<(f64, DVec2, f64)> = Vec::with_capacity(2 * self.count + 1);
        if core_area > 0.0 {
            parts.push((
                f64::from(core_area),
                core_center.as_dvec2(),
                f64::from(core_moment),
            ));
        }
        let v: Vec<DVec2> = self.vertices().iter().map(|v| v.as_dvec2()).collect();
        let n: Vec<DVec2> = self.normals[..self.count]
            .iter()
            .map(|n| n.as_dvec2())
            .collect();
        let count = self.count;
        if r > 0.0 {
            if count == 1 {
                let a = std::f64::consts::PI * r * r;
                parts.push((a, v[0], 0.5 * a * r * r));
            }
            // A 1-vertex core has no edges; a 2-vertex core has two, the segment both ways.
            let edges = if count == 1 { 0 } else { count };
            for i in 0..edges {
                let next = (i + 1) % count;
                // Edge rectangle, outside the edge.
                let length = v[i].distance(v[next]);
                let a = length * r;
                let c = 0.5 * (v[i] + v[next]) + 0.5 * r * n[i];
                parts.push((a, c, a * (length * length + r * r) / 12.0));
                // The sector at vertex `next`, from this edge's normal to the next edge's.
                let (from, to) = (n[i], n[next]);
                let mut theta = math::atan2_f64(from.perp_dot(to), from.dot(to));
                if theta <= 0.0 {
                    theta += std::f64::consts::TAU;
                }
                let a = 0.5 * theta * r * r;
                let half = 0.5 * theta;
                let (sin_half, cos_half) = math::sin_cos_f64(half);
                let bisector = DVec2::new(cos_half, sin_half).rotate(from);
                let d = 4.0 * r * sin_half / (3.0 * theta);
                let c = v[next] + d * bisector;
                parts.push((a, c, 0.25 * theta * r * r * r * r - a * d * d));
            }
        }
        let area: f64 = parts.iter().map(|p| p.0).sum();
        if area <= 0.0 {
            return (0.0, self.centroid_of_points(), 0.0);
        }
        let center = parts.iter().map(|p| p.0 * p.1).sum::<DVec2>() / area;
        let moment: f64 = parts
            .iter()
            .map(|&(a, c, i)| i + a * c.distance_squared(center))
            .sum();
        (area as f32, center.as_vec2(), moment as f32)
    }

    /// The mean of the core's vertices: the centre of a shape without area.
    fn centroid_of_points(&self) -> Vec2 {
        let sum = self
            .vertices()
            .iter()
            .fold(DVec2::ZERO, |s, v| s + v.as_dvec2());
        (sum / self.count as f64).as_vec2()
    }

    /// The distance from the local point `p` to the core (0 inside a polygon core).
    pub fn core_distance(&self, p: Vec2) -> f32 {
        match self.count {
            1 => p.distance(self.vertices[0]),
            _ => {
                let inside = self.count >= 3
                    && self
                        .vertices()
                        .iter()
                        .zip(&self.normals)
                        .all(|(&v, &n)| n.dot(p - v) <= 0.0);
                if inside {
                    return 0.0;
                }
                (0..self.count)
                    .map(|i| {
                        let next = (i + 1) % self.count;
                        closest_on_segment(p, self.vertices[i], self.vertices[next]).distance(p)
                    })
                    .fold(f32::INFINITY, f32::min)
            }
        }
    }
}

/// The unit normal on the right of the direction from `a` to `b` (the outward normal of a
/// counter-clockwise edge), computed in f64 so that ends near f32's limits do not overflow.
pub(crate) fn segment_normal(a: Vec2, b: Vec2) -> Vec2 {
    let e = b.as_dvec2() - a.as_dvec2();
    DVec2::new(e.y, -e.x).normalize().as_vec2()
}

/// Half the distance between `a` and `b`, in f64 and rounded once.
pub(crate) fn half_length(a: Vec2, b: Vec2) -> f32 {
    (0.5 * a.as_dvec2().distance(b.as_dvec2())) as f32
}

/// The point of the segment `s0 s1` nearest `p` (`s0` when the segment is a point).
pub(crate) fn closest_on_segment(p: Vec2, s0: Vec2, s1: Vec2) -> Vec2 {
    let e = s1 - s0;
    let ee = e.dot(e);
    if ee <= 0.0 {
        return s0;
    }
    let u = ((p - s0).dot(e) / ee).clamp(0.0, 1.0);
    s0 + u * e
}
