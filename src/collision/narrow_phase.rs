//! The batch narrow phase: many candidate pairs at once, on the CPU or the GPU.
//!
//! Both backends take the same input (a collider slice and pair indices into it), validate
//! it the same way (see [`validate_batch`]), and return the contacts of the overlapping
//! pairs in input order. [`CpuNarrowPhase`] is the reference: it calls
//! [`collide_shapes`](crate::collide_shapes) pair by pair.

use std::time::Duration;

use crate::collision::collide_shapes::collide_shapes_speculative;
use crate::collision::manifold::Contact;
use crate::error::BatchError;
use crate::error::Error;
use crate::parallel;
use crate::shapes::polygon::Polygon;
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;

/// A collider of a batch: which shape, and where.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Collider {
    /// Index into the shapes given to [`NarrowPhase::set_shapes`].
    pub shape: u32,
    /// The collider's pose in the world frame.
    pub transform: Transform,
}

/// A batch narrow phase: set the shapes once, then collide pairs of colliders.
pub trait NarrowPhase {
    /// Replaces the shape table that [`Collider::shape`] indexes with polygons only.
    /// Equivalent to [`set_shape_table`](NarrowPhase::set_shape_table) with each polygon
    /// wrapped in [`Shape::Polygon`].
    fn set_shapes(&mut self, shapes: &[Polygon]) -> Result<(), Error> {
        let table: Vec<Shape> = shapes.iter().copied().map(Shape::from).collect();
        self.set_shape_table(&table)
    }

    /// Replaces the shape table that [`Collider::shape`] indexes: any [`Shape`] (the CPU and
    /// GPU narrow phases take every kind).
    fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error>;

    /// The contacts of the pairs that overlap, in the order of `pairs`. Each pair holds two
    /// indices into `colliders`; the contact's normal points from the first to the second.
    ///
    /// Errors, naming the item, for a pair index out of range, a pair of a collider with
    /// itself, a shape index out of range or a non-finite transform; the narrow phase stays
    /// usable.
    fn collide_pairs(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
    ) -> Result<Vec<Contact>, Error> {
        let mut out = Vec::new();
        self.collide_pairs_into(colliders, pairs, &mut out)?;
        Ok(out)
    }

    /// [`collide_pairs`](NarrowPhase::collide_pairs) into a vector the caller keeps: `out`
    /// is replaced by the contacts (and left empty on an error). A caller that reuses `out`
    /// step after step allocates nothing once it has grown; [`World`](crate::World) does.
    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error>;

    /// Asks for speculative contacts from the next call on: a pair apart by less than
    /// `margin` (world units) also gets a manifold, whose points' depths are negative (minus
    /// the gap), as [`collide_shapes_speculative`](crate::collision::collide_shapes_speculative)
    /// computes them. 0, every narrow phase's start, reports overlapping pairs only.
    /// [`World::step`](crate::World::step) asks for
    /// [`SPECULATIVE_DISTANCE`](crate::world::SPECULATIVE_DISTANCE) before each step.
    ///
    /// Errors ([`BatchError::InvalidSpeculativeDistance`]) for a margin that is negative, not finite or above
    /// [`MAX_SPECULATIVE_DISTANCE`]. The provided method checks the value and keeps
    /// nothing: a narrow phase that does not override it reports overlapping pairs only.
    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        check_speculative_distance(margin)
    }

    /// Where the last [`collide_pairs`](NarrowPhase::collide_pairs) spent its time, for
    /// backends that can tell (the GPU: upload, dispatch, readback). `None` by default.
    fn timings(&self) -> Option<NarrowPhaseTimings> {
        None
    }

    /// This narrow phase as one that may be called from another thread, if it may:
    /// [`World::step`](crate::World::step), called from outside rayon's pool (an
    /// application's own thread) with more than one thread in the pool, then runs the whole
    /// step as one job on the pool, this narrow phase's call included; otherwise it sends
    /// the stretches before and after the call, and the call itself runs on the thread that
    /// called the step. A narrow phase that is `Send` returns `Some(self)`; `None` by
    /// default, which is always sound.
    fn as_send(&mut self) -> Option<&mut (dyn NarrowPhase + Send)> {
        None
    }
}

/// The largest speculative distance a narrow phase accepts, in world units: the margin is
/// meant to be a few times the solver's slop (the world's is 0.02), far below a body's
/// size; a margin this large would make every nearby pair a contact.
pub const MAX_SPECULATIVE_DISTANCE: f32 = 1.0e3;

/// Checks a speculative distance ([`NarrowPhase::set_speculative_distance`]).
pub(crate) fn check_speculative_distance(margin: f32) -> Result<(), Error> {
    if (0.0..=MAX_SPECULATIVE_DISTANCE).contains(&margin) {
        Ok(())
    } else {
        Err(Error::Batch(BatchError::InvalidSpeculativeDistance {
            margin,
        }))
    }
}

/// Where one GPU narrow-phase call spent its time (wall-clock times measured on the CPU, and
/// the kernel's own time measured on the device) and how many bytes it moved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NarrowPhaseTimings {
    /// Validating the batch and writing poses, shape ids and pairs to the queue.
    pub upload: Duration,
    /// From submitting the dispatch until its results were ready to map (the kernel and the
    /// copy to the readback buffer).
    pub dispatch: Duration,
    /// Mapping, copying out and ordering the contacts.
    pub readback: Duration,
    /// The compute pass alone, from timestamp queries, on devices that have them.
    pub kernel: Option<Duration>,
    /// Bytes written to the device: poses, pairs, shape ids when they changed, parameters.
    pub uploaded_bytes: u64,
    /// Bytes copied back: timestamps, the contact count and the contact records (with the
    /// headroom of the estimate the first copy is sized by).
    pub read_back_bytes: u64,
}

/// Checks a batch against the shape count, the first bad item first: colliders (shape index,
/// then transform), then pairs.
pub fn validate_batch(
    shape_count: usize,
    colliders: &[Collider],
    pairs: &[[u32; 2]],
) -> Result<(), Error> {
    check_colliders(shape_count, colliders)?;
    check_pairs(colliders.len(), pairs)
}

/// An item of a batch that names a shape and carries a pose (or a motion) that must be
/// finite: what [`check_colliders`] walks for [`validate_batch`],
/// [`validate_sweeps`](crate::collision::toi::validate_sweeps) and [`validate_rays`](crate::query::validate_rays).
pub(crate) trait BatchCollider {
    /// Its index into the shape table.
    fn shape_index(&self) -> u32;
    /// Whether its pose (or motion) is finite.
    fn finite(&self) -> bool;
    /// The error naming a non-finite item at `index` of its batch.
    fn non_finite(index: usize) -> Error;
}

impl BatchCollider for Collider {
    fn shape_index(&self) -> u32 {
        self.shape
    }
    fn finite(&self) -> bool {
        self.transform.is_finite()
    }
    fn non_finite(collider: usize) -> Error {
        Error::Batch(BatchError::NonFiniteTransform { collider })
    }
}

/// The colliders' half of every batch check, collider by collider: its shape index, then
/// its pose or motion, so that the error names the first bad collider.
pub(crate) fn check_colliders<C: BatchCollider>(
    shape_count: usize,
    colliders: &[C],
) -> Result<(), Error> {
    for (i, c) in colliders.iter().enumerate() {
        let shape = c.shape_index();
        if shape as usize >= shape_count {
            return Err(Error::Batch(BatchError::ShapeIndexOutOfRange {
                collider: i,
                shape,
                shape_count,
            }));
        }
        if !c.finite() {
            return Err(C::non_finite(i));
        }
    }
    Ok(())
}

/// The pairs' half of the collider-against-collider checks: both indices name one of
/// `collider_count` colliders (the first out of range, `a` before `b`), and not the same one.
pub(crate) fn check_pairs(collider_count: usize, pairs: &[[u32; 2]]) -> Result<(), Error> {
    for (pair, &[a, b]) in pairs.iter().enumerate() {
        for index in [a, b] {
            if index as usize >= collider_count {
                return Err(Error::Batch(BatchError::PairIndexOutOfRange {
                    pair,
                    index,
                    collider_count,
                }));
            }
        }
        if a == b {
            return Err(Error::Batch(BatchError::SelfPair { pair, collider: a }));
        }
    }
    Ok(())
}

/// The CPU reference batch narrow phase: [`collide_shapes`](crate::collide_shapes) on one
/// thread, pair by pair.
#[derive(Clone, Debug, Default)]
pub struct CpuNarrowPhase {
    shapes: Vec<Shape>,
    /// See [`NarrowPhase::set_speculative_distance`].
    margin: f32,
}

impl CpuNarrowPhase {
    /// An empty narrow phase; call [`NarrowPhase::set_shapes`] before colliding.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The contact of one pair of a validated batch, if the pair overlaps (or lies within the
/// speculative distance `margin`).
#[inline]
fn collide_pair(
    shapes: &[Shape],
    colliders: &[Collider],
    [a, b]: [u32; 2],
    margin: f32,
) -> Option<Contact> {
    let ca = &colliders[a as usize];
    let cb = &colliders[b as usize];
    let manifold = collide_shapes_speculative(
        &shapes[ca.shape as usize],
        &ca.transform,
        &shapes[cb.shape as usize],
        &cb.transform,
        margin,
    )?;
    Some(Contact { a, b, manifold })
}

impl NarrowPhase for CpuNarrowPhase {
    /// Copies the polygons into the table this narrow phase keeps, without allocating once
    /// it has room ([`World::step`](crate::World::step) sets the shapes every step).
    fn set_shapes(&mut self, shapes: &[Polygon]) -> Result<(), Error> {
        self.shapes.clear();
        self.shapes.extend(shapes.iter().copied().map(Shape::from));
        Ok(())
    }

    fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.shapes.clear();
        self.shapes.extend_from_slice(shapes);
        Ok(())
    }

    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        out.clear();
        validate_batch(self.shapes.len(), colliders, pairs)?;
        out.extend(
            pairs
                .iter()
                .filter_map(|&pair| collide_pair(&self.shapes, colliders, pair, self.margin)),
        );
        Ok(())
    }

    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        check_speculative_distance(margin)?;
        self.margin = margin;
        Ok(())
    }

    fn as_send(&mut self) -> Option<&mut (dyn NarrowPhase + Send)> {
        Some(self)
    }
}

/// The CPU narrow phase on every core (rayon's global pool): [`collide_shapes`](crate::collide_shapes) on chunks of pairs
/// in parallel, with the same results in the same order as [`CpuNarrowPhase`]. This is the
/// CPU to measure a GPU against. On a pool of one thread it runs on the calling thread and
/// sends the pool nothing.
#[derive(Clone, Debug, Default)]
pub struct ParallelCpuNarrowPhase {
    shapes: Vec<Shape>,
    /// One contact buffer per chunk of pairs, reused between calls.
    chunks: Vec<Vec<Contact>>,
    /// See [`NarrowPhase::set_speculative_distance`].
    margin: f32,
}

impl ParallelCpuNarrowPhase {
    /// An empty narrow phase; call [`NarrowPhase::set_shapes`] before colliding.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Pairs per rayon task: a polygon pair takes about 50 ns, so a task is some 13 µs, enough
/// to hide rayon's overhead per task (about a microsecond), and the 3,000 fresh pairs of a
/// settling pyramid's step make a dozen tasks to share between threads (chunks of 1,024
/// made three or four, unevenly shared).
const PARALLEL_CHUNK: usize = 256;

impl NarrowPhase for ParallelCpuNarrowPhase {
    /// As [`CpuNarrowPhase`]'s: no allocation once the table has room.
    fn set_shapes(&mut self, shapes: &[Polygon]) -> Result<(), Error> {
        self.shapes.clear();
        self.shapes.extend(shapes.iter().copied().map(Shape::from));
        Ok(())
    }

    fn set_shape_table(&mut self, shapes: &[Shape]) -> Result<(), Error> {
        self.shapes.clear();
        self.shapes.extend_from_slice(shapes);
        Ok(())
    }

    fn collide_pairs_into(
        &mut self,
        colliders: &[Collider],
        pairs: &[[u32; 2]],
        out: &mut Vec<Contact>,
    ) -> Result<(), Error> {
        use rayon::prelude::*;
        out.clear();
        validate_batch(self.shapes.len(), colliders, pairs)?;
        // Each chunk fills its own reused buffer; concatenating them in chunk order keeps
        // the input order.
        let count = pairs.len().div_ceil(PARALLEL_CHUNK);
        if self.chunks.len() < count {
            self.chunks.resize_with(count, Vec::new);
        }
        let (shapes, margin) = (&self.shapes, self.margin);
        self.chunks[..count]
            .par_iter_mut()
            .zip(pairs.par_chunks(PARALLEL_CHUNK))
            .with_min_len(parallel::min_len(1))
            .for_each(|(buffer, chunk)| {
                buffer.clear();
                buffer.extend(
                    chunk
                        .iter()
                        .filter_map(|&pair| collide_pair(shapes, colliders, pair, margin)),
                );
            });
        for buffer in &self.chunks[..count] {
            out.extend_from_slice(buffer);
        }
        Ok(())
    }

    fn set_speculative_distance(&mut self, margin: f32) -> Result<(), Error> {
        check_speculative_distance(margin)?;
        self.margin = margin;
        Ok(())
    }

    fn as_send(&mut self) -> Option<&mut (dyn NarrowPhase + Send)> {
        Some(self)
    }
}
