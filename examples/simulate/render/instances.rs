//! The instances of the bodies' draw: one per collider (a piece of a body), with its shape,
//! its body's slot and flags, and where the vertex shader finds its pose: in the instance
//! (written from the world each frame), or in a GPU world's transforms buffer by body slot
//! (the instances then written only when the colliders change).

use bytemuck::{Pod, Zeroable};
use wgpu_sat::World;

/// Top bit of [`InstanceGpu::shape`]: the body is static (drawn grey).
pub(super) const STATIC_BIT: u32 = 1 << 31;
/// Next bit of [`InstanceGpu::shape`]: the body sleeps (drawn dimmed).
pub(super) const SLEEPING_BIT: u32 = 1 << 30;

/// One collider's pose, shape and body, as `Instance` in `render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct InstanceGpu {
    /// The body's pose; unread (zero) when the poses come from a transforms buffer.
    translation: [f32; 2],
    /// `(cos, sin)` of the rotation.
    rotation: [f32; 2],
    /// Shape index, with [`STATIC_BIT`] for static bodies and [`SLEEPING_BIT`] for
    /// sleeping ones.
    shape: u32,
    /// The slot of the body the collider is a piece of (`BodyId::index`): pieces of one
    /// body share its colour, and a transforms buffer holds its pose there.
    body: u32,
}
const _: () = assert!(size_of::<InstanceGpu>() == 24);

/// A GPU world's transforms buffer (`GpuWorld::transforms`: a `BodyTransformGpu` per body
/// slot, written by the device each step), for the renderer to draw the bodies from.
#[derive(Clone, Copy)]
pub struct DeviceTransforms<'a> {
    pub buffer: &'a wgpu::Buffer,
    /// Changes whenever the GPU world is built again or an edit adds or removes bodies
    /// (the colliders differ then): the renderer writes its instances again then, and only
    /// then.
    pub generation: u64,
}

/// Where the instances written last take their poses from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// Nothing written yet.
    Nothing,
    /// Poses in the instances, from the world: written again every frame.
    Poses,
    /// Poses from a transforms buffer: the instances of this generation of the GPU world.
    Slots(u64),
}

/// Fills `out` with one instance per drawn collider of `world`: every collider of a live
/// body but sensors (drawn as outlines). With `poses`, each carries its body's pose and
/// the sleeping flag; without, neither (both change every step, and the transforms buffer
/// carries the pose: a sleeping body is not dimmed then).
pub(super) fn collider_instances(world: &World, poses: bool, out: &mut Vec<InstanceGpu>) {
    out.clear();
    out.extend(world.colliders().iter().enumerate().filter_map(|(i, c)| {
        // A vacant slot (its body removed) holds a stale collider: not drawn.
        let id = world.collider_id(i)?;
        if world.is_sensor(id) == Some(true) {
            return None;
        }
        let body = world.collider_body(id).ok()?;
        let flag = if world.is_static(body) {
            STATIC_BIT
        } else if poses && !world.is_awake(body) {
            SLEEPING_BIT
        } else {
            0
        };
        // All the colliders of a body carry the body's pose (see `World::colliders`).
        let (translation, rotation) = if poses {
            let t = &c.transform;
            (t.translation().to_array(), t.rotation().to_array())
        } else {
            ([0.0; 2], [0.0; 2])
        };
        Some(InstanceGpu {
            translation,
            rotation,
            shape: c.shape | flag,
            body: body.index() as u32,
        })
    }));
}
