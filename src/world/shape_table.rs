//! The shape table, one part of the world: every distinct shape once, shared by the
//! colliders made of it (a pyramid of 5,000 boxes of one size holds one entry), so that the
//! narrow phase uploads and reads a small table and a collider names its shape by index.
//!
//! ```text
//! share(shape):   the entry of an equal shape (bit for bit: `shape_key`), its users + 1;
//!                 else a free entry or a new one, with one user
//! release(entry): users - 1; at 0 the entry is free for the next new shape
//! ```
//!
//! Invariant: `index` maps the key of every used entry to it, and `free` lists exactly the
//! entries with no user (the snapshot reader checks both). A vacant collider slot may still
//! name a freed entry: it is never collided.

use std::collections::HashMap;

use crate::shapes::shape::Shape;

/// The world's shapes (see the module header).
#[derive(Clone, Debug, Default)]
pub(crate) struct ShapeTable {
    /// The entries, by index; what the narrow phase's table holds.
    pub list: Vec<Shape>,
    /// The entry of each used shape, by its key.
    pub index: HashMap<ShapeKey, u32>,
    /// Per entry, how many colliders use it.
    pub users: Vec<u32>,
    /// Entries no collider uses, taken by the next new shapes.
    pub free: Vec<u32>,
}

impl ShapeTable {
    /// The entry for `piece`, shared with every collider of the same shape: counted once
    /// more, or made (in an entry a removed shape left, or a new one).
    pub fn share(&mut self, piece: &Shape) -> u32 {
        let key = shape_key(piece);
        if let Some(&entry) = self.index.get(&key) {
            self.users[entry as usize] += 1;
            return entry;
        }
        let entry = match self.free.pop() {
            Some(entry) => {
                self.list[entry as usize] = *piece;
                self.users[entry as usize] = 1;
                entry
            }
            None => {
                self.list.push(*piece);
                self.users.push(1);
                (self.list.len() - 1) as u32
            }
        };
        self.index.insert(key, entry);
        entry
    }

    /// One collider fewer uses entry `entry`; the last one frees it, so that a world that
    /// keeps adding bodies of new shapes and removing them stays its size.
    pub fn release(&mut self, entry: u32) {
        let users = &mut self.users[entry as usize];
        *users -= 1;
        if *users == 0 {
            self.index.remove(&shape_key(&self.list[entry as usize]));
            self.free.push(entry);
        }
    }
}

/// Hashable identity of a shape, for sharing one shape table entry between bodies.
type ShapeKey = [u32; 33];

pub(super) fn shape_key(shape: &Shape) -> ShapeKey {
    let mut key = [0u32; 33];
    match shape {
        Shape::Polygon(p) => {
            key[0] = p.vertices().len() as u32;
            for (k, v) in p.vertices().iter().enumerate() {
                key[1 + 2 * k] = v.x.to_bits();
                key[2 + 2 * k] = v.y.to_bits();
            }
        }
        // Count 1 marks a circle, as on the GPU.
        Shape::Circle(c) => {
            key[0] = 1;
            key[1] = c.center().x.to_bits();
            key[2] = c.center().y.to_bits();
            key[3] = c.radius().to_bits();
        }
        // Capsules, segments and chain links: a kind above the count, the core, the
        // radius, and a link's ghosts.
        Shape::Capsule(_) | Shape::Segment(_) | Shape::ChainSegment(_) => {
            let core = shape.rounded();
            let kind = match shape {
                Shape::Capsule(_) => 1,
                Shape::Segment(_) => 2,
                _ => 3,
            };
            key[0] = kind << 8 | core.count as u32;
            for (k, v) in core.vertices().iter().enumerate() {
                key[1 + 2 * k] = v.x.to_bits();
                key[2 + 2 * k] = v.y.to_bits();
            }
            if let Shape::ChainSegment(link) = shape {
                key[18] = link.ghost_a().x.to_bits();
                key[19] = link.ghost_a().y.to_bits();
                key[20] = link.ghost_b().x.to_bits();
                key[21] = link.ghost_b().y.to_bits();
            }
        }
    }
    // The rounding radius (0, hence no change, for a sharp polygon).
    key[17] = shape.rounded().radius.to_bits() * u32::from(!matches!(shape, Shape::Circle(_)));
    key
}
