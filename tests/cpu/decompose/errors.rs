//! Error cases: each bad outline is an error naming the bad input.

use super::*;

#[test]
fn too_few_points() {
    assert_eq!(decompose(&[]), Err(ShapeError::TooFewVertices { count: 0 }));
    assert_eq!(
        decompose(&[v(0.0, 0.0), v(1.0, 0.0)]),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
}

#[test]
fn non_finite_point_is_named() {
    let mut l = pts(&L);
    l[4].y = f32::NAN;
    assert!(matches!(
        decompose(&l),
        Err(ShapeError::NotFinite { index: 4, .. })
    ));
    l[4].y = 2.0;
    l[2].x = f32::INFINITY;
    assert_eq!(
        decompose(&l),
        Err(ShapeError::NotFinite {
            index: 2,
            x: f32::INFINITY,
            y: 1.0
        })
    );
}

#[test]
fn repeated_points_are_named() {
    let mut l = pts(&L);
    l.insert(3, l[2]);
    assert_eq!(
        decompose(&l),
        Err(ShapeError::RepeatedPoint {
            first: 2,
            second: 3
        })
    );
    // Two triangles touching at one point: the outline visits (1, 1) twice.
    let bow = pts(&[
        (0.0, 0.0),
        (1.0, 1.0),
        (2.0, 0.0),
        (2.0, 2.0),
        (1.0, 1.0),
        (0.0, 2.0),
    ]);
    assert_eq!(
        decompose(&bow),
        Err(ShapeError::RepeatedPoint {
            first: 1,
            second: 4
        })
    );
    assert_eq!(
        decompose(&[v(1.0, 1.0); 3]),
        Err(ShapeError::RepeatedPoint {
            first: 0,
            second: 1
        })
    );
}

#[test]
fn flat_outlines_have_zero_area() {
    assert_eq!(
        decompose(&pts(&[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)])),
        Err(ShapeError::ZeroArea)
    );
    assert_eq!(
        decompose(&pts(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0)])),
        Err(ShapeError::ZeroArea)
    );
}

#[test]
fn bow_tie_is_self_intersecting() {
    let bow_tie = pts(&[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]);
    assert_eq!(
        decompose(&bow_tie),
        Err(ShapeError::SelfIntersecting {
            first: 0,
            second: 2
        })
    );
}

#[test]
fn spiral_whose_far_edges_cross_is_self_intersecting() {
    // Round the outer square, in along y = 2, up, left, then down across the first edge
    // (and edge 4) before closing at the start: edges 0 and 7 are far apart in the list.
    let spiral = pts(&[
        (0.0, 0.0),
        (6.0, 0.0),
        (6.0, 6.0),
        (0.0, 6.0),
        (0.0, 2.0),
        (4.0, 2.0),
        (4.0, 4.0),
        (2.0, 4.0),
        (2.0, -1.0),
    ]);
    assert_eq!(
        decompose(&spiral),
        Err(ShapeError::SelfIntersecting {
            first: 0,
            second: 7
        })
    );
    // Stop the last edge short of edge 0 (at y = 1): it still crosses edge 4.
    let mut shorter = spiral.clone();
    shorter[8] = v(2.0, 1.0);
    assert_eq!(
        decompose(&shorter),
        Err(ShapeError::SelfIntersecting {
            first: 4,
            second: 7
        })
    );
}

#[test]
fn vertex_touching_a_far_edge_is_self_intersecting() {
    // Point 3 sits on edge 0.
    let touching = pts(&[(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (2.0, 0.0), (0.0, 3.0)]);
    assert_eq!(
        decompose(&touching),
        Err(ShapeError::SelfIntersecting {
            first: 0,
            second: 2
        })
    );
}
