//! Target `snapshot`: `World::from_snapshot` on mutated real snapshots. The snapshots are of
//! small worlds made once (a pyramid, ragdolls on a floor with circles and pentagons, a
//! mixed scene after removals, each stepped into rest or mid-fall, one with sleeping
//! bodies); an input picks one and applies up to eight mutations: a truncation, flipped
//! bits, a byte or a word overwritten with a hostile value (a float from `hostile.rs`, a
//! huge count), bytes inserted or deleted, or a run spliced in from another snapshot (so
//! whole sections of one world land in another's).
//!
//! Invariants: `from_snapshot` never panics; an error is `SnapshotError` with an offset
//! within the bytes; a world it accepts steps 20 steps with every body finite, and its own
//! snapshot loads again to the same bytes.

use std::sync::OnceLock;
use wgpu_sat::error::SnapshotError;

use arbitrary::{Result, Unstructured};
use wgpu_sat::glam::Vec2;
use wgpu_sat::scenes::{self, human};
use wgpu_sat::{BodyDef, Circle, CpuNarrowPhase, Error, Polygon, World};

use crate::{Target, hostile};

pub struct SnapshotTarget;

/// The real snapshots the inputs mutate.
fn bases() -> &'static [Vec<u8>] {
    static BASES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    BASES.get_or_init(|| {
        let mut narrow = CpuNarrowPhase::new();
        let mut run = |world: &mut World, steps: usize| {
            for _ in 0..steps {
                world.step(1.0 / 60.0, &mut narrow).expect("a scene steps");
            }
        };
        let mut pyramid = scenes::pyramid(5);
        run(&mut pyramid, 40);
        let mut ragdolls = World::default();
        ragdolls
            .add_body(&BodyDef::fixed(Polygon::rectangle(8.0, 0.5), Vec2::ZERO))
            .expect("floor");
        for k in 0..2 {
            let at = Vec2::new(-2.0 + 4.0 * k as f32, 3.0);
            human(&mut ragdolls, at, 1.0, 0.05, 5.0, 0.5, k + 1).expect("ragdoll");
        }
        for k in 0..4 {
            let at = Vec2::new(-1.5 + k as f32, 6.0);
            let def = if k % 2 == 0 {
                BodyDef::dynamic(Circle::new(0.3).expect("circle"), at)
            } else {
                BodyDef::dynamic(Polygon::regular(5, 0.4).expect("pentagon"), at)
            };
            ragdolls.add_body(&def).expect("body");
        }
        run(&mut ragdolls, 25);
        let mut mixed = scenes::mixed(30, 5);
        run(&mut mixed, 30);
        let removed: Vec<_> = mixed.bodies().step_by(5).collect();
        for body in removed {
            mixed.remove_body(body).expect("remove");
        }
        run(&mut mixed, 1);
        let mut resting = scenes::pyramid(3);
        run(&mut resting, 200);
        [pyramid, ragdolls, mixed, resting]
            .iter()
            .map(World::snapshot)
            .collect()
    })
}

#[derive(Debug)]
pub enum Mutation {
    Truncate(u32),
    Flip {
        at: u32,
        mask: u8,
    },
    Byte {
        at: u32,
        value: u8,
    },
    Float {
        at: u32,
        value: f32,
    },
    Word {
        at: u32,
        value: u32,
    },
    Insert {
        at: u32,
        bytes: Vec<u8>,
    },
    Delete {
        at: u32,
        len: u8,
    },
    Splice {
        at: u32,
        from: u8,
        start: u32,
        len: u16,
    },
}

#[derive(Debug)]
pub struct SnapshotInput {
    base: u8,
    mutations: Vec<Mutation>,
}

impl SnapshotInput {
    /// The mutated bytes.
    fn bytes(&self) -> Vec<u8> {
        let bases = bases();
        let mut b = bases[usize::from(self.base) % bases.len()].clone();
        let place = |b: &Vec<u8>, at: u32| (at as usize) % b.len().max(1);
        for m in &self.mutations {
            if b.is_empty() {
                break;
            }
            match m {
                Mutation::Truncate(at) => {
                    let at = place(&b, *at);
                    b.truncate(at);
                }
                Mutation::Flip { at, mask } => {
                    let at = place(&b, *at);
                    b[at] ^= mask;
                }
                Mutation::Byte { at, value } => {
                    let at = place(&b, *at);
                    b[at] = *value;
                }
                Mutation::Float { at, value } => {
                    let at = place(&b, *at);
                    put(&mut b, at, &value.to_le_bytes());
                }
                Mutation::Word { at, value } => {
                    let at = place(&b, *at);
                    put(&mut b, at, &value.to_le_bytes());
                }
                Mutation::Insert { at, bytes } => {
                    let at = place(&b, *at);
                    b.splice(at..at, bytes.iter().copied());
                }
                Mutation::Delete { at, len } => {
                    let at = place(&b, *at);
                    let end = (at + usize::from(*len)).min(b.len());
                    b.drain(at..end);
                }
                Mutation::Splice {
                    at,
                    from,
                    start,
                    len,
                } => {
                    let source = &bases[usize::from(*from) % bases.len()];
                    let start = (*start as usize) % source.len();
                    let end = (start + usize::from(*len)).min(source.len());
                    let at = place(&b, *at);
                    let end_here = (at + (end - start)).min(b.len());
                    b.splice(at..end_here, source[start..end].iter().copied());
                }
            }
        }
        b
    }
}

/// Overwrites the bytes at `at` with `value`, as far as they reach.
fn put(b: &mut [u8], at: usize, value: &[u8]) {
    let n = value.len().min(b.len() - at);
    b[at..at + n].copy_from_slice(&value[..n]);
}

impl Target for SnapshotTarget {
    type Input = SnapshotInput;

    fn name(&self) -> &'static str {
        "snapshot"
    }

    fn weight(&self) -> u64 {
        // A load, and for the inputs that load (a few in ten) 20 steps of a small world.
        3
    }

    fn generate(&self, u: &mut Unstructured) -> Result<SnapshotInput> {
        let base = u.arbitrary()?;
        let mut mutations = Vec::new();
        for _ in 0..u.int_in_range(1u8..=8)? {
            mutations.push(match u.int_in_range(0u8..=9)? {
                0 => Mutation::Truncate(u.arbitrary()?),
                1 | 2 => Mutation::Flip {
                    at: u.arbitrary()?,
                    mask: 1 << u.int_in_range(0u8..=7)?,
                },
                3 => Mutation::Byte {
                    at: u.arbitrary()?,
                    value: u.arbitrary()?,
                },
                4 | 5 => Mutation::Float {
                    at: u.arbitrary()?,
                    value: hostile::float(u)?,
                },
                6 => Mutation::Word {
                    at: u.arbitrary()?,
                    value: *u.choose(&[0, 1, 0x7f, 0x80, 0xffff_ffff, 0x8080_8080, 1 << 30])?,
                },
                7 => Mutation::Insert {
                    at: u.arbitrary()?,
                    bytes: (0..u.int_in_range(1u8..=12)?)
                        .map(|_| u.arbitrary())
                        .collect::<Result<_>>()?,
                },
                8 => Mutation::Delete {
                    at: u.arbitrary()?,
                    len: u.int_in_range(1u8..=16)?,
                },
                _ => Mutation::Splice {
                    at: u.arbitrary()?,
                    from: u.arbitrary()?,
                    start: u.arbitrary()?,
                    len: u.int_in_range(1u16..=512)?,
                },
            });
        }
        Ok(SnapshotInput { base, mutations })
    }

    fn check(&self, input: &SnapshotInput) -> std::result::Result<(), String> {
        let bytes = input.bytes();
        let mut world = match World::from_snapshot(&bytes) {
            Err(Error::Snapshot(SnapshotError { offset, what })) => {
                return if offset <= bytes.len() {
                    Ok(())
                } else {
                    Err(format!(
                        "error offset {offset} past the {} bytes: {what}",
                        bytes.len()
                    ))
                };
            }
            Err(other) => return Err(format!("not a snapshot error: {other}")),
            Ok(world) => world,
        };
        let again = world.snapshot();
        match World::from_snapshot(&again) {
            Ok(copy) if copy.snapshot() == again => {}
            Ok(_) => return Err("an accepted world's snapshot loads to other bytes".into()),
            Err(e) => return Err(format!("an accepted world's own snapshot is refused: {e}")),
        }
        let mut narrow = CpuNarrowPhase::new();
        for k in 0..20 {
            if world.step(1.0 / 60.0, &mut narrow).is_err() {
                return Ok(());
            }
            for body in world.bodies() {
                let t = world.transform(body);
                let finite = t.translation().is_finite()
                    && t.rotation().is_finite()
                    && world.linear_velocity(body).is_finite()
                    && world.angular_velocity(body).is_finite();
                if !finite {
                    return Err(format!("{body:?} not finite after step {}", k + 1));
                }
            }
        }
        Ok(())
    }
}
