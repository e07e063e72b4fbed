//! Target `shapes`: the constructors and the decomposition on hostile point sets.
//!
//! Invariants: nothing panics outside the documented panics (`Polygon::rectangle` of a
//! non-positive or sliver size is only called through `Polygon::new` here); an `Ok` polygon
//! has 3 to 8 finite vertices taken from the input, counter-clockwise and strictly convex,
//! unit outward normals that match its edges, a centroid inside it, and a positive area
//! (finite and positive whenever f32 can hold the true area); the decomposition covers the
//! outline's area with pieces of its own points; a convex outline `Polygon::new` accepts is
//! accepted whole by `convex_hull` and `decompose`; a circle is `Ok` exactly when its centre
//! is finite and its radius finite and positive.

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::{DVec2, Vec2};
use wgpu_sat::{BodyShape, Circle, Polygon, Shape, Transform, decompose};

use crate::Target;
use crate::hostile;

pub struct Shapes;

#[derive(Debug)]
pub enum Call {
    New(Vec<Vec2>),
    ConvexHull(Vec<Vec2>),
    Regular { sides: usize, radius: f32 },
    Rectangle { half_width: f32, half_height: f32 },
    Decompose(Vec<Vec2>),
    Circle { center: Vec2, radius: f32 },
    Concave(Vec<Vec2>),
    Compound(Vec<Shape>),
}

impl Target for Shapes {
    type Input = (Call, Transform);

    fn name(&self) -> &'static str {
        "shapes"
    }

    fn weight(&self) -> u64 {
        30
    }

    fn generate(&self, u: &mut Unstructured) -> Result<Self::Input> {
        let call = match u.int_in_range(0u8..=9)? {
            0 | 1 => Call::New(hostile::points(u)?),
            2 | 3 => Call::ConvexHull(hostile::points(u)?),
            4 => Call::Regular {
                sides: match u.int_in_range(0u8..=7)? {
                    0 => u.arbitrary()?,
                    _ => u.int_in_range(0..=10)?,
                },
                radius: hostile::float(u)?,
            },
            5 => Call::Rectangle {
                half_width: hostile::float(u)?,
                half_height: hostile::float(u)?,
            },
            6 => Call::Decompose(hostile::points(u)?),
            7 => Call::Circle {
                center: if u.ratio(1u8, 2)? {
                    Vec2::ZERO
                } else {
                    hostile::vec2(u)?
                },
                radius: hostile::float(u)?,
            },
            8 => Call::Concave(hostile::points(u)?),
            _ => {
                let n = hostile::len(u, 6)?;
                Call::Compound((0..n).map(|_| hostile::shape(u)).collect::<Result<_>>()?)
            }
        };
        // A pose to place the results at: bounding boxes and point tests must not panic.
        Ok((call, hostile::transform(u)?))
    }

    fn check(&self, (call, pose): &Self::Input) -> std::result::Result<(), String> {
        match call {
            Call::New(points) => {
                if let Ok(p) = Polygon::new(points) {
                    check_polygon(&p, Some(points), pose)?;
                    if p.vertices().len() != points.len() {
                        return Err(format!(
                            "Polygon::new kept {} of {} points",
                            p.vertices().len(),
                            points.len()
                        ));
                    }
                    // A convex polygon is its own hull, and its own decomposition.
                    match Polygon::convex_hull(points) {
                        Ok(h) if h.vertices().len() == p.vertices().len() => {}
                        other => {
                            return Err(format!(
                                "Polygon::new accepts the points but convex_hull gives {other:?}"
                            ));
                        }
                    }
                    match decompose(points) {
                        Ok(pieces) if pieces.len() == 1 && pieces[0] == p => {}
                        other => {
                            return Err(format!(
                                "Polygon::new accepts the points but decompose gives {other:?}"
                            ));
                        }
                    }
                }
            }
            Call::ConvexHull(points) => {
                if let Ok(p) = Polygon::convex_hull(points) {
                    check_polygon(&p, Some(points), pose)?;
                }
            }
            Call::Regular { sides, radius } => match Polygon::regular(*sides, *radius) {
                Ok(p) => {
                    if !((3..=8).contains(sides) && radius.is_finite() && *radius > 0.0) {
                        return Err(format!("regular({sides}, {radius}) is Ok"));
                    }
                    check_polygon(&p, None, pose)?;
                }
                Err(e) => {
                    // Radii of ordinary magnitude must work; at the ends of the range the
                    // points may round together, and an error is an honest answer.
                    if (3..=8).contains(sides) && (1e-30..=1e30).contains(radius) {
                        return Err(format!("regular({sides}, {radius}) refused: {e}"));
                    }
                }
            },
            Call::Rectangle {
                half_width,
                half_height,
            } => {
                let (w, h) = (*half_width, *half_height);
                let documented_panic = !(w.is_finite() && w > 0.0 && h.is_finite() && h > 0.0)
                    || w.min(h) < 2e-5 * w.max(h);
                if documented_panic {
                    // The same corners through the constructor that returns an error.
                    let corners = [
                        Vec2::new(-w, -h),
                        Vec2::new(w, -h),
                        Vec2::new(w, h),
                        Vec2::new(-w, h),
                    ];
                    if let Ok(p) = Polygon::new(&corners) {
                        check_polygon(&p, Some(&corners), pose)?;
                    }
                } else {
                    let p = Polygon::rectangle(w, h);
                    check_polygon(&p, None, pose)?;
                }
            }
            Call::Decompose(points) => {
                if let Ok(pieces) = decompose(points) {
                    check_pieces(&pieces, points, pose)?;
                }
            }
            Call::Circle { center, radius } => {
                let valid = center.is_finite() && radius.is_finite() && *radius > 0.0;
                let made = Circle::with_center(*center, *radius);
                if made.is_ok() != valid {
                    return Err(format!(
                        "Circle::with_center({center}, {radius}) is {made:?}"
                    ));
                }
                if *center == Vec2::ZERO && Circle::new(*radius).is_ok() != valid {
                    return Err(format!("Circle::new({radius}) disagrees with with_center"));
                }
                if let Ok(c) = made {
                    check_shape(&Shape::Circle(c), pose)?;
                }
            }
            Call::Concave(points) => {
                let body = BodyShape::concave(points);
                let direct = decompose(points);
                match (&body, &direct) {
                    (Ok(b), Ok(d)) if b.pieces().len() == d.len() => {
                        for piece in b.pieces() {
                            check_shape(piece, pose)?;
                        }
                        check_body(b, pose)?;
                    }
                    // Debug text, not ==: an error that names a NaN coordinate is not equal
                    // to itself.
                    (Err(a), Err(b)) if format!("{a:?}") == format!("{b:?}") => {}
                    _ => {
                        return Err(format!(
                            "BodyShape::concave {body:?} disagrees with decompose {direct:?}"
                        ));
                    }
                }
            }
            Call::Compound(pieces) => match BodyShape::compound(pieces.clone()) {
                Ok(b) => {
                    if pieces.is_empty() {
                        return Err("BodyShape::compound of no pieces is Ok".into());
                    }
                    check_body(&b, pose)?;
                }
                Err(e) => {
                    if !pieces.is_empty() {
                        return Err(format!("BodyShape::compound refused pieces: {e}"));
                    }
                }
            },
        }
        Ok(())
    }
}

fn d(v: Vec2) -> DVec2 {
    v.as_dvec2()
}

/// Twice the signed area of a closed outline, in f64 (no overflow or underflow at any f32
/// magnitude).
fn twice_area(points: &[DVec2]) -> f64 {
    (0..points.len())
        .map(|i| points[i].perp_dot(points[(i + 1) % points.len()]))
        .sum()
}

/// The checks every `Ok` polygon must pass. `from`: the points it must be made of.
pub fn check_polygon(
    p: &Polygon,
    from: Option<&[Vec2]>,
    pose: &Transform,
) -> std::result::Result<(), String> {
    let v = p.vertices();
    let n = p.normals();
    let count = v.len();
    if !(3..=8).contains(&count) || n.len() != count {
        return Err(format!(
            "polygon with {count} vertices, {} normals",
            n.len()
        ));
    }
    if let Some(k) = v.iter().position(|v| !v.is_finite()) {
        return Err(format!("vertex {k} is not finite: {p:?}"));
    }
    if let Some(points) = from {
        if let Some(k) = v.iter().position(|v| !points.contains(v)) {
            return Err(format!("vertex {k} {} is not an input point", v[k]));
        }
    }
    let w: Vec<DVec2> = v.iter().map(|&x| d(x)).collect();
    let size = w
        .iter()
        .flat_map(|a| w.iter().map(move |b| a.distance(*b)))
        .fold(0.0, f64::max);
    for i in 0..count {
        let (a, b, c) = (w[i], w[(i + 1) % count], w[(i + 2) % count]);
        if (b - a).perp_dot(c - b) <= 0.0 {
            return Err(format!(
                "not strictly convex counter-clockwise at vertex {}: {p:?}",
                (i + 1) % count
            ));
        }
        if !hostile::is_unit(n[i]) {
            return Err(format!("normal {i} is not unit: {} in {p:?}", n[i]));
        }
        let e = b - a;
        let outward = DVec2::new(e.y, -e.x) / e.length();
        // Normals come from the points rounded to the polygon's size (6e-8 of it), so a
        // short edge's normal may turn by that over the edge's length.
        if (d(n[i]) - outward).length() > 1e-4 + 1e-6 * size / e.length() {
            return Err(format!(
                "normal {i} {} is not the edge's outward normal {outward}",
                n[i]
            ));
        }
    }
    let area = 0.5 * twice_area(&w);
    let reported = p.area();
    if reported.is_nan() || reported < 0.0 {
        return Err(format!("area {reported} (true {area:e})"));
    }
    // f32 sums terms of the size of the polygon's box: a sliver's area cancels out of them,
    // so the error allowed is relative to the terms, not to the area. Only where f32 can
    // hold the area (and its terms) must it be right.
    let c = d(p.centroid());
    let terms: f64 = (0..count)
        .map(|i| (w[i] - c).perp_dot(w[(i + 1) % count] - c).abs())
        .sum();
    // Each term is of vertices less the centroid, rounded to 6e-8 of the coordinates'
    // size: its error is about that times the edge, whatever the area.
    let reach = w.iter().map(|v| v.abs().max_element()).fold(0.0, f64::max);
    let perimeter: f64 = (0..count).map(|i| w[i].distance(w[(i + 1) % count])).sum();
    let allowed = 1e-4 * area + 1e-6 * terms + 1e-6 * reach * perimeter;
    if (1e-30..1e36).contains(&area) && (f64::from(reported) - area).abs() > allowed {
        return Err(format!("area {reported} but the outline encloses {area:e}"));
    }
    let centroid = p.centroid();
    if !centroid.is_finite() {
        return Err(format!("centroid {centroid} is not finite"));
    }
    let radius = p.bounding_radius();
    if radius.is_nan() || radius <= 0.0 {
        return Err(format!("radius {radius}"));
    }
    if size < 1e37 && !radius.is_finite() {
        return Err(format!("radius {radius} of a polygon {size:e} across"));
    }
    if (1e-30..1e37).contains(&size) && !p.contains_point(&Transform::IDENTITY, centroid) {
        return Err(format!("the centroid {centroid} is not inside {p:?}"));
    }
    check_shape(&Shape::Polygon(*p), pose)
}

/// What any valid shape must do at a valid pose: a box that is not NaN and holds the shape's
/// centroid (when the pose keeps coordinates finite), and point tests that do not panic.
pub fn check_shape(shape: &Shape, pose: &Transform) -> std::result::Result<(), String> {
    for x in [Transform::IDENTITY, *pose] {
        let b = shape.aabb(&x);
        if !(b.min.x <= b.max.x && b.min.y <= b.max.y) {
            return Err(format!("aabb {b:?} at {x:?} is empty or NaN"));
        }
        let c = x.transform_point(shape.centroid());
        if c.is_finite() && b.min.is_finite() && b.max.is_finite() {
            // Relative rounding, and among the subnormals an absolute one: there a rotated
            // coordinate is rounded to a multiple of 1.4e-45, whatever its size.
            let slack = 1e-5 * (b.max - b.min).max_element()
                + 1e-5 * c.abs().max_element()
                + 8.0 * f32::from_bits(1);
            if !b.expanded(slack).contains_point(c) {
                return Err(format!("aabb {b:?} at {x:?} misses the centroid {c}"));
            }
        }
        let _ = shape.contains_point(&x, c);
        let _ = shape.contains_point(&x, Vec2::NAN);
    }
    let area = shape.area();
    if area.is_nan() || area < 0.0 {
        return Err(format!("shape area {area}"));
    }
    Ok(())
}

fn check_body(body: &BodyShape, pose: &Transform) -> std::result::Result<(), String> {
    let b = body.aabb(pose);
    if !(b.min.x <= b.max.x && b.min.y <= b.max.y) {
        return Err(format!("body aabb {b:?} is empty or NaN"));
    }
    let area = body.area();
    if area.is_nan() || area < 0.0 {
        return Err(format!("body area {area}"));
    }
    let _ = body.contains_point(pose, pose.translation());
    Ok(())
}

/// A decomposition: valid pieces made of the outline's points, covering its area.
fn check_pieces(
    pieces: &[Polygon],
    outline: &[Vec2],
    pose: &Transform,
) -> std::result::Result<(), String> {
    if pieces.is_empty() {
        return Err("decompose returned no pieces".into());
    }
    let mut sum = 0.0;
    for p in pieces {
        check_polygon(p, Some(outline), pose)?;
        let w: Vec<DVec2> = p.vertices().iter().map(|&x| d(x)).collect();
        sum += 0.5 * twice_area(&w);
    }
    let w: Vec<DVec2> = outline.iter().map(|&x| d(x)).collect();
    let area = 0.5 * twice_area(&w).abs();
    // Dropped straight points and slivers are within 1e-5 of the outline's size of it, so
    // each changes the area by at most about 1e-5 of the size squared; overlapping pieces
    // would add whole pieces' area.
    let (lo, hi) = w
        .iter()
        .fold((w[0], w[0]), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let size = (hi - lo).max_element();
    let allowed = 1e-3 * area + 2e-5 * size * size * outline.len() as f64;
    if (sum - area).abs() > allowed {
        return Err(format!(
            "{} pieces cover {sum:e}, the outline {area:e}",
            pieces.len()
        ));
    }
    Ok(())
}
