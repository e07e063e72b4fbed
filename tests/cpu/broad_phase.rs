//! Sweep-and-prune against an O(n²) check.

use crate::common;

use rand::Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{Aabb, BroadPhase};

fn brute_force(aabbs: &[Aabb]) -> Vec<[u32; 2]> {
    let mut pairs = Vec::new();
    for i in 0..aabbs.len() {
        for j in i + 1..aabbs.len() {
            if aabbs[i].overlaps(&aabbs[j]) {
                pairs.push([i as u32, j as u32]);
            }
        }
    }
    pairs
}

fn random_boxes(rng: &mut impl Rng, n: usize, extent: f32) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let c = Vec2::new(
                rng.random_range(-extent..extent),
                rng.random_range(-extent..extent),
            );
            let h = Vec2::new(rng.random_range(0.1..1.0), rng.random_range(0.1..1.0));
            Aabb::new(c - h, c + h)
        })
        .collect()
}

#[test]
fn matches_brute_force_on_random_boxes() {
    let mut rng = common::rng(5);
    // One broad phase through pools of several sizes: the sweep and the sorts split their
    // work by the thread count (3 and 5 split it unevenly), and the scratch of one size
    // is reused by the next.
    let mut bp = BroadPhase::new();
    for threads in [1, 2, 3, 5] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a small pool builds");
        for n in [0, 1, 2, 10, 300, 2000] {
            let boxes = random_boxes(&mut rng, n, 20.0);
            let expected = brute_force(&boxes);
            let found = pool.install(|| bp.find_pairs(&boxes).to_vec());
            assert_eq!(found, expected, "{n} boxes, {threads} threads");
            if n == 2000 {
                assert!(expected.len() > 1000);
            }
        }
    }
}

#[test]
fn touching_boxes_are_pairs() {
    // Unit boxes on an integer grid: every neighbour, diagonal ones included, only touches.
    let boxes: Vec<Aabb> = (0..5)
        .flat_map(|x| (0..4).map(move |y| (x, y)))
        .map(|(x, y)| {
            let min = Vec2::new(x as f32, y as f32);
            Aabb::new(min, min + Vec2::ONE)
        })
        .collect();
    let pairs = BroadPhase::new().find_pairs(&boxes).to_vec();
    assert_eq!(pairs, brute_force(&boxes));
    // 5 x 4 grid: 3*5 vertical + 4*4 horizontal + 2*4*3 diagonal neighbours.
    assert_eq!(pairs.len(), 15 + 16 + 24);
    assert!(
        pairs.windows(2).all(|w| w[0] < w[1]),
        "ascending, no duplicates"
    );
    assert!(pairs.iter().all(|[a, b]| a < b));
}

#[test]
fn moving_boxes_stay_right_across_frames() {
    let mut rng = common::rng(9);
    let mut boxes = random_boxes(&mut rng, 1500, 25.0);
    let mut bp = BroadPhase::new();
    for frame in 0..40 {
        // Small moves use the incremental re-sort; every tenth frame scrambles everything.
        let step = if frame % 10 == 9 { 30.0 } else { 0.2 };
        for b in &mut boxes {
            let d = Vec2::new(rng.random_range(-step..step), rng.random_range(-step..step));
            *b = Aabb::new(b.min + d, b.max + d);
        }
        assert_eq!(
            bp.find_pairs(&boxes),
            brute_force(&boxes).as_slice(),
            "frame {frame}"
        );
    }
    // A different number of boxes.
    boxes.truncate(700);
    assert_eq!(bp.find_pairs(&boxes), brute_force(&boxes).as_slice());
}

#[test]
fn buffers_are_reused_between_calls() {
    let mut rng = common::rng(2);
    let boxes = random_boxes(&mut rng, 500, 10.0);
    let mut bp = BroadPhase::new();
    let first = bp.find_pairs(&boxes).as_ptr();
    let second = bp.find_pairs(&boxes).as_ptr();
    assert_eq!(
        first, second,
        "the pair buffer was reallocated on a warm call"
    );
}

#[test]
fn a_nan_box_overlaps_nothing() {
    let mut boxes = vec![
        Aabb::new(Vec2::ZERO, Vec2::ONE),
        Aabb::new(Vec2::splat(0.5), Vec2::splat(1.5)),
        Aabb::new(Vec2::new(f32::NAN, 0.0), Vec2::new(1.0, 1.0)),
    ];
    assert_eq!(BroadPhase::new().find_pairs(&boxes), &[[0, 1]]);
    boxes.swap(0, 2);
    assert_eq!(BroadPhase::new().find_pairs(&boxes), &[[1, 2]]);
}
