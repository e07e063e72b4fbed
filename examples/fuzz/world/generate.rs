//! The inputs' values: mostly ordinary, now and then hostile, and handles picked from the
//! live bodies, the removed ones or another world's.

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::Vec2;
use wgpu_sat::{BodyDef, BodyShape, Circle, Polygon, Shape, world::BodyType, world::Material};

use crate::hostile;

use super::Pick;

/// Mostly an ordinary value from `lo` to `hi`, sometimes any hostile float.
pub(super) fn mostly(u: &mut Unstructured, lo: f32, hi: f32) -> Result<f32> {
    if u.ratio(1u8, 8)? {
        hostile::float(u)
    } else {
        hostile::uniform(u, lo, hi)
    }
}

/// A shape of ordinary size (a world of bodies from 1e-30 to 1e38 units tests one thing
/// only), or a hostile one now and then.
fn body_shape(u: &mut Unstructured) -> Result<BodyShape> {
    let tame = |u: &mut Unstructured| -> Result<Shape> {
        Ok(match u.int_in_range(0u8..=2)? {
            0 => Shape::Polygon(Polygon::rectangle(
                hostile::uniform(u, 0.05, 2.0)?,
                hostile::uniform(u, 0.05, 2.0)?,
            )),
            1 => Shape::Polygon(
                Polygon::regular(u.int_in_range(3..=8)?, hostile::uniform(u, 0.05, 2.0)?)
                    .unwrap_or_else(|_| Polygon::rectangle(0.5, 0.5)),
            ),
            _ => Shape::Circle(Circle::new(hostile::uniform(u, 0.05, 2.0)?).unwrap()),
        })
    };
    Ok(match u.int_in_range(0u8..=9)? {
        0..=5 => BodyShape::from(tame(u)?),
        6 => BodyShape::from(hostile::shape(u)?),
        7 => {
            let n = 1 + hostile::len(u, 3)?;
            let pieces = (0..n).map(|_| tame(u)).collect::<Result<Vec<_>>>()?;
            BodyShape::compound(pieces).unwrap()
        }
        _ => {
            // A concave outline of ordinary size: a star of up to 24 points.
            let n = u.int_in_range(3usize..=24)?;
            let depth = hostile::uniform(u, 0.0, 0.8)?;
            let r = hostile::uniform(u, 0.2, 2.0)?;
            let outline: Vec<Vec2> = (0..n)
                .map(|k| {
                    let a = std::f32::consts::TAU * k as f32 / n as f32;
                    Ok(r * (1.0 - depth * hostile::uniform(u, 0.0, 1.0)?) * Vec2::from_angle(a))
                })
                .collect::<Result<_>>()?;
            BodyShape::concave(&outline).unwrap_or_else(|_| BodyShape::from(tame(u).unwrap()))
        }
    })
}

/// A material of ordinary values, any hostile one now and then.
pub(super) fn material(u: &mut Unstructured) -> Result<Material> {
    Ok(Material {
        friction: mostly(u, 0.0, 1.0)?,
        restitution: mostly(u, 0.0, 1.0)?,
        density: mostly(u, 0.1, 10.0)?,
        tangent_speed: mostly(u, -5.0, 5.0)?,
    })
}

pub(super) fn body_def(u: &mut Unstructured) -> Result<BodyDef> {
    let mut piece_materials = Vec::new();
    // Mostly none. (Bounded: an exhausted input answers every `ratio` with true.)
    for _ in 0..hostile::len(u, 3)? {
        // Now and then past the shape's pieces: an error naming the index.
        piece_materials.push((u.int_in_range(0..=3)?, material(u)?));
    }
    Ok(BodyDef {
        shape: body_shape(u)?,
        position: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
        angle: mostly(u, -4.0, 4.0)?,
        linear_velocity: Vec2::new(mostly(u, -20.0, 20.0)?, mostly(u, -20.0, 20.0)?),
        angular_velocity: mostly(u, -10.0, 10.0)?,
        density: mostly(u, 0.1, 10.0)?,
        friction: mostly(u, 0.0, 1.0)?,
        restitution: mostly(u, 0.0, 1.0)?,
        tangent_speed: mostly(u, -5.0, 5.0)?,
        piece_materials,
        // The bytes of two flags, as before BodyDef took a BodyType (so that the seeds
        // keep most of their meaning): static first, then kinematic.
        body_type: match (u.ratio(1u8, 4)?, u.ratio(1u8, 6)?) {
            (true, _) => BodyType::Static,
            (false, true) => BodyType::Kinematic,
            (false, false) => BodyType::Dynamic,
        },
        linear_damping: mostly(u, 0.0, 2.0)?,
        angular_damping: mostly(u, 0.0, 2.0)?,
        gravity_scale: mostly(u, -2.0, 2.0)?,
        fixed_rotation: u.ratio(1u8, 8)?,
        is_bullet: u.ratio(1u8, 6)?,
        // Filters are left at their defaults (the default filter lets every pair touch);
        // the `Add` op makes a body a sensor with a draw of its own.
        ..BodyDef::dynamic(Polygon::rectangle(0.5, 0.5), Vec2::ZERO)
    })
}

/// A handle to call with, mostly a live body's.
pub(super) fn pick(u: &mut Unstructured, live_share: u8) -> Result<Pick> {
    let k = u.arbitrary()?;
    Ok(if u.int_in_range(0u8..=7)? < live_share {
        Pick::Live(k)
    } else if u.arbitrary()? {
        Pick::Removed(k)
    } else {
        Pick::Foreign(k)
    })
}
