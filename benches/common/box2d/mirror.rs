//! Our bodies and joints rebuilt in Box2D, one at a time: [`mirror_body`] and
//! [`mirror_joint`], for [`box2d_world`](super::box2d_world) and rain's groups.

use boxdd::{BodyType, ShapeDef, shapes};
use wgpu_sat::dynamics::JointKind;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Shape, World};

/// Creates our body `b` in Box2D, moved by `offset`: its type, pose (the pose of its local
/// frame), velocity, damping, gravity scale and bullet flag, and every convex piece in that
/// local frame (polygons by their vertices and radius, circles, capsules, a closed chain as
/// one Box2D chain loop, other chain links and segments as plain segments), each with its
/// own material (density, friction, restitution) and filter.
pub fn mirror_body(
    world: &mut boxdd::World,
    ours: &World,
    b: wgpu_sat::BodyId,
    offset: Vec2,
) -> Result<boxdd::BodyId, boxdd::Error> {
    let pose = ours.transform(b);
    let (origin, velocity) = (pose.translation() + offset, ours.linear_velocity(b));
    let is_static = ours.is_static(b);
    // Box2D gives static and kinematic bodies no mass, as we do.
    let massless = is_static || ours.is_kinematic(b);
    let body_def = world
        .body_builder()
        .body_type(if is_static {
            BodyType::Static
        } else if ours.is_kinematic(b) {
            BodyType::Kinematic
        } else {
            BodyType::Dynamic
        })
        .position([origin.x, origin.y])
        .angle(pose.angle())
        .linear_velocity([velocity.x, velocity.y])
        .angular_velocity(ours.angular_velocity(b))
        .linear_damping(ours.linear_damping(b))
        .angular_damping(ours.angular_damping(b))
        .gravity_scale(ours.gravity_scale(b))
        .bullet(ours.is_bullet(b))
        .enable_sleep(ours.sleeping())
        .build()?;
    let id = world.create_body(body_def)?;
    let mut body = world.body(id)?;
    let pieces: Vec<Shape> = ours.body_pieces(b).cloned().collect();
    let colliders: Vec<wgpu_sat::ColliderId> = ours.body_colliders(b).collect();
    let shape_def = |k: usize, piece: &Shape| -> Result<ShapeDef, boxdd::Error> {
        let material = ours
            .material(colliders[k])
            .expect("a live body's collider has a material");
        let filter = ours
            .collider_filter(colliders[k])
            .expect("a live body's collider has a filter");
        // Box2D weighs a rounded polygon as its vertices pushed out (b2ComputePolygonMass),
        // a little more area than the exact rounding: scaled so the masses agree.
        let density = if massless {
            1.0
        } else {
            material.density * piece.area() / box2d_area(piece)
        };
        let surface = boxdd::SurfaceMaterial::new()
            .with_friction(material.friction)?
            .with_restitution(material.restitution)?;
        ShapeDef::builder()
            .density(density)
            .material(surface)
            .filter(boxdd::Filter {
                category_bits: filter.category_bits,
                mask_bits: filter.mask_bits,
                group_index: filter.group_index,
            })
            .build()
    };
    if let Some(points) = closed_chain(&pieces) {
        let material = ours
            .material(colliders[0])
            .expect("a live body's collider has a material");
        let surface = boxdd::SurfaceMaterial::new()
            .with_friction(material.friction)?
            .with_restitution(material.restitution)?;
        let chain = boxdd::ChainDef::builder()
            .points(points.iter().map(|p| [p.x, p.y]))
            .is_loop(true)
            .single_material(&surface)
            .build()?;
        body.create_chain(&chain)?;
        return Ok(id);
    }
    for (k, piece) in pieces.iter().enumerate() {
        let shape_def = shape_def(k, piece)?;
        match piece {
            Shape::Polygon(p) => {
                let points = p.vertices().iter().map(|v| [v.x, v.y]);
                let polygon = shapes::polygon_from_points(points, p.radius())?;
                body.create_polygon(&shape_def, &polygon)?;
            }
            Shape::Circle(c) => {
                let center = c.center();
                let circle = shapes::circle([center.x, center.y], c.radius())?;
                body.create_circle(&shape_def, &circle)?;
            }
            Shape::Capsule(c) => {
                let (a, b) = ([c.a().x, c.a().y], [c.b().x, c.b().y]);
                body.create_capsule_between(&shape_def, a, b, c.radius())?;
            }
            // An open chain's link as its plain segment (Box2D's open chains take ghost
            // points beyond both ends).
            Shape::Segment(_) | Shape::ChainSegment(_) => {
                let s = match piece {
                    Shape::ChainSegment(link) => *link.segment(),
                    Shape::Segment(s) => *s,
                    _ => unreachable!(),
                };
                let (a, b) = ([s.a().x, s.a().y], [s.b().x, s.b().y]);
                body.create_segment_between(&shape_def, a, b)?;
            }
        }
    }
    Ok(id)
}

/// The points of `pieces` if they are the links of one closed chain, in order (each link
/// starting where the last ended, the last ending at the first's start).
fn closed_chain(pieces: &[Shape]) -> Option<Vec<Vec2>> {
    let links: Vec<_> = pieces
        .iter()
        .map(|p| match p {
            Shape::ChainSegment(link) => Some(*link.segment()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let n = links.len();
    let joined = (0..n).all(|i| links[i].b() == links[(i + 1) % n].a());
    (n >= 3 && joined).then(|| links.iter().map(|s| s.a()).collect())
}

/// The area Box2D weighs a piece by: a rounded polygon's vertices pushed out along their
/// corners' mean normals by 1.412 times the radius (`b2ComputePolygonMass`); every other
/// piece's exact area.
fn box2d_area(piece: &Shape) -> f32 {
    let Shape::Polygon(p) = piece else {
        return piece.area();
    };
    let (vertices, normals, r) = (p.vertices(), p.normals(), p.radius());
    if r == 0.0 {
        return piece.area();
    }
    let n = vertices.len();
    let pushed: Vec<Vec2> = (0..n)
        .map(|i| {
            let mid = (normals[(i + n - 1) % n] + normals[i]).normalize();
            vertices[i] + 1.412 * r * mid
        })
        .collect();
    0.5 * (0..n)
        .map(|i| pushed[i].perp_dot(pushed[(i + 1) % n]))
        .sum::<f32>()
}

/// Creates our joint `j` in Box2D between the bodies `body` maps ours to: its kind, local
/// frames (anchors, and the reference angle or axis as the frames' rotations), limits,
/// motor, spring, `collide_connected` and break thresholds. Box2D's joint angle is frame
/// B's angle relative to frame A's: frame A turned by our reference angle makes it ours.
/// Motor and mouse joints are not mirrored (an error).
pub fn mirror_joint(
    world: &mut boxdd::World,
    ours: &World,
    j: wgpu_sat::JointId,
    body: &dyn Fn(wgpu_sat::BodyId) -> boxdd::BodyId,
) -> Result<boxdd::JointId, boxdd::Error> {
    let def = ours.joint_def(j).expect("a live joint");
    let frame = ours.joint_frame(j).expect("a live joint");
    let [la, lb] = frame.local_anchors;
    let axis_angle = frame.local_axis.to_angle();
    let (angle_a, angle_b) = match def.kind {
        JointKind::Prismatic { .. } => (axis_angle, axis_angle - frame.reference_angle),
        JointKind::Wheel { .. } => (axis_angle, 0.0),
        _ => (frame.reference_angle, 0.0),
    };
    let mut base = world
        .joint_base(body(def.bodies[0]), body(def.bodies[1]))?
        .with_local_frame_components([la.x, la.y], angle_a, [lb.x, lb.y], angle_b)?
        .with_collide_connected(def.collide_connected);
    if let Some(force) = def.break_force {
        base = base.with_force_threshold(force)?;
    }
    if let Some(torque) = def.break_torque {
        base = base.with_torque_threshold(torque)?;
    }
    let spring = def.spring.unwrap_or(wgpu_sat::dynamics::JointSpring {
        hertz: 0.0,
        damping_ratio: 0.0,
    });
    let (lower, upper) = def.limits.map_or((0.0, 0.0), |[lo, hi]| (lo, hi));
    let motor = def.motor.unwrap_or(wgpu_sat::dynamics::JointMotor {
        speed: 0.0,
        max_torque: 0.0,
    });
    // Box2D's revolute, prismatic and wheel definitions take the same options under
    // their own names (angles or translations; a motor's torque or force).
    macro_rules! with_options {
        ($joint:expr, $lower:ident, $upper:ident, $max_motor:ident) => {
            $joint
                .enable_limit(def.limits.is_some())
                .$lower(lower)
                .$upper(upper)
                .enable_motor(def.motor.is_some())
                .motor_speed(motor.speed)
                .$max_motor(motor.max_torque)
                .enable_spring(def.spring.is_some())
                .hertz(spring.hertz)
                .damping_ratio(spring.damping_ratio)
        };
    }
    match def.kind {
        JointKind::Revolute => {
            let joint = with_options!(
                boxdd::RevoluteJointDef::new(base),
                lower_angle,
                upper_angle,
                max_motor_torque
            );
            world.create_revolute_joint(&joint)
        }
        JointKind::Prismatic { .. } => {
            let joint = with_options!(
                boxdd::PrismaticJointDef::new(base),
                lower_translation,
                upper_translation,
                max_motor_force
            );
            world.create_prismatic_joint(&joint)
        }
        JointKind::Wheel { .. } => {
            let joint = with_options!(
                boxdd::WheelJointDef::new(base),
                lower_translation,
                upper_translation,
                max_motor_torque
            );
            world.create_wheel_joint(&joint)
        }
        JointKind::Weld {
            linear_hertz,
            angular_hertz,
            damping_ratio,
        } => {
            let joint = boxdd::WeldJointDef::new(base)
                .linear_hertz(linear_hertz)
                .angular_hertz(angular_hertz)
                .linear_damping_ratio(damping_ratio)
                .angular_damping_ratio(damping_ratio);
            world.create_weld_joint(&joint)
        }
        JointKind::Distance { .. } => {
            // Ours is rigid without limits or spring; with limits alone, free within them
            // (Box2D: a spring of 0 hertz).
            let joint = boxdd::DistanceJointDef::new(base)
                .length(frame.length)
                .enable_spring(def.spring.is_some() || def.limits.is_some())
                .hertz(spring.hertz)
                .damping_ratio(spring.damping_ratio)
                .enable_limit(def.limits.is_some())
                .min_length(lower)
                .max_length(if def.limits.is_some() {
                    upper
                } else {
                    f32::MAX
                });
            world.create_distance_joint(&joint)
        }
        JointKind::Filter => world.create_filter_joint(&boxdd::FilterJointDef::new(base)),
        _ => Err(boxdd::Error::invalid_argument(
            "mirror_joint",
            "kind",
            "a revolute, prismatic, wheel, weld, distance or filter joint",
        )),
    }
}
