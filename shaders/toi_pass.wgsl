// wgpu-sat time of impact, the batch kernel of GpuTimeOfImpact (src/gpu/toi.rs): one
// invocation per pair of swept colliders, each writing a fixed record at its pair's index.
// The library compiles this file after toi.wgsl (time_of_impact and the functions it
// calls), which binds nothing, so that the GPU world's continuous stage (continuous.wgsl)
// takes the same functions with bindings of its own.

struct SweptCollider {
    sweep: Sweep,
    shape: u32,
    _pad: u32,
}

// One record per pair, in pair order; t = NO_HIT when the pair does not hit.
struct TimeOfImpactOut {
    normal: vec2<f32>,
    t: f32,
    separation: f32,
}

struct ToiParams {
    pair_count: u32,
    // Never set: keep()'s flag (transform.wgsl), so that no product is fused into a sum.
    never: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> shapes: array<Shape>;
@group(0) @binding(1) var<storage, read> colliders: array<SweptCollider>;
@group(0) @binding(2) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> results: array<TimeOfImpactOut>;
@group(0) @binding(4) var<uniform> params: ToiParams;

@compute @workgroup_size(64)
fn time_of_impact_pairs(@builtin(global_invocation_id) id: vec3<u32>) {
    keep_flag = params.never != 0u;
    let k = id.x;
    if (k >= params.pair_count) {
        return;
    }
    let pair = pairs[k];
    let ca = colliders[pair.x];
    let cb = colliders[pair.y];
    let r = time_of_impact(shapes[ca.shape], ca.sweep, shapes[cb.shape], cb.sweep);
    results[k] = TimeOfImpactOut(r.normal, select(NO_HIT, r.t, r.hit), r.separation);
}
