//! Hostile value generators on top of `arbitrary::Unstructured`.
//!
//! `f32::arbitrary` reads four bytes as bits, so NaN, infinities, zeros, subnormals and the
//! extremes of the range come up about once in millions of draws, and values a person would
//! type (0.5, 3, 100) never: neither exercises the edges where geometry code breaks. These
//! generators pick a *class* first (one byte), then a value in it, so every class comes up
//! several times in every hundred draws. When the bytes run out `Unstructured` answers with
//! the low end of every range; the classes are ordered so that this gives plain zeros, not
//! NaN, and a short input stays an ordinary one.

use std::f32::consts::TAU;

use arbitrary::{Result, Unstructured};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Circle, Polygon, Shape, Sweep, Transform};

/// A float from `lo` to `hi` (inclusive) from two bytes: evenly spaced values.
pub fn uniform(u: &mut Unstructured, lo: f32, hi: f32) -> Result<f32> {
    let k = u.int_in_range(0u16..=u16::MAX)?;
    Ok(lo + (hi - lo) * (f32::from(k) / f32::from(u16::MAX)))
}

/// A magnitude spread evenly over the exponents from 1e-30 to 3e38: a draw is as likely to
/// be near 1e-20 as near 1 or near 1e30, which is how overflow and underflow get found.
pub fn log_uniform(u: &mut Unstructured) -> Result<f32> {
    let exponent = uniform(u, -30.0, 38.47)?;
    // 10^38.47 is just below f32::MAX; clamp what rounding may push over.
    Ok(10f32.powf(exponent).min(f32::MAX))
}

fn signed(u: &mut Unstructured, x: f32) -> Result<f32> {
    Ok(if u.arbitrary::<bool>()? { -x } else { x })
}

/// Any float, hostile on purpose: NaN (with a payload), ±inf, ±0, subnormals,
/// `f32::MIN_POSITIVE`, ±`f32::MAX`, log-uniform magnitudes from 1e-30 to 3e38, small
/// integers and ordinary values, each class often enough to matter.
pub fn float(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=19)? {
        // Ordinary values first: exhausted input reads as class 0.
        0..=5 => uniform(u, -10.0, 10.0)?,
        6 | 7 => f32::from(u.int_in_range(-8i8..=8)?),
        8 => {
            f32::from_bits(0x7fc0_0000 | u.int_in_range(0u32..=0x3f_ffff)?) * {
                // NaN with either sign bit and a payload: some code tests bits, not is_nan.
                if u.arbitrary::<bool>()? { -1.0 } else { 1.0 }
            }
        }
        9 => f32::INFINITY,
        10 => f32::NEG_INFINITY,
        11 => signed(u, 0.0)?,
        12 => {
            // The few smallest subnormals half the time: they have one or two bits, and
            // halving or averaging them rounds.
            let bits = if u.arbitrary::<bool>()? {
                16
            } else {
                0x7f_ffff
            };
            let subnormal = f32::from_bits(u.int_in_range(1u32..=bits)?);
            signed(u, subnormal)?
        }
        13 => signed(u, f32::MIN_POSITIVE)?,
        14 => signed(u, f32::MAX)?,
        _ => {
            let magnitude = log_uniform(u)?;
            signed(u, magnitude)?
        }
    })
}

/// A finite float from the same classes as [`float`] (NaN and infinities become ordinary
/// values): for inputs that must be finite for the call to mean anything.
pub fn finite(u: &mut Unstructured) -> Result<f32> {
    let x = float(u)?;
    Ok(if x.is_finite() {
        x
    } else {
        uniform(u, -10.0, 10.0)?
    })
}

/// A length scale for generated shapes: mostly near 1, often anywhere from 1e-30 to 3e38,
/// sometimes subnormal.
pub fn scale(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=7)? {
        0..=3 => uniform(u, 0.05, 5.0)?,
        4..=6 => log_uniform(u)?,
        _ => {
            let bits = if u.arbitrary::<bool>()? {
                16
            } else {
                0x7f_ffff
            };
            f32::from_bits(u.int_in_range(1u32..=bits)?)
        }
    })
}

pub fn vec2(u: &mut Unstructured) -> Result<Vec2> {
    Ok(Vec2::new(float(u)?, float(u)?))
}

pub fn finite_vec2(u: &mut Unstructured) -> Result<Vec2> {
    Ok(Vec2::new(finite(u)?, finite(u)?))
}

/// A length from 0 to `max`, small values far more often than large ones (a geometric-like
/// spread: each doubling of the range is about as likely).
pub fn len(u: &mut Unstructured, max: usize) -> Result<usize> {
    let bits = usize::BITS - max.leading_zeros();
    let top = u.int_in_range(0..=bits)?;
    let limit = if top == 0 { 0 } else { (1usize << top) - 1 };
    u.int_in_range(0..=limit.min(max))
}

/// A point set for the shape constructors: hostile raw points, points on an ellipse (a
/// convex polygon) with mutations (repeats, collinear midpoints, one hostile coordinate,
/// reversal), star-shaped concave outlines, collinear runs, grids and clusters; at any
/// scale and offset, and now and then thousands of points.
pub fn points(u: &mut Unstructured) -> Result<Vec<Vec2>> {
    match u.int_in_range(0u8..=9)? {
        0..=2 => ellipse(u),
        3 | 4 => {
            let n = len(u, 12)?;
            (0..n).map(|_| vec2(u)).collect()
        }
        5 | 6 => star(u, 64),
        7 => line(u),
        8 => grid(u),
        _ => {
            // Thousands of points, rarely: the quadratic passes of validation and of the
            // decomposition must stay bounded.
            if u.ratio(1u8, 8)? {
                star(u, 2_000)
            } else {
                cluster(u)
            }
        }
    }
}

/// The same similarity for every generated point set: scale, rotation and offset, all
/// hostile-finite.
struct Placement {
    scale: f32,
    angle: f32,
    offset: Vec2,
    stretch: f32,
}

impl Placement {
    fn arbitrary(u: &mut Unstructured) -> Result<Placement> {
        let offset = match u.int_in_range(0u8..=3)? {
            0 | 1 => Vec2::ZERO,
            2 => Vec2::new(uniform(u, -10.0, 10.0)?, uniform(u, -10.0, 10.0)?),
            _ => finite_vec2(u)?,
        };
        Ok(Placement {
            scale: scale(u)?,
            angle: if u.ratio(1u8, 2)? { 0.0 } else { finite(u)? },
            offset,
            stretch: if u.ratio(3u8, 4)? {
                uniform(u, 0.3, 1.0)?
            } else {
                log_uniform(u)?.min(1.0)
            },
        })
    }

    /// A unit-scale point placed: stretched along y, scaled, rotated, offset.
    fn place(&self, p: Vec2) -> Vec2 {
        let p = Vec2::new(p.x, p.y * self.stretch) * self.scale;
        Vec2::from_angle(self.angle).rotate(p) + self.offset
    }
}

/// An expansion seed: big structures are drawn from a private generator seeded by eight
/// input bytes, so that they cost few bytes; the input's `Debug` still shows every point.
fn expansion(u: &mut Unstructured) -> Result<ChaCha8Rng> {
    Ok(ChaCha8Rng::seed_from_u64(u.arbitrary()?))
}

fn ellipse(u: &mut Unstructured) -> Result<Vec<Vec2>> {
    let n = u.int_in_range(3usize..=10)?;
    let at = Placement::arbitrary(u)?;
    let mut rng = expansion(u)?;
    let mut angles: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..TAU)).collect();
    angles.sort_by(f32::total_cmp);
    let mut p: Vec<Vec2> = angles
        .iter()
        .map(|&a| at.place(Vec2::from_angle(a)))
        .collect();
    mutate(u, &mut p)?;
    Ok(p)
}

/// The mutations that turn a good outline into a bad one in one place.
fn mutate(u: &mut Unstructured, p: &mut Vec<Vec2>) -> Result<()> {
    for _ in 0..u.int_in_range(0u8..=2)? {
        if p.is_empty() {
            break;
        }
        let k = u.choose_index(p.len())?;
        match u.int_in_range(0u8..=5)? {
            0 => p.insert(k, p[k]),
            1 => {
                let next = p[(k + 1) % p.len()];
                p.insert(k + 1, 0.5 * p[k] + 0.5 * next);
            }
            2 => p[k].x = float(u)?,
            3 => p.reverse(),
            4 => p.rotate_left(k),
            _ => {
                // Nudge a point by a relative hair: near-collinear, near-repeated.
                let eps = f32::EPSILON * f32::from(u.int_in_range(1u8..=64)?);
                p[k] *= 1.0 + eps;
            }
        }
    }
    Ok(())
}

fn star(u: &mut Unstructured, max: usize) -> Result<Vec<Vec2>> {
    let n = 3 + len(u, max - 3)?;
    let at = Placement::arbitrary(u)?;
    let depth = uniform(u, 0.0, 0.95)?;
    let mut rng = expansion(u)?;
    let mut p: Vec<Vec2> = (0..n)
        .map(|k| {
            // Evenly spaced angles keep the outline simple; a random radius per point
            // makes reflex corners.
            let a = TAU * k as f32 / n as f32;
            let r = 1.0 - depth * rng.random::<f32>();
            at.place(r * Vec2::from_angle(a))
        })
        .collect();
    mutate(u, &mut p)?;
    Ok(p)
}

fn line(u: &mut Unstructured) -> Result<Vec<Vec2>> {
    let n = len(u, 12)?;
    let at = Placement::arbitrary(u)?;
    let mut p: Vec<Vec2> = (0..n)
        .map(|_| Ok(at.place(Vec2::new(uniform(u, -1.0, 1.0)?, 0.0))))
        .collect::<Result<_>>()?;
    mutate(u, &mut p)?;
    Ok(p)
}

fn grid(u: &mut Unstructured) -> Result<Vec<Vec2>> {
    let (w, h) = (u.int_in_range(1u8..=5)?, u.int_in_range(1u8..=5)?);
    let at = Placement::arbitrary(u)?;
    let mut p = Vec::new();
    for i in 0..w {
        for j in 0..h {
            p.push(at.place(Vec2::new(f32::from(i), f32::from(j))));
        }
    }
    if u.ratio(1u8, 2)? {
        let mut rng = expansion(u)?;
        for k in (1..p.len()).rev() {
            p.swap(k, rng.random_range(0..=k));
        }
    }
    Ok(p)
}

fn cluster(u: &mut Unstructured) -> Result<Vec<Vec2>> {
    let n = 100 + len(u, 4_000)?;
    let at = Placement::arbitrary(u)?;
    let mut rng = expansion(u)?;
    // Few distinct values per axis: many repeats and collinear runs.
    let levels = rng.random_range(1..=50);
    Ok((0..n)
        .map(|_| {
            let q = |rng: &mut ChaCha8Rng| rng.random_range(0..levels) as f32 / levels as f32;
            at.place(Vec2::new(q(&mut rng), q(&mut rng)))
        })
        .collect())
}

/// A valid polygon: from a point set that `Polygon::new` or `Polygon::convex_hull` accepts,
/// else a regular polygon or a rectangle of a hostile size, else the unit square.
pub fn polygon(u: &mut Unstructured) -> Result<Polygon> {
    let made = match u.int_in_range(0u8..=3)? {
        0 => ellipse(u).map(|p| Polygon::new(&p).ok())?,
        1 => points(u).map(|p| Polygon::convex_hull(&p).ok())?,
        2 => Polygon::regular(u.int_in_range(3usize..=8)?, scale(u)?).ok(),
        _ => {
            let (w, h) = (scale(u)?, scale(u)?);
            // Polygon::rectangle panics on a sliver (documented); make it through new.
            Polygon::new(&[
                Vec2::new(-w, -h),
                Vec2::new(w, -h),
                Vec2::new(w, h),
                Vec2::new(-w, h),
            ])
            .ok()
        }
    };
    Ok(made.unwrap_or_else(|| Polygon::rectangle(0.5, 0.5)))
}

/// A valid circle of hostile size and centre.
pub fn circle(u: &mut Unstructured) -> Result<Circle> {
    let center = if u.ratio(1u8, 2)? {
        Vec2::ZERO
    } else {
        finite_vec2(u)?
    };
    Ok(Circle::with_center(center, scale(u)?).unwrap_or_else(|_| Circle::new(1.0).unwrap()))
}

/// A valid shape: a polygon two times in three, else a circle.
pub fn shape(u: &mut Unstructured) -> Result<Shape> {
    Ok(if u.ratio(1u8, 3)? {
        Shape::Circle(circle(u)?)
    } else {
        Shape::Polygon(polygon(u)?)
    })
}

/// A translation: zero, ordinary, or hostile-finite (huge, tiny, subnormal).
pub fn translation(u: &mut Unstructured) -> Result<Vec2> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => Vec2::ZERO,
        1 | 2 => Vec2::new(uniform(u, -3.0, 3.0)?, uniform(u, -3.0, 3.0)?),
        _ => finite_vec2(u)?,
    })
}

/// A pose that `Transform::is_finite` accepts: `Transform::new` with any finite angle
/// (1e30 included), or `Transform::from_rotation` with a hostile rotation pair when that
/// gives a finite transform.
pub fn transform(u: &mut Unstructured) -> Result<Transform> {
    let t = translation(u)?;
    if u.ratio(1u8, 4)? {
        let x = Transform::from_rotation(t, finite_vec2(u)?);
        if x.is_finite() {
            return Ok(x);
        }
    }
    let angle = if u.ratio(1u8, 2)? {
        uniform(u, -4.0, 4.0)?
    } else {
        finite(u)?
    };
    Ok(Transform::new(t, angle))
}

/// Any pose: mostly valid, sometimes with a NaN or infinite part, for batch calls that
/// must reject it.
pub fn any_transform(u: &mut Unstructured) -> Result<Transform> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => Transform::new(vec2(u)?, float(u)?),
        1 => Transform::from_rotation(vec2(u)?, vec2(u)?),
        _ => transform(u)?,
    })
}

/// A sweep: fixed, from a velocity (non-finite velocities and time steps included), or
/// built field by field, hostile.
pub fn sweep(u: &mut Unstructured) -> Result<Sweep> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 => Sweep::fixed(&transform(u)?),
        1 | 2 => {
            let x = transform(u)?;
            let center = if u.ratio(1u8, 2)? {
                Vec2::ZERO
            } else {
                vec2(u)?
            };
            let (velocity, angular, dt) = if u.ratio(1u8, 2)? {
                let v = Vec2::new(uniform(u, -50.0, 50.0)?, uniform(u, -50.0, 50.0)?);
                (v, uniform(u, -30.0, 30.0)?, uniform(u, 0.0, 0.1)?)
            } else {
                (vec2(u)?, float(u)?, float(u)?)
            };
            Sweep::from_velocity(&x, center, velocity, angular, dt)
        }
        3 => {
            let c0 = translation(u)?;
            let d = Vec2::new(uniform(u, -5.0, 5.0)?, uniform(u, -5.0, 5.0)?);
            let a0 = uniform(u, -4.0, 4.0)?;
            Sweep {
                local_center: Vec2::ZERO,
                c0,
                c1: c0 + d,
                a0,
                a1: a0 + uniform(u, -10.0, 10.0)?,
            }
        }
        4 => Sweep {
            local_center: finite_vec2(u)?,
            c0: finite_vec2(u)?,
            c1: finite_vec2(u)?,
            a0: finite(u)?,
            a1: finite(u)?,
        },
        _ => Sweep {
            local_center: vec2(u)?,
            c0: vec2(u)?,
            c1: vec2(u)?,
            a0: float(u)?,
            a1: float(u)?,
        },
    })
}

/// A collider or pair index: mostly below `count`, sometimes just past it, sometimes huge.
pub fn index(u: &mut Unstructured, count: usize) -> Result<u32> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 => count as u32,
        1 => u32::MAX,
        2 => u.arbitrary()?,
        _ if count == 0 => 0,
        _ => u.int_in_range(0..=count as u32 - 1)?,
    })
}

/// Whether a vector is a finite unit vector to 1e-4.
pub fn is_unit(n: Vec2) -> bool {
    n.is_finite() && (n.length() - 1.0).abs() <= 1e-4
}
