//! The reader of the shape table: each shape through its constructor (the checks `add_body`
//! makes), no larger than `MAX_COORDINATE`; then, once the colliders are read, the table's
//! free list against its users, and the used entries distinct, as the world shares them.
//!
//! ```text
//! SHAPES, count; per shape: kind, then its points and radius (polygon: vertex count first)
//! free list: count, entries          (checked in check_users, after the colliders)
//! ```

use glam::Vec2;

use super::super::codec::Reader;
use super::super::{CAPSULE, CHAIN, CIRCLE, POLYGON, SEGMENT, SHAPES};
use super::values::tag;
use super::{Loading, emptied, refill};
use crate::error::Error;
use crate::shapes::capsule::Capsule;
use crate::shapes::circle::Circle;
use crate::shapes::polygon::{MAX_POLYGON_VERTICES, Polygon};
use crate::shapes::segment::{ChainSegment, Segment};
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;
use crate::world::limits::MAX_COORDINATE;
use crate::world::shape_table::{ShapeTable, shape_key};

impl Loading {
    /// Reads the shape table and its free list (checked once the colliders are known);
    /// returns the offset of the free list.
    pub(super) fn read_shapes(&mut self, r: &mut Reader<'_>) -> Result<usize, Error> {
        tag(r, SHAPES, "shapes")?;
        let count = r.count("shape count", 8)?;
        let mut shapes = emptied(&mut self.spare.shapes.list);
        shapes.reserve(count);
        for _ in 0..count {
            shapes.push(read_shape(r)?);
        }
        let w = &mut self.world;
        w.shapes.list = shapes;
        w.shapes.users = refill(&mut self.spare.shapes.users, count, 0);
        let at = r.offset;
        let free = r.count("free shape count", 1)?;
        for _ in 0..free {
            let s = r.index("free shape", count)?;
            w.shapes.free.push(s as u32);
        }
        Ok(at)
    }
}

impl ShapeTable {
    /// Once the colliders have counted their users: the free list (read at `free_at`) must
    /// be exactly the entries no live collider uses, and the used entries distinct shapes
    /// (as the world shares them), which fills `index`.
    pub(super) fn check_users(&mut self, free_at: usize) -> Result<(), Error> {
        let mut free = vec![false; self.list.len()];
        for &s in &self.free {
            if self.users[s as usize] != 0 || free[s as usize] {
                return Reader::error_at(
                    free_at,
                    format!("free shape {s} is in use or listed twice"),
                );
            }
            free[s as usize] = true;
        }
        for (s, &users) in self.users.iter().enumerate() {
            if users == 0 && !free[s] {
                return Reader::error_at(free_at, format!("shape {s} is unused but not free"));
            }
            if users > 0 {
                let key = shape_key(&self.list[s]);
                if self.index.insert(key, s as u32).is_some() {
                    return Reader::error_at(free_at, format!("shape {s} repeats another entry"));
                }
            }
        }
        Ok(())
    }
}

/// One shape of the table, through its constructor.
fn read_shape(r: &mut Reader<'_>) -> Result<Shape, Error> {
    let at = r.offset;
    let kind = r.u8("shape kind")?;
    let point = |r: &mut Reader<'_>| r.vec2("shape point", MAX_COORDINATE);
    let radius = |r: &mut Reader<'_>| r.f32("shape radius", MAX_COORDINATE);
    let shape = match kind {
        POLYGON => {
            let count = r.u8("polygon vertex count")? as usize;
            if !(3..=MAX_POLYGON_VERTICES).contains(&count) {
                return Reader::error_at(at, format!("polygon of {count} vertices"));
            }
            let mut points = [Vec2::ZERO; MAX_POLYGON_VERTICES];
            for p in points.iter_mut().take(count) {
                *p = point(r)?;
            }
            let rounding = radius(r)?;
            let polygon = Polygon::new(&points[..count]).and_then(|p| p.with_radius(rounding));
            Shape::Polygon(at_shape(at, polygon)?)
        }
        CIRCLE => {
            let center = point(r)?;
            let rad = radius(r)?;
            Shape::Circle(at_shape(at, Circle::with_center(center, rad))?)
        }
        CAPSULE => {
            let (a, b) = (point(r)?, point(r)?);
            let rad = radius(r)?;
            Shape::Capsule(at_shape(at, Capsule::new(a, b, rad))?)
        }
        SEGMENT => {
            let (a, b) = (point(r)?, point(r)?);
            Shape::Segment(at_shape(at, Segment::new(a, b))?)
        }
        CHAIN => {
            let (ga, a, b, gb) = (point(r)?, point(r)?, point(r)?, point(r)?);
            Shape::ChainSegment(at_shape(at, ChainSegment::new(ga, a, b, gb))?)
        }
        other => return Reader::error_at(at, format!("unknown shape kind {other}")),
    };
    if shape.bounding_radius() > MAX_COORDINATE
        || shape.aabb(&Transform::IDENTITY).size().max_element() > 2.0 * MAX_COORDINATE
    {
        return Reader::error_at(at, "shape larger than MAX_COORDINATE");
    }
    Ok(shape)
}

/// A constructor's refusal as the snapshot's error at the shape's offset.
fn at_shape<T>(
    offset: usize,
    shape: Result<T, crate::shapes::polygon::ShapeError>,
) -> Result<T, Error> {
    shape.or_else(|e| Reader::error_at(offset, format!("invalid shape: {e}")))
}
