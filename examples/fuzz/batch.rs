//! Target `batch`: the CPU narrow phases (`CpuNarrowPhase`, `ParallelCpuNarrowPhase`) and
//! `time_of_impact_pairs` on batches with arbitrary shape indices, pair indices (out of
//! range, self pairs), sizes and non-finite poses and sweeps.
//!
//! Invariants: a bad batch is the `Err` that names its first bad item (colliders in order,
//! shape index before pose; then pairs), and `collide_pairs_into` leaves its output empty; a
//! good batch gives exactly the pairs `collide_shapes` reports, in input order, and
//! `time_of_impact_pairs` exactly `time_of_impact` pair by pair; afterwards the same backend
//! answers a valid batch as a fresh one does.

use arbitrary::{Result, Unstructured};
use wgpu_sat::error::BatchError;
use wgpu_sat::{
    Collider, Contact, CpuNarrowPhase, Error, NarrowPhase, ParallelCpuNarrowPhase, Shape,
    Transform, collide_shapes, collision::toi::SweptCollider, collision::toi::TimeOfImpact,
    collision::toi::time_of_impact_pairs, time_of_impact,
};

use crate::Target;
use crate::collide::{check_manifold, check_toi};
use crate::hostile;

pub struct Batch;

#[derive(Debug)]
pub struct BatchInput {
    pub shapes: Vec<Shape>,
    /// Set the table with `set_shapes` (the polygons only) rather than `set_shape_table`.
    pub polygons_only: bool,
    pub colliders: Vec<Collider>,
    pub pairs: Vec<[u32; 2]>,
    pub parallel: bool,
    /// Call `collide_pairs_into` with an output vector that already holds contacts.
    pub into: bool,
    pub sweeps: Vec<SweptCollider>,
    pub toi_pairs: Vec<[u32; 2]>,
}

/// A shape table, the colliders and the pairs of one batch.
pub type Batch3 = (Vec<Shape>, Vec<Collider>, Vec<[u32; 2]>);

/// A batch: shapes, colliders and pairs, each item valid unless `hostile` (then each may be
/// bad: an index out of range, a self pair, a non-finite pose).
pub fn arbitrary_batch(
    u: &mut Unstructured,
    max_colliders: usize,
    max_pairs: usize,
) -> Result<Batch3> {
    let hostile = u.ratio(1u8, 2)?;
    let shapes: Vec<Shape> = (0..hostile::len(u, 5)?)
        .map(|_| hostile::shape(u))
        .collect::<Result<_>>()?;
    let count = if shapes.is_empty() && !hostile {
        0
    } else {
        hostile::len(u, max_colliders)?
    };
    let colliders: Vec<Collider> = (0..count)
        .map(|_| {
            Ok(if hostile {
                Collider {
                    shape: hostile::index(u, shapes.len())?,
                    transform: hostile::any_transform(u)?,
                }
            } else {
                Collider {
                    shape: u.int_in_range(0..=shapes.len() as u32 - 1)?,
                    transform: hostile::transform(u)?,
                }
            })
        })
        .collect::<Result<_>>()?;
    let pairs = pairs(u, colliders.len(), max_pairs, hostile)?;
    Ok((shapes, colliders, pairs))
}

/// Up to 8 swept colliders with hostile sweeps; their shape indices are in range unless
/// `hostile` (or there is no shape), then anything [`hostile::index`] makes.
pub fn arbitrary_sweeps(
    u: &mut Unstructured,
    shape_count: usize,
    hostile: bool,
) -> Result<Vec<SweptCollider>> {
    (0..hostile::len(u, 8)?)
        .map(|_| {
            let shape = if hostile || shape_count == 0 {
                hostile::index(u, shape_count)?
            } else {
                u.int_in_range(0..=shape_count as u32 - 1)?
            };
            Ok(SweptCollider {
                shape,
                sweep: hostile::sweep(u)?,
            })
        })
        .collect()
}

/// Pairs of indices below `count`, or anything when `hostile`.
pub fn pairs(
    u: &mut Unstructured,
    count: usize,
    max: usize,
    hostile: bool,
) -> Result<Vec<[u32; 2]>> {
    if !hostile && count < 2 {
        return Ok(Vec::new());
    }
    (0..hostile::len(u, max)?)
        .map(|_| {
            if hostile {
                let a = hostile::index(u, count)?;
                let b = if u.ratio(1u8, 16)? {
                    a
                } else {
                    hostile::index(u, count)?
                };
                Ok([a, b])
            } else {
                let a = u.int_in_range(0..=count as u32 - 1)?;
                let b = (a + u.int_in_range(1..=count as u32 - 1)?) % count as u32;
                Ok([a, b])
            }
        })
        .collect()
}

impl Target for Batch {
    type Input = BatchInput;

    fn name(&self) -> &'static str {
        "batch"
    }

    fn weight(&self) -> u64 {
        20
    }

    fn generate(&self, u: &mut Unstructured) -> Result<BatchInput> {
        // Now and then a batch of thousands of pairs: the parallel backend splits it into
        // chunks of 1024.
        let max_pairs = if u.ratio(1u8, 64)? { 3000 } else { 16 };
        let (shapes, colliders, pairs) = arbitrary_batch(u, 12, max_pairs)?;
        let hostile = u.ratio(1u8, 2)?;
        let sweeps = arbitrary_sweeps(u, shapes.len(), hostile)?;
        let toi_pairs = self::pairs(u, sweeps.len(), 12, hostile)?;
        Ok(BatchInput {
            shapes,
            polygons_only: u.ratio(1u8, 4)?,
            colliders,
            pairs,
            parallel: u.arbitrary()?,
            into: u.arbitrary()?,
            sweeps,
            toi_pairs,
        })
    }

    fn check(&self, input: &BatchInput) -> std::result::Result<(), String> {
        let table: Vec<Shape> = if input.polygons_only {
            input
                .shapes
                .iter()
                .filter(|s| matches!(s, Shape::Polygon(_)))
                .copied()
                .collect()
        } else {
            input.shapes.clone()
        };
        let fresh = || -> Box<dyn NarrowPhase> {
            if input.parallel {
                Box::new(ParallelCpuNarrowPhase::new())
            } else {
                Box::new(CpuNarrowPhase::new())
            }
        };
        let set = |backend: &mut dyn NarrowPhase| {
            if input.polygons_only {
                let polygons: Vec<_> = table
                    .iter()
                    .filter_map(|s| s.as_polygon())
                    .copied()
                    .collect();
                backend.set_shapes(&polygons)
            } else {
                backend.set_shape_table(&table)
            }
        };
        let mut backend = fresh();
        set(backend.as_mut()).map_err(|e| format!("set_shapes failed: {e}"))?;
        let result = if input.into {
            let mut out = vec![Contact {
                a: 7,
                b: 9,
                manifold: wgpu_sat::Manifold::new(
                    wgpu_sat::glam::Vec2::X,
                    1.0,
                    &[wgpu_sat::ContactPoint {
                        point: wgpu_sat::glam::Vec2::ZERO,
                        depth: 1.0,
                        id: 0,
                    }],
                ),
            }];
            let r = backend.collide_pairs_into(&input.colliders, &input.pairs, &mut out);
            if r.is_err() && !out.is_empty() {
                return Err(format!(
                    "collide_pairs_into left {} contacts after an error",
                    out.len()
                ));
            }
            r.map(|()| out)
        } else {
            backend.collide_pairs(&input.colliders, &input.pairs)
        };
        let items: Vec<(u32, bool)> = input
            .colliders
            .iter()
            .map(|c| (c.shape, c.transform.is_finite()))
            .collect();
        let expected = expected_error(table.len(), &items, &input.pairs);
        match (&result, &expected) {
            (Err(e), Some(x)) => same_error(e, x)?,
            (Ok(contacts), None) => {
                let want = reference_contacts(&table, &input.colliders, &input.pairs);
                // Debug text rather than ==, so that a NaN in both is a match, and shows.
                if format!("{contacts:?}") != format!("{want:?}") {
                    return Err(format!(
                        "collide_pairs gave {} contacts, collide_shapes {}: first difference {:?}",
                        contacts.len(),
                        want.len(),
                        contacts.iter().zip(&want).find(|(a, b)| a != b)
                    ));
                }
                for c in contacts {
                    check_manifold(&c.manifold)
                        .map_err(|e| format!("contact ({}, {}): {e}", c.a, c.b))?;
                }
            }
            (Err(e), None) => return Err(format!("a valid batch was refused: {e}")),
            (Ok(c), Some(x)) => {
                return Err(format!(
                    "a bad batch ({x:?}) was accepted with {} contacts",
                    c.len()
                ));
            }
        }
        // Still usable: a valid batch made of the same items answers as on a fresh backend.
        let (colliders, pairs) = sanitised(table.len(), &input.colliders, &input.pairs);
        let again = backend
            .collide_pairs(&colliders, &pairs)
            .map_err(|e| format!("a valid batch after the call failed: {e}"))?;
        let mut new = fresh();
        set(new.as_mut()).map_err(|e| format!("set_shapes failed: {e}"))?;
        let first = new
            .collide_pairs(&colliders, &pairs)
            .map_err(|e| format!("a valid batch failed on a fresh backend: {e}"))?;
        if format!("{again:?}") != format!("{first:?}") {
            return Err("after the call the backend answers differently from a fresh one".into());
        }

        // Time of impact, as a batch.
        let sweep_items: Vec<(u32, bool)> = input
            .sweeps
            .iter()
            .map(|c| (c.shape, c.sweep.is_finite()))
            .collect();
        let result = time_of_impact_pairs(&input.shapes, &input.sweeps, &input.toi_pairs);
        let expected =
            expected_error(input.shapes.len(), &sweep_items, &input.toi_pairs).map(|x| match x {
                Expected::Transform { collider } => Expected::Sweep { collider },
                x => x,
            });
        match (&result, &expected) {
            (Err(e), Some(x)) => same_error(e, x)?,
            (Ok(hits), None) => {
                check_toi_batch(&input.shapes, &input.sweeps, &input.toi_pairs, hits)?;
            }
            (Err(e), None) => return Err(format!("a valid sweep batch was refused: {e}")),
            (Ok(_), Some(x)) => return Err(format!("a bad sweep batch ({x:?}) was accepted")),
        }
        Ok(())
    }
}

/// The CPU's time-of-impact batch against `time_of_impact` pair by pair.
pub fn check_toi_batch(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
    hits: &[Option<TimeOfImpact>],
) -> std::result::Result<(), String> {
    if hits.len() != pairs.len() {
        return Err(format!("{} results for {} pairs", hits.len(), pairs.len()));
    }
    for (&[i, j], hit) in pairs.iter().zip(hits) {
        let (a, b) = (&sweeps[i as usize], &sweeps[j as usize]);
        let (sa, sb) = (&shapes[a.shape as usize], &shapes[b.shape as usize]);
        let want = time_of_impact(sa, &a.sweep, sb, &b.sweep);
        if format!("{hit:?}") != format!("{want:?}") {
            return Err(format!("pair [{i}, {j}]: batch {hit:?}, alone {want:?}"));
        }
        check_toi(sa, &a.sweep, sb, &b.sweep, hit.as_ref())?;
    }
    Ok(())
}

/// The first bad item of a batch, by the documented rules: colliders in order (shape index,
/// then pose or sweep), then pairs in order (index out of range, then a self pair).
#[derive(Debug, PartialEq)]
pub enum Expected {
    Shape {
        collider: usize,
        shape: u32,
        shape_count: usize,
    },
    Transform {
        collider: usize,
    },
    Sweep {
        collider: usize,
    },
    Pair {
        pair: usize,
        index: u32,
        collider_count: usize,
    },
    SelfPair {
        pair: usize,
        collider: u32,
    },
}

/// `items`: each collider's shape index and whether its pose (or sweep) is finite.
pub fn expected_error(
    shape_count: usize,
    items: &[(u32, bool)],
    pairs: &[[u32; 2]],
) -> Option<Expected> {
    for (collider, &(shape, finite)) in items.iter().enumerate() {
        if shape as usize >= shape_count {
            return Some(Expected::Shape {
                collider,
                shape,
                shape_count,
            });
        }
        if !finite {
            return Some(Expected::Transform { collider });
        }
    }
    for (pair, &[a, b]) in pairs.iter().enumerate() {
        for index in [a, b] {
            if index as usize >= items.len() {
                return Some(Expected::Pair {
                    pair,
                    index,
                    collider_count: items.len(),
                });
            }
        }
        if a == b {
            return Some(Expected::SelfPair { pair, collider: a });
        }
    }
    None
}

/// Whether the error is the expected one.
pub fn same_error(e: &Error, x: &Expected) -> std::result::Result<(), String> {
    let same = match (e, x) {
        (
            Error::Batch(BatchError::ShapeIndexOutOfRange {
                collider,
                shape,
                shape_count,
            }),
            Expected::Shape {
                collider: c,
                shape: s,
                shape_count: n,
            },
        ) => (collider, shape, shape_count) == (c, s, n),
        (
            Error::Batch(BatchError::NonFiniteTransform { collider }),
            Expected::Transform { collider: c },
        )
        | (
            Error::Batch(BatchError::NonFiniteSweep { collider }),
            Expected::Sweep { collider: c },
        ) => collider == c,
        (
            Error::Batch(BatchError::PairIndexOutOfRange {
                pair,
                index,
                collider_count,
            }),
            Expected::Pair {
                pair: p,
                index: i,
                collider_count: n,
            },
        ) => (pair, index, collider_count) == (p, i, n),
        (
            Error::Batch(BatchError::SelfPair { pair, collider }),
            Expected::SelfPair {
                pair: p,
                collider: c,
            },
        ) => (pair, collider) == (p, c),
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!("error {e:?}, expected {x:?}"))
    }
}

/// What `collide_pairs` must return: `collide_shapes` on every pair, the overlapping ones
/// in input order.
pub fn reference_contacts(
    shapes: &[Shape],
    colliders: &[Collider],
    pairs: &[[u32; 2]],
) -> Vec<Contact> {
    pairs
        .iter()
        .filter_map(|&[a, b]| {
            let (ca, cb) = (&colliders[a as usize], &colliders[b as usize]);
            let manifold = collide_shapes(
                &shapes[ca.shape as usize],
                &ca.transform,
                &shapes[cb.shape as usize],
                &cb.transform,
            )?;
            Some(Contact { a, b, manifold })
        })
        .collect()
}

/// The batch with every bad item repaired or dropped: shape indices wrapped, non-finite
/// poses replaced by the identity, bad pairs left out.
pub fn sanitised(
    shape_count: usize,
    colliders: &[Collider],
    pairs: &[[u32; 2]],
) -> (Vec<Collider>, Vec<[u32; 2]>) {
    if shape_count == 0 {
        return (Vec::new(), Vec::new());
    }
    let colliders: Vec<Collider> = colliders
        .iter()
        .map(|c| Collider {
            shape: c.shape % shape_count as u32,
            transform: if c.transform.is_finite() {
                c.transform
            } else {
                Transform::IDENTITY
            },
        })
        .collect();
    let n = colliders.len() as u32;
    let pairs = pairs
        .iter()
        .filter(|&&[a, b]| a < n && b < n && a != b)
        .copied()
        .collect();
    (colliders, pairs)
}
