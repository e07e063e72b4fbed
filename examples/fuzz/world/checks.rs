//! The rules the target holds each call to: which values a call takes, what it must leave
//! finite, and what `World::body` must agree with.

use wgpu_sat::error::WorldError;
use wgpu_sat::glam::Vec2;
use wgpu_sat::{
    BodyDef, BodyId, Error, World, world::BodyType, world::MAX_ANGULAR_SPEED,
    world::MAX_COORDINATE, world::MAX_GRAVITY_SCALE, world::MAX_LINEAR_SPEED_LIMIT,
    world::Material,
};

use crate::world_model::Model;

/// Whether `set_material` and `add_body` take `m` for a piece of a body that is `dynamic`
/// or not (only a dynamic body's pieces need a density).
pub(super) fn material_ok(m: &Material, dynamic: bool) -> bool {
    m.friction.is_finite()
        && m.friction >= 0.0
        && (0.0..=1.0).contains(&m.restitution)
        && (!dynamic || m.density.is_finite() && m.density > 0.0)
        && m.tangent_speed.abs() <= MAX_LINEAR_SPEED_LIMIT
}

/// Whether `add_body` and `set_velocity` take a velocity: within the table's speeds.
pub(super) fn linear_ok(v: Vec2) -> bool {
    v.is_finite()
        && v.abs().max_element() <= MAX_LINEAR_SPEED_LIMIT
        && v.length() <= MAX_LINEAR_SPEED_LIMIT
}

pub(super) fn angular_ok(w: f32) -> bool {
    w.abs() <= MAX_ANGULAR_SPEED
}

/// The `BodyDef` fields `World::add_body` validates, and their rules.
pub(super) const CHECKED_FIELDS: [&str; 11] = [
    "position",
    "angle",
    "linear_velocity",
    "angular_velocity",
    "friction",
    "restitution",
    "tangent_speed",
    "density",
    "linear_damping",
    "angular_damping",
    "gravity_scale",
];

/// One force, impulse or motion setting on a live body: an error exactly when a value is
/// not finite or out of its range (a finite force may also be refused past
/// `MAX_ACCELERATION`, naming "force" or "torque"), the velocity finite after it, and a
/// static or kinematic body's velocity unchanged by a force or impulse.
pub(super) fn push(
    world: &mut World,
    body: BodyId,
    kind: u8,
    vector: Vec2,
    point: Vec2,
    scalar: f32,
) -> std::result::Result<(), String> {
    let moved_by_forces = !world.is_static(body) && !world.is_kinematic(body);
    let before = (world.linear_velocity(body), world.angular_velocity(body));
    let (name, result, valid) = match kind % 8 {
        0 => (
            "apply_force",
            world.apply_force(body, vector, point),
            vector.is_finite() && point.is_finite(),
        ),
        1 => (
            "apply_torque",
            world.apply_torque(body, scalar),
            scalar.is_finite(),
        ),
        2 => (
            "apply_linear_impulse",
            world.apply_linear_impulse(body, vector, point),
            vector.is_finite() && point.is_finite(),
        ),
        3 => (
            "apply_angular_impulse",
            world.apply_angular_impulse(body, scalar),
            scalar.is_finite(),
        ),
        4 => (
            "apply_force_to_center",
            world.apply_force_to_center(body, vector),
            vector.is_finite(),
        ),
        5 => (
            "set_linear_damping",
            world.set_linear_damping(body, scalar),
            scalar.is_finite() && scalar >= 0.0,
        ),
        6 => (
            "set_angular_damping",
            world.set_angular_damping(body, scalar),
            scalar.is_finite() && scalar >= 0.0,
        ),
        _ => (
            "set_gravity_scale",
            world.set_gravity_scale(body, scalar),
            scalar.abs() <= MAX_GRAVITY_SCALE,
        ),
    };
    match result {
        Ok(()) if !valid => return Err(format!("{name} accepted a bad value")),
        Ok(()) => {}
        Err(Error::World(WorldError::InvalidBody { .. })) if !valid => {}
        // A force, torque or impulse past what f32 integrates.
        Err(Error::World(WorldError::InvalidBody {
            field: "force" | "torque" | "impulse" | "angular_impulse",
            ..
        })) => {}
        Err(e) => return Err(format!("{name} refused a valid value: {e}")),
    }
    let after = (world.linear_velocity(body), world.angular_velocity(body));
    if !(after.0.is_finite() && after.1.is_finite()) {
        return Err(format!("{name} left the velocity {after:?}"));
    }
    if !moved_by_forces && kind % 8 < 5 && after != before {
        return Err(format!(
            "{name} changed a static or kinematic body's velocity"
        ));
    }
    Ok(())
}

/// A gravity `World::step` takes: finite, at most `MAX_COORDINATE` a component.
pub(super) fn gravity_ok(g: Vec2) -> bool {
    g.is_finite() && g.abs().max_element() <= MAX_COORDINATE
}

/// The first field out of its documented range, if any.
pub(super) fn bad_field(def: &BodyDef) -> Option<&'static str> {
    if !(def.position.is_finite() && def.position.abs().max_element() <= MAX_COORDINATE) {
        Some("position")
    } else if !def.angle.is_finite() {
        Some("angle")
    } else if !linear_ok(def.linear_velocity) {
        Some("linear_velocity")
    } else if !angular_ok(def.angular_velocity) {
        Some("angular_velocity")
    } else if !(def.friction.is_finite() && def.friction >= 0.0) {
        Some("friction")
    } else if !(0.0..=1.0).contains(&def.restitution) {
        Some("restitution")
    } else if !(def.linear_damping.is_finite() && def.linear_damping >= 0.0) {
        Some("linear_damping")
    } else if !(def.angular_damping.is_finite() && def.angular_damping >= 0.0) {
        Some("angular_damping")
    } else if !(def.gravity_scale.is_finite() && def.gravity_scale.abs() <= MAX_GRAVITY_SCALE) {
        Some("gravity_scale")
    } else if def.tangent_speed.abs() > MAX_LINEAR_SPEED_LIMIT || def.tangent_speed.is_nan() {
        Some("tangent_speed")
    } else if !(def.body_type != BodyType::Dynamic || def.density.is_finite() && def.density > 0.0)
    {
        Some("density")
    } else if (def.piece_materials.iter()).any(|(piece, _)| *piece >= def.shape.pieces().len()) {
        Some("piece index")
    } else if (def.piece_materials.iter())
        .any(|(_, m)| !material_ok(m, def.body_type == BodyType::Dynamic))
    {
        Some("piece material")
    } else {
        None
    }
}

/// After an `Ok` step: every body's pose, velocities and box are finite.
pub(super) fn all_finite(world: &World) -> std::result::Result<(), String> {
    for id in world.bodies() {
        let body = world
            .body(id)
            .map_err(|e| format!("World::body({id:?}) of a listed body: {e}"))?;
        let x = body.transform();
        let v = body.linear_velocity();
        let w = body.angular_velocity();
        let b = body.aabb();
        if !(x.is_finite()
            && v.is_finite()
            && w.is_finite()
            && b.min.is_finite()
            && b.max.is_finite())
        {
            return Err(format!(
                "after an Ok step {id:?} is not finite: transform {x:?}, velocity {v}, \
                 angular {w}, aabb {b:?}"
            ));
        }
    }
    Ok(())
}

/// `World::body` with a live handle: `Ok`, with the same answers as the plain accessors,
/// the user data and colliders it was added with, each collider naming it.
pub(super) fn query(world: &World, model: &Model, id: BodyId) -> std::result::Result<(), String> {
    let body = world
        .body(id)
        .map_err(|e| format!("World::body({id:?}) of a live body: {e}"))?;
    let bits = |v: wgpu_sat::glam::Vec2| v.to_array().map(f32::to_bits);
    let checks = [
        ("id", body.id() == id),
        ("user_data", Some(body.user_data()) == world.user_data(id)),
        ("transform", body.transform() == world.transform(id)),
        (
            "center_of_mass",
            bits(body.center_of_mass()) == bits(world.center_of_mass(id)),
        ),
        (
            "linear_velocity",
            bits(body.linear_velocity()) == bits(world.linear_velocity(id)),
        ),
        (
            "angular_velocity",
            body.angular_velocity().to_bits() == world.angular_velocity(id).to_bits(),
        ),
        ("mass", body.mass().to_bits() == world.mass(id).to_bits()),
        (
            "rotational_inertia",
            body.rotational_inertia().to_bits() == world.rotational_inertia(id).to_bits(),
        ),
        ("is_static", body.is_static() == world.is_static(id)),
        ("is_bullet", body.is_bullet() == world.is_bullet(id)),
        ("is_awake", body.is_awake() == world.is_awake(id)),
        ("aabb", body.aabb() == world.body_aabb(id)),
        ("colliders", body.colliders().eq(world.body_colliders(id))),
        (
            "pieces",
            body.pieces().count() == world.body_pieces(id).count(),
        ),
    ];
    if let Some((name, _)) = checks.iter().find(|(_, same)| !same) {
        return Err(format!(
            "World::body({id:?}).{name} disagrees with World::{name}: {:?} vs the accessors",
            (body.transform(), body.aabb(), body.mass())
        ));
    }
    if !body.colliders().eq(model.colliders(id).iter().copied()) {
        return Err(format!(
            "{id:?} has colliders {:?}, added with {:?}",
            body.colliders().collect::<Vec<_>>(),
            model.colliders(id)
        ));
    }
    for c in body.colliders() {
        if world.collider_body(c).ok() != Some(id) {
            return Err(format!(
                "collider {c:?} of {id:?} says {:?}",
                world.collider_body(c)
            ));
        }
    }
    let _ = world.body_at(body.center_of_mass());
    let _ = world.contacts().count();
    let _ = world.contact_impulses().count();
    Ok(())
}
