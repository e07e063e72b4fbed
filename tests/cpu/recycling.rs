//! Contact recycling: a pair that has barely moved keeps its manifold. Over a falling and
//! settling pile, every contact the world reports stays within a stated bound of the one the
//! narrow phase would compute afresh; with recycling off, they are the fresh ones exactly.

use wgpu_sat::{
    Collider, Contact, CpuNarrowPhase, World, collision::collide_shapes_speculative, scenes,
    world::RECYCLE_ANGLE, world::RECYCLE_TRANSLATION, world::SPECULATIVE_DISTANCE,
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

/// Whether `c` is between a circle and another piece (ids with a circle's 0xff slot).
fn with_circle(c: &Contact) -> bool {
    c.manifold
        .points()
        .iter()
        .any(|p| (p.id >> 8) & 0xff == 0xff)
}

/// The lever of the bound: the mixed scene's pieces reach about 1.5 units from their frames.
const LEVER: f32 = 1.5;

/// The bound: B turned at most RECYCLE_ANGLE in A's frame since the manifold was computed,
/// and its side of each point moved at most RECYCLE_TRANSLATION. The normal turns with B's
/// face at most by the angle. B's side of each point is carried along exactly (to first
/// order); what stays off is where a clipped end lies along A's face, which moves with B's
/// slide: a point's depth and position are off by less than the translation plus the angle
/// times the point's lever from B's frame. Returned as (normal, depth, point).
fn bound() -> [f32; 3] {
    let off = RECYCLE_TRANSLATION + RECYCLE_ANGLE * LEVER;
    [RECYCLE_ANGLE + 1e-5, off + 1e-5, 2.0 * off + 1e-5]
}

/// The differences between the manifolds `c` and `f` as (depth of the manifold or of any
/// point, position of any point), points paired by feature id.
fn point_differences(c: &wgpu_sat::Manifold, f: &wgpu_sat::Manifold) -> [f32; 2] {
    let mut worst = [(f.depth - c.depth).abs(), 0.0f32];
    for p in c.points() {
        // Points pair up by feature id; a point the fresh manifold dropped (or gained)
        // sits at the edge of the speculative distance.
        if let Some(q) = f.points().iter().find(|q| q.id == p.id) {
            worst[0] = worst[0].max((p.depth - q.depth).abs());
            worst[1] = worst[1].max(p.point.distance(q.point));
        }
    }
    worst
}

/// Whether the narrow phase itself jumps near the poses `at`: whether some pose of B within
/// the recycling bounds (moved by RECYCLE_TRANSLATION along either axis, or turned by
/// RECYCLE_ANGLE) gives a fresh manifold within the bound of `c`'s. At a tie between the two
/// polygons' reference faces the narrow phase picks a face by a hair, and with nearly
/// parallel faces whose ends overlap, the one clipped point lands millimetres from the other
/// face's (same ids); a manifold kept on one side of the tie and checked on the other is then
/// as far from the fresh one as the narrow phase is from itself.
fn narrow_phase_jumps_nearby(world: &World, at: &[Collider], c: &Contact) -> bool {
    let (a, b) = (&at[c.a as usize], &at[c.b as usize]);
    let (t, r) = (RECYCLE_TRANSLATION, RECYCLE_ANGLE);
    let moves = [
        (t, 0.0, 0.0),
        (-t, 0.0, 0.0),
        (0.0, t, 0.0),
        (0.0, -t, 0.0),
        (0.0, 0.0, r),
        (0.0, 0.0, -r),
    ];
    moves.iter().any(|&(x, y, turn)| {
        let near = wgpu_sat::Transform::new(
            b.transform.translation() + glam::Vec2::new(x, y),
            b.transform.angle() + turn,
        );
        let m = collide_shapes_speculative(
            &world.shapes()[a.shape as usize],
            &a.transform,
            &world.shapes()[b.shape as usize],
            &near,
            SPECULATIVE_DISTANCE,
        );
        m.is_some_and(|m| {
            let [depth, point] = point_differences(&c.manifold, &m);
            depth <= bound()[1] && point <= bound()[2]
        })
    })
}

/// The largest differences between the world's contacts and fresh ones at the poses `at`:
/// (normal, depth of any point, position of any point), and how many contacts name other
/// features than their fresh twin. A contact with a circle is never recycled (a circle's
/// normal turns as the other piece slides along it): it must be the fresh one exactly.
fn worst_difference(world: &World, at: &[Collider]) -> ([f32; 3], usize) {
    let mut worst = [0.0f32; 3];
    let mut changed = 0;
    for c in world.collider_contacts() {
        let f = fresh(world, at, c);
        if with_circle(c) {
            assert_eq!(Some(c.manifold), f, "a contact with a circle was recycled");
            continue;
        }
        let Some(f) = f else {
            // Only a contact at the edge of the speculative distance may have slipped out.
            assert!(
                c.manifold.depth < -(SPECULATIVE_DISTANCE - 4.0 * RECYCLE_TRANSLATION),
                "a recycled contact of depth {} has no fresh twin",
                c.manifold.depth
            );
            continue;
        };
        // Between polygons the ids stay when the other polygon's face becomes the reference
        // (see ContactPoint::id): the two faces' separations were then within the tie
        // tolerance, and the normal jumps between them with the depth barely changing (the
        // depths are checked below). Such a jump counts as a change of features, as does a
        // fresh manifold on other features (its own choice jumps there): the normal is
        // compared only where the features are the same.
        let ids = |m: &wgpu_sat::Manifold| {
            let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
            ids.sort_unstable();
            ids
        };
        let turned = (f.normal - c.manifold.normal).length();
        let [depth, point] = point_differences(&c.manifold, &f);
        if ids(&f) != ids(&c.manifold) || turned > bound()[0] {
            changed += 1;
        } else if (depth > bound()[1] || point > bound()[2])
            && narrow_phase_jumps_nearby(world, at, c)
        {
            // The same features, but the narrow phase's own tie moved the point: a change
            // of the same kind (counted, and held to the same rarity).
            changed += 1;
            continue;
        } else {
            worst[0] = worst[0].max(turned);
        }
        worst[1] = worst[1].max(depth);
        worst[2] = worst[2].max(point);
    }
    (worst, changed)
}

/// Steps `world` 400 times from its start, checking every step's contacts against fresh
/// ones, and checks the bound; returns (pairs recycled, candidate pairs) over steps 200..400.
fn settle_within_the_bound(name: &str, mut world: World) -> (usize, usize) {
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
        "{name}: steps 200..400: {recycled} of {pairs} pairs recycled; over 400 steps \
         {changed} of {contacts} contacts on other features than fresh; worst normal \
         {:.2e}, depth {:.2e}, point {:.2e}",
        worst[0], worst[1], worst[2]
    );
    assert!(
        changed * 200 < contacts,
        "{name}: features changed in {changed} of {contacts}"
    );
    let [normal, depth, point] = bound();
    assert!(worst[0] <= normal, "{name}: normal {}", worst[0]);
    assert!(worst[1] <= depth, "{name}: depth {}", worst[1]);
    assert!(worst[2] <= point, "{name}: point {}", worst[2]);
    (recycled, pairs)
}

#[test]
fn recycled_manifolds_stay_within_the_bound_of_fresh_ones() {
    // Circles, convex and concave pieces: the bound, and circles never recycled.
    let (recycled, _) = settle_within_the_bound("mixed", scenes::mixed(1_000, 3));
    assert!(recycled > 10_000, "the mixed pile recycled {recycled}");
    // Convex polygons only: most pairs of a settling pile are recycled.
    let (recycled, pairs) = settle_within_the_bound("pile", scenes::pile(1_000, 3));
    assert!(
        recycled * 2 > pairs,
        "a settling pile should recycle most pairs: {recycled} of {pairs}"
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
