//! Unit tests of `colouring.rs`: the shuffle, and the colouring's invariants.
use super::*;

#[test]
fn the_shuffle_is_a_permutation_and_draws_every_order_about_equally() {
    use std::collections::HashMap;
    let mut items: Vec<u32> = (0..1000).collect();
    shuffle(&mut items, VISIT_SEED);
    let mut sorted = items.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
    assert!(
        items
            .iter()
            .enumerate()
            .filter(|&(k, &i)| k == i as usize)
            .count()
            < 10
    );
    // 24,000 seeds over the 24 orders of four items: about 1,000 each, give or take 31
    // (binomial); five of those either way.
    let mut counts: HashMap<[u32; 4], u32> = HashMap::new();
    for seed in 0..24_000 {
        let mut four = [0, 1, 2, 3];
        shuffle(&mut four, seed * 0x1_0000);
        *counts.entry(four).or_default() += 1;
    }
    assert_eq!(counts.len(), 24);
    for (order, count) in counts {
        assert!(
            (845..=1155).contains(&count),
            "{order:?} drawn {count} times"
        );
    }
}

/// Constraints keyed by their own body pair (for lists that ascend, as keys must to be
/// matched with last step's).
fn keyed(pairs: &[[u32; 2]]) -> impl Iterator<Item = ([u32; 2], [u32; 2])> + '_ {
    pairs.iter().map(|&p| (p, p))
}

/// Each constraint's colour (`None` for the overflow or none), from the groups.
fn colours_of(graph: &ConstraintGraph, count: usize) -> Vec<Option<usize>> {
    let mut colours = vec![None; count];
    for (colour, range) in graph.colour_groups.iter().enumerate() {
        for lanes in &graph.groups[range.clone()] {
            for &i in lanes.iter().filter(|&&i| i != NO_INDEX) {
                colours[i as usize] = Some(colour);
            }
        }
    }
    colours
}

/// Checks the colouring's promise: within a colour, no moving body appears twice, every
/// constraint appears exactly once, and within a colour constraints keep contact order.
fn check(pairs: &[[u32; 2]], bodies: usize, moves: impl Fn(u32) -> bool + Copy) {
    let mut graph = ConstraintGraph::default();
    graph.colour(bodies, keyed(pairs), std::iter::empty(), moves);
    check_graph(&graph, pairs, bodies, moves);
}

/// [`check`] of a graph that has coloured `pairs` last.
fn check_graph(
    graph: &ConstraintGraph,
    pairs: &[[u32; 2]],
    bodies: usize,
    moves: impl Fn(u32) -> bool + Copy,
) {
    let mut seen = vec![0; pairs.len()];
    for range in &graph.colour_groups {
        let mut used = vec![false; bodies];
        let mut last = None;
        for lanes in &graph.groups[range.clone()] {
            for &i in lanes.iter().filter(|&&i| i != NO_INDEX) {
                seen[i as usize] += 1;
                assert!(last < Some(i), "colour out of contact order");
                last = Some(i);
                for body in pairs[i as usize] {
                    if moves(body) {
                        assert!(!used[body as usize], "body {body} twice in a colour");
                        used[body as usize] = true;
                    }
                }
            }
        }
    }
    for lanes in &graph.groups[graph.overflow_groups.clone()] {
        assert_eq!(lanes[1..], [NO_INDEX; LANES - 1]);
        seen[lanes[0] as usize] += 1;
    }
    for (i, &n) in seen.iter().enumerate() {
        let [a, b] = pairs[i];
        // Every constraint with a moving body once; one between still bodies never.
        let wanted = usize::from(moves(a) || moves(b));
        assert_eq!(n, wanted, "constraint {i} placed {n} times");
    }
}

#[test]
fn a_colour_never_holds_a_moving_body_twice() {
    // A chain 0-1-2-...-9 on a static body 10 touching all of them.
    let mut pairs: Vec<[u32; 2]> = (0..9).map(|i| [i, i + 1]).collect();
    pairs.extend((0..10).map(|i| [i, 10]));
    check(&pairs, 11, |b| b != 10);
}

#[test]
fn a_body_in_more_constraints_than_colours_overflows() {
    // Body 0 touches 30 others: 24 colours, then 6 in the overflow.
    let pairs: Vec<[u32; 2]> = (1..31).map(|i| [0, i]).collect();
    let mut graph = ConstraintGraph::default();
    graph.colour(31, keyed(&pairs), std::iter::empty(), |_| true);
    assert_eq!(graph.colour_groups.len(), COLOUR_COUNT);
    assert_eq!(graph.overflow_groups.len(), 30 - COLOUR_COUNT);
    check(&pairs, 31, |_| true);
}

#[test]
fn constraints_between_still_bodies_are_left_out() {
    // Bodies 1 and 2 asleep on static 0; body 3 moves on 0 and 2 (waking is the
    // world's business: here 2 stays still).
    let pairs = [[0, 1], [0, 2], [1, 2], [0, 3], [2, 3]];
    let moves = |b: u32| b == 3;
    let mut graph = ConstraintGraph::default();
    graph.colour(4, keyed(&pairs), std::iter::empty(), moves);
    let placed: usize = graph.groups[..]
        .iter()
        .map(|g| g.iter().filter(|&&i| i != NO_INDEX).count())
        .sum();
    assert_eq!(placed, 2);
    check(&pairs, 4, moves);
}

#[test]
fn colours_persist_and_only_new_constraints_are_coloured_again() {
    // A grid of 200 bodies, each touching its right and upper neighbours.
    let index = |x: u32, y: u32| y * 20 + x;
    let mut pairs = Vec::new();
    for y in 0..10 {
        for x in 0..20 {
            if x + 1 < 20 {
                pairs.push([index(x, y), index(x + 1, y)]);
            }
            if y + 1 < 10 {
                pairs.push([index(x, y), index(x, y + 1)]);
            }
        }
    }
    pairs.sort();
    let mut graph = ConstraintGraph::default();
    graph.colour(200, keyed(&pairs), std::iter::empty(), |_| true);
    let first = colours_of(&graph, pairs.len());
    // The same list again: every colour stays.
    graph.colour(200, keyed(&pairs), std::iter::empty(), |_| true);
    assert_eq!(colours_of(&graph, pairs.len()), first);
    // Every third constraint gone, and a body in the middle (47) touching eight more.
    let mut next: Vec<[u32; 2]> = pairs.iter().copied().step_by(3).collect();
    next.extend((150..158).map(|b| [47, b]));
    next.sort();
    next.dedup();
    graph.colour(200, keyed(&next), std::iter::empty(), |_| true);
    check_graph(&graph, &next, 200, |_| true);
    let second = colours_of(&graph, next.len());
    let mut kept = 0;
    for (i, pair) in next.iter().enumerate() {
        if let Ok(old) = pairs.binary_search(pair) {
            // Taking away constraints frees colours and never takes one.
            assert_eq!(second[i], first[old], "constraint {pair:?} changed colour");
            kept += 1;
        }
    }
    assert!(kept > 100, "{kept} constraints carried over");
}

#[test]
fn an_old_colour_taken_by_a_kept_constraint_is_given_up() {
    // While body 1 is still, its constraints need no colour for it: 0-1 and 1-2 share
    // colour 0.
    let pairs = [[0, 1], [1, 2]];
    let mut graph = ConstraintGraph::default();
    graph.colour(3, keyed(&pairs), std::iter::empty(), |b| b != 1);
    assert_eq!(colours_of(&graph, 2), vec![Some(0), Some(0)]);
    // Body 1 moves again: 0-1 keeps colour 0, and 1-2 finds it taken and takes another.
    graph.colour(3, keyed(&pairs), std::iter::empty(), |_| true);
    assert_eq!(colours_of(&graph, 2), vec![Some(0), Some(1)]);
    check_graph(&graph, &pairs, 3, |_| true);
}

#[test]
fn joints_take_colours_with_the_contacts_and_keep_them() {
    // A chain of joints 0-1-...-9 hung from static body 10, and contacts between
    // every other neighbour: a colour holds no moving body twice, counting both.
    let joints: Vec<(u32, [u32; 2])> = (0..10)
        .map(|i| (i, if i == 0 { [10, 0] } else { [i - 1, i] }))
        .collect();
    let contacts: Vec<[u32; 2]> = (0..8).step_by(2).map(|i| [i, i + 2]).collect();
    let moves = |b: u32| b != 10;
    let mut graph = ConstraintGraph::default();
    graph.colour(11, keyed(&contacts), joints.iter().copied(), moves);
    let mut seen = vec![0; joints.len()];
    let mut colours = Vec::new();
    for (colour, range) in graph.colour_joints.iter().enumerate() {
        let mut used = [false; 11];
        let groups = &graph.groups[graph.colour_groups[colour].clone()];
        let contact_bodies = groups
            .iter()
            .flatten()
            .filter(|&&i| i != NO_INDEX)
            .flat_map(|&i| contacts[i as usize]);
        let joint_slots = &graph.joint_order[range.clone()];
        assert!(
            joint_slots.windows(2).all(|w| w[0] < w[1]),
            "slots out of order"
        );
        let joint_bodies = joint_slots.iter().flat_map(|&j| joints[j as usize].1);
        for body in contact_bodies.chain(joint_bodies).filter(|&b| moves(b)) {
            assert!(!used[body as usize], "body {body} twice in colour {colour}");
            used[body as usize] = true;
        }
        for &j in joint_slots {
            seen[j as usize] += 1;
            colours.push((j, colour));
        }
    }
    assert!(graph.overflow_joints.is_empty());
    assert_eq!(seen, vec![1; joints.len()]);
    // Neighbouring joints share a body: at least two colours between them.
    assert!(graph.colour_joints.iter().filter(|r| !r.is_empty()).count() >= 2);

    // One contact more: the joints keep their colours.
    let mut more = contacts.clone();
    more.push([8, 9]);
    graph.colour(11, keyed(&more), joints.iter().copied(), moves);
    for (j, colour) in colours {
        assert!(
            graph.joint_order[graph.colour_joints[colour].clone()].contains(&j),
            "joint {j} left colour {colour}"
        );
    }
}

#[test]
fn static_bodies_do_not_take_colours() {
    // Eight bodies on one static ground: one colour holds them all, two groups of four.
    let pairs: Vec<[u32; 2]> = (1..9).map(|i| [0, i]).collect();
    let mut graph = ConstraintGraph::default();
    graph.colour(9, keyed(&pairs), std::iter::empty(), |b| b != 0);
    assert_eq!(graph.colour_groups, vec![0..2]);
    assert!(graph.overflow_groups.is_empty());
}
