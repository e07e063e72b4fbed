//! Batches of time-of-impact tests: [`SweptCollider`] (a shape index and a sweep),
//! [`validate_sweeps`] and [`time_of_impact_pairs`], the CPU twin of the GPU's batch. Apart
//! from the algorithm because a batch only checks its indices and sweeps (with the
//! narrow phase's rules) and maps [`time_of_impact`] over the pairs.

use super::{Sweep, TimeOfImpact, time_of_impact};
use crate::collision::narrow_phase::{BatchCollider, check_colliders, check_pairs};
use crate::error::BatchError;
use crate::error::Error;
use crate::shapes::shape::Shape;

/// A body of a time-of-impact batch: which shape (an index into the shape table) and how it
/// moves over the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweptCollider {
    /// Index into the shape table.
    pub shape: u32,
    /// The body's motion over the step.
    pub sweep: Sweep,
}

/// [`time_of_impact`] for a batch of pairs of swept colliders, in input order: the CPU twin
/// of [`GpuTimeOfImpact::time_of_impact_pairs`](crate::gpu::GpuTimeOfImpact::time_of_impact_pairs).
/// Each pair holds two indices into `sweeps`; the normal points from the first to the second.
///
/// Errors, naming the item, for a shape index out of range, a non-finite sweep, a pair index
/// out of range or a pair of a collider with itself (see [`validate_sweeps`]).
pub fn time_of_impact_pairs(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
) -> Result<Vec<Option<TimeOfImpact>>, Error> {
    validate_sweeps(shapes.len(), sweeps, pairs)?;
    Ok(pairs
        .iter()
        .map(|&[i, j]| {
            let a = &sweeps[i as usize];
            let b = &sweeps[j as usize];
            time_of_impact(
                &shapes[a.shape as usize],
                &a.sweep,
                &shapes[b.shape as usize],
                &b.sweep,
            )
        })
        .collect())
}

/// Checks a time-of-impact batch, the first bad item first: colliders (shape index, then
/// sweep), then pairs. The same rules as [`validate_batch`](crate::collision::validate_batch).
pub fn validate_sweeps(
    shape_count: usize,
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
) -> Result<(), Error> {
    check_colliders(shape_count, sweeps)?;
    check_pairs(sweeps.len(), pairs)
}

impl BatchCollider for SweptCollider {
    fn shape_index(&self) -> u32 {
        self.shape
    }
    fn finite(&self) -> bool {
        self.sweep.is_finite()
    }
    fn non_finite(collider: usize) -> Error {
        Error::Batch(BatchError::NonFiniteSweep { collider })
    }
}
