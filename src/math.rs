//! Sine, cosine and angles computed by the crate itself, the same bits on every platform.
//!
//! `f32::sin_cos` and `f32::atan2` call the platform's math library, whose last bits differ
//! between C libraries, CPUs and compiler versions; a world stepped on two machines would
//! drift apart from the first rotation. Addition, multiplication, division and square
//! root are IEEE 754 operations, correctly rounded everywhere, and Rust never fuses them
//! into a multiply-add on its own, so a function built only from them gives the same bits
//! on every machine. (Box2D v3 makes the same promise the same way, with its own
//! approximations.)
//!
//! ```text
//! sin_cos(a): k = round(a / (pi/2)), r = a - k pi/2 (two-part pi/2: exact for |k| < 2^20),
//!             |r| <= pi/4; Taylor polynomials of sin r and cos r to degree 13 and 14
//!             (truncation below 3e-14), evaluated in f64; the quadrant k mod 4 swaps and
//!             negates them; rounded to f32 once at the end
//! atan2(y, x): t = min(|x|, |y|) / max(|x|, |y|) in [0, 1]; above tan(pi/12) it is moved
//!             next to 0 by atan t = pi/6 + atan((sqrt3 t - 1) / (t + sqrt3)); a Taylor
//!             series to degree 23 (truncation below 4e-15); the octant and quadrant fix-ups
//!             (pi/2 - a, pi - a, the sign of y) in f64; rounded to f32 once
//! ```
//!
//! Working in f64 leaves about 29 bits of headroom over the f32 result, so the results are
//! correctly rounded for all but a vanishing share of inputs and within one unit in the last
//! place for every one (tests below, against the platform's f64 functions). Accurate for
//! |angle| < 1.6e6 radians; past that the angle is first reduced modulo f64's 2 pi (an exact
//! remainder): still a unit rotation and the same bits everywhere, but not the true sine of
//! so large an angle.

use glam::Vec2;

/// pi/2 in two parts: the high part has 33 significant bits, so `k * PIO2_HI` is exact
/// for |k| < 2^20; the low part carries the next 53 bits.
const PIO2_HI: f64 = 1.570_796_326_734_125_6;
const PIO2_LO: f64 = 6.077_100_506_506_192e-11;
/// 2^20 quarter turns: the reduction by `PIO2_HI` is exact below it.
const HUGE_ANGLE: f64 = 1_048_576.0 * std::f64::consts::FRAC_PI_2;
/// tan(pi/12): the split point of the arctangent's argument reduction.
const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// The sine and cosine of `angle` (radians), the same bits on every platform. A non-finite
/// angle gives `(NaN, NaN)`, as `f32::sin_cos` does.
pub fn sin_cos(angle: f32) -> (f32, f32) {
    if angle == 0.0 {
        // Keeps the sign of a zero, as sin does.
        return (angle, 1.0);
    }
    let (s, c) = sin_cos_f64(f64::from(angle));
    (s as f32, c as f32)
}

/// [`sin_cos`] before its rounding to f32: within about 3e-14 of the true values for
/// |angle| < 1.6e6 (the Taylor truncation; larger angles as `sin_cos` says), which the f64 mass properties of rounded shapes
/// use. A non-finite angle gives NaNs.
pub(crate) fn sin_cos_f64(x: f64) -> (f64, f64) {
    if !x.is_finite() {
        return (f64::NAN, f64::NAN);
    }
    // Past 2^20 quarter turns `k * PIO2_HI` is no longer exact and the reduced angle would
    // be noise of any size: first take the remainder modulo f64's 2 pi, which `%` computes
    // exactly (IEEE fmod), so it is the same everywhere. The angle is then not the true one
    // (2 pi itself is rounded), but the result is a unit pair, the same bits everywhere.
    let x = if x.abs() >= HUGE_ANGLE {
        x % std::f64::consts::TAU
    } else {
        x
    };
    // `round` is exact (no rounding choice to make), so it is the same everywhere.
    let k = (x * std::f64::consts::FRAC_2_PI).round();
    let r = (x - k * PIO2_HI) - k * PIO2_LO;
    let (s, c) = (sin_poly(r), cos_poly(r));
    // `as` saturates past i64's range, which keeps the quadrant well-defined (if
    // meaningless) for absurd angles.
    match (k as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// sin r for |r| <= pi/4: Taylor to degree 13 (the next term is below 3e-14).
fn sin_poly(r: f64) -> f64 {
    let r2 = r * r;
    let p = 1.0 / 6_227_020_800.0;
    let p = -1.0 / 39_916_800.0 + r2 * p;
    let p = 1.0 / 362_880.0 + r2 * p;
    let p = -1.0 / 5_040.0 + r2 * p;
    let p = 1.0 / 120.0 + r2 * p;
    let p = -1.0 / 6.0 + r2 * p;
    // r + r^3 p: the last addition adds the small term to r.
    r + r * r2 * p
}

/// cos r for |r| <= pi/4: Taylor to degree 14 (the next term is below 2e-15).
fn cos_poly(r: f64) -> f64 {
    let r2 = r * r;
    let p = 1.0 / 87_178_291_200.0;
    let p = -1.0 / 479_001_600.0 + r2 * p;
    let p = 1.0 / 3_628_800.0 + r2 * p;
    let p = -1.0 / 40_320.0 + r2 * p;
    let p = 1.0 / 720.0 + r2 * p;
    let p = -1.0 / 24.0 + r2 * p;
    let p = 1.0 / 2.0 + r2 * p;
    1.0 - r2 * p
}

/// The angle of the point `(x, y)` from the positive x axis, radians in [-pi, pi], the same
/// bits on every platform. The signs of zeros and the infinities are handled as
/// `f32::atan2` handles them (e.g. `atan2(0.0, -0.0) = pi`); a NaN gives NaN.
pub fn atan2(y: f32, x: f32) -> f32 {
    // Rounding to nearest is symmetric, so the sign may be applied before or after it.
    atan2_f64(f64::from(y), f64::from(x)) as f32
}

/// [`atan2`] for a point near the positive x axis, cheaply: where |y| <= x / 8 (within
/// about 7 degrees), atan t for t = y / x by its odd Taylor series to t^11 in f32 (the next
/// term is below 5e-13, far under an f32 step there), within two units in the last place
/// of [`atan2`]; elsewhere [`atan2`] itself. Still only IEEE operations, so the same bits
/// on every platform. The solver asks each iteration for how far a jointed pair has turned
/// since the step began, which is that small; the f64 series of [`atan2`] there cost a
/// seventh of Box2D's `rain` step.
pub(crate) fn atan2_small(y: f32, x: f32) -> f32 {
    if x > 0.0 && y.abs() <= 0.125 * x {
        let t = y / x;
        if t == 0.0 {
            // A zero keeps its sign (t + t * 0 would not), as atan2(±0, x > 0) = ±0.
            return t;
        }
        let t2 = t * t;
        let p = -1.0 / 11.0;
        let p = 1.0 / 9.0 + t2 * p;
        let p = -1.0 / 7.0 + t2 * p;
        let p = 1.0 / 5.0 + t2 * p;
        let p = -1.0 / 3.0 + t2 * p;
        t + t * (t2 * p)
    } else {
        atan2(y, x)
    }
}

/// [`atan2`] before its rounding to f32: within about 1e-15 of the true angle.
pub(crate) fn atan2_f64(y: f64, x: f64) -> f64 {
    if y.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    let (mut ax, mut ay) = (x.abs(), y.abs());
    if ax.is_infinite() && ay.is_infinite() {
        // inf / inf: the diagonal, as the limit says.
        (ax, ay) = (1.0, 1.0);
    }
    let steep = ay > ax;
    let t = if steep {
        ax / ay
    } else if ax == 0.0 {
        0.0
    } else {
        ay / ax
    };
    let mut a = atan_unit(t);
    if steep {
        a = std::f64::consts::FRAC_PI_2 - a;
    }
    if x.is_sign_negative() {
        a = std::f64::consts::PI - a;
    }
    if y.is_sign_negative() { -a } else { a }
}

/// atan t for t in [0, 1].
fn atan_unit(t: f64) -> f64 {
    let (base, u) = if t > TAN_PI_12 {
        (
            std::f64::consts::FRAC_PI_6,
            (t * SQRT_3 - 1.0) / (t + SQRT_3),
        )
    } else {
        (0.0, t)
    };
    // |u| <= tan(pi/12) < 0.268: the series' next term, u^25 / 25, is below 2e-16.
    // Horner from the u^22 coefficient down: sum of (-1)^n u^(2n) / (2n + 1).
    let u2 = u * u;
    let mut p = 0.0;
    for n in (0..=11).rev() {
        let coefficient = 1.0 / f64::from(2 * n + 1);
        p = if n % 2 == 0 {
            coefficient
        } else {
            -coefficient
        } + u2 * p;
    }
    base + u * p
}

/// The unit vector `(cos angle, sin angle)`: a rotation in the form
/// [`Transform::rotation`](crate::Transform::rotation) returns. The platform-independent
/// `Vec2::from_angle`.
pub fn from_angle(angle: f32) -> Vec2 {
    let (sin, cos) = sin_cos(angle);
    Vec2::new(cos, sin)
}

/// The angle of `rotation` from the x axis, radians in [-pi, pi]: `atan2(y, x)`. The
/// platform-independent `Vec2::to_angle`.
pub fn to_angle(rotation: Vec2) -> f32 {
    atan2(rotation.y, rotation.x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many f32 steps lie between `a` and `b` (0: the same value).
    fn ulps(a: f32, b: f32) -> u32 {
        // Map the sign-magnitude bits onto a line where adjacent floats differ by one.
        let line = |x: f32| {
            let bits = x.to_bits() as i32;
            if bits < 0 { i32::MIN - bits } else { bits }
        };
        line(a).abs_diff(line(b))
    }

    /// Angles across the range a world meets, dense near the quadrant boundaries where the
    /// reduction works hardest.
    fn angles() -> impl Iterator<Item = f32> {
        let sweep = (-200_000..=200_000).map(|k| k as f32 * 1.0e-4 * std::f32::consts::PI);
        let near_quadrants = (-400..=400).flat_map(|q| {
            let base = q as f32 * std::f32::consts::FRAC_PI_2;
            (-8..=8).map(move |d| base + d as f32 * 1e-6)
        });
        let large = (0..2_000).map(|k| 1_000.0 + k as f32 * 37.77);
        sweep.chain(near_quadrants).chain(large)
    }

    /// The platform's f64 functions, accurate to well under a unit of f64, rounded to f32,
    /// are the correctly rounded f32 values but for rare near-halfway cases: ours must be
    /// within one unit of them everywhere and equal almost everywhere.
    #[test]
    fn sin_cos_is_within_one_ulp_of_the_correctly_rounded_value() {
        let (mut total, mut exact) = (0usize, 0usize);
        for a in angles() {
            let (s, c) = sin_cos(a);
            let (rs, rc) = (f64::from(a).sin() as f32, f64::from(a).cos() as f32);
            // Near a zero of sin or cos an absolute bound is the meaningful one: f32's
            // reduction of `a` itself is only exact to its own rounding.
            for (ours, reference) in [(s, rs), (c, rc)] {
                total += 1;
                exact += usize::from(ours == reference);
                assert!(
                    ulps(ours, reference) <= 1 || (ours - reference).abs() < 1e-12,
                    "angle {a}: ours {ours}, reference {reference}"
                );
            }
        }
        assert!(
            exact as f64 > 0.999 * total as f64,
            "{exact} of {total} exact"
        );
    }

    #[test]
    fn atan2_small_is_within_two_ulps_of_atan2_near_the_axis_and_atan2_elsewhere() {
        let mut worst = 0;
        for k in 0..=200_000 {
            // Angles from -0.2 to 0.2 radians (past the fast range's 0.124 both ways), on
            // circles of a few radii.
            let angle = -0.2 + 0.4 * f64::from(k) / 200_000.0;
            for radius in [1.0, 0.5, 3.0] {
                let (x, y) = ((radius * angle.cos()) as f32, (radius * angle.sin()) as f32);
                let (fast, exact) = (atan2_small(y, x), atan2(y, x));
                if y.abs() <= 0.125 * x {
                    worst = worst.max(ulps(fast, exact));
                } else {
                    assert_eq!(fast.to_bits(), exact.to_bits(), "({x}, {y})");
                }
            }
        }
        assert!(worst <= 2, "atan2_small is {worst} ulps from atan2");
        for (y, x) in [
            (0.0, 1.0),
            (-0.0, 1.0),
            (0.0, -1.0),
            (1.0, 0.0),
            (f32::NAN, 1.0),
        ] {
            assert_eq!(
                atan2_small(y, x).to_bits(),
                atan2(y, x).to_bits(),
                "({x}, {y})"
            );
        }
        assert_eq!(atan2_small(2.0, f32::INFINITY).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn atan2_is_within_one_ulp_of_the_correctly_rounded_value() {
        let (mut total, mut exact) = (0usize, 0usize);
        for k in 0..100_000 {
            // Points all round the circle at radii from 1e-3 to 1e3.
            let (s, c) = (
                f64::from(k as f32 * 0.000_631).sin(),
                f64::from(k as f32 * 0.000_631).cos(),
            );
            let r = 10f64.powf((k % 7) as f64 - 3.0);
            let (y, x) = ((r * s) as f32, (r * c) as f32);
            let ours = atan2(y, x);
            let reference = f64::from(y).atan2(f64::from(x)) as f32;
            total += 1;
            exact += usize::from(ours == reference);
            assert!(
                ulps(ours, reference) <= 1,
                "({x}, {y}): ours {ours}, reference {reference}"
            );
        }
        assert!(
            exact as f64 > 0.999 * total as f64,
            "{exact} of {total} exact"
        );
    }

    #[test]
    fn special_values_follow_the_platform_conventions() {
        let inf = f32::INFINITY;
        let cases = [
            (0.0, 1.0),
            (-0.0, 1.0),
            (0.0, -1.0),
            (-0.0, -1.0),
            (0.0, 0.0),
            (0.0, -0.0),
            (-0.0, -0.0),
            (1.0, 0.0),
            (-1.0, 0.0),
            (inf, 1.0),
            (1.0, inf),
            (1.0, -inf),
            (inf, inf),
            (-inf, -inf),
            (inf, -inf),
        ];
        for (y, x) in cases {
            let (ours, platform) = (atan2(y, x), y.atan2(x));
            assert_eq!(ours.to_bits(), platform.to_bits(), "atan2({y}, {x})");
        }
        assert!(atan2(f32::NAN, 1.0).is_nan() && atan2(1.0, f32::NAN).is_nan());
        for a in [f32::NAN, inf, -inf] {
            let (s, c) = sin_cos(a);
            assert!(s.is_nan() && c.is_nan(), "sin_cos({a})");
        }
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        assert_eq!(sin_cos(-0.0).0.to_bits(), (-0.0f32).to_bits());
    }

    /// Huge angles (a fuzzer's start angle of 5e28 radians) still give a unit rotation.
    #[test]
    fn huge_angles_give_unit_rotations() {
        for a in [
            1.7e6f32,
            -3.3e9,
            5.467_984_7e28,
            -5.467_984_7e28,
            f32::MAX,
            f32::MIN,
        ] {
            let (s, c) = sin_cos(a);
            assert!(
                ((s * s + c * c) - 1.0).abs() < 4.0 * f32::EPSILON,
                "{a}: ({s}, {c})"
            );
        }
    }

    #[test]
    fn angles_and_rotations_round_trip() {
        for k in -3_000..3_000 {
            let a = k as f32 * 1e-3;
            let back = to_angle(from_angle(a));
            assert!(
                (back - a).abs() <= 2.0 * f32::EPSILON * a.abs().max(1.0),
                "{a} -> {back}"
            );
            assert!((from_angle(a).length() - 1.0).abs() < 2.0 * f32::EPSILON);
        }
    }
}
