//! A tar header block read by named field (POSIX ustar, with the GNU
//! extensions the reader follows): the reader asks for `size` or
//! `typeflag`, never for byte ranges.

/// A tar block: headers and data are in blocks of this size.
pub(super) const BLOCK: usize = 512;

/// Where each field is in a header block.
const NAME: std::ops::Range<usize> = 0..100;
const SIZE: std::ops::Range<usize> = 124..136;
const CHKSUM: std::ops::Range<usize> = 148..156;
const TYPEFLAG: usize = 156;
const LINKNAME: std::ops::Range<usize> = 157..257;
const MAGIC: std::ops::Range<usize> = 257..263;
const PREFIX: std::ops::Range<usize> = 345..500;
/// Old GNU sparse headers: four regions, "isextended", the real size.
const GNU_SPARSE: std::ops::Range<usize> = 386..482;
const GNU_IS_EXTENDED: usize = 482;
const GNU_REAL_SIZE: std::ops::Range<usize> = 483..495;

/// A whole header block, read by field.
pub(super) struct Header<'a>(pub(super) &'a [u8; BLOCK]);

impl Header<'_> {
    /// The name field (without a ustar prefix), up to its NUL.
    pub(super) fn name(&self) -> &[u8] {
        cstr(&self.0[NAME])
    }

    /// The size field, if it is a number.
    pub(super) fn size(&self) -> Option<u64> {
        octal(&self.0[SIZE])
    }

    pub(super) fn typeflag(&self) -> u8 {
        self.0[TYPEFLAG]
    }

    /// The link target field, up to its NUL.
    pub(super) fn linkname(&self) -> &[u8] {
        cstr(&self.0[LINKNAME])
    }

    /// A POSIX ustar header (its name may have a prefix).
    pub(super) fn is_ustar(&self) -> bool {
        &self.0[MAGIC] == b"ustar\0"
    }

    /// The ustar name prefix field, up to its NUL.
    pub(super) fn prefix(&self) -> &[u8] {
        cstr(&self.0[PREFIX])
    }

    /// An old GNU sparse header's four regions (offset, size: 12 bytes each).
    pub(super) fn gnu_sparse(&self) -> &[u8] {
        &self.0[GNU_SPARSE]
    }

    /// An old GNU sparse header is followed by extension blocks.
    pub(super) fn gnu_is_extended(&self) -> bool {
        self.0[GNU_IS_EXTENDED] != 0
    }

    /// An old GNU sparse member's expanded size.
    pub(super) fn gnu_real_size(&self) -> Option<u64> {
        octal(&self.0[GNU_REAL_SIZE])
    }
}

/// A header's checksum adds up, summed over unsigned or (old Sun, HP-UX,
/// V7 writers) signed bytes, the checksum field counted as spaces.
pub(in crate::source) fn checksum_ok(h: &[u8]) -> bool {
    if h.len() < BLOCK {
        return false;
    }
    let Some(stored) = octal(&h[CHKSUM]) else {
        return false;
    };
    let (mut unsigned, mut signed) = (0u64, 0i64);
    for (i, &b) in h[..BLOCK].iter().enumerate() {
        let b = if CHKSUM.contains(&i) { b' ' } else { b };
        unsigned += b as u64;
        signed += b as i8 as i64;
    }
    stored == unsigned || stored as i64 == signed
}

/// An octal numeric field: leading spaces, digits, then a space or NUL; a
/// NUL before any digit ends the field, so it is 0 (GNU tar, libarchive and
/// Python all read `\0\0\0\0\0\0\0 0016\0` as 0); or base-256 (high
/// bit set).
pub(super) fn octal(f: &[u8]) -> Option<u64> {
    if f.first().is_some_and(|&b| b & 0x80 != 0) {
        // Base-256: big-endian, the first byte's high bit is the marker.
        // Negative numbers (0xff marker) are not sizes.
        if f[0] == 0xff {
            return None;
        }
        let mut v: u64 = (f[0] & 0x7f) as u64;
        for &b in &f[1..] {
            v = v.checked_mul(256)?.checked_add(b as u64)?;
        }
        return Some(v);
    }
    let start = f.iter().position(|&b| b != b' ').unwrap_or(f.len());
    if f.get(start).is_none_or(|&b| b == 0) {
        return Some(0);
    }
    let s = f[start..]
        .iter()
        .take_while(|&&b| (b'0'..=b'7').contains(&b))
        .try_fold(0u64, |v, &b| {
            v.checked_mul(8)?.checked_add((b - b'0') as u64)
        })?;
    // Whatever follows the digits must be a terminator.
    let digits_end = start
        + f[start..]
            .iter()
            .take_while(|&&b| (b'0'..=b'7').contains(&b))
            .count();
    if f[digits_end..].iter().all(|&b| b == b' ' || b == 0) {
        Some(s)
    } else {
        None
    }
}

/// Bytes up to the first NUL.
pub(super) fn cstr(f: &[u8]) -> &[u8] {
    &f[..memchr::memchr(0, f).unwrap_or(f.len())]
}
