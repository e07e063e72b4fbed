//! Convex polygons of at most [`MAX_POLYGON_VERTICES`] vertices.
//!
//! A [`Polygon`] is stored the way the narrow phase and the GPU consume it: vertices in the
//! polygon's local frame, counter-clockwise, with one outward unit normal per edge
//! (`normals[i]` belongs to the edge from `vertices[i]` to `vertices[i + 1]`). The capacity is
//! fixed so that a polygon maps one-to-one onto the GPU's `Shape` struct.
//!
//! Validation works in a normalised frame: the points are centred on their bounding box and
//! divided by its half-extent, so every tolerance below is relative to the polygon's own size
//! and coordinates anywhere from 1e-30 to 1e30 are judged alike, without overflow.

use glam::{DVec2, Vec2};

use crate::collision::rounded::Rounded;
use crate::shapes::aabb::Aabb;
use crate::shapes::transform::Transform;

// The bound lives with the core every shape is made of (`rounded.rs`, below this file).
pub use crate::collision::rounded::MAX_POLYGON_VERTICES;

/// Relative tolerance of shape validation, as a fraction of the polygon's half-extent.
/// Points closer than this are repeated, a vertex closer than this to the line through its
/// neighbours is collinear. At 1e-5 it is about 80 f32 rounding steps of the extent: a pose
/// transform cannot round an accepted polygon into a reflex or repeated vertex.
pub(crate) const SHAPE_TOLERANCE: f32 = 1e-5;

/// Why a point list is not an acceptable polygon. Indices refer to the caller's slice.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// Fewer than 3 points.
    #[error("a polygon needs at least 3 vertices, got {count}")]
    TooFewVertices {
        /// How many points were given.
        count: usize,
    },
    /// More than [`MAX_POLYGON_VERTICES`] vertices.
    #[error(
        "a polygon has at most {MAX_POLYGON_VERTICES} vertices, got {count}; \
         simplify the outline or split it into several polygons"
    )]
    TooManyVertices {
        /// How many vertices the polygon (or the convex hull) would have.
        count: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("point {index} is not finite: ({x}, {y})")]
    NotFinite {
        /// Index of the point.
        index: usize,
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
    },
    /// Two points coincide (closer than 1e-5 of the polygon's size).
    #[error("points {first} and {second} are repeated (they coincide)")]
    RepeatedPoint {
        /// Index of the first point.
        first: usize,
        /// Index of the second point.
        second: usize,
    },
    /// A point lies on the line through its two neighbours, adding no corner.
    #[error("point {index} is collinear with its neighbours; remove it")]
    Collinear {
        /// Index of the point.
        index: usize,
    },
    /// The outline encloses no area (all points on one line, or a sliver thinner than 1e-5
    /// of its length).
    #[error("the polygon has zero or near-zero area (its points are all but collinear)")]
    ZeroArea,
    /// Two edges that do not share a vertex cross or touch.
    #[error("the outline is self-intersecting: edge {first} crosses edge {second}")]
    SelfIntersecting {
        /// Index of the first edge (from point `first` to the next point).
        first: usize,
        /// Index of the second edge.
        second: usize,
    },
    /// The outline turns the wrong way at a vertex.
    #[error("the polygon is not convex: the corner at point {index} is reflex")]
    NotConvex {
        /// Index of the reflex vertex.
        index: usize,
    },
    /// A compound body was given no pieces.
    #[error("a compound body needs at least one piece, got none")]
    NoPieces,
    /// A segment's or a capsule's two points coincide: the point where they meet.
    #[error(
        "the two points of a segment or capsule coincide at ({x}, {y}); \
         use a circle for a capsule of no length"
    )]
    ZeroLength {
        /// x of the repeated point.
        x: f32,
        /// y of the repeated point.
        y: f32,
    },
    /// A rounding radius ([`Polygon::with_radius`]) is negative or not finite.
    #[error("a rounding radius must be finite and 0 or more, got {value}")]
    InvalidRadius {
        /// The radius given.
        value: f32,
    },
    /// A chain was given too few points.
    #[error("a chain needs at least 2 points (3 when closed), got {count}")]
    TooFewChainPoints {
        /// How many points were given.
        count: usize,
    },
    /// A size parameter is zero, negative or not finite.
    #[error("{name} must be finite and positive, got {value}")]
    InvalidDimension {
        /// Which parameter.
        name: &'static str,
        /// The value given.
        value: f32,
    },
}

/// A convex polygon with 3 to [`MAX_POLYGON_VERTICES`] vertices in its local frame,
/// counter-clockwise, with precomputed outward unit edge normals.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "crate::shapes::shape_serde::PolygonData",
        into = "crate::shapes::shape_serde::PolygonData"
    )
)]
pub struct Polygon {
    vertices: [Vec2; MAX_POLYGON_VERTICES],
    normals: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
    centroid: Vec2,
    bounding_radius: f32,
    /// The rounding radius: the shape is every point within this distance of the core
    /// polygon (0 for a sharp polygon).
    rounding: f32,
}

/// The normalising frame of a point set: `q = (p - center) / half_extent` maps it into
/// `[-1, 1]²`, touching the border on at least one axis.
///
/// Kept in f64, where every f32 is a normal number and no sum of two f32 overflows: `max -
/// min` of coordinates near f32::MAX would overflow in f32, and halving subnormal
/// coordinates in f32 rounds them (a square of half size 1e-45 would collapse to one point,
/// and `Polygon::rectangle` would panic on it). The normalised points are rounded to f32
/// once, from the exact value.
pub(crate) struct Frame {
    center: DVec2,
    half_extent: f64,
}

impl Frame {
    /// `None` when all points coincide. The points must be finite.
    pub(crate) fn of(points: &[Vec2]) -> Option<Frame> {
        let bounds = Aabb::from_points(points.iter().copied())?;
        let (min, max) = (bounds.min.as_dvec2(), bounds.max.as_dvec2());
        let center = 0.5 * (min + max);
        let half_extent = (0.5 * (max - min)).max_element();
        (half_extent > 0.0).then_some(Frame {
            center,
            half_extent,
        })
    }

    pub(crate) fn normalise(&self, p: Vec2) -> Vec2 {
        ((p.as_dvec2() - self.center) / self.half_extent).as_vec2()
    }

    /// A normalised point back in the caller's units.
    fn denormalise(&self, q: Vec2) -> Vec2 {
        (self.center + q.as_dvec2() * self.half_extent).as_vec2()
    }

    /// A normalised length in the caller's units (infinite beyond f32's range).
    fn length(&self, q: f32) -> f32 {
        (f64::from(q) * self.half_extent) as f32
    }
}

pub(crate) fn check_finite(points: &[Vec2]) -> Result<(), ShapeError> {
    match points.iter().position(|p| !p.is_finite()) {
        Some(index) => Err(ShapeError::NotFinite {
            index,
            x: points[index].x,
            y: points[index].y,
        }),
        None => Ok(()),
    }
}

/// Twice the signed area of triangle `(a, b, c)`: positive when counter-clockwise.
pub(crate) fn orient(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (b - a).perp_dot(c - a)
}

/// Signed distance of `p` from the line through `a` and `b`, positive to the left.
pub(crate) fn distance_left_of(a: Vec2, b: Vec2, p: Vec2) -> f32 {
    orient(a, b, p) / (b - a).length()
}

/// Whether the closed segments `a0 a1` and `b0 b1` share a point (normalised coordinates).
fn segments_intersect(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    let d0 = distance_left_of(a0, a1, b0);
    let d1 = distance_left_of(a0, a1, b1);
    let d2 = distance_left_of(b0, b1, a0);
    let d3 = distance_left_of(b0, b1, a1);
    let straddles = |u: f32, v: f32| {
        (u <= SHAPE_TOLERANCE || v <= SHAPE_TOLERANCE)
            && (u >= -SHAPE_TOLERANCE || v >= -SHAPE_TOLERANCE)
    };
    if !(straddles(d0, d1) && straddles(d2, d3)) {
        return false;
    }
    // Both lines separate the other segment's ends (or nearly touch it); when all four points
    // are nearly collinear, also require the projections onto the line to overlap.
    if d0.abs().max(d1.abs()) <= SHAPE_TOLERANCE && d2.abs().max(d3.abs()) <= SHAPE_TOLERANCE {
        let axis = (a1 - a0).normalize();
        let (a_lo, a_hi) = min_max(axis.dot(a0), axis.dot(a1));
        let (b_lo, b_hi) = min_max(axis.dot(b0), axis.dot(b1));
        return a_lo <= b_hi + SHAPE_TOLERANCE && b_lo <= a_hi + SHAPE_TOLERANCE;
    }
    true
}

/// Whether the segments cross outright: each one's ends lie clearly on both sides of the
/// other's line.
fn segments_cross(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    let apart = |u: f32, v: f32| {
        (u > SHAPE_TOLERANCE && v < -SHAPE_TOLERANCE)
            || (u < -SHAPE_TOLERANCE && v > SHAPE_TOLERANCE)
    };
    apart(distance_left_of(a0, a1, b0), distance_left_of(a0, a1, b1))
        && apart(distance_left_of(b0, b1, a0), distance_left_of(b0, b1, a1))
}

fn min_max(a: f32, b: f32) -> (f32, f32) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Checks a closed outline given in the normalised frame: no two points coincide, no two
/// edges that share no vertex meet, and it encloses area. Returns twice its signed area
/// (positive when counter-clockwise). Indices in the errors are the outline's.
pub(crate) fn check_outline(q: &[Vec2]) -> Result<f32, ShapeError> {
    let count = q.len();
    for i in 0..count {
        for j in i + 1..count {
            if q[i].distance(q[j]) <= SHAPE_TOLERANCE {
                return Err(ShapeError::RepeatedPoint {
                    first: i,
                    second: j,
                });
            }
        }
    }

    // Edges that share no vertex must not meet: the first such pair in (i, j) order. Edge i
    // runs from point i to i + 1.
    let crossing = (0..count)
        .flat_map(|i| (i + 2..count).map(move |j| (i, j)))
        .filter(|&(i, j)| !(i == 0 && j == count - 1)) // adjacent through the last vertex
        .find_map(|(i, j)| {
            let (a0, a1, b0, b1) = (q[i], q[(i + 1) % count], q[j], q[(j + 1) % count]);
            segments_intersect(a0, a1, b0, b1).then(|| (i, j, segments_cross(a0, a1, b0, b1)))
        });

    let twice_area: f32 = (0..count).map(|i| q[i].perp_dot(q[(i + 1) % count])).sum();
    // The normalised bounding box spans 2 units on its long axis: an area below the
    // tolerance is a sliver thinner than about 1e-5 of the outline's length. A bow tie has
    // zero net area too, but its edges cross outright: that is the better message.
    let flat = twice_area.abs() <= 2.0 * SHAPE_TOLERANCE;
    match crossing {
        Some((first, second, cross)) if cross || !flat => {
            Err(ShapeError::SelfIntersecting { first, second })
        }
        _ if flat => Err(ShapeError::ZeroArea),
        _ => Ok(twice_area),
    }
}

impl Polygon {
    /// A convex polygon from its vertices, in counter-clockwise or clockwise order (a
    /// clockwise list is reversed). Every point must be a corner: repeated points, collinear
    /// points, zero area, self-intersection and reflex corners are errors naming the point.
    pub fn new(points: &[Vec2]) -> Result<Polygon, ShapeError> {
        let count = points.len();
        if count < 3 {
            return Err(ShapeError::TooFewVertices { count });
        }
        if count > MAX_POLYGON_VERTICES {
            return Err(ShapeError::TooManyVertices { count });
        }
        check_finite(points)?;
        let frame = Frame::of(points).ok_or(ShapeError::RepeatedPoint {
            first: 0,
            second: 1,
        })?;
        let mut q = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (qi, p) in q.iter_mut().zip(points) {
            *qi = frame.normalise(*p);
        }
        let q = &q[..count];

        let twice_area = check_outline(q)?;

        // Counter-clockwise order of the caller's indices.
        let mut order = [0usize; MAX_POLYGON_VERTICES];
        for (k, o) in order.iter_mut().take(count).enumerate() {
            *o = if twice_area > 0.0 { k } else { count - 1 - k };
        }
        let order = &order[..count];

        // Each vertex must lie strictly right of the chord joining its neighbours (CCW).
        for k in 0..count {
            let prev = q[order[(k + count - 1) % count]];
            let here = q[order[k]];
            let next = q[order[(k + 1) % count]];
            let outside = -distance_left_of(prev, next, here);
            if outside.abs() <= SHAPE_TOLERANCE {
                return Err(ShapeError::Collinear { index: order[k] });
            }
            if outside < 0.0 {
                return Err(ShapeError::NotConvex { index: order[k] });
            }
        }

        let mut polygon = Polygon {
            vertices: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            normals: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            count,
            centroid: Vec2::ZERO,
            bounding_radius: 0.0,
            rounding: 0.0,
        };
        for (k, &i) in order.iter().enumerate() {
            polygon.vertices[k] = points[i];
            // Normals come from the normalised points: an edge of a polygon near f32::MAX
            // would overflow in world units, and every normalised edge is longer than the
            // tolerance, so the division in `normalize` is safe.
            let edge = q[order[(k + 1) % count]] - q[i];
            polygon.normals[k] = Vec2::new(edge.y, -edge.x).normalize();
        }
        // Unused slots repeat vertex 0 and normal 0. Repeating the first entry changes no
        // minimum and no first maximum, so the narrow phase can loop over every slot (a
        // fixed trip count that compilers unroll and vectorise) and get the same answer as
        // over the used ones.
        for k in count..MAX_POLYGON_VERTICES {
            polygon.vertices[k] = polygon.vertices[0];
            polygon.normals[k] = polygon.normals[0];
        }
        // Centroid of the normalised polygon (area-weighted triangle fan), mapped back.
        let mut weighted = Vec2::ZERO;
        let mut area2 = 0.0;
        for k in 0..count {
            let a = q[order[k]];
            let b = q[order[(k + 1) % count]];
            let w = a.perp_dot(b);
            area2 += w;
            weighted += w * (a + b);
        }
        let centroid_q = weighted / (3.0 * area2);
        polygon.centroid = frame.denormalise(centroid_q);
        let radius_q = q.iter().map(|p| p.distance(centroid_q)).fold(0.0, f32::max);
        polygon.bounding_radius = frame.length(radius_q);
        Ok(polygon)
    }

    /// The convex hull of any set of at least 3 points, as a polygon. Points inside the hull,
    /// repeated points and points on a hull edge are dropped. Errors when the hull has no area
    /// or more than [`MAX_POLYGON_VERTICES`] corners.
    pub fn convex_hull(points: &[Vec2]) -> Result<Polygon, ShapeError> {
        if points.len() < 3 {
            return Err(ShapeError::TooFewVertices {
                count: points.len(),
            });
        }
        check_finite(points)?;
        let frame = Frame::of(points).ok_or(ShapeError::ZeroArea)?;
        let mut sorted: Vec<(Vec2, usize)> = points
            .iter()
            .enumerate()
            .map(|(i, p)| (frame.normalise(*p), i))
            .collect();
        sorted.sort_by(|a, b| a.0.x.total_cmp(&b.0.x).then(a.0.y.total_cmp(&b.0.y)));

        // Andrew's monotone chain: lower hull left to right, upper hull right to left, keeping
        // only strict left turns.
        let mut hull: Vec<(Vec2, usize)> = Vec::with_capacity(sorted.len() + 1);
        let chain = |hull: &mut Vec<(Vec2, usize)>, p: (Vec2, usize), floor: usize| {
            while hull.len() >= floor + 2 {
                let a = hull[hull.len() - 2].0;
                let b = hull[hull.len() - 1].0;
                if orient(a, b, p.0) > 0.0 {
                    break;
                }
                hull.pop();
            }
            hull.push(p);
        };
        for &p in &sorted {
            chain(&mut hull, p, 0);
        }
        let lower_len = hull.len();
        for &p in sorted.iter().rev().skip(1) {
            chain(&mut hull, p, lower_len - 1);
        }
        hull.pop(); // the first point closes the loop

        // Drop corners within the tolerance of their neighbours or of the chord through them:
        // they would make `new` reject the hull as repeated or collinear.
        loop {
            let n = hull.len();
            if n < 3 {
                return Err(ShapeError::ZeroArea);
            }
            let flat = (0..n).find(|&k| {
                let prev = hull[(k + n - 1) % n].0;
                let here = hull[k].0;
                let next = hull[(k + 1) % n].0;
                here.distance(prev) <= SHAPE_TOLERANCE
                    || here.distance(next) <= SHAPE_TOLERANCE
                    || -distance_left_of(prev, next, here) <= SHAPE_TOLERANCE
            });
            match flat {
                Some(k) => {
                    hull.remove(k);
                }
                None => break,
            }
        }
        if hull.len() > MAX_POLYGON_VERTICES {
            return Err(ShapeError::TooManyVertices { count: hull.len() });
        }
        let corners: Vec<Vec2> = hull.iter().map(|&(_, i)| points[i]).collect();
        Polygon::new(&corners)
    }

    /// An axis-aligned rectangle centred on the local origin.
    ///
    /// # Panics
    /// If either half size is not finite and positive, or the rectangle is a sliver thinner
    /// than 1e-5 of its length. Use [`Polygon::new`] with the four corners to get an error
    /// instead.
    pub fn rectangle(half_width: f32, half_height: f32) -> Polygon {
        let corners = [
            Vec2::new(-half_width, -half_height),
            Vec2::new(half_width, -half_height),
            Vec2::new(half_width, half_height),
            Vec2::new(-half_width, half_height),
        ];
        let checked = [("half_width", half_width), ("half_height", half_height)]
            .into_iter()
            .find(|&(_, v)| !(v.is_finite() && v > 0.0))
            .map_or_else(
                || Polygon::new(&corners),
                |(name, value)| Err(ShapeError::InvalidDimension { name, value }),
            );
        match checked {
            Ok(polygon) => polygon,
            Err(e) => panic!("Polygon::rectangle({half_width}, {half_height}): {e}"),
        }
    }

    /// A regular polygon with `sides` corners on a circle of `radius` about the local
    /// origin, with its bottom edge horizontal (so it can rest flat).
    pub fn regular(sides: usize, radius: f32) -> Result<Polygon, ShapeError> {
        if sides < 3 {
            return Err(ShapeError::TooFewVertices { count: sides });
        }
        if sides > MAX_POLYGON_VERTICES {
            return Err(ShapeError::TooManyVertices { count: sides });
        }
        if !(radius.is_finite() && radius > 0.0) {
            return Err(ShapeError::InvalidDimension {
                name: "radius",
                value: radius,
            });
        }
        let step = std::f32::consts::TAU / sides as f32;
        let start = -std::f32::consts::FRAC_PI_2 - 0.5 * step;
        let mut points = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (k, p) in points.iter_mut().take(sides).enumerate() {
            *p = radius * crate::math::from_angle(start + step * k as f32);
        }
        Polygon::new(&points[..sides])
    }

    /// The vertices in the local frame, counter-clockwise.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices[..self.count]
    }

    /// The outward unit normals in the local frame; `normals()[i]` is the normal of the edge
    /// from `vertices()[i]` to the next vertex.
    pub fn normals(&self) -> &[Vec2] {
        &self.normals[..self.count]
    }

    /// The area centroid in the local frame (of the rounded shape, when rounded).
    pub fn centroid(&self) -> Vec2 {
        if self.rounding > 0.0 {
            return self.rounded_mass().1;
        }
        self.centroid
    }

    /// The largest distance from the centroid to a vertex of the core polygon: the
    /// polygon's length scale, used to make the narrow phase's tolerances relative (the
    /// rounding radius is not included).
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    /// The rounding radius: 0 for a sharp polygon, `r` for one made by
    /// [`with_radius`](Self::with_radius).
    pub fn radius(&self) -> f32 {
        self.rounding
    }

    /// This polygon with its corners rounded by `radius`: the shape becomes every point
    /// within `radius` of the polygon (the vertices and normals stay those of the core, the
    /// sharp polygon). 0 gives the sharp polygon back; a negative, NaN or infinite radius
    /// is an error naming the value.
    ///
    /// ```
    /// use wgpu_sat::Polygon;
    /// let rounded = Polygon::rectangle(1.0, 0.5).with_radius(0.1)?;
    /// assert_eq!(rounded.radius(), 0.1);
    /// assert!(Polygon::rectangle(1.0, 0.5).with_radius(-1.0).is_err());
    /// # Ok::<(), wgpu_sat::ShapeError>(())
    /// ```
    pub fn with_radius(self, radius: f32) -> Result<Polygon, ShapeError> {
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(ShapeError::InvalidRadius { value: radius });
        }
        Ok(Polygon {
            rounding: radius,
            ..self
        })
    }

    /// The smallest distance from the centroid to the line of an edge: how thick the polygon
    /// is at least, as seen from its centre (the radius of the largest circle about the
    /// centroid that fits inside). For a rounded polygon, of the core polygon plus the
    /// rounding radius.
    pub fn inner_radius(&self) -> f32 {
        self.rounding + self.core_inner_radius()
    }

    /// [`inner_radius`](Self::inner_radius) of the core polygon.
    pub(crate) fn core_inner_radius(&self) -> f32 {
        self.vertices()
            .iter()
            .zip(self.normals())
            .map(|(v, n)| n.dot(*v - self.centroid))
            .fold(f32::INFINITY, f32::min)
    }

    /// The polygon's area (with its rounding, when rounded). `inf` when it exceeds f32's
    /// range (a polygon thousands of times wider than 1e19), 0 when it is below it (one
    /// narrower than about 1e-19).
    pub fn area(&self) -> f32 {
        if self.rounding > 0.0 {
            return self.rounded_mass().0;
        }
        self.core_area()
    }

    /// The core polygon and its rounding radius, for the rounded narrow phase.
    pub(crate) fn rounded(&self) -> Rounded {
        Rounded {
            vertices: self.vertices,
            normals: self.normals,
            count: self.count,
            radius: self.rounding,
            scale: self.bounding_radius + self.rounding,
        }
    }

    /// Area, centroid and polar moment of the rounded polygon (see `rounded.rs`).
    fn rounded_mass(&self) -> (f32, Vec2, f32) {
        self.rounded()
            .mass((self.core_area(), self.centroid, self.core_polar_moment()))
    }

    /// The core polygon's area, without the rounding.
    fn core_area(&self) -> f32 {
        let (q, scale) = self.scaled_about_centroid();
        let n = self.count;
        let sum: f32 = (0..n).map(|i| q[i].perp_dot(q[(i + 1) % n])).sum();
        0.5 * sum * scale * scale
    }

    /// The polar second moment of area about the centroid (`∫ r² dA`): the rotational
    /// inertia of the polygon at unit density. `inf` or 0 beyond f32's range, as for
    /// [`area`](Self::area).
    pub fn polar_moment(&self) -> f32 {
        if self.rounding > 0.0 {
            return self.rounded_mass().2;
        }
        self.core_polar_moment()
    }

    /// The core polygon's polar moment about its own centroid, without the rounding.
    fn core_polar_moment(&self) -> f32 {
        let (q, scale) = self.scaled_about_centroid();
        let n = self.count;
        // Triangle fan about the centroid: each triangle (c, p, q) contributes
        // (p × q) (p·p + p·q + q·q) / 12, with p and q relative to c.
        let sum: f32 = (0..n)
            .map(|i| {
                let (p, r) = (q[i], q[(i + 1) % n]);
                p.perp_dot(r) * (p.dot(p) + p.dot(r) + r.dot(r)) / 12.0
            })
            .sum();
        sum * scale * scale * scale * scale
    }

    /// The vertices relative to the centroid, divided by a power of two `scale` near the
    /// polygon's half-size, and `scale`. The products that make the area and the moment are
    /// then of numbers below 4, which neither overflow nor underflow (unscaled, a polygon
    /// 1e30 wide gives inf - inf = NaN); and since dividing and multiplying by a power of
    /// two is exact, the sums round exactly as the unscaled ones wherever those are finite.
    fn scaled_about_centroid(&self) -> ([Vec2; MAX_POLYGON_VERTICES], f32) {
        let c = self.centroid;
        // Halved before subtracting: `v - c` overflows for a polygon wider than f32::MAX.
        let half = self
            .vertices()
            .iter()
            .map(|&v| (v * 0.5 - c * 0.5).abs().max_element())
            .fold(0.0, f32::max);
        // The power of two at or below `half`: its exponent bits alone (subnormal halves
        // give 0, hence the floor at the smallest normal power).
        let scale = f32::from_bits(half.to_bits() & 0x7f80_0000).max(f32::MIN_POSITIVE);
        let mut q = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (qi, &v) in q.iter_mut().zip(self.vertices()) {
            *qi = (v * 0.5 - c * 0.5) / scale * 2.0;
        }
        (q, scale)
    }

    /// The world-frame bounding box of the polygon placed by `transform`.
    pub fn aabb(&self, transform: &Transform) -> Aabb {
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        for &v in self.vertices() {
            let p = transform.transform_point(v);
            min = min.min(p);
            max = max.max(p);
        }
        let r = Vec2::splat(self.rounding);
        Aabb::new(min - r, max + r)
    }

    /// Whether the world point lies in the polygon placed by `transform`, by projection
    /// onto every edge normal. The boundary counts as inside, up to the rounding of the
    /// transform: a point off an edge by less than a few f32 steps of the coordinates'
    /// magnitude is inside.
    pub fn contains_point(&self, transform: &Transform, point: Vec2) -> bool {
        let local = transform.inverse_transform_point(point);
        // Rounding of the inverse transform grows with the magnitudes it combines.
        let scale = point.abs().max_element()
            + transform.translation().abs().max_element()
            + self.bounding_radius
            + self.centroid.abs().max_element();
        let tolerance = 4.0 * f32::EPSILON * scale;
        if self.rounding > 0.0 {
            return self.rounded().core_distance(local) <= self.rounding + tolerance;
        }
        self.vertices()
            .iter()
            .zip(self.normals())
            .all(|(&v, &n)| n.dot(local - v) <= tolerance)
    }

    /// The fixed-capacity arrays (unused slots repeat vertex 0 and normal 0) and the count,
    /// for the narrow phases.
    pub(crate) fn raw(
        &self,
    ) -> (
        &[Vec2; MAX_POLYGON_VERTICES],
        &[Vec2; MAX_POLYGON_VERTICES],
        usize,
    ) {
        (&self.vertices, &self.normals, self.count)
    }
}
