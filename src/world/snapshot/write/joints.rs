//! The writer of the joints section: each live joint (bodies, anchors, breaking thresholds,
//! model with its options, accumulated impulses), the per-body lists of joints in their
//! order (removing a body removes its joints from the back of its list: the order decides
//! which slots come free first), and the joints' colours of the last step.
//!
//! ```text
//! per live joint: body A, body B, anchors, flags (collide 1, break force 2, break
//!     torque 4), the finite thresholds, model (kind, options, fields), impulse flags
//!     (a bit per value that is not all zero bits), those values
//! edge lists: count; per body with joints: body, length, joint slots
//! colours: count; per coloured joint: slot (difference), its two bodies, colour
//! ```

use super::super::JOINTS;
use super::super::codec::Writer;
use super::flag8;
use crate::dynamics::solver::{ContactSolver, JointConstraint, JointModel, Spring};
use crate::world::joints::JointSet;

impl JointSet {
    /// The joints section: per live joint its bodies, anchors, flags (collide_connected,
    /// breaking thresholds), model and non-zero impulses; the per-body edge lists in their
    /// order; the joints as `solver` coloured them in the last step.
    pub(in crate::world::snapshot) fn write_snapshot(
        &self,
        w: &mut Writer,
        solver: &ContactSolver,
    ) {
        w.u8(JOINTS);
        let set = self;
        for j in (0..set.constraints.len()).filter(|&j| set.slots.is_live(j)) {
            let c = &set.constraints[j];
            w.len(c.bodies[0] as usize);
            w.len(c.bodies[1] as usize);
            w.vec2(c.local_anchors[0]);
            w.vec2(c.local_anchors[1]);
            let [force, torque] = set.breaking[j];
            let flags = u8::from(set.collide_connected[j])
                | flag8(force.is_finite(), 2)
                | flag8(torque.is_finite(), 4);
            w.u8(flags);
            for limit in [force, torque].into_iter().filter(|l| l.is_finite()) {
                w.f32(limit);
            }
            write_model(w, &c.model);
            // Zeros (a joint without a motor, limits or a spring has most) by a flag each.
            let values = joint_impulses(c);
            let present = values.iter().enumerate().fold(0u8, |bits, (k, v)| {
                bits | u8::from(v.iter().any(|x| x.to_bits() != 0)) << k
            });
            w.u8(present);
            for v in values.iter().filter(|v| v.iter().any(|x| x.to_bits() != 0)) {
                for &x in v.iter() {
                    w.f32(x);
                }
            }
        }
        let edges: Vec<(usize, &Vec<u32>)> = set
            .edges
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_empty())
            .collect();
        w.len(edges.len());
        for (body, list) in edges {
            w.len(body);
            w.len(list.len());
            for &j in list {
                w.len(j as usize);
            }
        }
        // The joints as the last step coloured them (they share the contacts' colouring;
        // one may have been removed since): slots ascending as differences, their bodies
        // then, and their colours.
        let (_, joints, _) = solver.colouring();
        let joints: Vec<(u32, [u32; 2], u8)> = joints.collect();
        w.len(joints.len());
        let mut last = 0;
        for (slot, [a, b], colour) in joints {
            w.len((slot - last) as usize);
            w.len(a as usize);
            w.len(b as usize);
            w.u8(colour);
            last = slot;
        }
    }
}

/// A joint's accumulated impulses and last force and torque, in the format's order; a
/// scalar is a one-element slice.
fn joint_impulses(c: &JointConstraint) -> [Vec<f32>; 7] {
    [
        vec![c.linear_impulse.x, c.linear_impulse.y],
        vec![c.spring_impulse],
        vec![c.motor_impulse],
        vec![c.lower_impulse],
        vec![c.upper_impulse],
        vec![c.force.x, c.force.y],
        vec![c.torque],
    ]
}

/// A limit or motor pair's two floats, when present.
fn write_option_pair(w: &mut Writer, v: Option<[f32; 2]>) {
    if let Some([a, b]) = v {
        w.f32(a);
        w.f32(b);
    }
}

/// A spring's frequency and damping ratio, when present.
fn write_spring(w: &mut Writer, s: Option<Spring>) {
    if let Some(s) = s {
        w.f32(s.hertz);
        w.f32(s.damping_ratio);
    }
}

/// A joint's model: its kind, its options byte, then the kind's fields.
fn write_model(w: &mut Writer, model: &JointModel) {
    // Tag, then an options byte (limits 1, motor 2, spring 4, and per kind below), then
    // the kind's fields.
    let opts = |l: bool, m: bool, s: bool| u8::from(l) | flag8(m, 2) | flag8(s, 4);
    match *model {
        JointModel::Revolute {
            reference_angle,
            limits,
            motor,
            spring,
        } => {
            w.u8(0);
            w.u8(opts(limits.is_some(), motor.is_some(), spring.is_some()));
            w.f32(reference_angle);
            write_option_pair(w, limits);
            write_option_pair(w, motor);
            write_spring(w, spring);
        }
        JointModel::Distance {
            length,
            rigid,
            limits,
            spring,
        } => {
            w.u8(1);
            let o = u8::from(limits[0].is_some())
                | flag8(limits[1].is_some(), 2)
                | flag8(spring.is_some(), 4)
                | flag8(rigid, 8);
            w.u8(o);
            w.f32(length);
            for l in limits.into_iter().flatten() {
                w.f32(l);
            }
            write_spring(w, spring);
        }
        JointModel::Weld {
            reference_angle,
            linear,
            angular,
        } => {
            w.u8(2);
            w.u8(u8::from(linear.is_some()) | flag8(angular.is_some(), 2));
            w.f32(reference_angle);
            write_spring(w, linear);
            write_spring(w, angular);
        }
        JointModel::Prismatic {
            reference_angle,
            local_axis,
            limits,
            motor,
            spring,
        } => {
            w.u8(3);
            w.u8(opts(limits.is_some(), motor.is_some(), spring.is_some()));
            w.f32(reference_angle);
            w.vec2(local_axis);
            write_option_pair(w, limits);
            write_option_pair(w, motor);
            write_spring(w, spring);
        }
        JointModel::Wheel {
            local_axis,
            limits,
            motor,
            spring,
        } => {
            w.u8(4);
            w.u8(opts(limits.is_some(), motor.is_some(), spring.is_some()));
            w.vec2(local_axis);
            write_option_pair(w, limits);
            write_option_pair(w, motor);
            write_spring(w, spring);
        }
        JointModel::Filter => {
            w.u8(5);
            w.u8(0);
        }
        JointModel::Motor {
            reference_angle,
            max_force,
            max_torque,
        } => {
            w.u8(6);
            w.u8(0);
            w.f32(reference_angle);
            w.f32(max_force);
            w.f32(max_torque);
        }
        JointModel::Mouse {
            target,
            spring,
            max_force,
        } => {
            w.u8(7);
            w.u8(0);
            w.vec2(target);
            write_spring(w, Some(spring));
            w.f32(max_force);
        }
    }
}
