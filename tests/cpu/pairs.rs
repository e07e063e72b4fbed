//! The world's persistent pairs (fat boxes, an incremental broad phase): no contact is lost
//! to them, and a settled world leaves its broad phase alone.

use wgpu_sat::{
    CpuNarrowPhase, NarrowPhase, World, collision::collide_shapes_speculative, scenes,
    world::SPECULATIVE_DISTANCE,
};

/// Every contact the narrow phase finds among all collider pairs (of two bodies, not both
/// static) at the colliders' poses `at` whose boxes, grown by half the speculative distance,
/// overlap, in ascending pair order: the broad phase's answer by brute force.
///
/// (The box test is the broad phase's contract (`StepStats::pairs`), not a shortcut: the
/// narrow phase may report two corners as a speculative contact when their separation
/// along a face normal is under the speculative distance while the boxes are farther apart,
/// a face's plane running on past its corner towards the other piece.)
fn all_contacts(world: &World, at: &[wgpu_sat::Collider]) -> Vec<wgpu_sat::Contact> {
    let boxes: Vec<_> = at
        .iter()
        .map(|c| {
            world.shapes()[c.shape as usize]
                .aabb(&c.transform)
                .expanded(0.5 * SPECULATIVE_DISTANCE)
        })
        .collect();
    // Nothing is removed in these worlds, so every collider slot is live.
    let body = |slot: usize| {
        let collider = world.collider_id(slot).expect("a live collider slot");
        world.collider_body(collider).expect("its body")
    };
    let mut contacts = Vec::new();
    for a in 0..at.len() {
        for b in a + 1..at.len() {
            let (body_a, body_b) = (body(a), body(b));
            if body_a == body_b
                || (world.is_static(body_a) && world.is_static(body_b))
                || !boxes[a].overlaps(&boxes[b])
            {
                continue;
            }
            let (ca, cb) = (&at[a], &at[b]);
            if let Some(manifold) = collide_shapes_speculative(
                &world.shapes()[ca.shape as usize],
                &ca.transform,
                &world.shapes()[cb.shape as usize],
                &cb.transform,
                SPECULATIVE_DISTANCE,
            ) {
                contacts.push(wgpu_sat::Contact {
                    a: a as u32,
                    b: b as u32,
                    manifold,
                });
            }
        }
    }
    contacts
}

#[test]
fn the_persistent_pairs_find_every_contact_of_a_falling_pile() {
    // Recycling off, so each contact is the narrow phase's own and comparable bit for bit.
    let mut world = scenes::mixed(300, 7);
    world.set_contact_recycling(false);
    let mut narrow = CpuNarrowPhase::new();
    narrow
        .set_speculative_distance(SPECULATIVE_DISTANCE)
        .unwrap();
    let (mut quiet_colliders, mut moved_colliders, mut checked) = (0, 0, 0);
    for step in 0..240 {
        let at = world.colliders().to_vec();
        let stats = world.step(1.0 / 60.0, &mut narrow).unwrap();
        assert!(stats.persistent_pairs >= stats.pairs);
        // The statistics count what the world holds (the points are counted in the merge's
        // blocks, not from the list).
        let contacts = world.collider_contacts();
        assert_eq!(stats.contacts, contacts.len(), "step {step}");
        let points: usize = contacts.iter().map(|c| c.manifold.points().len()).sum();
        assert_eq!(stats.contact_points, points, "step {step}");
        if step > 0 {
            moved_colliders += stats.proxy_moves;
            quiet_colliders += stats.colliders - stats.proxy_moves;
        }
        if step % 8 == 0 {
            let expected = all_contacts(&world, &at);
            let got = world.collider_contacts();
            // The first contact that differs, not both lists (thousands of lines).
            if let Some(k) =
                (0..got.len().max(expected.len())).find(|&k| got.get(k) != expected.get(k))
            {
                panic!(
                    "step {step}: {} contacts, brute force {}; the first that differs: {:?} \
                     against {:?}",
                    got.len(),
                    expected.len(),
                    got.get(k),
                    expected.get(k)
                );
            }
            checked += expected.len();
        }
    }
    eprintln!(
        "{checked} contacts checked; after the first step {moved_colliders} collider moves \
         out of fat boxes against {quiet_colliders} collider-steps inside them"
    );
    assert!(checked > 1000, "the pile should touch: {checked}");
    // A falling pile moves most of its colliders out of their fat boxes early on, and its
    // settling bodies then stay in them.
    assert!(moved_colliders > 0 && quiet_colliders > moved_colliders);
}

#[test]
fn a_settled_pyramid_moves_no_proxy_and_keeps_its_pairs() {
    let mut world = scenes::pyramid(20);
    let mut narrow = CpuNarrowPhase::new();
    let first = world.step(1.0 / 60.0, &mut narrow).unwrap();
    assert_eq!(
        first.proxy_moves, first.colliders,
        "the first step places every box"
    );
    let mut settled = Vec::new();
    for _ in 0..300 {
        settled.push(world.step(1.0 / 60.0, &mut narrow).unwrap());
    }
    let last = &settled[settled.len() - 100..];
    let moves: usize = last.iter().map(|s| s.proxy_moves).sum();
    assert_eq!(
        moves, 0,
        "a standing pyramid's boxes stay in their fat boxes"
    );
    assert!(
        last.iter()
            .all(|s| s.persistent_pairs == last[0].persistent_pairs && s.pairs > 0),
        "the pair set stays the same while nothing moves"
    );
}
