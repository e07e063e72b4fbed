//! Target `collide`: one pair through `collide`, `collide_shapes` and `time_of_impact`, on
//! valid shapes of any size at valid poses (huge and tiny translations, angles of 1e30),
//! with sweeps fixed, from velocities (non-finite ones included) and built by hand.
//!
//! Invariants: no panic; every transform that `is_finite` is rigid (a unit rotation); every
//! manifold is finite, with a unit normal, a positive depth and 1 or 2 finite points of
//! finite depth; `collide` and `collide_shapes` agree on polygons; every time of impact has
//! `t` in [0, 1], a unit normal and a finite separation (negative only at `t = 0`); a sweep
//! that is not finite gives `None`.

use arbitrary::{Result, Unstructured};
use wgpu_sat::{
    Manifold, Shape, Sweep, Transform, collide, collide_shapes, collision::toi::TimeOfImpact,
};
use wgpu_sat::{collision::toi::toi_tolerance, time_of_impact};

use crate::Target;
use crate::hostile;

pub struct Collide;

#[derive(Debug)]
pub struct Pair {
    pub a: Shape,
    pub a_transform: Transform,
    pub b: Shape,
    pub b_transform: Transform,
    pub a_sweep: Sweep,
    pub b_sweep: Sweep,
}

impl Target for Collide {
    type Input = Pair;

    fn name(&self) -> &'static str {
        "collide"
    }

    fn weight(&self) -> u64 {
        45
    }

    fn generate(&self, u: &mut Unstructured) -> Result<Pair> {
        let a = hostile::shape(u)?;
        let b = hostile::shape(u)?;
        let a_transform = hostile::transform(u)?;
        // Half the time B sits near A, so that the pair overlaps often.
        let b_transform = if u.ratio(1u8, 2)? {
            let near = Transform::new(
                a_transform.translation()
                    + a.bounding_radius().min(1e30)
                        * wgpu_sat::glam::Vec2::new(
                            hostile::uniform(u, -2.0, 2.0)?,
                            hostile::uniform(u, -2.0, 2.0)?,
                        ),
                hostile::uniform(u, -4.0, 4.0)?,
            );
            if near.is_finite() {
                near
            } else {
                hostile::transform(u)?
            }
        } else {
            hostile::transform(u)?
        };
        Ok(Pair {
            a,
            a_transform,
            b,
            b_transform,
            a_sweep: hostile::sweep(u)?,
            b_sweep: hostile::sweep(u)?,
        })
    }

    fn check(&self, p: &Pair) -> std::result::Result<(), String> {
        for x in [&p.a_transform, &p.b_transform] {
            check_rigid(x)?;
        }
        let m = collide_shapes(&p.a, &p.a_transform, &p.b, &p.b_transform);
        if let Some(m) = &m {
            check_manifold(m).map_err(|e| format!("collide_shapes: {e}: {m:?}"))?;
        }
        if let (Shape::Polygon(a), Shape::Polygon(b)) = (&p.a, &p.b) {
            let direct = collide(a, &p.a_transform, b, &p.b_transform);
            if direct != m {
                return Err(format!("collide {direct:?} but collide_shapes {m:?}"));
            }
        }
        for (sa, sb) in [
            (&p.a_sweep, &p.b_sweep),
            (&Sweep::fixed(&p.a_transform), &p.b_sweep),
            (&Sweep::fixed(&p.a_transform), &Sweep::fixed(&p.b_transform)),
        ] {
            let hit = time_of_impact(&p.a, sa, &p.b, sb);
            check_toi(&p.a, sa, &p.b, sb, hit.as_ref())?;
        }
        Ok(())
    }
}

/// A transform that claims to be finite must be rigid: its rotation a unit vector.
pub fn check_rigid(x: &Transform) -> std::result::Result<(), String> {
    if x.is_finite() && !hostile::is_unit(x.rotation()) {
        return Err(format!(
            "finite transform {x:?} is not rigid: |rotation| = {}",
            x.rotation().length()
        ));
    }
    Ok(())
}

/// A manifold's promises: finite, unit normal, positive depth, 1 or 2 finite points.
pub fn check_manifold(m: &Manifold) -> std::result::Result<(), String> {
    if !hostile::is_unit(m.normal) {
        return Err(format!("normal {} is not unit", m.normal));
    }
    if !(m.depth.is_finite() && m.depth > 0.0) {
        return Err(format!("depth {} is not finite and positive", m.depth));
    }
    let points = m.points();
    if !(1..=2).contains(&points.len()) {
        return Err(format!("{} points", points.len()));
    }
    for p in points {
        if !p.point.is_finite() || !p.depth.is_finite() {
            return Err(format!("point {p:?} is not finite"));
        }
    }
    Ok(())
}

/// A time of impact's promises (see the module documentation).
pub fn check_toi(
    a: &Shape,
    sa: &Sweep,
    b: &Shape,
    sb: &Sweep,
    hit: Option<&TimeOfImpact>,
) -> std::result::Result<(), String> {
    let Some(hit) = hit else {
        return Ok(());
    };
    let context = || format!("time_of_impact({sa:?}, {sb:?}) = {hit:?}");
    if !(sa.is_finite() && sb.is_finite()) {
        return Err(format!("a sweep that is not finite hit: {}", context()));
    }
    if !(0.0..=1.0).contains(&hit.t) {
        return Err(format!("t outside [0, 1]: {}", context()));
    }
    if !hostile::is_unit(hit.normal) {
        return Err(format!("normal not unit: {}", context()));
    }
    if !hit.separation.is_finite() {
        return Err(format!("separation not finite: {}", context()));
    }
    let tol = toi_tolerance(a, sa, b, sb);
    if tol.is_nan() {
        return Err(format!("toi_tolerance is NaN: {}", context()));
    }
    // Overlap is allowed at t = 0 only; later, no deeper than the tolerance, which grows
    // with the coordinates to cover their rounding (see `toi_tolerance`).
    if hit.separation < -tol && hit.t != 0.0 {
        return Err(format!(
            "overlapping at t > 0 (tolerance {tol}): {}",
            context()
        ));
    }
    Ok(())
}
