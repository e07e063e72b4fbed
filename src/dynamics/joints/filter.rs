//! The filter joint: no constraint at all. It exists for what it stops, not for what it
//! solves: as every joint whose `collide_connected` is off (the default), it keeps its two
//! bodies from colliding, and that is all it does (Box2D's filter joint, once its null
//! joint).

use super::parts::Prepared;

/// The filter joint's per-step data: idle, so no pass visits it.
#[inline]
pub(super) fn prepare(p: &mut Prepared) {
    p.idle = true;
}
