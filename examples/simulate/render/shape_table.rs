//! The shape table as the vertex shader reads it: one entry per shape, a rounded shape
//! drawn as the convex outline around its core.

use wgpu_sat::glam::Vec2;
use wgpu_sat::{MAX_POLYGON_VERTICES, Shape};

use super::ShapeGpu;

pub(super) fn shape_gpu(shape: &Shape) -> ShapeGpu {
    let mut vertices = [[0.0; 2]; MAX_POLYGON_VERTICES];
    match shape {
        Shape::Polygon(polygon) => {
            for (slot, v) in vertices.iter_mut().zip(polygon.vertices()) {
                *slot = v.to_array();
            }
            ShapeGpu {
                vertices,
                count: polygon.vertices().len() as u32,
                radius: 0.0,
            }
        }
        Shape::Circle(circle) => {
            vertices[0] = circle.center().to_array();
            ShapeGpu {
                vertices,
                count: 1,
                radius: circle.radius(),
            }
        }
        // A core and a radius (a capsule, a rounded polygon, a segment or a chain link):
        // drawn as a polygon of at most 8 vertices around the rounded outline, close
        // enough for the window (the physics uses the exact shape).
        _ => {
            let outline = rounded_outline(shape);
            for (slot, v) in vertices.iter_mut().zip(&outline) {
                *slot = v.to_array();
            }
            ShapeGpu {
                vertices,
                count: outline.len() as u32,
                radius: 0.0,
            }
        }
    }
}

/// Half the thickness a segment or a chain link is drawn with (it has none), world units.
const LINE_HALF_WIDTH: f32 = 0.06;

/// A convex polygon of at most 8 vertices around a shape made of a core and a radius:
/// for a core of two points (a capsule, a segment, a chain link), a flat-ended hexagon
/// around the stadium; for a rounded polygon, each core vertex pushed out by the radius
/// along the two normals of its edges (a bevelled outline), or along their bisector when
/// two per vertex would make more than 8.
fn rounded_outline(shape: &Shape) -> Vec<Vec2> {
    let (core, radius): (Vec<Vec2>, f32) = match shape {
        Shape::Capsule(c) => (vec![c.a(), c.b()], c.radius()),
        Shape::Segment(s) => (vec![s.a(), s.b()], LINE_HALF_WIDTH),
        Shape::ChainSegment(s) => (vec![s.segment().a(), s.segment().b()], LINE_HALF_WIDTH),
        Shape::Polygon(p) => (p.vertices().to_vec(), p.radius()),
        Shape::Circle(c) => (vec![c.center()], c.radius()),
    };
    if core.len() == 2 {
        let along = (core[1] - core[0]).normalize_or(Vec2::X);
        let side = along.perp() * radius;
        let end = along * radius;
        return vec![
            core[0] - side,
            core[1] - side,
            core[1] + end,
            core[1] + side,
            core[0] + side,
            core[0] - end,
        ];
    }
    let n = core.len();
    let normal = |i: usize| {
        let e = core[(i + 1) % n] - core[i];
        Vec2::new(e.y, -e.x).normalize_or_zero()
    };
    let mut out = Vec::with_capacity(2 * n);
    for (i, &vertex) in core.iter().enumerate() {
        let (before, after) = (normal((i + n - 1) % n), normal(i));
        if 2 * n <= MAX_POLYGON_VERTICES {
            out.push(vertex + radius * before);
            out.push(vertex + radius * after);
        } else {
            out.push(vertex + radius * (before + after).normalize_or_zero());
        }
    }
    out
}
