//! The reader of the joints section: each live joint's bodies, anchors, flags, breaking
//! thresholds, model (`joint_model.rs`) and accumulated impulses, then the per-body lists
//! of joints in their order (removing a body removes its joints from the back of its
//! list: the order decides which slots come free first).
//!
//! ```text
//! per live joint slot: body A, body B (live, distinct); anchors (as add_joint checks
//!     them); flags (collide 1, break force 2, break torque 4); each flagged threshold
//!     (finite, as add_joint checks it); model; impulse flags (7 bits); each flagged
//!     value (impulses within MAX_IMPULSE, the last force and torque finite)
//! edge lists: count; per list: body, length (its joint count), joints (live, of the
//!     body, once); every body with joints has its list
//! ```

use glam::Vec2;

use super::super::JOINTS;
use super::super::codec::Reader;
use super::Loading;
use super::joint_model::{read_checked, read_model};
use super::values::{at, tag};
use crate::dynamics::solver::{JointConstraint, JointModel};
use crate::error::Error;
use crate::world::limits::{MAX_IMPULSE, check_break, check_joint, check_point};

impl Loading {
    /// The joints section: each live joint (its bodies live and distinct, its anchors,
    /// thresholds and model as `add_joint` checks them, its impulses within their limits),
    /// then the per-body edge lists, each exactly its body's joints.
    pub(super) fn read_joints(&mut self, r: &mut Reader<'_>) -> Result<(), Error> {
        tag(r, JOINTS, "joints")?;
        let mut touching = vec![0usize; self.world.bodies.slots.len()];
        for j in 0..self.world.joints.slots.len() {
            if self.world.joints.slots.is_live(j) {
                self.read_joint(r, j, &mut touching)?;
            }
        }
        self.read_edges(r, &touching)
    }

    /// Live joint `j`, into the joint set; counts it in `touching`, per body its joints.
    fn read_joint(
        &mut self,
        r: &mut Reader<'_>,
        j: usize,
        touching: &mut [usize],
    ) -> Result<(), Error> {
        let w = &mut self.world;
        let bodies = w.bodies.slots.len();
        let at_joint = r.offset;
        let a = r.index("joint body A", bodies)?;
        let b = r.index("joint body B", bodies)?;
        if a == b || !w.bodies.slots.is_live(a) || !w.bodies.slots.is_live(b) {
            return Reader::error_at(
                at_joint,
                format!("joint {j}'s bodies ({a}, {b}) are vacant or the same"),
            );
        }
        let anchors_at = r.offset;
        let anchors = [
            r.vec2("joint anchor", f32::MAX)?,
            r.vec2("joint anchor", f32::MAX)?,
        ];
        for anchor in anchors {
            at(anchors_at, check_point("anchor", anchor))?;
        }
        let flags_at = r.offset;
        let flags = r.u8("joint flags")?;
        if flags > 7 {
            return Reader::error_at(flags_at, format!("joint flags {flags:#x}: unknown bits"));
        }
        let breaking = read_breaking(r, flags)?;
        let model = read_model(r)?;
        let mut c = JointConstraint::new([a as u32, b as u32], anchors, model);
        read_impulses(r, &mut c)?;
        let collide = flags & 1 != 0 && model != JointModel::Filter;
        let set = &mut w.joints;
        set.pairs[j] = c.bodies;
        set.constraints[j] = c;
        set.collide_connected[j] = collide;
        set.breaking[j] = breaking;
        set.filtering += usize::from(!collide);
        set.breakable += usize::from(breaking != [f32::INFINITY; 2]);
        touching[a] += 1;
        touching[b] += 1;
        Ok(())
    }

    /// The per-body lists, in their order (removing a body removes its joints from the
    /// last of its list back: the order decides which slots come free first): each list
    /// exactly its body's joints (`touching`: how many), and no body with joints left
    /// without one.
    fn read_edges(&mut self, r: &mut Reader<'_>, touching: &[usize]) -> Result<(), Error> {
        let bodies = self.world.bodies.slots.len();
        let count = r.count("joint edge list count", 2)?;
        let set = &mut self.world.joints;
        set.edges = vec![Vec::new(); bodies];
        for _ in 0..count {
            let at_list = r.offset;
            let body = r.index("joint edge body", bodies)?;
            let len = r.count("joint edge count", 1)?;
            if !set.edges[body].is_empty() || len != touching[body] {
                return Reader::error_at(
                    at_list,
                    format!("body {body}'s joint list does not match its joints"),
                );
            }
            for _ in 0..len {
                let at_edge = r.offset;
                let j = r.index("joint edge", set.constraints.len())?;
                let c = &set.constraints[j];
                if !c.live
                    || !c.bodies.contains(&(body as u32))
                    || set.edges[body].contains(&(j as u32))
                {
                    return Reader::error_at(
                        at_edge,
                        format!("joint {j} is not one of body {body}'s"),
                    );
                }
                set.edges[body].push(j as u32);
            }
        }
        if let Some(body) = (0..bodies).find(|&b| set.edges[b].len() != touching[b]) {
            return r.fail(format!("body {body}'s joint list is missing"));
        }
        // Trailing empty lists were never made: a world sizes them as joints come.
        while set.edges.last().is_some_and(Vec::is_empty) {
            set.edges.pop();
        }
        Ok(())
    }
}

/// The breaking thresholds the joint flags name (force 2, torque 4), each finite and as
/// `add_joint` checks it; infinite (never breaks) when not flagged.
fn read_breaking(r: &mut Reader<'_>, flags: u8) -> Result<[f32; 2], Error> {
    let mut breaking = [f32::INFINITY; 2];
    for (k, bit) in [2, 4].into_iter().enumerate() {
        if flags & bit != 0 {
            let field = ["break_force", "break_torque"][k];
            // An infinite threshold (never) is written as none.
            let ok = |v: f32| {
                check_break(field, v)?;
                check_joint(field, v, v.is_finite(), "finite when written")
            };
            breaking[k] = read_checked(r, field, ok)?;
        }
    }
    Ok(breaking)
}

/// The joint's accumulated impulses and last force and torque into `c`: a flag byte (a bit
/// per value, in the order of `joint_impulses` in `write/joints.rs`), then the flagged
/// values.
fn read_impulses(r: &mut Reader<'_>, c: &mut JointConstraint) -> Result<(), Error> {
    let present_at = r.offset;
    let present = r.u8("joint impulse flags")?;
    if present >= 1 << 7 {
        return Reader::error_at(
            present_at,
            format!("joint impulse flags {present:#x}: unknown bits"),
        );
    }
    let mut values = [[0.0; 2]; 7];
    for (k, v) in values.iter_mut().enumerate() {
        if present & (1 << k) != 0 {
            // The impulses are held to MAX_IMPULSE as they accumulate; the force
            // and torque are the last step's, as large as that made them.
            let limit = if k < 5 { MAX_IMPULSE } else { f32::MAX };
            let n = if k == 0 || k == 5 { 2 } else { 1 };
            for x in v.iter_mut().take(n) {
                *x = r.f32("joint impulse", limit)?;
            }
        }
    }
    let [linear, spring, motor, lower, upper, force, torque] = values;
    c.linear_impulse = Vec2::from(linear);
    (c.spring_impulse, c.motor_impulse) = (spring[0], motor[0]);
    (c.lower_impulse, c.upper_impulse) = (lower[0], upper[0]);
    (c.force, c.torque) = (Vec2::from(force), torque[0]);
    Ok(())
}
