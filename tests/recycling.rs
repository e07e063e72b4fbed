//! Contact recycling: a pair that has barely moved keeps its manifold. Over a falling and
//! settling pile, every contact the world reports stays within a stated bound of the one the
//! narrow phase would compute afresh; with recycling off, they are the fresh ones exactly.

use wgpu_sat::{
    Collider, Contact, CpuNarrowPhase, RECYCLE_ANGLE, RECYCLE_TRANSLATION, SPECULATIVE_DISTANCE,
    World, collide_shapes_speculative, scenes,
};

/// The manifold the narrow phase computes for the colliders of `c` at the poses `at` (the
/// colliders as the last step began: its narrow phase saw those).
fn fresh(world: &World, at: &[Collider], c: &Contact) -> Option<wgpu_sat::Manifold> {
    let (a, b) = (&at[c.a as usize], &at[c.b as usize]);
    collide_shapes_speculative(
        &world.shapes()[a.shape as usize],
        &a.transform,
        &world.shapes()[b.shape as usize],
        &b.transform,
        SPECULATIVE_DISTANCE,
    )
}

/// The largest differences between the world's contacts and fresh ones at the poses `at`:
/// (normal, depth of any point, position of any point), and how many contacts name other
/// features than their fresh twin.
fn worst_difference(world: &World, at: &[Collider]) -> ([f32; 3], usize) {
    let mut worst = [0.0f32; 3];
    let mut changed = 0;
    for c in world.collider_contacts() {
        let Some(f) = fresh(world, at, c) else {
            // Only a contact at the edge of the speculative distance may have slipped out.
            assert!(
                c.manifold.depth < -(SPECULATIVE_DISTANCE - 4.0 * RECYCLE_TRANSLATION),
                "a recycled contact of depth {} has no fresh twin",
                c.manifold.depth
            );
            continue;
        };
        // Where the fresh manifold names other features (a circle crossing from a face's
        // region into a vertex's, say), the narrow phase's own choice jumps: compare the
        // normal only where the features are the same, and only between polygons, whose
        // normal is a face's. A contact with a circle takes the direction from a vertex (or
        // the other centre) to the circle's centre, and when that is short (a deep circle
        // near a corner) a move within the thresholds turns it by their size over its
        // length: its depth and points are still checked below.
        let ids = |m: &wgpu_sat::Manifold| {
            let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
            ids.sort_unstable();
            ids
        };
        // Between polygons the ids stay when the other polygon's face becomes the reference
        // (see ContactPoint::id): the two faces' separations were then within the tie
        // tolerance, and the normal jumps between them with the depth barely changing (the
        // depths are checked below). Such a jump counts as a change of features too.
        let with_circle = c
            .manifold
            .points()
            .iter()
            .any(|p| (p.id >> 8) & 0xff == 0xff);
        let turned = (f.normal - c.manifold.normal).length();
        if ids(&f) != ids(&c.manifold) || (!with_circle && turned > RECYCLE_ANGLE + 1e-5) {
            changed += 1;
        } else if !with_circle {
            worst[0] = worst[0].max(turned);
        }
        worst[1] = worst[1].max((f.depth - c.manifold.depth).abs());
        for p in c.manifold.points() {
            // Points pair up by feature id; a point the fresh manifold dropped (or gained)
            // sits at the edge of the speculative distance.
            if let Some(q) = f.points().iter().find(|q| q.id == p.id) {
                worst[1] = worst[1].max((p.depth - q.depth).abs());
                worst[2] = worst[2].max(p.point.distance(q.point));
            }
        }
    }
    (worst, changed)
}

#[test]
fn recycled_manifolds_stay_within_the_bound_of_fresh_ones() {
    let mut world = scenes::mixed(1_000, 3);
    let mut narrow = CpuNarrowPhase::new();
    let (mut recycled, mut pairs, mut contacts, mut changed) = (0, 0, 0, 0);
    let mut worst = [0.0f32; 3];
    for step in 0..400 {
        let at = world.colliders().to_vec();
        let stats = world.step(1.0 / 60.0, &mut narrow).unwrap();
        if step >= 200 {
            recycled += stats.recycled;
            pairs += stats.pairs;
        }
        let (w, c) = worst_difference(&world, &at);
        changed += c;
        contacts += stats.contacts;
        for k in 0..3 {
            worst[k] = worst[k].max(w[k]);
        }
    }
    eprintln!(
        "steps 200..400: {recycled} of {pairs} pairs recycled; over 400 steps {changed} of \
         {contacts} contacts on other features than fresh; worst normal {:.2e}, depth {:.2e}, \
         point {:.2e}",
        worst[0], worst[1], worst[2]
    );
    assert!(
        changed * 200 < contacts,
        "features changed in {changed} of {contacts}"
    );
    assert!(
        recycled * 2 > pairs,
        "a settling pile should recycle most pairs"
    );
    // The bound: B moved at most RECYCLE_TRANSLATION and turned at most RECYCLE_ANGLE in
    // A's frame since the manifold was computed. The normal turns with B's face at most by
    // the angle; a point's depth and position move by the translation plus the angle times
    // the point's lever from B's frame (the mixed scene's pieces reach about 1.5 units), and
    // the depth is corrected for the translation along the normal.
    let lever = 1.5;
    assert!(worst[0] <= RECYCLE_ANGLE + 1e-5, "normal {}", worst[0]);
    assert!(
        worst[1] <= RECYCLE_TRANSLATION + RECYCLE_ANGLE * lever + 1e-5,
        "depth {}",
        worst[1]
    );
    assert!(
        worst[2] <= 2.0 * (RECYCLE_TRANSLATION + RECYCLE_ANGLE * lever) + 1e-5,
        "point {}",
        worst[2]
    );
}

#[test]
fn with_recycling_off_every_contact_is_the_fresh_one() {
    let mut world = scenes::mixed(600, 4);
    world.set_contact_recycling(false);
    assert!(!world.contact_recycling());
    let mut narrow = CpuNarrowPhase::new();
    let mut at = Vec::new();
    for _ in 0..200 {
        at = world.colliders().to_vec();
        let stats = world.step(1.0 / 60.0, &mut narrow).unwrap();
        assert_eq!(stats.recycled, 0);
    }
    assert!(world.collider_contacts().len() > 300);
    for c in world.collider_contacts() {
        assert_eq!(Some(c.manifold), fresh(&world, &at, c));
    }
}
