//! Rigid transforms: a translation and a rotation.
//!
//! A [`Transform`] maps a point from a body's local frame to the world frame:
//! `world = rotation * local + translation`. The rotation is stored as its cosine and sine
//! (computed once in [`Transform::new`]) so that the CPU reference and the GPU kernel, which
//! receives exactly these four floats, rotate with bit-identical inputs; the angle itself is
//! recovered on demand with `atan2`.

use glam::Vec2;

/// A rigid transform: rotation by an angle (radians, counter-clockwise) followed by a
/// translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// World-frame position of the local origin.
    translation: Vec2,
    /// `(cos angle, sin angle)`: the image of the local x axis in the world frame.
    rotation: Vec2,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The transform that leaves every point where it is.
    pub const IDENTITY: Transform = Transform {
        translation: Vec2::ZERO,
        rotation: Vec2::X,
    };

    /// A transform that rotates by `angle` radians (counter-clockwise) about the local origin,
    /// then moves the origin to `translation`.
    pub fn new(translation: Vec2, angle: f32) -> Transform {
        let (sin, cos) = crate::math::sin_cos(angle);
        Transform {
            translation,
            rotation: Vec2::new(cos, sin),
        }
    }

    /// A transform of exactly these parts, the rotation taken as it is (a snapshot's, whose
    /// reader checked it is finite and of unit length within rounding).
    pub(crate) fn from_parts(translation: Vec2, rotation: Vec2) -> Transform {
        Transform {
            translation,
            rotation,
        }
    }

    /// A transform from a translation and a rotation given as `(cos, sin)`, the form
    /// [`Transform::rotation`] returns. The pair is normalised so that the result stays
    /// rigid; a zero or non-finite pair gives a non-finite transform, which the narrow phases
    /// reject.
    pub fn from_rotation(translation: Vec2, rotation: Vec2) -> Transform {
        // Scaled by a power of two before the length is taken (see `length_and_direction`):
        // squaring a component above about 1e19 overflows (the length becomes inf and the
        // rotation zero, a "finite" transform that is not rigid), and squaring one below
        // about 1e-19 lands among the subnormals, where the length loses its precision. The
        // same bits as `rotation / rotation.length()` in between. A zero pair gives 0 / 0 =
        // NaN, and a pair with an infinity inf / inf = NaN: non-finite, as documented.
        Transform {
            translation,
            rotation: length_and_direction(rotation).1,
        }
    }

    /// World-frame position of the local origin.
    pub fn translation(&self) -> Vec2 {
        self.translation
    }

    /// The rotation angle in radians, in `(-pi, pi]`.
    pub fn angle(&self) -> f32 {
        crate::math::atan2(self.rotation.y, self.rotation.x)
    }

    /// The rotation as `(cos angle, sin angle)`.
    pub fn rotation(&self) -> Vec2 {
        self.rotation
    }

    /// Whether every component is finite. The narrow phases reject transforms that are not.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite()
    }

    /// Rotates a vector from the local frame into the world frame (no translation).
    #[inline]
    pub fn rotate(&self, v: Vec2) -> Vec2 {
        rotate(self.rotation, v)
    }

    /// Rotates a world-frame vector into the local frame (no translation).
    #[inline]
    pub fn inverse_rotate(&self, v: Vec2) -> Vec2 {
        inverse_rotate(self.rotation, v)
    }

    /// Maps a local point into the world frame.
    #[inline]
    pub fn transform_point(&self, p: Vec2) -> Vec2 {
        self.rotate(p) + self.translation
    }

    /// Maps a world point into the local frame.
    #[inline]
    pub fn inverse_transform_point(&self, p: Vec2) -> Vec2 {
        self.inverse_rotate(p - self.translation)
    }

    /// `self⁻¹ · other`: the transform that maps `other`'s local frame into `self`'s local
    /// frame. The narrow phase uses it to express polygon B in polygon A's frame.
    #[inline]
    pub fn inv_mul(&self, other: &Transform) -> Transform {
        inv_mul_transforms(self, other)
    }
}

/// `q * v` for a rotation `q = (cos, sin)`.
#[inline]
pub(crate) fn rotate(q: Vec2, v: Vec2) -> Vec2 {
    Vec2::new(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y)
}

/// `q⁻¹ * v` for a rotation `q = (cos, sin)`.
#[inline]
pub(crate) fn inverse_rotate(q: Vec2, v: Vec2) -> Vec2 {
    Vec2::new(q.x * v.x + q.y * v.y, -q.y * v.x + q.x * v.y)
}

/// `a⁻¹ · b`, written out so that `shaders/transform.wgsl` can repeat it operation for operation:
/// rotation `qa⁻¹ qb`, translation `qa⁻¹ (pb - pa)`.
#[inline]
pub(crate) fn inv_mul_transforms(a: &Transform, b: &Transform) -> Transform {
    let qa = a.rotation;
    let qb = b.rotation;
    let rotation = Vec2::new(qa.x * qb.x + qa.y * qb.y, qa.x * qb.y - qa.y * qb.x);
    Transform {
        translation: inverse_rotate(qa, b.translation - a.translation),
        rotation,
    }
}

/// `|v|` and the unit vector `v / |v|`, without the underflow of squaring tiny components or
/// the overflow of squaring huge ones: `v` is first divided by the power of two at or below
/// its larger component. That division is exact, so wherever `v.length()` neither underflows
/// nor overflows this returns the same bits as `(v.length(), v / v.length())`; below about
/// 1e-19 the plain length loses its precision among the subnormals (a normal off unit length
/// by 1e-1 and more), and above about 1e19 it is infinite although the true length is not.
/// A zero vector gives length 0 and a NaN direction, as the plain formula does.
#[inline]
pub(crate) fn length_and_direction(v: Vec2) -> (f32, Vec2) {
    let largest = v.abs().max_element();
    // The exponent bits alone; a subnormal (or zero) largest component takes the smallest
    // normal power, which still scales a subnormal exactly.
    let scale = f32::from_bits(largest.to_bits() & 0x7f80_0000).max(f32::MIN_POSITIVE);
    let w = v / scale;
    let length = w.length();
    (length * scale, w / length)
}
