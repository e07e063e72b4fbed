//! The byte level of world snapshots (the format is in `mod.rs`): little-endian
//! fixed-width numbers, LEB128 variable-length unsigned integers, and a reader that knows
//! its offset.
//!
//! ```text
//! u8, u32, u64, f32:  little-endian, fixed width (f32 as its bits: a snapshot restores
//!                     every float exactly, NaN payloads included, though none is accepted)
//! varint:             7 bits a byte, low bits first, high bit set on every byte but the
//!                     last; at most 10 bytes (a u64), no padding bytes past the value
//! near f32:           a float the reader can predict (a fat box from the tight one, a kept
//!                     pose from the current one): the difference of the two bit patterns
//!                     as u32s, wrapping, zigzagged (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...)
//!                     and written as a varint: 1 byte when they agree, 2 or 3 when they
//!                     are near, 5 at worst; exact either way
//! ```
//!
//! Every read returns [`SnapshotError`](crate::error::SnapshotError) naming the field and the offset where it starts,
//! never panics; a count is checked against the bytes left (times the least a record can
//! take) before anything is allocated for it, so a forged count cannot ask for gigabytes.

use glam::Vec2;

use crate::error::Error;
use crate::error::SnapshotError;

/// The error of a snapshot fault: out of line, so that the readers' fast paths stay small.
#[cold]
#[inline(never)]
fn snapshot_error(offset: usize, what: String) -> Error {
    Error::Snapshot(SnapshotError { offset, what })
}

/// The float `prediction`'s bits moved by the zigzagged difference `zigzag`.
#[inline]
fn unzigzag(prediction: f32, zigzag: u32) -> f32 {
    let diff = ((zigzag >> 1) as i32) ^ -((zigzag & 1) as i32);
    f32::from_bits(prediction.to_bits().wrapping_add(diff as u32))
}

/// Appends a snapshot's fields.
#[derive(Default)]
pub(super) struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    pub fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }

    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }

    /// `v` as its difference from `prediction` (see the module notes).
    pub fn f32_near(&mut self, v: f32, prediction: f32) {
        let diff = v.to_bits().wrapping_sub(prediction.to_bits()) as i32;
        self.varint(u64::from(((diff << 1) ^ (diff >> 31)) as u32));
    }

    /// A count or an index (a `usize` that fits in 64 bits everywhere the crate builds).
    pub fn len(&mut self, v: usize) {
        self.varint(v as u64);
    }
}

/// Reads a snapshot's fields in order, from `offset` on.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pub offset: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, offset: 0 }
    }

    /// An error at `offset` saying `what`.
    pub fn error_at<T>(offset: usize, what: impl Into<String>) -> Result<T, Error> {
        Err(snapshot_error(offset, what.into()))
    }

    /// An error at the current offset.
    pub fn fail<T>(&self, what: impl Into<String>) -> Result<T, Error> {
        Self::error_at(self.offset, what)
    }

    /// All of the bytes, from the start.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.offset
    }

    pub fn at_end(&self) -> bool {
        self.offset == self.bytes.len()
    }

    /// The next `n` bytes of `field`.
    pub fn take(&mut self, n: usize, field: &str) -> Result<&'a [u8], Error> {
        if self.remaining() < n {
            return self.fail(format!(
                "truncated: {field} needs {n} bytes, {} are left",
                self.remaining()
            ));
        }
        let slice = &self.bytes[self.offset..self.offset + n];
        self.offset += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N], Error> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, field)?);
        Ok(out)
    }

    pub fn u8(&mut self, field: &str) -> Result<u8, Error> {
        match self.bytes.get(self.offset) {
            Some(&b) => {
                self.offset += 1;
                Ok(b)
            }
            None => self.take(1, field).map(|_| 0),
        }
    }

    pub fn u32(&mut self, field: &str) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    pub fn u64(&mut self, field: &str) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array(field)?))
    }

    /// Any f32, not checked (the caller checks it against its field's rule).
    pub fn raw_f32(&mut self, field: &str) -> Result<f32, Error> {
        Ok(f32::from_bits(self.u32(field)?))
    }

    /// A finite f32 of at most `limit` in magnitude.
    #[inline]
    pub fn f32(&mut self, field: &str, limit: f32) -> Result<f32, Error> {
        // The common case in one bounds check; a short or refused value takes the slow
        // path, which names the fault.
        if let Some(&word) = self.bytes[self.offset..].first_chunk::<4>() {
            let v = f32::from_le_bytes(word);
            if v.is_finite() && v.abs() <= limit {
                self.offset += 4;
                return Ok(v);
            }
        }
        self.f32_checked(field, limit)
    }

    #[cold]
    fn f32_checked(&mut self, field: &str, limit: f32) -> Result<f32, Error> {
        let at = self.offset;
        let v = self.raw_f32(field)?;
        if !(v.is_finite() && v.abs() <= limit) {
            return Self::refused(at, field, v, limit);
        }
        Ok(v)
    }

    /// A finite f32 of at most `limit` in magnitude, written as its difference from
    /// `prediction` (see the module notes).
    #[inline]
    pub fn f32_near(&mut self, field: &str, prediction: f32, limit: f32) -> Result<f32, Error> {
        let at = self.offset;
        let v = unzigzag(prediction, self.varint_u32(field)?);
        if !(v.is_finite() && v.abs() <= limit) {
            return Self::refused(at, field, v, limit);
        }
        Ok(v)
    }

    #[cold]
    fn refused<T>(at: usize, field: &str, v: f32, limit: f32) -> Result<T, Error> {
        Self::error_at(
            at,
            format!("{field} = {v}: must be finite, at most {limit:e}"),
        )
    }

    /// Two finite f32s of at most `limit` in magnitude (x, y).
    #[inline]
    pub fn vec2(&mut self, field: &str, limit: f32) -> Result<Vec2, Error> {
        if let Some(&[x0, x1, x2, x3, y0, y1, y2, y3]) = self.bytes[self.offset..].first_chunk() {
            let v = Vec2::new(
                f32::from_le_bytes([x0, x1, x2, x3]),
                f32::from_le_bytes([y0, y1, y2, y3]),
            );
            // `is_finite` first: `max_element` passes over a NaN.
            if v.is_finite() && v.abs().max_element() <= limit {
                self.offset += 8;
                return Ok(v);
            }
        }
        Ok(Vec2::new(self.f32(field, limit)?, self.f32(field, limit)?))
    }

    #[inline]
    pub fn varint(&mut self, field: &str) -> Result<u64, Error> {
        // Most are one byte (small indices, flags, exact predictions); a well-formed
        // longer one is decoded here too, and only a fault takes the checked path.
        let rest = &self.bytes[self.offset..];
        if let Some(&b) = rest.first() {
            if b < 0x80 {
                self.offset += 1;
                return Ok(u64::from(b));
            }
        }
        let mut value = 0u64;
        for (k, &byte) in rest.iter().take(9).enumerate() {
            value |= u64::from(byte & 0x7f) << (7 * k);
            if byte < 0x80 {
                self.offset += k + 1;
                return Ok(value);
            }
        }
        self.checked_varint(field)
    }

    #[cold]
    fn checked_varint(&mut self, field: &str) -> Result<u64, Error> {
        let at = self.offset;
        let mut value = 0u64;
        for k in 0..10 {
            let byte = self.u8(field)?;
            let bits = u64::from(byte & 0x7f);
            if k == 9 && byte > 1 {
                return Self::error_at(at, format!("{field}: a varint past 64 bits"));
            }
            value |= bits << (7 * k);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Self::error_at(at, format!("{field}: a varint past 64 bits"))
    }

    /// A varint below `bound` (an index into something of `bound` items).
    #[inline]
    pub fn index(&mut self, field: &str, bound: usize) -> Result<usize, Error> {
        let at = self.offset;
        let v = self.varint(field)?;
        if v >= bound as u64 {
            return Self::error_at(at, format!("{field} = {v}: out of range (below {bound})"));
        }
        Ok(v as usize)
    }

    /// A varint u32.
    #[inline]
    pub fn varint_u32(&mut self, field: &str) -> Result<u32, Error> {
        let at = self.offset;
        let v = self.varint(field)?;
        u32::try_from(v).or_else(|_| Self::error_at(at, format!("{field} = {v}: past u32")))
    }

    /// A count of records of `min_size` bytes each at least: no more than the bytes left
    /// could hold, so that no forged count allocates more than the snapshot's own size.
    pub fn count(&mut self, field: &str, min_size: usize) -> Result<usize, Error> {
        let at = self.offset;
        let v = self.varint(field)?;
        let most = self.remaining() / min_size.max(1);
        if v > most as u64 {
            return Self::error_at(
                at,
                format!(
                    "{field} = {v}: more than the {} bytes left can hold",
                    self.remaining()
                ),
            );
        }
        Ok(v as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_overlong_ones_are_refused() {
        let mut w = Writer::default();
        let values = [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX];
        for v in values {
            w.varint(v);
        }
        let mut r = Reader::new(&w.bytes);
        for v in values {
            assert_eq!(r.varint("v").ok(), Some(v));
        }
        assert!(r.at_end());
        let mut w = Writer::default();
        let pairs = [
            (1.0f32, 1.0f32),
            (1.0, 1.0000001),
            (-2.5, 3.0),
            (0.0, -0.0),
            (1e-30, 7.0),
        ];
        for (v, p) in pairs {
            w.f32_near(v, p);
        }
        assert_eq!(w.bytes[0], 0, "an exact prediction is one zero byte");
        let mut r = Reader::new(&w.bytes);
        for (v, p) in pairs {
            let got = r.f32_near("v", p, f32::MAX).map(f32::to_bits).ok();
            assert_eq!(got, Some(v.to_bits()));
        }
        let long = [0xffu8; 11];
        assert!(matches!(
            Reader::new(&long).varint("v"),
            Err(Error::Snapshot(SnapshotError { offset: 0, .. }))
        ));
    }

    #[test]
    fn a_count_past_the_bytes_left_is_refused_before_allocating() {
        let mut w = Writer::default();
        w.varint(1 << 40);
        w.u32(0);
        let mut r = Reader::new(&w.bytes);
        let err = r.count("bodies", 8).map(|_| ()).map_err(|e| e.to_string());
        assert!(err.is_err_and(|e| e.contains("bodies") && e.contains("byte 0")));
    }
}
