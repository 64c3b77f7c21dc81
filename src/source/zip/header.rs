//! The zip format's fixed-size records read in place by field name (tar-rs's
//! `header.rs` is the model): each view wraps the record's bytes from its
//! signature on, and its accessors are the only place APPNOTE's offsets are
//! written. The reader (`records.rs`) names fields, never offsets.
//!
//! A view is made only over a buffer at least its record's length (the
//! reader reads that many bytes first, or gets `None` from `Data::get`), so
//! the accessors index without checks a cut record could fail.

pub(super) const LOCAL: &[u8; 4] = b"PK\x03\x04";
pub(super) const CENTRAL: &[u8; 4] = b"PK\x01\x02";
pub(super) const END: &[u8; 4] = b"PK\x05\x06";
pub(super) const ZIP64_END: &[u8; 4] = b"PK\x06\x06";
pub(super) const ZIP64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
/// A data descriptor's optional signature (also a spanned-archive marker).
pub(super) const DESCRIPTOR: &[u8; 4] = b"PK\x07\x08";

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// A little-endian u32 at the start of `b` (data descriptors).
pub(super) fn le32(b: &[u8]) -> u32 {
    u32_at(b, 0)
}

/// A little-endian u64 at the start of `b` (data descriptors, zip64 extras).
pub(super) fn le64(b: &[u8]) -> u64 {
    u64_at(b, 0)
}

/// A local file header (APPNOTE 4.3.7), before its name and extra field.
pub(super) struct LocalView<'a>(&'a [u8]);

impl<'a> LocalView<'a> {
    pub(super) const LEN: usize = 30;

    pub(super) fn new(b: &'a [u8]) -> LocalView<'a> {
        debug_assert!(b.len() >= Self::LEN);
        LocalView(b)
    }
    pub(super) fn is_local(&self) -> bool {
        &self.0[..4] == LOCAL
    }
    /// The high byte of "version needed to extract": where the central
    /// directory keeps the host system (libarchive reads it the same way).
    pub(super) fn host(&self) -> u8 {
        self.0[5]
    }
    pub(super) fn flags(&self) -> u16 {
        u16_at(self.0, 6)
    }
    pub(super) fn method(&self) -> u16 {
        u16_at(self.0, 8)
    }
    pub(super) fn crc(&self) -> u32 {
        u32_at(self.0, 14)
    }
    pub(super) fn compressed_size(&self) -> u32 {
        u32_at(self.0, 18)
    }
    pub(super) fn size(&self) -> u32 {
        u32_at(self.0, 22)
    }
    pub(super) fn name_len(&self) -> u16 {
        u16_at(self.0, 26)
    }
    pub(super) fn extra_len(&self) -> u16 {
        u16_at(self.0, 28)
    }
}

/// A central directory file header (APPNOTE 4.3.12), before its name,
/// extra field and comment.
pub(super) struct CentralView<'a>(&'a [u8]);

impl<'a> CentralView<'a> {
    pub(super) const LEN: usize = 46;

    pub(super) fn new(b: &'a [u8]) -> CentralView<'a> {
        debug_assert!(b.len() >= Self::LEN);
        CentralView(b)
    }
    pub(super) fn is_central(&self) -> bool {
        &self.0[..4] == CENTRAL
    }
    pub(super) fn made_by(&self) -> u16 {
        u16_at(self.0, 4)
    }
    pub(super) fn flags(&self) -> u16 {
        u16_at(self.0, 8)
    }
    pub(super) fn method(&self) -> u16 {
        u16_at(self.0, 10)
    }
    pub(super) fn crc(&self) -> u32 {
        u32_at(self.0, 16)
    }
    pub(super) fn compressed_size(&self) -> u32 {
        u32_at(self.0, 20)
    }
    pub(super) fn size(&self) -> u32 {
        u32_at(self.0, 24)
    }
    pub(super) fn name_len(&self) -> u16 {
        u16_at(self.0, 28)
    }
    pub(super) fn extra_len(&self) -> u16 {
        u16_at(self.0, 30)
    }
    pub(super) fn comment_len(&self) -> u16 {
        u16_at(self.0, 32)
    }
    pub(super) fn external_attributes(&self) -> u32 {
        u32_at(self.0, 38)
    }
    /// Where its local header is, from the zip's start.
    pub(super) fn local_header_offset(&self) -> u32 {
        u32_at(self.0, 42)
    }
    /// The bytes of its name, extra field and comment that follow.
    pub(super) fn variable_len(&self) -> usize {
        self.name_len() as usize + self.extra_len() as usize + self.comment_len() as usize
    }
}

/// The end of central directory record (APPNOTE 4.3.16), before its
/// comment.
pub(super) struct EndView<'a>(&'a [u8]);

impl<'a> EndView<'a> {
    pub(super) const LEN: usize = 22;

    pub(super) fn new(b: &'a [u8]) -> EndView<'a> {
        debug_assert!(b.len() >= Self::LEN);
        EndView(b)
    }
    /// The entries of the whole directory (0xffff: see the zip64 record).
    pub(super) fn entries(&self) -> u16 {
        u16_at(self.0, 10)
    }
    pub(super) fn directory_size(&self) -> u32 {
        u32_at(self.0, 12)
    }
    pub(super) fn directory_offset(&self) -> u32 {
        u32_at(self.0, 16)
    }
    pub(super) fn comment_len(&self) -> u16 {
        u16_at(self.0, 20)
    }
}

/// The zip64 end of central directory record (APPNOTE 4.3.14), its fixed
/// part.
pub(super) struct Zip64EndView<'a>(&'a [u8]);

impl<'a> Zip64EndView<'a> {
    pub(super) const LEN: usize = 56;
    /// Its signature and size field: what precedes the record's body (the
    /// size counts from there).
    pub(super) const HEAD: usize = 12;
    /// Through its entry count: what a directory read as a stream needs.
    pub(super) const THROUGH_ENTRIES: usize = 40;

    /// A view of its first `b.len()` bytes: [`Self::LEN`] for every field,
    /// [`Self::THROUGH_ENTRIES`] for `size` and `entries` only.
    pub(super) fn new(b: &'a [u8]) -> Zip64EndView<'a> {
        debug_assert!(b.len() >= Self::HEAD);
        Zip64EndView(b)
    }
    pub(super) fn is_zip64_end(&self) -> bool {
        &self.0[..4] == ZIP64_END
    }
    /// The record's size after this field (APPNOTE: "should not include
    /// the leading 12 bytes").
    pub(super) fn size(&self) -> u64 {
        u64_at(self.0, 4)
    }
    /// The entries of the whole directory.
    pub(super) fn entries(&self) -> u64 {
        u64_at(self.0, 32)
    }
    pub(super) fn directory_size(&self) -> u64 {
        u64_at(self.0, 40)
    }
    pub(super) fn directory_offset(&self) -> u64 {
        u64_at(self.0, 48)
    }
}

/// The zip64 end of central directory locator (APPNOTE 4.3.15).
pub(super) struct Zip64LocatorView<'a>(&'a [u8]);

impl<'a> Zip64LocatorView<'a> {
    pub(super) const LEN: usize = 20;

    pub(super) fn new(b: &'a [u8]) -> Zip64LocatorView<'a> {
        debug_assert!(b.len() >= Self::LEN);
        Zip64LocatorView(b)
    }
    pub(super) fn is_locator(&self) -> bool {
        &self.0[..4] == ZIP64_LOCATOR
    }
    /// Where the zip64 end record is, from the zip's start.
    pub(super) fn zip64_end_offset(&self) -> u64 {
        u64_at(self.0, 8)
    }
}

/// The zip64 extended information extra field's id (APPNOTE 4.5.3).
pub(super) const ZIP64_EXTRA: u16 = 0x0001;
/// The Info-ZIP Unicode Path extra field's id (APPNOTE 4.6.9).
pub(super) const UNICODE_PATH: u16 = 0x7075;

/// (id, body) of each extra field: a 2-byte id, a 2-byte size, the body
/// (APPNOTE 4.5.1); a body cut by the field's end is cut short.
pub(super) fn extra_fields(mut e: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    std::iter::from_fn(move || {
        if e.len() < 4 {
            return None;
        }
        let (id, len) = (u16_at(e, 0), u16_at(e, 2) as usize);
        let body = &e[4..(4 + len).min(e.len())];
        e = &e[(4 + len).min(e.len())..];
        Some((id, body))
    })
}

/// A zip64 extra field's body: the 8-byte values of the fields whose
/// 32-bit value is 0xffffffff, in the order given (APPNOTE 4.5.3).
pub(super) fn widen(mut b: &[u8], fields: &mut [&mut u64]) {
    for field in fields {
        if **field == 0xffff_ffff && b.len() >= 8 {
            **field = le64(b);
            b = &b[8..];
        }
    }
}

/// An Info-ZIP Unicode Path extra field's body (APPNOTE 4.6.9): version 1,
/// the CRC-32 of the header's name, then the name in UTF-8.
pub(super) struct UnicodePathView<'a>(&'a [u8]);

impl<'a> UnicodePathView<'a> {
    /// The body if it is a version 1 field with a name.
    pub(super) fn new(body: &'a [u8]) -> Option<UnicodePathView<'a>> {
        (body.len() > 5 && body[0] == 1).then_some(UnicodePathView(body))
    }
    /// The CRC-32 of the name in the header it was made from.
    pub(super) fn name_crc(&self) -> u32 {
        u32_at(self.0, 1)
    }
    pub(super) fn name(&self) -> &'a [u8] {
        &self.0[5..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each view reads its fields where APPNOTE puts them: records laid
    /// out byte by byte here, as `zip -X` writes a stored `a.txt`.
    #[test]
    fn views_read_appnote_offsets() {
        let mut local = Vec::new();
        local.extend_from_slice(LOCAL);
        local.extend_from_slice(&[20, 3]); // version needed 2.0, host Unix
        local.extend_from_slice(&0x0808u16.to_le_bytes()); // flags
        local.extend_from_slice(&8u16.to_le_bytes()); // deflate
        local.extend_from_slice(&[0; 4]); // time, date
        local.extend_from_slice(&0xdead_beefu32.to_le_bytes());
        local.extend_from_slice(&7u32.to_le_bytes());
        local.extend_from_slice(&9u32.to_le_bytes());
        local.extend_from_slice(&5u16.to_le_bytes());
        local.extend_from_slice(&4u16.to_le_bytes());
        let l = LocalView::new(&local);
        assert!(l.is_local());
        assert_eq!(
            (l.host(), l.flags(), l.method(), l.crc()),
            (3, 0x0808, 8, 0xdead_beef)
        );
        assert_eq!(
            (l.compressed_size(), l.size(), l.name_len(), l.extra_len()),
            (7, 9, 5, 4)
        );

        let mut cd = Vec::new();
        cd.extend_from_slice(CENTRAL);
        cd.extend_from_slice(&0x031eu16.to_le_bytes()); // made by Unix 3.0
        cd.extend_from_slice(&20u16.to_le_bytes());
        cd.extend_from_slice(&0x0800u16.to_le_bytes());
        cd.extend_from_slice(&0u16.to_le_bytes());
        cd.extend_from_slice(&[0; 4]);
        cd.extend_from_slice(&0x1234_5678u32.to_le_bytes());
        cd.extend_from_slice(&11u32.to_le_bytes());
        cd.extend_from_slice(&12u32.to_le_bytes());
        cd.extend_from_slice(&5u16.to_le_bytes());
        cd.extend_from_slice(&24u16.to_le_bytes());
        cd.extend_from_slice(&3u16.to_le_bytes());
        cd.extend_from_slice(&[0; 4]); // disk, internal attributes
        cd.extend_from_slice(&(0o120777u32 << 16).to_le_bytes());
        cd.extend_from_slice(&99u32.to_le_bytes());
        let c = CentralView::new(&cd);
        assert!(c.is_central());
        assert_eq!(
            (c.made_by(), c.flags(), c.method(), c.crc()),
            (0x031e, 0x0800, 0, 0x1234_5678)
        );
        assert_eq!((c.compressed_size(), c.size()), (11, 12));
        assert_eq!((c.name_len(), c.extra_len(), c.comment_len()), (5, 24, 3));
        assert_eq!(c.variable_len(), 32);
        assert_eq!(c.external_attributes() >> 16, 0o120777);
        assert_eq!(c.local_header_offset(), 99);

        let mut end = Vec::new();
        end.extend_from_slice(END);
        end.extend_from_slice(&[0; 4]); // disks
        end.extend_from_slice(&2u16.to_le_bytes());
        end.extend_from_slice(&3u16.to_le_bytes());
        end.extend_from_slice(&400u32.to_le_bytes());
        end.extend_from_slice(&500u32.to_le_bytes());
        end.extend_from_slice(&6u16.to_le_bytes());
        let e = EndView::new(&end);
        assert_eq!(
            (e.entries(), e.directory_size(), e.directory_offset()),
            (3, 400, 500)
        );
        assert_eq!(e.comment_len(), 6);

        let mut z = Vec::new();
        z.extend_from_slice(ZIP64_END);
        z.extend_from_slice(&44u64.to_le_bytes());
        z.extend_from_slice(&[45, 3, 45, 0]); // versions
        z.extend_from_slice(&[0; 8]); // disks
        z.extend_from_slice(&7u64.to_le_bytes());
        z.extend_from_slice(&70_000u64.to_le_bytes());
        z.extend_from_slice(&(5u64 << 32).to_le_bytes());
        z.extend_from_slice(&(6u64 << 32).to_le_bytes());
        let z = Zip64EndView::new(&z);
        assert!(z.is_zip64_end());
        assert_eq!((z.size(), z.entries()), (44, 70_000));
        assert_eq!(
            (z.directory_size(), z.directory_offset()),
            (5 << 32, 6 << 32)
        );

        let mut loc = Vec::new();
        loc.extend_from_slice(ZIP64_LOCATOR);
        loc.extend_from_slice(&0u32.to_le_bytes());
        loc.extend_from_slice(&(1u64 << 33).to_le_bytes());
        loc.extend_from_slice(&1u32.to_le_bytes());
        let l = Zip64LocatorView::new(&loc);
        assert!(l.is_locator());
        assert_eq!(l.zip64_end_offset(), 1 << 33);
    }

    /// A zip64 extra widens only the fields set to 0xffffffff, in order; a
    /// Unicode Path extra gives its CRC and name; a field whose size runs
    /// past the extra area is cut, not read past it.
    #[test]
    fn extra_fields_are_read_by_id() {
        let mut e = Vec::new();
        e.extend_from_slice(&ZIP64_EXTRA.to_le_bytes());
        e.extend_from_slice(&8u16.to_le_bytes());
        e.extend_from_slice(&(5u64 << 32).to_le_bytes());
        e.extend_from_slice(&UNICODE_PATH.to_le_bytes());
        e.extend_from_slice(&10u16.to_le_bytes());
        e.push(1);
        e.extend_from_slice(&0xcafe_f00du32.to_le_bytes());
        e.extend_from_slice("é.tx".as_bytes());
        e.extend_from_slice(&0x9901u16.to_le_bytes());
        e.extend_from_slice(&100u16.to_le_bytes());
        e.extend_from_slice(b"ab");
        let fields: Vec<_> = extra_fields(&e).collect();
        assert_eq!(fields.len(), 3);
        let (mut usize, mut csize) = (0xffff_ffffu64, 7u64);
        widen(fields[0].1, &mut [&mut usize, &mut csize]);
        assert_eq!((usize, csize), (5 << 32, 7));
        assert_eq!(fields[1].0, UNICODE_PATH);
        let u = UnicodePathView::new(fields[1].1).expect("version 1");
        assert_eq!((u.name_crc(), u.name()), (0xcafe_f00d, "é.tx".as_bytes()));
        assert_eq!(fields[2], (0x9901, &b"ab"[..]));
        assert!(UnicodePathView::new(&[2, 0, 0, 0, 0, b'a']).is_none());
    }
}
