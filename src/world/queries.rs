//! Queries against a world: ray casts (closest hit, all hits), point and box queries,
//! answered from a bounding volume hierarchy over the colliders' boxes (`query_tree.rs`),
//! brought up to date on the first query after the colliders moved (refitted, and built
//! anew every `REBUILD_EVERY`-th time or when bodies were added).
//!
//! ```text
//! cast_ray_closest: the tree's ray walk, nearer boxes first; each collider the ray's box
//!                   test lets through is cast against (ray.rs); a hit shortens the ray,
//!                   so boxes beyond it are never visited
//! cast_ray_all:     the same walk at full length; hits sorted by fraction
//! colliders_at:     the colliders whose boxes hold the point, then the shape test
//! colliders_in_aabb: the colliders whose boxes overlap the box
//! overlap_shape:    the colliders whose boxes overlap the shape's, then collide_shapes
//! cast_shape:       the colliders whose boxes overlap the box of the shape's whole
//!                   translation, then time_of_impact (toi/) against each, held still
//! ```
//!
//! Every query takes a [`Filter`]: a collider is seen when the query's filter and the
//! collider's would let them touch ([`Filter::should_collide`]; `Filter::default()` sees
//! every collider whose mask holds the default category). Ray and shape casts pass through
//! sensors, as in Box2D; point, box and overlap queries report them ([`World::is_sensor`]
//! tells them apart).
//! Queries read the world as the last step (or `add_body`) left it.

use std::sync::RwLock;

use glam::Vec2;

use super::World;
use super::filters::checked;
use crate::broad_phase::filter::Filter;
use crate::broad_phase::query_tree::QueryTree;
use crate::collision::collide_shapes::collide_shapes;
use crate::collision::toi::{Sweep, time_of_impact};
use crate::error::Error;
use crate::error::WorldError;
use crate::query::ray::{RayHit, cast_ray};
use crate::shapes::aabb::Aabb;
use crate::shapes::shape::Shape;
use crate::shapes::transform::Transform;
use crate::world::handle::{BodyId, ColliderId};

/// A ray's hit in a world: the body and the collider (piece) hit, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldRayHit {
    /// The body hit.
    pub body: BodyId,
    /// Its collider hit.
    pub collider: ColliderId,
    /// Where, and the collider's outward normal there.
    pub hit: RayHit,
}

/// A shape cast's first hit in a world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldShapeHit {
    /// The body hit.
    pub body: BodyId,
    /// Its collider hit.
    pub collider: ColliderId,
    /// How far along the translation the shape first touches it, from 0 to 1 (a
    /// conservative time of impact: the shape placed there does not overlap it yet). 0
    /// when the shape overlaps it at the start.
    pub fraction: f32,
    /// The collider's outward unit normal at the contact, world frame: from the collider
    /// towards the cast shape.
    pub normal: Vec2,
}

/// How many times in a row the query tree is refitted to moved colliders before it is built
/// anew: a refit costs a tenth of a build or less (10,000 colliders: a build takes 1.7 ms
/// here), while the tree's split choices grow stale as bodies move far from where it was
/// built; a pile or a pyramid moves little in half a second at 60 Hz.
const REBUILD_EVERY: u32 = 30;

/// The world's query tree, the world revision it is up to date with, and how many refits
/// it has had since it was built. Cloning a world clones the tree as it is.
#[derive(Debug, Default)]
pub(crate) struct QueryCache {
    tree: RwLock<TreeState>,
}

#[derive(Clone, Debug, Default)]
struct TreeState {
    revision: Option<u64>,
    refits: u32,
    tree: QueryTree,
}

impl Clone for QueryCache {
    fn clone(&self) -> QueryCache {
        // A poisoned lock only means a panic elsewhere while it was held; the tree is
        // rebuilt before any use that finds it stale anyway.
        let guard = self.tree.read().unwrap_or_else(|e| e.into_inner());
        QueryCache {
            tree: RwLock::new(guard.clone()),
        }
    }
}

impl QueryCache {
    /// Runs `query` on the tree over `boxes`, building it first if it was built for
    /// another `revision` of the world. Concurrent queries share the tree (read locks);
    /// only a rebuild takes the write lock.
    fn with_tree<R>(
        &self,
        revision: u64,
        boxes: &[Aabb],
        query: impl FnOnce(&QueryTree) -> R,
    ) -> R {
        {
            let guard = self.tree.read().unwrap_or_else(|e| e.into_inner());
            if guard.revision == Some(revision) {
                return query(&guard.tree);
            }
        }
        let mut guard = self.tree.write().unwrap_or_else(|e| e.into_inner());
        if guard.revision != Some(revision) {
            let state = &mut *guard;
            if state.revision.is_some()
                && state.tree.len() == boxes.len()
                && state.refits < REBUILD_EVERY
            {
                state.tree.refit(boxes);
                state.refits += 1;
            } else {
                state.tree.build(boxes);
                state.refits = 0;
            }
            state.revision = Some(revision);
        }
        query(&guard.tree)
    }
}

/// An error naming a query input that is not finite.
fn check_finite(field: &'static str, value: Vec2) -> Result<(), Error> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::World(WorldError::InvalidQuery {
            field,
            value,
            rule: "finite",
        }))
    }
}

/// An error naming a query pose that is not finite.
fn check_transform(transform: &Transform) -> Result<(), Error> {
    check_finite("shape position", transform.translation())?;
    check_finite("shape rotation", transform.rotation())
}

/// The checks every ray cast makes: a finite origin, a finite non-zero translation.
fn check_ray(origin: Vec2, translation: Vec2) -> Result<(), Error> {
    check_finite("ray origin", origin)?;
    check_translation("ray translation", translation)
}

/// A translation a cast can follow: finite and not zero (its length is the cast's reach).
fn check_translation(field: &'static str, translation: Vec2) -> Result<(), Error> {
    check_finite(field, translation)?;
    if translation == Vec2::ZERO {
        return Err(Error::World(WorldError::InvalidQuery {
            field,
            value: translation,
            rule: "non-zero (its length is the cast's reach)",
        }));
    }
    Ok(())
}

impl World {
    /// The closest body a ray from `origin` along `translation` (world frame; its length is
    /// the reach) hits, with the hit: [`World::cast_ray_closest`] with the default filter.
    /// A ray with a non-finite component or no length hits nothing here; the `Result`
    /// forms say why.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Polygon, World};
    /// let mut world = World::default();
    /// let wall = world.add_body(&BodyDef::fixed(Polygon::rectangle(0.5, 2.0), Vec2::new(3.0, 0.0)))?;
    /// let (body, hit) = world.cast_ray(Vec2::ZERO, Vec2::new(10.0, 0.0)).unwrap();
    /// assert_eq!(body, wall);
    /// assert_eq!(hit.point, Vec2::new(2.5, 0.0));
    /// assert_eq!(hit.normal, Vec2::new(-1.0, 0.0));
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn cast_ray(&self, origin: Vec2, translation: Vec2) -> Option<(BodyId, RayHit)> {
        let hit = self.cast_ray_closest(origin, translation, &Filter::default());
        hit.ok().flatten().map(|h| (h.body, h.hit))
    }

    /// The closest collider the ray hits among those `filter` sees (sensors never), or
    /// `None`. Ties go to the lower collider index. An origin or translation that is not
    /// finite, a zero translation, or a filter in no category is an error naming it.
    pub fn cast_ray_closest(
        &self,
        origin: Vec2,
        translation: Vec2,
        filter: &Filter,
    ) -> Result<Option<WorldRayHit>, Error> {
        check_ray(origin, translation)?;
        let filter = checked(*filter)?;
        let mut best: Option<WorldRayHit> = None;
        self.with_query_tree(|tree| {
            tree.ray(origin, translation, 1.0, |collider| {
                let hit = self.cast_ray_collider(collider, &filter, origin, translation)?;
                let better = best.is_none_or(|b| {
                    (hit.fraction, collider) < (b.hit.fraction, b.collider.index())
                });
                if better {
                    best = Some(self.world_hit(collider, hit));
                }
                Some(hit.fraction)
            });
        });
        Ok(best)
    }

    /// Every collider the ray hits among those `filter` sees (sensors never), nearest
    /// first (ties by collider index), into `hits` (cleared first; reuse it and a warm
    /// query allocates nothing). Errors as [`World::cast_ray_closest`].
    pub fn cast_ray_all(
        &self,
        origin: Vec2,
        translation: Vec2,
        filter: &Filter,
        hits: &mut Vec<WorldRayHit>,
    ) -> Result<(), Error> {
        check_ray(origin, translation)?;
        let filter = checked(*filter)?;
        hits.clear();
        self.with_query_tree(|tree| {
            tree.ray(origin, translation, 1.0, |collider| {
                let hit = self.cast_ray_collider(collider, &filter, origin, translation);
                if let Some(hit) = hit {
                    hits.push(self.world_hit(collider, hit));
                }
                None
            });
        });
        hits.sort_unstable_by(|a, b| {
            (a.hit.fraction, a.collider)
                .partial_cmp(&(b.hit.fraction, b.collider))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        Ok(())
    }

    /// The colliders whose shapes hold `point` (boundary included) among those `filter`
    /// sees, sensors included, in ascending order, into `colliders` (cleared first). A
    /// point that is not finite, or a filter in no category, is an error naming it.
    pub fn colliders_at(
        &self,
        point: Vec2,
        filter: &Filter,
        colliders: &mut Vec<ColliderId>,
    ) -> Result<(), Error> {
        check_finite("point", point)?;
        let filter = checked(*filter)?;
        colliders.clear();
        self.with_query_tree(|tree| {
            tree.boxes(&Aabb::new(point, point), |c| {
                if !self.colliders.slots.is_live(c) {
                    return true;
                }
                let collider = &self.colliders.records[c];
                if filter.should_collide(&self.colliders.filters[c])
                    && self.shapes.list[collider.shape as usize]
                        .contains_point(&collider.transform, point)
                {
                    colliders.push(self.names.collider_ids[c]);
                }
                true
            });
        });
        colliders.sort_unstable();
        Ok(())
    }

    /// The colliders whose boxes overlap `aabb` (touching counts) among those `filter`
    /// sees, sensors included, in ascending order, into `colliders` (cleared first). A box
    /// that is not finite or whose `min` exceeds its `max`, or a filter in no category, is
    /// an error naming it.
    pub fn colliders_in_aabb(
        &self,
        aabb: &Aabb,
        filter: &Filter,
        colliders: &mut Vec<ColliderId>,
    ) -> Result<(), Error> {
        check_finite("aabb min", aabb.min)?;
        check_finite("aabb max", aabb.max)?;
        if aabb.min.cmpgt(aabb.max).any() {
            return Err(Error::World(WorldError::InvalidQuery {
                field: "aabb min",
                value: aabb.min,
                rule: "at most aabb max on each axis",
            }));
        }
        let filter = checked(*filter)?;
        colliders.clear();
        self.with_query_tree(|tree| {
            tree.boxes(aabb, |c| {
                if !self.colliders.slots.is_live(c) {
                    return true;
                }
                if filter.should_collide(&self.colliders.filters[c]) {
                    colliders.push(self.names.collider_ids[c]);
                }
                true
            });
        });
        colliders.sort_unstable();
        Ok(())
    }

    /// The colliders whose shapes overlap `shape` placed by `transform` (touching is not
    /// overlapping) among those `filter` sees, sensors included, in ascending order, into
    /// `colliders` (cleared first). A transform that is not finite, or a filter in no
    /// category, is an error naming it.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Filter, Polygon, Shape, Transform, World};
    /// let mut world = World::default();
    /// let post = world.add_body(&BodyDef::fixed(Polygon::rectangle(0.5, 2.0), Vec2::ZERO))?;
    /// let crate_ = Shape::from(Polygon::rectangle(0.5, 0.5));
    /// let mut found = Vec::new();
    /// world.overlap_shape(&crate_, &Transform::new(Vec2::new(0.8, 0.0), 0.3), &Filter::default(), &mut found)?;
    /// assert_eq!(found, world.body_colliders(post).collect::<Vec<_>>());
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn overlap_shape(
        &self,
        shape: &Shape,
        transform: &Transform,
        filter: &Filter,
        colliders: &mut Vec<ColliderId>,
    ) -> Result<(), Error> {
        check_transform(transform)?;
        let filter = checked(*filter)?;
        colliders.clear();
        self.with_query_tree(|tree| {
            tree.boxes(&shape.aabb(transform), |c| {
                if !self.colliders.slots.is_live(c) {
                    return true;
                }
                let other = &self.colliders.records[c];
                if filter.should_collide(&self.colliders.filters[c])
                    && collide_shapes(
                        shape,
                        transform,
                        &self.shapes.list[other.shape as usize],
                        &other.transform,
                    )
                    .is_some()
                {
                    colliders.push(self.names.collider_ids[c]);
                }
                true
            });
        });
        colliders.sort_unstable();
        Ok(())
    }

    /// The first collider `shape` meets when it moves from `transform` by `translation`
    /// (world frame, without turning) among those `filter` sees (sensors never), with the
    /// fraction of the translation it gets before touching: what a character controller
    /// or a thrown object's preview asks. Built on [`time_of_impact`]
    /// with the colliders held still. Ties go to the lower collider index. A transform or
    /// translation that is not finite, a zero translation, or a filter in no category is an
    /// error naming it.
    ///
    /// ```
    /// # use wgpu_sat::{glam::Vec2, BodyDef, Filter, Polygon, Shape, Transform, World};
    /// let mut world = World::default();
    /// let wall = world.add_body(&BodyDef::fixed(Polygon::rectangle(0.5, 2.0), Vec2::new(5.0, 0.0)))?;
    /// let crate_ = Shape::from(Polygon::rectangle(0.5, 0.5));
    /// let hit = world
    ///     .cast_shape(&crate_, &Transform::IDENTITY, Vec2::new(10.0, 0.0), &Filter::default())?
    ///     .unwrap();
    /// assert_eq!(hit.body, wall);
    /// // The crate's right face (x = 0.5) meets the wall's left face (x = 4.5) after 4 units.
    /// assert!((hit.fraction - 0.4).abs() < 1e-3 && hit.fraction <= 0.4);
    /// assert!((hit.normal - Vec2::new(-1.0, 0.0)).length() < 1e-5);
    /// # Ok::<(), wgpu_sat::Error>(())
    /// ```
    pub fn cast_shape(
        &self,
        shape: &Shape,
        transform: &Transform,
        translation: Vec2,
        filter: &Filter,
    ) -> Result<Option<WorldShapeHit>, Error> {
        check_transform(transform)?;
        check_translation("shape translation", translation)?;
        let filter = checked(*filter)?;
        let sweep = Sweep {
            local_center: Vec2::ZERO,
            c0: transform.translation(),
            c1: transform.translation() + translation,
            a0: transform.angle(),
            a1: transform.angle(),
        };
        let start = shape.aabb(transform);
        let end = shape.aabb(&Transform::from_rotation(
            transform.translation() + translation,
            transform.rotation(),
        ));
        let mut best: Option<WorldShapeHit> = None;
        self.with_query_tree(|tree| {
            tree.boxes(&start.union(&end), |c| {
                if !self.colliders.slots.is_live(c) {
                    return true;
                }
                if self.colliders.sensors[c] || !filter.should_collide(&self.colliders.filters[c]) {
                    return true;
                }
                let other = &self.colliders.records[c];
                let other_shape = &self.shapes.list[other.shape as usize];
                let fixed = Sweep::fixed(&other.transform);
                if let Some(hit) = time_of_impact(shape, &sweep, other_shape, &fixed) {
                    let better = best.is_none_or(|b| (hit.t, c) < (b.fraction, b.collider.index()));
                    if hit.t <= 1.0 && better {
                        best = Some(WorldShapeHit {
                            body: self.names.body_ids[self.names.collider_bodies[c] as usize],
                            collider: self.names.collider_ids[c],
                            fraction: hit.t,
                            // time_of_impact's normal points from the cast shape (A).
                            normal: -hit.normal,
                        });
                    }
                }
                true
            });
        });
        Ok(best)
    }

    /// The topmost body (the one in the highest collider slot) whose shape holds the world
    /// point, if any: for picking. A point that is not finite holds no body.
    pub fn body_at(&self, point: Vec2) -> Option<BodyId> {
        let mut top: Option<usize> = None;
        if point.is_finite() {
            self.with_query_tree(|tree| {
                tree.boxes(&Aabb::new(point, point), |c| {
                    if !self.colliders.slots.is_live(c) {
                        return true;
                    }
                    let collider = &self.colliders.records[c];
                    if top.is_none_or(|t| c > t)
                        && self.shapes.list[collider.shape as usize]
                            .contains_point(&collider.transform, point)
                    {
                        top = Some(c);
                    }
                    true
                });
            });
        }
        top.map(|c| self.names.body_ids[self.names.collider_bodies[c] as usize])
    }

    /// `query` on the query tree, brought up to date with the colliders first.
    pub(super) fn with_query_tree<R>(&self, query: impl FnOnce(&QueryTree) -> R) -> R {
        self.queries
            .with_tree(self.revision, &self.colliders.aabbs, query)
    }

    /// The ray's hit on collider `c`, if `filter` sees it and it is no sensor.
    fn cast_ray_collider(
        &self,
        c: usize,
        filter: &Filter,
        origin: Vec2,
        translation: Vec2,
    ) -> Option<RayHit> {
        if !self.colliders.slots.is_live(c)
            || self.colliders.sensors[c]
            || !filter.should_collide(&self.colliders.filters[c])
        {
            return None;
        }
        let collider = &self.colliders.records[c];
        cast_ray(
            &self.shapes.list[collider.shape as usize],
            &collider.transform,
            origin,
            translation,
        )
    }

    fn world_hit(&self, collider: usize, hit: RayHit) -> WorldRayHit {
        WorldRayHit {
            body: self.names.body_ids[self.names.collider_bodies[collider] as usize],
            collider: self.names.collider_ids[collider],
            hit,
        }
    }
}
