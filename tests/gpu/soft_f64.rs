//! The GPU world's joint angle through a wide turn (`shaders/soft_f64.wgsl`: f64 add,
//! multiply and divide on IEEE bits in two u32) against the host's `math::atan2` (in
//! native f64), input by input to the bit: random unit rotations at every angle, the
//! quadrant boundaries, zeros of both signs, points near the axes with subnormal
//! components, and points of other lengths. The kernel is integer arithmetic alone, so the
//! bits hold on every adapter.

use crate::common;

use rand::Rng;
use wgpu_sat::gpu::SOLVER_WGSL;
use wgpu_sat::math::atan2;

/// A probe entry point over the solver's module: `atan2_wide` of each input point.
const PROBE: &str = "
@group(1) @binding(0) var<storage, read> probe_in: array<vec2<f32>>;
@group(1) @binding(1) var<storage, read_write> probe_out: array<u32>;

@compute @workgroup_size(64)
fn atan2_probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < arrayLength(&probe_in) {
        let p = probe_in[i];
        probe_out[i] = bitcast<u32>(atan2_wide(p.y, p.x));
    }
}
";

/// The inputs: (x, y) points.
fn inputs() -> Vec<[f32; 2]> {
    let mut rng = common::rng(0xa7a2);
    let mut points = Vec::new();
    for _ in 0..200_000 {
        let angle: f32 = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
        points.push([angle.cos(), angle.sin()]);
    }
    for _ in 0..50_000 {
        let scale = 10f32.powi(rng.random_range(-30..30));
        points.push([
            scale * rng.random_range(-1.0..1.0),
            scale * rng.random_range(-1.0..1.0),
        ]);
    }
    let tiny = [
        f32::from_bits(1),
        f32::from_bits(0x0040_0000),
        f32::MIN_POSITIVE,
        1e-30,
    ];
    for &t in &tiny {
        for (x, y) in [
            (-1.0, t),
            (-1.0, -t),
            (t, 1.0),
            (-t, -1.0),
            (t, -t),
            (-t, t),
        ] {
            points.push([x, y]);
        }
    }
    for (x, y) in [
        (-1.0, 0.0),
        (-1.0, -0.0),
        (-0.0, 0.0),
        (-0.0, -0.0),
        (0.0, 1.0),
        (0.0, -1.0),
        (-0.0, 1.0),
        (1.0, 1.0),
        (-1.0, 1.0),
        (1.0, 0.125),
        (1.0, 0.126),
        (0.8660254, 0.5),
        (0.965_925_8, 0.258_819_04),
    ] {
        points.push([x, y]);
    }
    points
}

#[test]
fn the_wide_turn_angle_is_the_hosts_atan2_to_the_bit() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let points = inputs();
    let source = format!("{SOLVER_WGSL}\n{PROBE}");
    let got = common::run_probe(
        &device,
        &queue,
        &source,
        "atan2_probe",
        bytemuck::cast_slice(&points),
        points.len(),
    );
    let mut wrong = 0;
    let mut first = None;
    // WGSL lets an implementation flush subnormal f32 values to zero, and a hardware GPU
    // may (an H200 did: 4 of these inputs came out as from a zero). The soft-f64 path is
    // integer work past its input, so there every other input must give the host's bits.
    let flushes = !common::adapter_gives_cpu_bits();
    let mut left_out = 0;
    for (&[x, y], &bits) in points.iter().zip(&got) {
        if flushes && (x.is_subnormal() || y.is_subnormal()) {
            left_out += 1;
            continue;
        }
        let expected = atan2(y, x);
        if expected.to_bits() != bits {
            wrong += 1;
            first.get_or_insert((x, y, expected, f32::from_bits(bits)));
        }
    }
    assert_eq!(
        wrong,
        0,
        "{wrong} of {} differ ({left_out} with a subnormal input not compared); first (x, y, \
         host, GPU): {first:?}",
        points.len()
    );
}
