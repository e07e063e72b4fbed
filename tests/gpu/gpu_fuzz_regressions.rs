//! The fuzz harness's `gpu` findings, each reduced to the input that showed it: the WGSL
//! twins lacked the range fixes the CPU got (tests/cpu/fuzz_regressions.rs), so the GPU
//! answered where the CPU says None, or the other way round. Each test runs the input on
//! both backends and asks for the CPU's answer; each failed before the kernels were ported.

use crate::common;

use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    Circle, Collider, CpuNarrowPhase, GpuNarrowPhase, NarrowPhase, Polygon, Shape, Sweep,
    Transform, collision::toi::SweptCollider, collision::toi::time_of_impact_pairs,
    gpu::GpuTimeOfImpact,
};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// One backend's answers to a batch of time-of-impact pairs.
type Hits = Vec<Option<wgpu_sat::collision::toi::TimeOfImpact>>;

/// Both backends' times of impact for pairs of sweeps: (CPU, GPU).
fn both_toi(
    shapes: &[Shape],
    sweeps: &[SweptCollider],
    pairs: &[[u32; 2]],
) -> Option<(Hits, Hits)> {
    let (device, queue) = common::gpu()?;
    let mut toi = GpuTimeOfImpact::new(&device, &queue).unwrap();
    toi.set_shape_table(shapes).unwrap();
    let gpu = toi.time_of_impact_pairs(sweeps, pairs).unwrap();
    let cpu = time_of_impact_pairs(shapes, sweeps, pairs).unwrap();
    Some((cpu, gpu))
}

/// gpu (seed 1, input 429): a box swept from x = -f32::MAX to +f32::MAX. The CPU says None
/// (the motion does not fit in f32); the kernel "hit" at t = 0 with a separation of
/// -3.4e38.
#[test]
fn a_motion_beyond_f32_range_has_no_time_of_impact_on_the_gpu() {
    let shapes = [
        Shape::Polygon(Polygon::rectangle(0.5, 0.5)),
        Shape::Circle(Circle::new(4.274136).unwrap()),
    ];
    let sweeps = [
        SweptCollider {
            shape: 0,
            sweep: Sweep {
                local_center: v(7.6241703, 6e-45),
                c0: v(-3.4028235e38, -0.2037077),
                c1: v(3.4028235e38, -7.0),
                a0: -7.729763,
                a1: -3.0,
            },
        },
        SweptCollider {
            shape: 1,
            sweep: Sweep {
                local_center: Vec2::ZERO,
                c0: Vec2::ZERO,
                c1: v(-2.690547, 4.2314034),
                a0: 1.7354393,
                a1: 9.247913,
            },
        },
    ];
    let Some((cpu, gpu)) = both_toi(&shapes, &sweeps, &[[0, 1], [1, 0]]) else {
        return;
    };
    assert_eq!(cpu, vec![None, None]);
    assert_eq!(gpu, cpu);
}

/// A start angle far from zero (f32 angles 2 radians apart near 2.7e7): the CPU brings it
/// into (-pi, pi] first; the kernel must too, or its pose jumps instead of turning. The
/// same input as `a_sweep_from_a_huge_start_angle_stops_before_overlap` on the CPU.
#[test]
fn a_huge_start_angle_turns_the_same_on_the_gpu() {
    let shapes = [
        Shape::Circle(Circle::new(0.89271224).unwrap()),
        Shape::Polygon(Polygon::rectangle(0.5, 0.5)),
    ];
    let sweeps = [
        SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&Transform::new(Vec2::ZERO, -2.841413)),
        },
        SweptCollider {
            shape: 1,
            sweep: Sweep {
                local_center: v(4.110628, -9.286489),
                c0: v(8.603495, 7.7666893),
                c1: v(-4.760874e-5, -1.7329674),
                a0: -27336612.0,
                a1: 4.027009,
            },
        },
    ];
    let Some((cpu, gpu)) = both_toi(&shapes, &sweeps, &[[0, 1]]) else {
        return;
    };
    let tol = wgpu_sat::collision::toi::toi_tolerance(
        &shapes[0],
        &sweeps[0].sweep,
        &shapes[1],
        &sweeps[1].sweep,
    );
    match (cpu[0], gpu[0]) {
        (Some(c), Some(g)) => {
            assert!((c.t - g.t).abs() <= 1e-4, "cpu {c:?}, gpu {g:?}");
            assert!(g.separation >= -tol, "gpu {g:?}, tolerance {tol}");
        }
        (c, g) => assert_eq!(c, g, "tolerance {tol}"),
    }
}

/// Both backends' contacts for one pair.
fn both_contacts(
    shapes: &[Shape],
    colliders: &[Collider],
) -> Option<(Vec<wgpu_sat::Contact>, Vec<wgpu_sat::Contact>)> {
    let (device, queue) = common::gpu()?;
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shape_table(shapes).unwrap();
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shape_table(shapes).unwrap();
    let pairs = [[0, 1], [1, 0]];
    Some((
        cpu.collide_pairs(colliders, &pairs).unwrap(),
        gpu.collide_pairs(colliders, &pairs).unwrap(),
    ))
}

/// gpu (seed 1, input 900): two circles of radius 1.4e38 whose centres are 7e36 apart. The
/// CPU (lengths scaled before squaring) found a contact of depth 2.6e38; the kernel squared
/// the offset to infinity and found none.
#[test]
fn huge_circles_meet_on_the_gpu_as_on_the_cpu() {
    let shapes = [Shape::Circle(Circle::new(1.3568688e38).unwrap())];
    let rotation = v(0.853021, 0.5218765);
    let colliders = [
        Collider {
            shape: 0,
            transform: Transform::from_rotation(v(-0.5568018, 7.12322e36), rotation),
        },
        Collider {
            shape: 0,
            transform: Transform::from_rotation(v(0.30125904, -1.0216067), rotation),
        },
    ];
    let Some((cpu, gpu)) = both_contacts(&shapes, &colliders) else {
        return;
    };
    assert_eq!(cpu.len(), 2, "{cpu:?}");
    assert_eq!(gpu.len(), 2, "cpu {cpu:?}, gpu {gpu:?}");
    for (c, g) in cpu.iter().zip(&gpu) {
        assert_eq!((c.a, c.b), (g.a, g.b));
        let (mc, mg) = (&c.manifold, &g.manifold);
        assert!(
            (mc.depth - mg.depth).abs() <= 1e-5 * mc.depth,
            "{mc:?}, {mg:?}"
        );
        assert!((mc.normal - mg.normal).length() <= 1e-5, "{mc:?}, {mg:?}");
    }
}

/// A contact beyond f32's range is no contact on the GPU either (Manifold::finite's twin):
/// a circle whose placed centre lies past f32::MAX (collide, seed 1, input 538).
#[test]
fn a_contact_beyond_f32_range_is_none_on_the_gpu() {
    let shapes = [
        Shape::Circle(Circle::with_center(v(3.4028235e38, 7.064163), 3.711723).unwrap()),
        Shape::Polygon(Polygon::rectangle(0.7177798, 0.13210346)),
    ];
    let colliders = [
        Collider {
            shape: 0,
            transform: Transform::from_rotation(
                v(-3.4028235e38, 1.4334406e17),
                v(-0.97060424, -0.24068122),
            ),
        },
        Collider {
            shape: 1,
            transform: Transform::from_rotation(Vec2::ZERO, v(0.7709463, 0.6369001)),
        },
    ];
    let Some((cpu, gpu)) = both_contacts(&shapes, &colliders) else {
        return;
    };
    assert!(cpu.is_empty(), "{cpu:?}");
    assert!(gpu.is_empty(), "{gpu:?}");
}

/// gpu (seed 1, input 2665): a box starting at -5.5e28 radians against one at rest it
/// overlaps. The CPU reduces the start angle with an exact sine and cosine; the kernel's
/// (WGSL's are specified only within [-pi, pi]) gave another start pose, apart by 0.28 where
/// the CPU's overlapped by 0.17. The host now reduces it before the upload.
#[test]
fn a_start_angle_of_1e28_is_the_same_pose_on_the_gpu() {
    let shapes = [Shape::Polygon(Polygon::rectangle(0.5, 0.5))];
    let sweeps = [
        SweptCollider {
            shape: 0,
            sweep: Sweep {
                local_center: v(-6.567051e-39, -1.2672615),
                c0: v(-3.0, 1.1754944e-38),
                c1: v(-1.590614e-22, -38598.527),
                a0: -5.4679847e28,
                a1: -5.0,
            },
        },
        SweptCollider {
            shape: 0,
            sweep: Sweep::fixed(&Transform::new(v(-2.8649576, -1.8049439), -1.2831852)),
        },
    ];
    let Some((cpu, gpu)) = both_toi(&shapes, &sweeps, &[[0, 1]]) else {
        return;
    };
    // With the crate's own sine (an exact remainder modulo 2 pi first, `wgpu_sat::math`)
    // the start pose touches at once (t of order 1e-31); the point is that both sides start
    // from the same pose and so meet at the same t.
    let (c, g) = (cpu[0].expect("touching at the start"), gpu[0]);
    let g = g.unwrap_or_else(|| panic!("cpu {c:?}, gpu None"));
    assert!(c.t < 1e-20, "cpu {c:?}");
    // The same t on lavapipe; a hardware GPU that fuses the kernel's sums rounds it apart
    // (an NVIDIA H200: 3.623809e-31 against 3.623821e-31), where the old start pose was
    // another pose altogether.
    if common::adapter_gives_cpu_bits() {
        assert_eq!(c.t, g.t, "cpu {c:?}, gpu {g:?}");
    } else {
        assert!((c.t - g.t).abs() <= 1e-4 * c.t, "cpu {c:?}, gpu {g:?}");
    }
    assert!(
        (c.separation - g.separation).abs() <= 1e-4,
        "cpu {c:?}, gpu {g:?}"
    );
}

/// gpu (seed 1, input 4851): a heptagon turning 4.6e36 radians in one step against one
/// whose centre of rotation lies 1.5e28 away. Far outside [-pi, pi] the software adapter's
/// sine and cosine were both near 1, a "rotation" sqrt(2) long, and the result's normal was
/// 1.41 long. The pair is made unit again in `transform_at`.
#[test]
fn a_huge_turn_keeps_a_unit_normal_on_the_gpu() {
    let shapes = [Shape::Polygon(Polygon::regular(7, 4.9395747).unwrap())];
    let sweeps = [
        SweptCollider {
            shape: 0,
            sweep: Sweep {
                local_center: v(1.5278949e28, -2.9192038),
                c0: v(-1.1754944e-38, 6.1293964),
                c1: v(-0.0, -1.1754944e-38),
                a0: -9.921259e-14,
                a1: 5.9209585,
            },
        },
        SweptCollider {
            shape: 0,
            sweep: Sweep {
                local_center: v(1.942626, -5.0),
                c0: v(-2.6289768, -3e-45),
                c1: v(-1.4e-44, -3.00033e-13),
                a0: 6.719921,
                a1: 4.619679e36,
            },
        },
    ];
    let Some((cpu, gpu)) = both_toi(&shapes, &sweeps, &[[0, 1], [1, 0]]) else {
        return;
    };
    assert!(gpu.iter().any(Option::is_some), "cpu {cpu:?}, gpu {gpu:?}");
    for hit in gpu.iter().flatten() {
        let length = hit.normal.length();
        assert!((length - 1.0).abs() <= 1e-4, "gpu {hit:?}, cpu {cpu:?}");
        assert!((0.0..=1.0).contains(&hit.t), "gpu {hit:?}");
    }
}
