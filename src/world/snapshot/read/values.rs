//! Checked reading that several parts of the reader share: a section's tag, a world check's
//! error placed at the value's offset, a unit vector, a float of 0 or more.

use glam::Vec2;

use super::super::UNIT_TOLERANCE;
use super::super::codec::Reader;
use crate::error::Error;

/// Checks the section tag `expected`.
pub(super) fn tag(r: &mut Reader<'_>, expected: u8, section: &str) -> Result<(), Error> {
    let at = r.offset;
    let got = r.u8(section)?;
    if got != expected {
        return Reader::error_at(
            at,
            format!(
                "expected the {section} section (tag {:?}), found byte {got}",
                expected as char
            ),
        );
    }
    Ok(())
}

/// An error of the world's own checks, placed at `at`.
pub(super) fn at<T>(at: usize, result: Result<T, Error>) -> Result<T, Error> {
    result.or_else(|e| Reader::error_at(at, e.to_string()))
}

/// A vector of unit length, up to [`UNIT_TOLERANCE`] (renormalised rotations and normals).
pub(super) fn read_unit(r: &mut Reader<'_>, field: &str) -> Result<Vec2, Error> {
    let at = r.offset;
    let v = r.vec2(field, 2.0)?;
    if (v.length_squared() - 1.0).abs() > UNIT_TOLERANCE {
        return Reader::error_at(at, format!("{field} = {v}: not of unit length"));
    }
    Ok(v)
}

/// A finite f32, 0 or more.
pub(super) fn non_negative(r: &mut Reader<'_>, field: &str) -> Result<f32, Error> {
    let at = r.offset;
    let v = r.f32(field, f32::MAX)?;
    if v < 0.0 {
        return Reader::error_at(at, format!("{field} = {v}: must be 0 or more"));
    }
    Ok(v)
}
