//! Distances between placed convex shapes, for the time of impact's conservative
//! advancement (`toi/advance.rs`): the signed distance (negative: the depth of overlap along the
//! best separating axis) and the unit normal from A to B.
//!
//! ```text
//! shape_distance(A, B):  in A's local frame
//!     polygon-polygon:  apart: the closest vertex-edge pair over both polygons' vertices
//!                       (consider_closest keeps the nearest; an edge's interior point gives
//!                       the edge's normal); overlapping: minus the least face overlap
//!     polygon-circle:   the polygon's distance to the centre, minus the radius
//!     circle-circle:    the centres' distance minus both radii
//!     anything else:    (a capsule, a segment, a chain link or a rounded polygon, the
//!                       polygon cases being for sharp polygons only) minus the depth of
//!                       the rounded narrow phase's manifold (rounded_distance)
//! ```
//!
//! `shaders/toi.wgsl` holds the same functions under the same names.

use glam::Vec2;

use crate::shapes::circle::Circle;
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;
use crate::shapes::transform::{Transform, inv_mul_transforms, length_and_direction};

/// A signed distance (negative: overlap) and a unit normal from A to B.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Distance {
    pub distance: f32,
    pub normal: Vec2,
}

/// The nearest point of a segment, and whether it lies strictly inside the segment.
#[derive(Clone, Copy, Debug)]
struct SegmentPoint {
    point: Vec2,
    interior: bool,
}

/// The closest vertex–edge pair so far: its squared distance, the vector from A's point to
/// B's, and the edge's outward normal (A to B) when the nearest point is inside the edge.
#[derive(Clone, Copy, Debug)]
struct Closest {
    squared: f32,
    delta: Vec2,
    interior: bool,
    face: Vec2,
}

/// The signed distance between two placed shapes and the world unit normal from A to B.
/// Exact when apart; when overlapping, minus the depth along the best separating axis.
pub(crate) fn shape_distance(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Distance {
    // Only sharp polygons take the polygon cases: a rounded polygon's vertices are its core's,
    // and its distance is the rounded narrow phase's (the radius taken off).
    let sharp = |p: &Polygon| p.radius() == 0.0;
    match (a, b) {
        (Shape::Polygon(pa), Shape::Polygon(pb)) if sharp(pa) && sharp(pb) => {
            let r = polygon_distance(pa, pb, &inv_mul_transforms(xa, xb));
            Distance {
                distance: r.distance,
                normal: xa.rotate(r.normal),
            }
        }
        (Shape::Polygon(p), Shape::Circle(c)) if sharp(p) => {
            let relative = inv_mul_transforms(xa, xb);
            let r = polygon_circle_distance(p, relative.transform_point(c.center()), c.radius());
            Distance {
                distance: r.distance,
                normal: xa.rotate(r.normal),
            }
        }
        (Shape::Circle(c), Shape::Polygon(p)) if sharp(p) => {
            // In B's frame, from the polygon to the circle: reverse the normal.
            let relative = inv_mul_transforms(xb, xa);
            let r = polygon_circle_distance(p, relative.transform_point(c.center()), c.radius());
            Distance {
                distance: r.distance,
                normal: -xb.rotate(r.normal),
            }
        }
        (Shape::Circle(ca), Shape::Circle(cb)) => {
            let r = circle_distance(ca, cb, &inv_mul_transforms(xa, xb));
            Distance {
                distance: r.distance,
                normal: xa.rotate(r.normal),
            }
        }
        _ => rounded_distance(a, xa, b, xb),
    }
}

/// The distance of any pair with a capsule, a segment, a chain link or a rounded polygon:
/// the rounded narrow phase's manifold with no limit on the gap, whose depth is minus the
/// distance when apart (along the closest features' axis, or a face normal) and the depth
/// of the minimum translation when overlapping. Chain links count as plain segments here.
fn rounded_distance(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Distance {
    let plain = |s: &Shape| match s {
        Shape::ChainSegment(link) => Shape::Segment(*link.segment()),
        _ => *s,
    };
    let (a, b) = (plain(a), plain(b));
    let sharp = |s: &Shape| s.as_polygon().is_some_and(|p| p.radius() == 0.0);
    let m = if sharp(&a) && sharp(&b) {
        None
    } else {
        crate::collision::sat_rounded::collide_rounded(&a.rounded(), xa, &b.rounded(), xb, f32::MAX)
    };
    match m {
        Some(m) => Distance {
            distance: -m.depth,
            normal: m.normal,
        },
        // Beyond f32's range: as far as can be told.
        None => Distance {
            distance: f32::MAX,
            normal: Vec2::Y,
        },
    }
}

/// The point of segment `s0 s1` nearest `p`.
fn closest_on_segment(p: Vec2, s0: Vec2, s1: Vec2) -> SegmentPoint {
    let e = s1 - s0;
    let u = (p - s0).dot(e) / e.dot(e);
    if u <= 0.0 {
        SegmentPoint {
            point: s0,
            interior: false,
        }
    } else if u >= 1.0 {
        SegmentPoint {
            point: s1,
            interior: false,
        }
    } else {
        SegmentPoint {
            point: s0 + u * e,
            interior: true,
        }
    }
}

/// `best`, or the candidate pair (`delta` from A's point to B's) if it is closer.
fn consider_closest(best: Closest, delta: Vec2, interior: bool, face: Vec2) -> Closest {
    let squared = delta.dot(delta);
    // `best` starts at an infinite square; a candidate whose square overflows still
    // replaces it, so that a pair 1e20 apart keeps a real direction.
    if squared < best.squared || best.squared == f32::INFINITY {
        Closest {
            squared,
            delta,
            interior,
            face,
        }
    } else {
        best
    }
}

/// Signed distance of two polygons in A's local frame (`relative` maps B's frame into A's).
///
/// Overlapping (the largest face separation over both polygons is negative): that
/// separation, minus the depth of the minimum translation vector, along its face normal.
/// Apart or touching: the smallest vertex–edge distance either way, since the nearest
/// points of two disjoint convex polygons are a vertex of one and a point of an edge of the
/// other. The normal is the edge's own normal when the nearest point is inside the edge
/// (exact even at distance 0), else the direction between the two points.
fn polygon_distance(a: &Polygon, b: &Polygon, relative: &Transform) -> Distance {
    let va = a.vertices();
    let na = a.normals();
    let vb = b.vertices();
    let nb = b.normals();
    let (ca, cb) = (va.len(), vb.len());
    let mut separation = -f32::MAX;
    let mut face_normal = na[0];
    for i in 0..ca {
        let mut lowest = f32::MAX;
        for &v in vb {
            let s = na[i].dot(relative.transform_point(v) - va[i]);
            lowest = if s < lowest { s } else { lowest };
        }
        if lowest > separation {
            separation = lowest;
            face_normal = na[i];
        }
    }
    for j in 0..cb {
        let n = relative.rotate(nb[j]);
        let w = relative.transform_point(vb[j]);
        let mut lowest = f32::MAX;
        for &v in va {
            let s = n.dot(v - w);
            lowest = if s < lowest { s } else { lowest };
        }
        if lowest > separation {
            separation = lowest;
            face_normal = -n;
        }
    }
    if separation < 0.0 {
        return Distance {
            distance: separation,
            normal: face_normal,
        };
    }
    let mut best = Closest {
        squared: f32::INFINITY,
        delta: Vec2::ZERO,
        interior: false,
        face: Vec2::ZERO,
    };
    // B's vertices against A's edges.
    for i in 0..ca {
        let next = if i + 1 < ca { i + 1 } else { 0 };
        for &v in vb {
            let w = relative.transform_point(v);
            let q = closest_on_segment(w, va[i], va[next]);
            best = consider_closest(best, w - q.point, q.interior, na[i]);
        }
    }
    // A's vertices against B's edges; B's outward normal points from B to A.
    for j in 0..cb {
        let next = if j + 1 < cb { j + 1 } else { 0 };
        let w0 = relative.transform_point(vb[j]);
        let w1 = relative.transform_point(vb[next]);
        let n = relative.rotate(nb[j]);
        for &v in va {
            let q = closest_on_segment(v, w0, w1);
            best = consider_closest(best, q.point - v, q.interior, -n);
        }
    }
    // From the vector itself, not from `squared`: squares of gaps below 1e-19 are
    // subnormal or zero, and their root would make a normal far from unit length.
    let (dist, direction) = length_and_direction(best.delta);
    let normal = if best.interior {
        best.face
    } else if dist > 0.0 {
        direction
    } else {
        face_normal
    };
    Distance {
        distance: dist,
        normal,
    }
}

/// Signed distance from a polygon to a circle of `radius` about `center` (in the polygon's
/// local frame), normal from the polygon to the circle. Centre inside the polygon: the
/// nearest face's separation (negative) minus the radius, along that face's normal.
fn polygon_circle_distance(p: &Polygon, center: Vec2, radius: f32) -> Distance {
    let v = p.vertices();
    let n = p.normals();
    let count = v.len();
    let mut separation = -f32::MAX;
    let mut face = 0;
    for i in 0..count {
        let s = n[i].dot(center - v[i]);
        if s > separation {
            separation = s;
            face = i;
        }
    }
    if separation <= 0.0 {
        return Distance {
            distance: separation - radius,
            normal: n[face],
        };
    }
    let mut best = Closest {
        squared: f32::INFINITY,
        delta: Vec2::ZERO,
        interior: false,
        face: Vec2::ZERO,
    };
    for i in 0..count {
        let next = if i + 1 < count { i + 1 } else { 0 };
        let q = closest_on_segment(center, v[i], v[next]);
        best = consider_closest(best, center - q.point, q.interior, n[i]);
    }
    // The centre is outside, at least `separation > 0` from the polygon. Length and
    // direction from the vector, as in `polygon_distance`.
    let (dist, direction) = length_and_direction(best.delta);
    let normal = if best.interior { best.face } else { direction };
    Distance {
        distance: dist - radius,
        normal,
    }
}

/// Signed distance of two circles in A's local frame (`relative` maps B's frame into A's).
/// Concentric circles take A's local y axis as the normal, as `collide_circles` does.
fn circle_distance(a: &Circle, b: &Circle, relative: &Transform) -> Distance {
    let d = relative.transform_point(b.center()) - a.center();
    let (d_length, direction) = length_and_direction(d);
    let normal = if d_length > 0.0 { direction } else { Vec2::Y };
    Distance {
        distance: d_length - a.radius() - b.radius(),
        normal,
    }
}
