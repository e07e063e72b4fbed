//! The `serde` feature: definitions (bodies with every kind of shape, filters, materials,
//! joints of every kind) written to JSON and read back build a world that steps to the same
//! bits as the one built from the originals; and JSON describing a shape its constructor
//! would refuse (a non-convex polygon, a bad radius, no pieces) is refused with the crate's
//! own message, never built.

use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, BodyShape, Capsule, Circle, CpuNarrowPhase, Filter, JointDef, Polygon,
    Segment, Shape, World, world::Material,
};

/// A small level: a chain floor and a static segment, then dynamic bodies of every shape
/// kind (sharp, rounded and concave polygons, off-centre circles, capsules, a compound),
/// a kinematic platform, a sensor, and bodies with filters, piece materials, damping and
/// user data.
fn level_defs() -> Vec<BodyDef> {
    let floor = [
        Vec2::new(12.0, 0.0),
        Vec2::new(4.0, 0.5),
        Vec2::new(-4.0, 0.0),
        Vec2::new(-12.0, 1.0),
    ];
    let mut defs = vec![
        BodyDef::fixed(BodyShape::chain(&floor, false).unwrap(), Vec2::ZERO),
        BodyDef::fixed(
            Segment::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.3)).unwrap(),
            Vec2::new(6.0, 3.0),
        ),
    ];
    let l_outline = [
        Vec2::new(-0.5, -0.5),
        Vec2::new(0.5, -0.5),
        Vec2::new(0.5, -0.2),
        Vec2::new(-0.2, -0.2),
        Vec2::new(-0.2, 0.5),
        Vec2::new(-0.5, 0.5),
    ];
    let shapes: Vec<BodyShape> = vec![
        Polygon::rectangle(0.4, 0.3).into(),
        Polygon::regular(5, 0.4).unwrap().into(),
        Polygon::rectangle(0.3, 0.3)
            .with_radius(0.1)
            .unwrap()
            .into(),
        Circle::with_center(Vec2::new(0.1, 0.0), 0.3)
            .unwrap()
            .into(),
        Capsule::new(Vec2::new(-0.3, 0.0), Vec2::new(0.3, 0.0), 0.15)
            .unwrap()
            .into(),
        BodyShape::concave(&l_outline).unwrap(),
        BodyShape::compound(vec![
            Shape::Circle(Circle::with_center(Vec2::new(-0.3, 0.0), 0.2).unwrap()),
            Shape::Polygon(Polygon::rectangle(0.3, 0.1)),
        ])
        .unwrap(),
    ];
    for (k, shape) in shapes.iter().cycle().take(28).enumerate() {
        let position = Vec2::new(-6.0 + 1.2 * (k % 10) as f32, 3.0 + 1.3 * (k / 10) as f32);
        let mut def = BodyDef::dynamic(shape.clone(), position);
        def.angle = 0.3 * k as f32;
        def.linear_velocity = Vec2::new(0.1 * k as f32, 0.0);
        def.user_data = k as u64;
        if k % 4 == 1 {
            def.linear_damping = 0.3;
            def.angular_damping = 0.7;
            def.gravity_scale = 0.8;
        }
        if k % 5 == 2 {
            def.filter = Filter {
                category_bits: 2,
                mask_bits: 1,
                group_index: -1,
            };
        }
        if k % 6 == 3 {
            def = def.with_material(Material {
                friction: 0.2,
                restitution: 0.4,
                density: 2.5,
                tangent_speed: 0.0,
            });
        }
        if k % 7 == 5 {
            def.is_bullet = true;
            def.fixed_rotation = k % 2 == 0;
        }
        defs.push(def);
    }
    if let Some(compound) = defs.last_mut() {
        *compound = compound.clone().with_piece_material(
            0,
            Material {
                density: 4.0,
                ..Material::default()
            },
        );
    }
    defs.push(BodyDef {
        linear_velocity: Vec2::new(0.5, 0.0),
        ..BodyDef::kinematic(Polygon::rectangle(1.5, 0.1), Vec2::new(0.0, 1.5))
    });
    defs.push(BodyDef {
        is_sensor: true,
        ..BodyDef::fixed(Circle::new(1.0).unwrap(), Vec2::new(-3.0, 2.0))
    });
    defs
}

/// Joints of every kind between the level's dynamic bodies (and the floor, body 0).
fn joint_defs(ids: &[BodyId]) -> Vec<JointDef> {
    let at = |k: usize| Vec2::new(-6.0 + 1.2 * (k % 10) as f32, 3.0 + 1.3 * (k / 10) as f32);
    let body = |k: usize| ids[k + 2];
    vec![
        JointDef::revolute(body(0), body(1), 0.5 * (at(0) + at(1)))
            .with_limits(-0.5, 0.5)
            .with_motor(1.0, 5.0),
        JointDef::distance(body(2), body(3), at(2), at(3)).with_spring(4.0, 0.5),
        JointDef::weld(body(10), body(11), 0.5 * (at(10) + at(11)))
            .with_weld_springs(5.0, 2.0, 0.7),
        JointDef::prismatic(body(12), body(13), at(12), Vec2::X).with_limits(-0.5, 0.5),
        JointDef::wheel(body(20), body(21), at(21), Vec2::Y).with_spring(6.0, 0.7),
        JointDef::motor(body(22), body(23)).with_max_torque(2.0),
        JointDef::filter(body(4), body(5)),
        JointDef::mouse(ids[0], body(24), at(24) + Vec2::Y),
        JointDef::revolute(ids[0], body(25), at(25)).with_break_force(50.0),
    ]
}

/// A world made from `defs` and `joints`, whose handles name the bodies of the world the
/// joint definitions were first made for: mapped to this world's bodies by slot, as a
/// user loading a level does.
fn build(defs: &[BodyDef], joints: &[JointDef]) -> World {
    let mut world = World::default();
    let ids: Vec<BodyId> = defs.iter().map(|d| world.add_body(d).unwrap()).collect();
    for joint in joints {
        let mut joint = *joint;
        joint.bodies = joint.bodies.map(|b| ids[b.index()]);
        world.add_joint(&joint).unwrap();
    }
    world
}

fn stepped(mut world: World) -> World {
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..240 {
        world.step(1.0 / 60.0, &mut narrow).unwrap();
    }
    world
}

#[test]
fn definitions_read_back_from_json_build_the_same_world() {
    let defs = level_defs();
    // Joint definitions name bodies by handle: made against a world of these bodies.
    let mut first = World::default();
    let ids: Vec<BodyId> = defs.iter().map(|d| first.add_body(d).unwrap()).collect();
    let joints = joint_defs(&ids);

    let json = serde_json::to_string(&(&defs, &joints)).unwrap();
    let (read_defs, read_joints): (Vec<BodyDef>, Vec<JointDef>) =
        serde_json::from_str(&json).unwrap();
    println!(
        "{} bodies, {} joints: {} bytes of JSON",
        defs.len(),
        joints.len(),
        json.len()
    );

    // Every definition is read back as it was written.
    assert_eq!(read_joints, joints);
    for (read, def) in read_defs.iter().zip(&defs) {
        assert_eq!(read.shape, def.shape);
        assert_eq!(read.filter, def.filter);
        assert_eq!(read.piece_materials, def.piece_materials);
    }
    assert_eq!(
        serde_json::to_string(&(&read_defs, &read_joints)).unwrap(),
        json
    );

    let original = stepped(build(&defs, &joints));
    let restored = stepped(build(&read_defs, &read_joints));
    assert_eq!(original.joint_count(), joints.len());
    assert_ne!(original.state_hash(), build(&defs, &joints).state_hash());
    assert_eq!(restored.state_hash(), original.state_hash());
}

/// Reads `json` as a `T`, expecting a refusal whose message contains `message`.
fn refused<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str, message: &str) {
    match serde_json::from_str::<T>(json) {
        Ok(value) => panic!("{json} was accepted as {value:?}"),
        Err(e) => {
            println!("{json}: {e}");
            assert!(e.to_string().contains(message), "{json}: {e}");
        }
    }
}

#[test]
fn shapes_that_their_constructors_refuse_are_refused_from_json() {
    // A sound polygon reads as Polygon::new builds it.
    let square: Polygon =
        serde_json::from_str(r#"{"vertices":[[0,0],[1,0],[1,1],[0,1]],"radius":0}"#).unwrap();
    assert_eq!(square, Polygon::new(square.vertices()).unwrap());
    // An arrowhead: the corner at point 2 is reflex.
    refused::<Polygon>(
        r#"{"vertices":[[0,0],[2,1],[0.5,1],[0,2]],"radius":0}"#,
        "not convex",
    );
    refused::<Shape>(
        r#"{"Polygon":{"vertices":[[0,0],[1,0]],"radius":0}}"#,
        "at least 3 vertices",
    );
    refused::<Polygon>(
        r#"{"vertices":[[0,0],[1,0],[1,1]],"radius":-0.5}"#,
        "rounding radius must be finite and 0 or more",
    );
    refused::<Circle>(
        r#"{"center":[0,0],"radius":-1}"#,
        "radius must be finite and positive, got -1",
    );
    refused::<Circle>(r#"{"center":[0,0],"radius":0}"#, "radius must be finite");
    refused::<Capsule>(
        r#"{"a":[1,1],"b":[1,1],"radius":0.5}"#,
        &Capsule::new(Vec2::ONE, Vec2::ONE, 0.5)
            .unwrap_err()
            .to_string(),
    );
    refused::<BodyShape>(r#"{"pieces":[]}"#, "at least one piece");
    // Inside a body definition too.
    let mut def =
        serde_json::to_value(BodyDef::dynamic(Circle::new(0.5).unwrap(), Vec2::ZERO)).unwrap();
    def["shape"]["pieces"][0]["Circle"]["radius"] = serde_json::json!(-2.0);
    refused::<BodyDef>(&def.to_string(), "radius must be finite and positive");

    // The other definitions are plain values, checked where every definition is: by
    // `World::add_body` (and `add_joint`), with the same messages.
    let mut def =
        serde_json::to_value(BodyDef::dynamic(Circle::new(0.5).unwrap(), Vec2::ZERO)).unwrap();
    def["filter"]["category_bits"] = serde_json::json!(0);
    def["friction"] = serde_json::json!(-1.0);
    let def: BodyDef = serde_json::from_value(def).unwrap();
    let e = World::default().add_body(&def).unwrap_err().to_string();
    assert!(e.contains("category_bits"), "{e}");
    let def = BodyDef {
        filter: Filter::default(),
        ..def
    };
    let e = World::default().add_body(&def).unwrap_err().to_string();
    assert!(e.contains("friction"), "{e}");

    // NaN: JSON has no NaN, and serde_json writes a NaN radius as null, which no f32 field
    // reads. (A format that has NaN meets Circle::with_center's check, as above.)
    let nan = r#"{"center":[0,0],"radius":null}"#;
    assert!(serde_json::from_str::<Circle>(nan).is_err());
}
