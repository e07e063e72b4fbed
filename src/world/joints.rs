//! The world's joints: adding, removing, reading them, and what they change about the
//! other stages.
//!
//! ```text
//! add_joint(def):  check the bodies (live, distinct) and every number against the table
//!                  of `limits.rs` (the snapshot reader's too); anchors into each body's
//!                  local frame; a slot and generation (as bodies have); the joint on both
//!                  bodies' edge lists; both bodies woken
//! pair stage:      a pair of two bodies joined without collide_connected is refused; only
//!                  bodies with joints are looked up (their edge lists), so a world without
//!                  joints pays one flag test per candidate pair
//! sleep:           joined dynamic bodies are one island (they sleep and wake together)
//! solver:          the joints by slot order, serially (solver/joint.rs); then each
//!                  joint's force and torque on B (its impulses over the substep)
//! after the solve: a joint whose force or torque passed its break threshold is removed
//!                  and reported (Events::joint_broken), in slot order
//! remove_joint / remove_body: the joint leaves its bodies' edge lists, its slot is vacant,
//!                  the bodies' pairs are tested again, both bodies wake
//! ```

use glam::Vec2;

use super::World;
use super::limits::{
    LimitKind, check_angle, check_break, check_joint as check, check_max_force, check_motor_speed,
    check_point, checked_limits, checked_motor, checked_spring,
};
use crate::dynamics::joints::{
    JointBroken, JointDef, JointFrame, JointKind, JointMotor, JointSpring,
};
use crate::dynamics::solver::{JointConstraint, JointModel, Spring, relative_angle};
use crate::error::Error;
use crate::error::JointError;
use crate::shapes::transform::{inverse_rotate, length_and_direction, rotate};
use crate::world::handle::{BodyId, JointId, Slots, StaleReason};

/// The world's joints, by joint slot, and per body slot the joints that touch it.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointSet {
    pub(super) slots: Slots,
    /// Per joint slot: its handle, and the joint (vacant once removed).
    pub ids: Vec<JointId>,
    pub constraints: Vec<JointConstraint>,
    /// Per joint slot: its two body slots (`VACANT_PAIR` once removed), the constraints'
    /// `bodies` in a list of their own: the sleep stage walks every joint's pair two or
    /// three times a step, and read from the constraints (hundreds of bytes apart) that
    /// was a cache line per joint each time, alone on one thread (a fifth of the serial
    /// time of `rain`'s two-thread step).
    pub(super) pairs: Vec<[u32; 2]>,
    /// Per joint slot: whether its bodies still collide.
    pub(super) collide_connected: Vec<bool>,
    /// Per body slot (as far as bodies with joints reach): the slots of its joints.
    pub(super) edges: Vec<Vec<u32>>,
    /// Live joints whose bodies must not collide: without, the pair stage skips the test.
    pub(super) filtering: usize,
    /// Per joint slot: the force and torque past which it breaks (infinite: never).
    pub(super) breaking: Vec<[f32; 2]>,
    /// Live joints that may break: without, the step skips the test.
    pub(super) breakable: usize,
}

/// A vacant joint slot's entry in `JointSet::pairs`.
pub(super) const VACANT_PAIR: [u32; 2] = [u32::MAX; 2];

impl JointSet {
    /// Per joint slot, its two body slots (`[u32::MAX; 2]` for a vacant slot): the list
    /// [`JointSet::body_pairs`] walks.
    pub fn pair_list(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// The body pairs of the live joints, in slot order: the sleep stage's island edges.
    pub fn body_pairs(&self) -> impl Iterator<Item = [usize; 2]> + Clone + '_ {
        debug_assert!(
            self.pairs.len() == self.constraints.len()
                && (self.pairs.iter().zip(&self.constraints)).all(|(p, c)| if c.live {
                    *p == c.bodies
                } else {
                    *p == VACANT_PAIR
                }),
            "a joint's body pair list is out of step with its constraints"
        );
        self.pairs
            .iter()
            .filter(|pair| **pair != VACANT_PAIR)
            .map(|pair| pair.map(|b| b as usize))
    }

    fn edges_mut(&mut self, body: usize) -> &mut Vec<u32> {
        if self.edges.len() <= body {
            self.edges.resize_with(body + 1, Vec::new);
        }
        &mut self.edges[body]
    }
}

impl World {
    /// Adds a joint between two bodies (see [`JointDef`]): its anchors are taken in the
    /// world frame as the bodies stand now. Wakes both bodies. Unless the definition says
    /// `collide_connected`, the two bodies stop colliding with each other from the next step
    /// (a contact they have ends then, with an end event).
    ///
    /// Errors, naming the offending input, with nothing changed: a stale or foreign body
    /// ([`WorldError::StaleBody`](crate::error::WorldError::StaleBody)), the same body twice ([`JointError::JointToItself`]), and any
    /// number outside its range ([`JointError::InvalidJoint`], with the field, the value and the
    /// range). The ranges are the table of `world::limits` (every joint option is read back
    /// from a snapshot against the same table):
    ///
    /// | option | range |
    /// |---|---|
    /// | anchors, axis, mouse target | each coordinate finite and at most [`MAX_COORDINATE`](crate::world::MAX_COORDINATE) (1e12); an axis not of length 0 |
    /// | revolute limits | within [-π, π], lower at most upper |
    /// | distance limits | from 0 to [`MAX_JOINT_LENGTH`](crate::world::MAX_JOINT_LENGTH) (4e12), lower at most upper |
    /// | prismatic and wheel limits | at most [`MAX_JOINT_LENGTH`](crate::world::MAX_JOINT_LENGTH) in magnitude, lower at most upper |
    /// | motor speed | revolute and wheel: at most [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED) (1e8 rad/s); prismatic: at most [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT) (1e6) |
    /// | motor max torque (force), `max_force`, `max_torque` | 0 or more; infinity (or `None` where the option is one) for no bound |
    /// | spring hertz and damping ratio (weld's too) | finite and 0 or more |
    /// | `break_force`, `break_torque` | 0 or more (infinity: never breaks) |
    ///
    /// The solver holds every accumulated impulse of a joint to
    /// [`MAX_IMPULSE`](crate::world::MAX_IMPULSE) (a motor's also to its max torque times the
    /// substep), so a joint whose options fight its bodies (a limit it cannot reach, a motor
    /// held still) pushes as hard as that and no harder.
    pub fn add_joint(&mut self, def: &JointDef) -> Result<JointId, Error> {
        let [a, b] = [
            self.body_slot(def.bodies[0])?,
            self.body_slot(def.bodies[1])?,
        ];
        if a == b {
            return Err(Error::Joint(JointError::JointToItself {
                body: def.bodies[0],
            }));
        }
        check_point("anchor", def.anchor)?;
        let mut breaking = [f32::INFINITY; 2];
        for (k, (field, limit)) in [
            ("break_force", def.break_force),
            ("break_torque", def.break_torque),
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(limit) = limit {
                check_break(field, limit)?;
                breaking[k] = limit;
            }
        }
        let spring = checked_spring(def.spring)?;
        // A prismatic joint's motor drives a sliding speed; the others' a spin.
        let angular = !matches!(def.kind, JointKind::Prismatic { .. });
        let motor = match def.motor {
            None => None,
            Some(m) => Some(checked_motor([m.speed, m.max_torque], angular)?),
        };
        let local = |slot: usize, p: Vec2| self.bodies.transform(slot).inverse_transform_point(p);
        let (model, anchor_b) = match def.kind {
            JointKind::Revolute => {
                let limits = checked_limits(def.limits, LimitKind::Angle)?;
                let reference_angle =
                    relative_angle(self.bodies.rotations[a], self.bodies.rotations[b]);
                let model = JointModel::Revolute {
                    reference_angle,
                    limits,
                    motor,
                    spring,
                };
                (model, def.anchor)
            }
            JointKind::Distance { anchor_b } => {
                check_point("anchor_b", anchor_b)?;
                let limits = checked_limits(def.limits, LimitKind::Length)?;
                let length = def.anchor.distance(anchor_b);
                check("length", length, length.is_finite(), "finite")?;
                let model = JointModel::Distance {
                    length,
                    rigid: limits.is_none() && spring.is_none(),
                    limits: limits.map_or([None; 2], |[lo, hi]| [Some(lo), Some(hi)]),
                    spring,
                };
                (model, anchor_b)
            }
            JointKind::Weld {
                linear_hertz,
                angular_hertz,
                damping_ratio,
            } => {
                let spring = |hertz| JointSpring {
                    hertz,
                    damping_ratio,
                };
                // A spring of 0 hertz holds nothing: a weld takes it for rigid.
                let soft = |hertz: f32| checked_spring(Some(spring(hertz)));
                let linear = soft(linear_hertz)?.filter(|s| s.hertz > 0.0);
                let angular = soft(angular_hertz)?.filter(|s| s.hertz > 0.0);
                let model = JointModel::Weld {
                    reference_angle: relative_angle(
                        self.bodies.rotations[a],
                        self.bodies.rotations[b],
                    ),
                    linear,
                    angular,
                };
                (model, def.anchor)
            }
            JointKind::Prismatic { axis } | JointKind::Wheel { axis } => {
                check_point("axis", axis)?;
                // Without squaring: a subnormal axis's plain length has lost its precision,
                // and its direction would be off unit length (refused when read back).
                let (length, direction) = length_and_direction(axis);
                check("axis length", length, length > 0.0, "more than 0")?;
                let local_axis = inverse_rotate(self.bodies.rotations[a], direction);
                let limits = checked_limits(def.limits, LimitKind::Slide)?;
                let model = if let JointKind::Prismatic { .. } = def.kind {
                    JointModel::Prismatic {
                        reference_angle: relative_angle(
                            self.bodies.rotations[a],
                            self.bodies.rotations[b],
                        ),
                        local_axis,
                        limits,
                        motor,
                        spring,
                    }
                } else {
                    JointModel::Wheel {
                        local_axis,
                        limits,
                        motor,
                        spring,
                    }
                };
                (model, def.anchor)
            }
            JointKind::Filter => (JointModel::Filter, def.anchor),
            JointKind::Motor => {
                let mut bounds = [f32::INFINITY; 2];
                for (k, (field, bound)) in
                    [("max_force", def.max_force), ("max_torque", def.max_torque)]
                        .into_iter()
                        .enumerate()
                {
                    if let Some(bound) = bound {
                        check_max_force(field, bound)?;
                        bounds[k] = bound;
                    }
                }
                let model = JointModel::Motor {
                    reference_angle: relative_angle(
                        self.bodies.rotations[a],
                        self.bodies.rotations[b],
                    ),
                    max_force: bounds[0],
                    max_torque: bounds[1],
                };
                // Both anchors at B's centre of mass: A's is the target, fixed in A.
                (model, self.bodies.centers[b])
            }
            JointKind::Mouse => {
                if let Some(bound) = def.max_force {
                    check_max_force("max_force", bound)?;
                }
                let max_force = def.max_force.unwrap_or(f32::INFINITY);
                let model = JointModel::Mouse {
                    target: def.anchor,
                    spring: spring.unwrap_or_default(),
                    max_force,
                };
                (model, def.anchor)
            }
        };
        let anchor_a = match def.kind {
            JointKind::Motor => anchor_b,
            _ => def.anchor,
        };
        let anchors = [local(a, anchor_a), local(b, anchor_b)];
        // A filter joint exists to keep its bodies apart.
        let collide_connected = def.collide_connected && def.kind != JointKind::Filter;
        let constraint = JointConstraint::new([a as u32, b as u32], anchors, model);

        let (slot, generation) = self.joints.slots.take();
        let id = JointId::new(self.number, slot, generation);
        let s = slot as usize;
        let set = &mut self.joints;
        if s == set.constraints.len() {
            set.ids.push(id);
            set.constraints.push(constraint);
            set.pairs.push([a as u32, b as u32]);
            set.collide_connected.push(collide_connected);
            set.breaking.push(breaking);
        } else {
            set.ids[s] = id;
            set.constraints[s] = constraint;
            set.pairs[s] = [a as u32, b as u32];
            set.collide_connected[s] = collide_connected;
            set.breaking[s] = breaking;
        }
        set.breakable += usize::from(breaking != [f32::INFINITY; 2]);
        set.edges_mut(a).push(slot);
        set.edges_mut(b).push(slot);
        if !collide_connected {
            set.filtering += 1;
            self.retest_pairs(a);
        }
        self.wake_slot(a);
        self.wake_slot(b);
        Ok(id)
    }

    /// Removes a joint; its bodies wake and, if it kept them apart, may collide again from
    /// the next step. A stale or foreign handle (the joint, or one of its bodies, was
    /// removed) is an error naming it.
    pub fn remove_joint(&mut self, joint: JointId) -> Result<(), Error> {
        let slot = self.joint_slot(joint)?;
        self.remove_joint_slot(slot);
        Ok(())
    }

    /// Moves a mouse joint's target (world frame) and wakes its body. A stale handle, a
    /// joint of another kind, or a target that is not finite is an error naming it.
    pub fn set_joint_target(&mut self, joint: JointId, target: Vec2) -> Result<(), Error> {
        let slot = self.joint_slot(joint)?;
        check_point("target", target)?;
        let constraint = &mut self.joints.constraints[slot];
        let JointModel::Mouse { target: t, .. } = &mut constraint.model else {
            return Err(Error::Joint(JointError::InvalidJoint {
                field: "target",
                value: target.x,
                rule: "set on a mouse joint (this joint has no target)",
            }));
        };
        *t = target;
        let body = constraint.bodies[1] as usize;
        self.wake_slot(body);
        Ok(())
    }

    /// The joint's constraint force on B (world frame; A takes its opposite) over the last
    /// step, as its accumulated impulse over the substep; `None` for a stale handle.
    pub fn joint_force(&self, joint: JointId) -> Option<Vec2> {
        let slot = self.joint_slot(joint).ok()?;
        Some(self.joints.constraints[slot].force)
    }

    /// The joint's constraint torque on B (counter-clockwise positive; A takes its
    /// opposite) over the last step: a revolute joint's motor, spring and limits, a weld's
    /// angle; `None` for a stale handle.
    pub fn joint_torque(&self, joint: JointId) -> Option<f32> {
        let slot = self.joint_slot(joint).ok()?;
        Some(self.joints.constraints[slot].torque)
    }

    /// Removes the joints whose force or torque passed their thresholds in this step,
    /// reporting each in the step's events.
    pub(super) fn break_joints(&mut self) {
        if self.joints.breakable == 0 {
            return;
        }
        for slot in 0..self.joints.constraints.len() {
            let joint = &self.joints.constraints[slot];
            let [max_force, max_torque] = self.joints.breaking[slot];
            let (force, torque) = (joint.force, joint.torque);
            if !joint.live || (force.length() <= max_force && torque.abs() <= max_torque) {
                continue;
            }
            let bodies = joint.bodies.map(|b| self.names.body_ids[b as usize]);
            self.contacts.events_next.joint_broken.push(JointBroken {
                joint: self.joints.ids[slot],
                bodies,
                force,
                torque,
            });
            self.remove_joint_slot(slot);
        }
    }

    /// Moves a motor joint's targets: B's centre of mass driven towards `offset` (a point
    /// in A's local frame) and B's angle relative to A towards `angle` (radians, within
    /// [-π, π]); wakes both bodies. A stale handle, a joint of another kind, or a target
    /// out of range is an error naming it.
    pub fn set_motor_target(
        &mut self,
        joint: JointId,
        offset: Vec2,
        angle: f32,
    ) -> Result<(), Error> {
        let slot = self.joint_slot(joint)?;
        check_point("offset", offset)?;
        check_angle("angle", angle)?;
        let constraint = &mut self.joints.constraints[slot];
        let JointModel::Motor {
            reference_angle, ..
        } = &mut constraint.model
        else {
            return Err(Error::Joint(JointError::InvalidJoint {
                field: "offset",
                value: offset.x,
                rule: "set on a motor joint (this joint has no motor target)",
            }));
        };
        *reference_angle = angle;
        constraint.local_anchors[0] = offset;
        let bodies = constraint.bodies.map(|b| b as usize);
        for body in bodies {
            self.wake_slot(body);
        }
        Ok(())
    }

    /// Sets the speed a revolute, prismatic or wheel joint's motor drives (radians per
    /// second, at most [`MAX_ANGULAR_SPEED`](crate::world::MAX_ANGULAR_SPEED), or units per
    /// second along a prismatic axis, at most
    /// [`MAX_LINEAR_SPEED_LIMIT`](crate::world::MAX_LINEAR_SPEED_LIMIT)), keeping its max
    /// torque; wakes both bodies. A stale handle, a joint without a motor, or a speed out of
    /// its range is an error naming it, and nothing changes.
    pub fn set_motor_speed(&mut self, joint: JointId, speed: f32) -> Result<(), Error> {
        let slot = self.joint_slot(joint)?;
        let constraint = &mut self.joints.constraints[slot];
        let angular = !matches!(constraint.model, JointModel::Prismatic { .. });
        check_motor_speed(speed, angular)?;
        let (JointModel::Revolute { motor, .. }
        | JointModel::Prismatic { motor, .. }
        | JointModel::Wheel { motor, .. }) = &mut constraint.model
        else {
            return Err(Error::Joint(JointError::InvalidJoint {
                field: "motor speed",
                value: speed,
                rule: "set on a joint made with a motor (this joint has none)",
            }));
        };
        let Some([s, _]) = motor else {
            let rule = "set on a joint made with a motor (this joint has none)";
            return check("motor speed", speed, false, rule);
        };
        *s = speed;
        let bodies = constraint.bodies.map(|b| b as usize);
        for body in bodies {
            self.wake_slot(body);
        }
        Ok(())
    }

    /// The joint's two anchors as they stand now, world frame (A's, B's): where a pin's
    /// two halves are, a distance joint's ends; for a mouse joint, its target and the
    /// body's grabbed point. `None` for a stale handle.
    pub fn joint_anchors(&self, joint: JointId) -> Option<[Vec2; 2]> {
        let slot = self.joint_slot(joint).ok()?;
        let constraint = &self.joints.constraints[slot];
        let [a, b] = constraint.bodies.map(|b| b as usize);
        let [local_a, local_b] = constraint.local_anchors;
        let anchor_b = self.bodies.transform(b).transform_point(local_b);
        let anchor_a = match constraint.model {
            JointModel::Mouse { target, .. } => target,
            _ => self.bodies.transform(a).transform_point(local_a),
        };
        Some([anchor_a, anchor_b])
    }

    /// Live joints.
    pub fn joint_count(&self) -> usize {
        self.joints.slots.live_count()
    }

    /// The live joints, in slot order.
    pub fn joints(&self) -> impl Iterator<Item = JointId> + '_ {
        let set = &self.joints;
        (0..set.ids.len())
            .filter(|&s| set.slots.is_live(s))
            .map(|s| set.ids[s])
    }

    /// The two bodies of a joint (A, B), or `None` for a stale handle.
    pub fn joint_bodies(&self, joint: JointId) -> Option<[BodyId; 2]> {
        let slot = self.joint_slot(joint).ok()?;
        let bodies = self.joints.constraints[slot].bodies;
        Some(bodies.map(|b| self.names.body_ids[b as usize]))
    }

    /// A live joint's definition, as [`World::add_joint`] takes one: its bodies, kind and
    /// options, with its anchors (and axis) where its local ones stand now, world frame.
    /// Given back to `add_joint` while the bodies still stand where they stood when it was
    /// added, it makes the same joint; once they have moved, the reference angle and rest
    /// length it had are in [`World::joint_frame`]. `None` for a stale handle.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, JointDef, Polygon, World};
    /// let mut world = World::default();
    /// let ground = world.add_body(&BodyDef::fixed(Polygon::rectangle(5.0, 0.5), Vec2::ZERO))?;
    /// let arm = world.add_body(&BodyDef::dynamic(Polygon::rectangle(1.0, 0.1), Vec2::new(1.0, 3.0)))?;
    /// let hinge = JointDef::revolute(ground, arm, Vec2::new(0.0, 3.0))
    ///     .with_limits(-0.5, 0.5)
    ///     .with_motor(1.0, 50.0);
    /// let joint = world.add_joint(&hinge)?;
    /// assert_eq!(world.joint_def(joint), Some(hinge));
    /// let frame = world.joint_frame(joint).expect("a live joint");
    /// assert_eq!(frame.local_anchors, [Vec2::new(0.0, 3.0), Vec2::new(-1.0, 0.0)]);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn joint_def(&self, joint: JointId) -> Option<JointDef> {
        let slot = self.joint_slot(joint).ok()?;
        let c = &self.joints.constraints[slot];
        let [a, b] = c.bodies.map(|body| body as usize);
        let world_anchor =
            |body: usize, local: Vec2| self.bodies.transform(body).transform_point(local);
        let [anchor_a, anchor_b] = [
            world_anchor(a, c.local_anchors[0]),
            world_anchor(b, c.local_anchors[1]),
        ];
        let ids = [self.names.body_ids[a], self.names.body_ids[b]];
        let motor =
            |m: Option<[f32; 2]>| m.map(|[speed, max_torque]| JointMotor { speed, max_torque });
        let spring = |s: Option<Spring>| {
            s.map(|s| JointSpring {
                hertz: s.hertz,
                damping_ratio: s.damping_ratio,
            })
        };
        let axis = |local: Vec2| rotate(self.bodies.rotations[a], local);
        // The limits, motor and spring of the revolute, prismatic and wheel joints.
        let options = |def: JointDef, l, m, s| JointDef {
            limits: l,
            motor: motor(m),
            spring: spring(s),
            ..def
        };
        let mut def = match c.model {
            JointModel::Revolute {
                limits: l,
                motor: m,
                spring: s,
                ..
            } => options(JointDef::revolute(ids[0], ids[1], anchor_a), l, m, s),
            JointModel::Distance {
                limits: l,
                spring: s,
                ..
            } => JointDef {
                limits: match l {
                    [Some(lo), Some(hi)] => Some([lo, hi]),
                    _ => None,
                },
                spring: spring(s),
                ..JointDef::distance(ids[0], ids[1], anchor_a, anchor_b)
            },
            JointModel::Weld {
                linear, angular, ..
            } => {
                let hertz = |s: Option<Spring>| s.map_or(0.0, |s| s.hertz);
                let damping = linear.or(angular).map_or(0.0, |s| s.damping_ratio);
                JointDef::weld(ids[0], ids[1], anchor_a).with_weld_springs(
                    hertz(linear),
                    hertz(angular),
                    damping,
                )
            }
            JointModel::Prismatic {
                local_axis,
                limits: l,
                motor: m,
                spring: s,
                ..
            } => {
                let def = JointDef::prismatic(ids[0], ids[1], anchor_a, axis(local_axis));
                options(def, l, m, s)
            }
            JointModel::Wheel {
                local_axis,
                limits: l,
                motor: m,
                spring: s,
            } => options(
                JointDef::wheel(ids[0], ids[1], anchor_a, axis(local_axis)),
                l,
                m,
                s,
            ),
            JointModel::Filter => JointDef::filter(ids[0], ids[1]),
            JointModel::Motor {
                max_force,
                max_torque,
                ..
            } => JointDef {
                max_force: Some(max_force).filter(|f| f.is_finite()),
                max_torque: Some(max_torque).filter(|t| t.is_finite()),
                ..JointDef::motor(ids[0], ids[1])
            },
            JointModel::Mouse {
                target,
                spring: s,
                max_force,
            } => JointDef {
                anchor: target,
                spring: spring(Some(s)),
                max_force: Some(max_force).filter(|f| f.is_finite()),
                ..JointDef::mouse(ids[0], ids[1], anchor_b)
            },
        };
        def.collide_connected = self.joints.collide_connected[slot];
        let [force, torque] = self.joints.breaking[slot];
        def.break_force = Some(force).filter(|f| f.is_finite());
        def.break_torque = Some(torque).filter(|t| t.is_finite());
        Some(def)
    }

    /// A live joint's geometry in its bodies' local frames: anchors, reference angle,
    /// axis, rest length ([`JointFrame`]); `None` for a stale handle.
    pub fn joint_frame(&self, joint: JointId) -> Option<JointFrame> {
        let slot = self.joint_slot(joint).ok()?;
        let c = &self.joints.constraints[slot];
        let mut frame = JointFrame {
            local_anchors: c.local_anchors,
            reference_angle: 0.0,
            local_axis: Vec2::X,
            length: 0.0,
        };
        match c.model {
            JointModel::Revolute {
                reference_angle, ..
            }
            | JointModel::Weld {
                reference_angle, ..
            }
            | JointModel::Motor {
                reference_angle, ..
            } => frame.reference_angle = reference_angle,
            JointModel::Prismatic {
                reference_angle,
                local_axis,
                ..
            } => {
                frame.reference_angle = reference_angle;
                frame.local_axis = local_axis;
            }
            JointModel::Wheel { local_axis, .. } => frame.local_axis = local_axis,
            JointModel::Distance { length, .. } => frame.length = length,
            JointModel::Filter | JointModel::Mouse { .. } => {}
        }
        Some(frame)
    }

    /// The slot of a live joint of this world, or an error naming the handle.
    pub(super) fn joint_slot(&self, joint: JointId) -> Result<usize, Error> {
        let fail = |reason| Err(Error::Joint(JointError::StaleJoint { joint, reason }));
        if joint.world() != self.number {
            return fail(StaleReason::OtherWorld);
        }
        match self
            .joints
            .slots
            .check(joint.index() as u32, joint.generation())
        {
            Ok(()) => Ok(joint.index()),
            Err(reason) => fail(reason),
        }
    }

    /// Removes the joints of the body in `slot` (it is being removed).
    pub(super) fn remove_body_joints(&mut self, slot: usize) {
        while let Some(&joint) = self.joints.edges.get(slot).and_then(|e| e.last()) {
            self.remove_joint_slot(joint as usize);
        }
    }

    fn remove_joint_slot(&mut self, slot: usize) {
        let set = &mut self.joints;
        let bodies = set.constraints[slot].bodies.map(|b| b as usize);
        for body in bodies {
            set.edges_mut(body).retain(|&j| j as usize != slot);
        }
        set.constraints[slot] = JointConstraint::vacant();
        set.pairs[slot] = VACANT_PAIR;
        set.breakable -= usize::from(set.breaking[slot] != [f32::INFINITY; 2]);
        set.slots.remove(slot as u32);
        // A joint's slot may be reused at once: no stage keeps data of it between steps.
        set.slots.release_removed();
        if !set.collide_connected[slot] {
            set.filtering -= 1;
            self.retest_pairs(bodies[0]);
        }
        for body in bodies {
            self.wake_slot(body);
        }
    }

    /// Has the pair stage test the pairs of the body in `slot` again at the next step.
    fn retest_pairs(&mut self, slot: usize) {
        let colliders = self.bodies.records[slot].colliders(&self.colliders.next);
        for c in colliders {
            self.contacts.pairs.invalidate(c);
        }
    }
}
