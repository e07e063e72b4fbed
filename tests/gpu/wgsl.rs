//! The kernels (narrow phase, time of impact, ray casts, broad phase), validated by naga
//! without a device, and held to their Rust mirrors.

use std::mem::size_of;

use naga::valid::{Capabilities, ValidationFlags, Validator};
use wgpu_sat::gpu::layout::{ColliderUpdateGpu, PlaceParamsGpu, ScatterParamsGpu};
use wgpu_sat::gpu::layout::{
    ContactGpu, ContactPointGpu, ContactsHeaderGpu, KIND_CHAIN, KIND_ROUNDED, KIND_SHARP, NO_HIT,
    NO_POINT, ParamsGpu, PoseGpu, SWAPPED, ShapeGpu, SweepGpu, SweptColliderGpu, TimeOfImpactGpu,
    ToiParamsGpu,
};
use wgpu_sat::gpu::layout::{FatUpdateGpu, PairFilterGpu, PairSetParamsGpu};
use wgpu_sat::gpu::layout::{LbvhNodeGpu, LbvhParamsGpu};
use wgpu_sat::gpu::layout::{NO_RAY_HIT, RayHitGpu, RayPairGpu, RayParamsGpu};
use wgpu_sat::gpu::layout::{PairDispatchGpu, RadixParamsGpu, ScanParamsGpu, SweepParamsGpu};
use wgpu_sat::gpu::{LBVH_WGSL, PAIR_SET_WGSL, PLACE_WGSL, RECYCLE_WGSL, SCATTER_WGSL};
use wgpu_sat::gpu::{RADIX_SORT_WGSL, RAY_WGSL, SAT_WGSL, SCAN_WGSL, SORT_SWEEP_WGSL, TOI_WGSL};
use wgpu_sat::{
    MAX_POLYGON_VERTICES, collision::CORNER_TOLERANCE, collision::RELATIVE_TIE_TOLERANCE,
    collision::toi::MAX_TOI_ITERATIONS, collision::toi::TOI_RELATIVE_TOLERANCE,
    collision::toi::TOI_ROUNDING_TOLERANCE,
};

fn parse(source: &str) -> naga::Module {
    naga::front::wgsl::parse_str(source).unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)))
}

fn module() -> naga::Module {
    parse(SAT_WGSL)
}

fn validate(module: &naga::Module, source: &str) {
    Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
}

/// The names of the functions a module defines.
fn function_names(m: &naga::Module) -> Vec<&str> {
    m.functions
        .iter()
        .filter_map(|(_, f)| f.name.as_deref())
        .collect()
}

#[test]
fn sat_wgsl_parses_and_validates() {
    let module = module();
    validate(&module, SAT_WGSL);
    let entry = module
        .entry_points
        .iter()
        .find(|e| e.name == "collide_pairs")
        .unwrap();
    assert_eq!(entry.stage, naga::ShaderStage::Compute);
    assert_eq!(entry.workgroup_size, [64, 1, 1]);
}

fn struct_size(module: &naga::Module, name: &str) -> u32 {
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name} in the module"));
    match ty.1.inner {
        naga::TypeInner::Struct { span, .. } => span,
        _ => panic!("{name} is not a struct"),
    }
}

/// The shared structs of `module` against their Rust mirrors, and the records of the
/// contact list (`list`: "Contacts" in the kernel, "ContactList" for hosts) after the header.
fn assert_mirrors(m: &naga::Module, list: &str) {
    assert_eq!(struct_size(m, "Shape") as usize, size_of::<ShapeGpu>());
    assert_eq!(struct_size(m, "Pose") as usize, size_of::<PoseGpu>());
    assert_eq!(
        struct_size(m, "ContactPointOut") as usize,
        size_of::<ContactPointGpu>()
    );
    assert_eq!(
        struct_size(m, "ContactOut") as usize,
        size_of::<ContactGpu>()
    );
    let ty = m
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(list))
        .unwrap();
    let naga::TypeInner::Struct { members, .. } = &ty.1.inner else {
        panic!("{list}")
    };
    let records = members
        .iter()
        .find(|mm| mm.name.as_deref() == Some("records"))
        .unwrap();
    assert_eq!(records.offset as usize, size_of::<ContactsHeaderGpu>());
}

#[test]
fn storage_structs_match_their_rust_mirrors() {
    let m = module();
    assert_mirrors(&m, "Contacts");
    assert_eq!(struct_size(&m, "Params") as usize, size_of::<ParamsGpu>());
}

fn constant(module: &naga::Module, name: &str) -> naga::Literal {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no const {name} in the module"));
    match module.global_expressions[c.init] {
        naga::Expression::Literal(l) => l,
        ref e => panic!("{name} is not a literal: {e:?}"),
    }
}

#[test]
fn constants_match_the_rust_side() {
    let m = module();
    assert_eq!(
        constant(&m, "RELATIVE_TIE_TOLERANCE"),
        naga::Literal::F32(RELATIVE_TIE_TOLERANCE)
    );
    assert_eq!(
        constant(&m, "CORNER_TOLERANCE"),
        naga::Literal::F32(CORNER_TOLERANCE)
    );
    assert_eq!(
        constant(&m, "MAX_POLYGON_VERTICES"),
        naga::Literal::U32(MAX_POLYGON_VERTICES as u32)
    );
    assert_eq!(constant(&m, "NO_POINT"), naga::Literal::U32(NO_POINT));
    assert_eq!(
        constant(&m, "F32_EPSILON"),
        naga::Literal::F32(f32::EPSILON)
    );
    assert_eq!(constant(&m, "SWAPPED"), naga::Literal::U32(SWAPPED));
    for (name, kind) in [
        ("KIND_SHARP", KIND_SHARP),
        ("KIND_ROUNDED", KIND_ROUNDED),
        ("KIND_CHAIN", KIND_CHAIN),
    ] {
        assert_eq!(constant(&m, name), naga::Literal::U32(kind));
    }
    assert_eq!(
        constant(&m, "CIRCLE_FEATURE"),
        naga::Literal::U32(wgpu_sat::collision::CIRCLE_FEATURE as u32)
    );
}

#[test]
fn every_step_has_its_rust_twin_name() {
    let m = module();
    let names = function_names(&m);
    let rust = [
        include_str!("../../src/collision/sat.rs"),
        include_str!("../../src/collision/collide_shapes.rs"),
        include_str!("../../src/shapes/transform.rs"),
        include_str!("../../src/collision/manifold.rs"),
        include_str!("../../src/collision/sat_circle.rs"),
        include_str!("../../src/collision/sat_rounded.rs"),
    ]
    .concat();
    for name in [
        "collide_within",
        "make_local_a",
        "make_local_b",
        "rotate_normals",
        "collide_polygons",
        "find_max_separation",
        "find_incident_edge",
        "clip_polygons",
        "inv_mul_transforms",
        "rotate",
        "inverse_rotate",
        "feature_id",
        "vertex_pair_id",
        "finite",
        "length_and_direction",
        // sat_circle.wgsl and src/collision/sat_circle.rs
        "find_vertex_region",
        "vertex_axis_separation",
        "circle_manifold",
        // sat_rounded.wgsl and src/collision/sat_rounded.rs (clip_incident_edge: src/collision/sat.rs; the
        // router, collide_shapes_speculative: src/collision/collide_shapes.rs)
        "collide_shapes_speculative",
        "collide_rounded",
        "flip_rounded",
        "collide_chain_segment",
        "to_world",
        "make_core_a",
        "make_core_b",
        "next_index",
        "find_max_separation_rounded",
        "find_incident_edge_rounded",
        "unit_clamp",
        "segment_distance",
        "collide_cores",
        "reference_manifold",
        "pair_id",
        "clip_incident_edge",
        "clip_rounded",
        "chain_manifold",
        "corner_is_convex",
        "dot_side",
        "face_separation",
        "clip_rounded_face",
    ] {
        assert!(names.contains(&name), "sat.wgsl lacks fn {name}");
        assert!(
            rust.contains(&format!("fn {name}(")),
            "the Rust side lacks fn {name}"
        );
    }
}

#[test]
fn the_published_layouts_stand_alone_and_match_the_mirrors() {
    let m = naga::front::wgsl::parse_str(wgpu_sat::gpu::LAYOUT_WGSL)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(wgpu_sat::gpu::LAYOUT_WGSL)));
    Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(&m)
        .unwrap();
    assert_mirrors(&m, "ContactList");
}

#[test]
fn toi_wgsl_parses_and_validates() {
    let module = parse(TOI_WGSL);
    validate(&module, TOI_WGSL);
    let entry = module
        .entry_points
        .iter()
        .find(|e| e.name == "time_of_impact_pairs")
        .unwrap();
    assert_eq!(entry.stage, naga::ShaderStage::Compute);
    assert_eq!(entry.workgroup_size, [64, 1, 1]);
}

#[test]
fn toi_storage_structs_match_their_rust_mirrors() {
    let m = parse(TOI_WGSL);
    assert_eq!(struct_size(&m, "Shape") as usize, size_of::<ShapeGpu>());
    assert_eq!(struct_size(&m, "Pose") as usize, size_of::<PoseGpu>());
    assert_eq!(struct_size(&m, "Sweep") as usize, size_of::<SweepGpu>());
    assert_eq!(
        struct_size(&m, "SweptCollider") as usize,
        size_of::<SweptColliderGpu>()
    );
    assert_eq!(
        struct_size(&m, "TimeOfImpactOut") as usize,
        size_of::<TimeOfImpactGpu>()
    );
    assert_eq!(
        struct_size(&m, "ToiParams") as usize,
        size_of::<ToiParamsGpu>()
    );
}

#[test]
fn toi_constants_match_the_rust_side() {
    let m = parse(TOI_WGSL);
    assert_eq!(
        constant(&m, "TOI_RELATIVE_TOLERANCE"),
        naga::Literal::F32(TOI_RELATIVE_TOLERANCE)
    );
    assert_eq!(
        constant(&m, "TOI_ROUNDING_TOLERANCE"),
        naga::Literal::F32(TOI_ROUNDING_TOLERANCE)
    );
    assert_eq!(
        constant(&m, "MAX_TOI_ITERATIONS"),
        naga::Literal::U32(MAX_TOI_ITERATIONS)
    );
    assert_eq!(constant(&m, "NO_HIT"), naga::Literal::F32(NO_HIT));
}

#[test]
fn every_toi_step_has_its_rust_twin_name() {
    let m = parse(TOI_WGSL);
    let names = function_names(&m);
    let rust = [
        include_str!("../../src/collision/toi/mod.rs"),
        include_str!("../../src/collision/toi/sweep.rs"),
        include_str!("../../src/collision/toi/swept_sat.rs"),
        include_str!("../../src/collision/toi/advance.rs"),
        include_str!("../../src/collision/distance.rs"),
        include_str!("../../src/shapes/transform.rs"),
        include_str!("../../src/shapes/shape.rs"),
        include_str!("../../src/collision/sat_rounded.rs"),
    ]
    .concat();
    for name in [
        "time_of_impact",
        "transform_at",
        "center_at",
        "shifted",
        "sweep_radius",
        "relative_motion",
        "tolerance",
        "clip_window",
        "project",
        "separate_on_axis",
        "swept_sat",
        "advance",
        "support_line",
        "lower_separation",
        "shape_distance",
        "closest_on_segment",
        "consider_closest",
        "polygon_distance",
        "polygon_circle_distance",
        "circle_distance",
        // Pairs with a capsule, a segment, a rounded polygon or a chain link: the rounded
        // narrow phase's manifold (sat_rounded.wgsl, compiled into this kernel too).
        "rounded_distance",
        "collide_rounded",
        "bounding_radius",
        "length_and_direction",
        "inv_mul_transforms",
        "rotate",
        "inverse_rotate",
    ] {
        assert!(names.contains(&name), "toi.wgsl lacks fn {name}");
        assert!(
            rust.contains(&format!("fn {name}(")),
            "the Rust side lacks fn {name}"
        );
    }
}

#[test]
fn the_transform_helpers_are_defined_once_and_shared() {
    // transform.wgsl holds them; neither kernel file repeats them (a repeat would not even
    // parse, as WGSL has no overloading, but say so plainly).
    for (file, source) in [
        ("sat.wgsl", include_str!("../../shaders/sat.wgsl")),
        ("sat_pass.wgsl", include_str!("../../shaders/sat_pass.wgsl")),
        ("toi.wgsl", include_str!("../../shaders/toi.wgsl")),
        ("ray.wgsl", include_str!("../../shaders/ray.wgsl")),
        ("recycle.wgsl", include_str!("../../shaders/recycle.wgsl")),
    ] {
        for name in [
            "rotate",
            "inverse_rotate",
            "transform_point",
            "inv_mul_transforms",
        ] {
            assert!(
                !source.contains(&format!("fn {name}(")),
                "{file} defines {name}; it belongs in transform.wgsl"
            );
        }
    }
    let transform = include_str!("../../shaders/transform.wgsl");
    assert!(SAT_WGSL.contains(transform) && TOI_WGSL.contains(transform));
    assert!(RECYCLE_WGSL.contains(transform));
}

#[test]
fn recycle_wgsl_parses_validates_and_names_its_rust_twins() {
    let m = parse(RECYCLE_WGSL);
    validate(&m, RECYCLE_WGSL);
    // The recycling test and the box overlap, by the names of the host's (the kept
    // manifold is `keep_manifold` there: `keep` is transform.wgsl's leaf helper).
    let rust = [
        include_str!("../../src/collision/recycle.rs"),
        include_str!("../../src/broad_phase/sort_sweep.rs"),
    ]
    .concat();
    for name in ["carried_points", "larger", "box_hash"] {
        assert!(
            function_names(&m).contains(&name),
            "recycle.wgsl lacks fn {name}"
        );
        assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
    assert!(
        include_str!("../../src/collision/recycle.rs").contains("pub fn keep(contact: &Contact"),
        "keep_manifold's twin"
    );
    // Each entry point is a kernel the host makes (by name), and the merge's hash is the
    // host's `input_hash`.
    let host = include_str!("../../src/gpu/collision/recycle/mod.rs");
    for entry in &m.entry_points {
        assert!(
            host.contains(&format!("\"{}\"", entry.name)),
            "{} is not one of the kernels src/gpu/collision/recycle/mod.rs makes",
            entry.name
        );
    }
    for (name, file) in [
        (
            "recycle_into",
            include_str!("../../src/collision/recycle.rs"),
        ),
        ("input_hash", include_str!("../../src/gpu/contact_input.rs")),
    ] {
        assert!(
            function_names(&m).contains(&name),
            "recycle.wgsl lacks fn {name}"
        );
        assert!(file.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
}

#[test]
fn ray_wgsl_parses_validates_and_mirrors_the_rust_side() {
    let m = parse(RAY_WGSL);
    validate(&m, RAY_WGSL);
    let entry = m
        .entry_points
        .iter()
        .find(|e| e.name == "cast_ray_pairs")
        .unwrap();
    assert_eq!(entry.stage, naga::ShaderStage::Compute);
    assert_eq!(entry.workgroup_size, [64, 1, 1]);
    assert_eq!(struct_size(&m, "Shape") as usize, size_of::<ShapeGpu>());
    assert_eq!(struct_size(&m, "Pose") as usize, size_of::<PoseGpu>());
    assert_eq!(struct_size(&m, "RayPair") as usize, size_of::<RayPairGpu>());
    assert_eq!(
        struct_size(&m, "RayHitOut") as usize,
        size_of::<RayHitGpu>()
    );
    assert_eq!(
        struct_size(&m, "RayParams") as usize,
        size_of::<RayParamsGpu>()
    );
    assert_eq!(constant(&m, "NO_RAY_HIT"), naga::Literal::F32(NO_RAY_HIT));
    // The same steps under the same names as src/query/ray.rs.
    let names = function_names(&m);
    let rust = [
        include_str!("../../src/query/ray.rs"),
        include_str!("../../src/collision/rounded.rs"),
    ]
    .concat();
    for name in [
        "cast_ray",
        "cast_ray_polygon",
        "cast_ray_circle",
        "cast_ray_rounded",
        "core_distance",
        "closest_on_segment",
    ] {
        assert!(names.contains(&name), "ray.wgsl lacks fn {name}");
        assert!(
            rust.contains(&format!("fn {name}(")),
            "src/query/ray.rs and src/collision/rounded.rs lack fn {name}"
        );
    }
}

#[test]
fn broad_phase_wgsl_parses_validates_and_mirrors_the_rust_side() {
    // Each module, its uniform's mirror, and its entry points, each a twin of a function of
    // the same name in src/broad_phase/.
    let modules: [(&str, &str, usize, &[&str], &str); 4] = [
        (
            SCAN_WGSL,
            "ScanParams",
            size_of::<ScanParamsGpu>(),
            &["scan_reduce", "scan_tiles"],
            include_str!("../../src/broad_phase/scan.rs"),
        ),
        (
            RADIX_SORT_WGSL,
            "RadixParams",
            size_of::<RadixParamsGpu>(),
            &["radix_count", "radix_scatter"],
            include_str!("../../src/broad_phase/radix_sort.rs"),
        ),
        (
            SORT_SWEEP_WGSL,
            "SweepParams",
            size_of::<SweepParamsGpu>(),
            &[
                "box_keys",
                "band_spans",
                "band_entries",
                "gather_boxes",
                "sweep_count",
                "sweep_write",
                "pair_keys",
                "gather_pairs",
                "pair_args",
                "set_fresh",
                "set_compact",
                "hash_boxes",
            ],
            include_str!("../../src/broad_phase/sort_sweep.rs"),
        ),
        (
            LBVH_WGSL,
            "LbvhParams",
            size_of::<LbvhParamsGpu>(),
            &[
                "morton_keys",
                "build_nodes",
                "leaf_boxes",
                "refit",
                "walk_count",
                "walk_write",
            ],
            include_str!("../../src/broad_phase/lbvh.rs"),
        ),
    ];
    for (source, params, params_size, entries, rust) in modules {
        let m = parse(source);
        validate(&m, source);
        assert_eq!(struct_size(&m, params) as usize, params_size, "{params}");
        for &name in entries {
            let entry = m
                .entry_points
                .iter()
                .find(|e| e.name == name)
                .unwrap_or_else(|| panic!("no entry point {name}"));
            assert_eq!(entry.stage, naga::ShaderStage::Compute);
            assert_eq!(entry.workgroup_size, [256, 1, 1], "{name}");
            assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
        }
    }
    // The LBVH's node, and its helpers shared by name with src/broad_phase/lbvh.rs.
    let lbvh = parse(LBVH_WGSL);
    assert_eq!(
        struct_size(&lbvh, "Node") as usize,
        size_of::<LbvhNodeGpu>()
    );
    let rust = include_str!("../../src/broad_phase/lbvh.rs");
    for name in ["centre", "spread_bits", "steps", "prefix", "walk"] {
        assert!(function_names(&lbvh).contains(&name), "no fn {name}");
        assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
    assert_eq!(constant(&lbvh, "WALK_STACK"), naga::Literal::U32(66));
    assert!(rust.contains("pub(crate) const WALK_STACK: usize = 66;"));
    // The helpers shared by name with src/broad_phase/sort_sweep.rs and sweep.rs.
    let sweep = parse(SORT_SWEEP_WGSL);
    let rust = [
        include_str!("../../src/broad_phase/sort_sweep.rs"),
        include_str!("../../src/broad_phase/sweep.rs"),
    ]
    .concat();
    for name in ["sortable", "band", "pairs_here", "found_pairs"] {
        assert!(function_names(&sweep).contains(&name), "no fn {name}");
        assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
    // The narrow phase's indirect dispatch, as pair_args writes it, in workgroups of
    // collide_pairs' size.
    assert_eq!(
        struct_size(&sweep, "PairDispatch") as usize,
        size_of::<PairDispatchGpu>()
    );
    assert_eq!(constant(&sweep, "NARROW_WORKGROUP"), naga::Literal::U32(64));
    assert!(
        include_str!("../../src/broad_phase/sort_sweep.rs")
            .contains("pub(crate) const NARROW_WORKGROUP: u32 = 64;")
    );
    let sat = module();
    let collide = sat
        .entry_points
        .iter()
        .find(|e| e.name == "collide_pairs")
        .unwrap();
    assert_eq!(collide.workgroup_size, [64, 1, 1]);
}

#[test]
fn scatter_wgsl_parses_validates_and_mirrors_the_rust_side() {
    let m = parse(SCATTER_WGSL);
    validate(&m, SCATTER_WGSL);
    assert_eq!(
        struct_size(&m, "ColliderUpdate") as usize,
        size_of::<ColliderUpdateGpu>()
    );
    assert_eq!(
        struct_size(&m, "ScatterParams") as usize,
        size_of::<ScatterParamsGpu>()
    );
    let entry = m
        .entry_points
        .iter()
        .find(|e| e.name == "scatter_colliders")
        .unwrap();
    assert_eq!(entry.stage, naga::ShaderStage::Compute);
    assert!(include_str!("../../src/gpu/scatter.rs").contains("fn scatter_colliders("));
}

#[test]
fn place_wgsl_parses_validates_and_mirrors_the_rust_side() {
    let m = parse(PLACE_WGSL);
    validate(&m, PLACE_WGSL);
    assert_eq!(
        struct_size(&m, "PlaceParams") as usize,
        size_of::<PlaceParamsGpu>()
    );
    assert_eq!(constant(&m, "UNPLACED"), naga::Literal::U32(u32::MAX));
    assert_eq!(wgpu_sat::gpu::layout::UNPLACED, u32::MAX);
    for name in ["place_poses", "place_boxes"] {
        let entry = m.entry_points.iter().find(|e| e.name == name).unwrap();
        assert_eq!(entry.workgroup_size, [64, 1, 1], "{name}");
    }
    // aabb and expanded are the twins of Shape::aabb and Aabb::expanded.
    let names = function_names(&m);
    for (name, rust) in [
        ("aabb", include_str!("../../src/shapes/shape.rs")),
        ("expanded", include_str!("../../src/shapes/aabb.rs")),
    ] {
        assert!(names.contains(&name), "no fn {name}");
        assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
}

#[test]
fn pair_set_wgsl_parses_validates_and_mirrors_the_rust_side() {
    let m = parse(PAIR_SET_WGSL);
    validate(&m, PAIR_SET_WGSL);
    for (name, size) in [
        ("PairSetParams", size_of::<PairSetParamsGpu>()),
        ("PairFilter", size_of::<PairFilterGpu>()),
        ("FatUpdate", size_of::<FatUpdateGpu>()),
    ] {
        assert_eq!(struct_size(&m, name) as usize, size, "{name}");
    }
    // The entry points and helpers, each a twin of a function of the same name in
    // src/broad_phase/persistent.rs (should_collide: filter.rs; fatten: pair_set/mod.rs,
    // with Aabb's contains and expanded; hash_fat: the host's hash in
    // gpu/broad_phase/persistent/boxes.rs; box_hash, from box_hash.wgsl: sort_sweep.rs).
    // scatter_fat has none: it copies what the host's fatten computed into the device's
    // copy.
    let rust = [
        include_str!("../../src/broad_phase/persistent.rs"),
        include_str!("../../src/broad_phase/filter.rs"),
        include_str!("../../src/broad_phase/pair_set/mod.rs"),
        include_str!("../../src/shapes/aabb.rs"),
        include_str!("../../src/gpu/broad_phase/persistent/boxes.rs"),
        include_str!("../../src/broad_phase/sort_sweep.rs"),
    ]
    .concat();
    // The margin a fat box grows by, and the mark of an unplaced collider, are the host's.
    let margin = wgpu_sat::broad_phase::FAT_MARGIN;
    assert_eq!(constant(&m, "FAT_MARGIN"), naga::Literal::F32(margin));
    assert_eq!(constant(&m, "UNPLACED"), naga::Literal::U32(u32::MAX));
    for name in [
        "keep_flags",
        "compact_pairs",
        "change_flags",
        "scatter_fat",
        "fatten",
        "hash_fat",
    ] {
        let entry = m
            .entry_points
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no entry point {name}"));
        assert_eq!(entry.workgroup_size, [256, 1, 1], "{name}");
    }
    let names = function_names(&m);
    for name in [
        "keep_flags",
        "compact_pairs",
        "change_flags",
        "keep_pair",
        "should_collide",
        "holds",
        "pair_below",
        "fatten",
        "contains",
        "expanded",
        "hash_fat",
        "box_hash",
    ] {
        let in_wgsl = names.contains(&name) || m.entry_points.iter().any(|e| e.name == name);
        assert!(in_wgsl, "pair_set.wgsl lacks fn {name}");
        assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
}
