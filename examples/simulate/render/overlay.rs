//! The line-list overlay: contact points and normals, joints, sensor outlines and the ray
//! fan, rebuilt into a reused vertex list each frame.

use wgpu_sat::glam::Vec2;
use wgpu_sat::{Shape, World};

use super::{Camera, LineVertex};

const POINT_COLOR: [u8; 4] = [255, 70, 40, 255];
const NORMAL_COLOR: [u8; 4] = [255, 225, 40, 255];
/// Sensor outlines, and the ray fan's rays (to their hit, or their full reach when they
/// hit nothing) and hit normals.
const SENSOR_COLOR: [u8; 4] = [90, 220, 255, 255];
/// Joints: body centres to anchors, anchor to anchor.
const JOINT_COLOR: [u8; 4] = [235, 235, 245, 255];
const RAY_COLOR: [u8; 4] = [120, 255, 140, 255];
const RAY_MISS_COLOR: [u8; 4] = [60, 110, 70, 255];
/// Rays in the fan, and their reach in world units.
const FAN_RAYS: usize = 90;
const FAN_REACH: f32 = 40.0;

/// A cross at every contact point and a line along its normal (from A towards B). Sizes
/// are in world units, as contacts scale with the bodies, but kept visible when zoomed out.
pub(super) fn contact_lines(world: &World, camera: &Camera, out: &mut Vec<LineVertex>) {
    let pixel = camera.world_per_pixel();
    let arm = 0.06f32.max(1.5 * pixel);
    let normal_length = 0.3f32.max(4.0 * pixel);
    let mut line = |a: Vec2, b: Vec2, color| {
        out.push(LineVertex {
            position: a.to_array(),
            color,
        });
        out.push(LineVertex {
            position: b.to_array(),
            color,
        });
    };
    for contact in world.contacts() {
        let normal = contact.manifold.normal;
        for point in contact.manifold.points() {
            let p = point.point;
            line(
                p - Vec2::new(arm, arm),
                p + Vec2::new(arm, arm),
                POINT_COLOR,
            );
            line(
                p - Vec2::new(arm, -arm),
                p + Vec2::new(arm, -arm),
                POINT_COLOR,
            );
            line(p, p + normal * normal_length, NORMAL_COLOR);
        }
    }
}

/// Pushes the segment from `a` to `b` as two line-list vertices.
fn push_line(out: &mut Vec<LineVertex>, a: Vec2, b: Vec2, color: [u8; 4]) {
    for p in [a, b] {
        out.push(LineVertex {
            position: p.to_array(),
            color,
        });
    }
}

/// Every joint as Box2D's debug draw shows one: a line from each moving body's centre of
/// mass to its anchor, and one between the two anchors (a distance joint's length, a
/// mouse joint's pull from its target; nothing for a pin, whose anchors coincide). A
/// static body's centre (a terrain's, a ground's) says nothing about the joint: skipped.
pub(super) fn joint_lines(world: &World, out: &mut Vec<LineVertex>) {
    for joint in world.joints() {
        let (Some(bodies), Some(anchors)) = (world.joint_bodies(joint), world.joint_anchors(joint))
        else {
            continue;
        };
        for (body, anchor) in bodies.into_iter().zip(anchors) {
            if !world.is_static(body) {
                push_line(out, world.center_of_mass(body), anchor, JOINT_COLOR);
            }
        }
        push_line(out, anchors[0], anchors[1], JOINT_COLOR);
    }
}

/// The outlines of the sensor colliders: a polygon's edges, a circle as 32 chords.
pub(super) fn sensor_lines(world: &World, out: &mut Vec<LineVertex>) {
    for (i, c) in world.colliders().iter().enumerate() {
        // A vacant slot (its body removed) reads as no sensor.
        let sensor = world.collider_id(i).and_then(|id| world.is_sensor(id));
        if sensor != Some(true) {
            continue;
        }
        let t = &c.transform;
        match &world.shapes()[c.shape as usize] {
            Shape::Polygon(p) => {
                let v = p.vertices();
                for k in 0..v.len() {
                    let (a, b) = (v[k], v[(k + 1) % v.len()]);
                    push_line(
                        out,
                        t.transform_point(a),
                        t.transform_point(b),
                        SENSOR_COLOR,
                    );
                }
            }
            Shape::Circle(circle) => {
                let center = t.transform_point(circle.center());
                let at = |k: usize| {
                    center
                        + circle.radius()
                            * Vec2::from_angle(k as f32 * std::f32::consts::TAU / 32.0)
                };
                for k in 0..32 {
                    push_line(out, at(k), at(k + 1), SENSOR_COLOR);
                }
            }
            _ => {}
        }
    }
}

/// A fan of [`FAN_RAYS`] rays from `origin` (through the world's query tree: sensors
/// are passed through), each drawn to its first hit with a tick along the normal there, or
/// dimmed to its full reach when it hits nothing.
pub(super) fn ray_fan_lines(
    world: &World,
    camera: &Camera,
    origin: Vec2,
    out: &mut Vec<LineVertex>,
) {
    let tick = 0.3f32.max(4.0 * camera.world_per_pixel());
    for k in 0..FAN_RAYS {
        let direction = Vec2::from_angle(k as f32 * std::f32::consts::TAU / FAN_RAYS as f32);
        match world.cast_ray(origin, direction * FAN_REACH) {
            Some((_, hit)) => {
                push_line(out, origin, hit.point, RAY_COLOR);
                push_line(out, hit.point, hit.point + tick * hit.normal, NORMAL_COLOR);
            }
            None => push_line(out, origin, origin + direction * FAN_REACH, RAY_MISS_COLOR),
        }
    }
}
