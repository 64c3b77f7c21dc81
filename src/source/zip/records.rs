//! The zip format's records (APPNOTE): local headers, data descriptors,
//! the central directory and its end records, extra fields and names. The
//! reader in `zip.rs` walks them.

use super::*;
use header::{
    CENTRAL, CentralView, DESCRIPTOR, END, EndView, LOCAL, LocalView, UNICODE_PATH,
    UnicodePathView, ZIP64_END, ZIP64_EXTRA, ZIP64_LOCATOR, Zip64EndView, Zip64LocatorView,
    extra_fields, le32, le64, widen,
};

/// A local file header (APPNOTE 4.3.7), with zip64 sizes applied.
#[derive(Debug)]
pub(in crate::source) struct LocalHeader {
    pub name: String,
    pub flags: u16,
    pub method: u16,
    pub crc: u32,
    pub csize: u64,
    pub usize: u64,
    pub zip64: bool,
}

impl LocalHeader {
    pub(in crate::source) fn encrypted(&self) -> bool {
        self.flags & 1 != 0
    }
    /// Sizes and CRC follow the data (general purpose flag bit 3).
    pub(in crate::source) fn descriptor(&self) -> bool {
        self.flags & 8 != 0
    }
}

pub(super) fn exact(r: &mut dyn BufRead, buf: &mut [u8], what: &str) -> io::Result<()> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            truncated(format!("zip ends inside {what}"))
        } else {
            e
        }
    })
}

/// What comes next in a zip read from its local headers.
#[derive(Debug)]
pub(in crate::source) enum Next {
    Entry(LocalHeader),
    /// The central directory (or another end record) begins: its
    /// signature, read.
    Directory([u8; 4]),
    /// The data ends.
    End,
}

/// Reads the next local header.
pub(in crate::source) fn local_header(r: &mut dyn BufRead) -> io::Result<Next> {
    let mut first = true;
    let mut sig = [0u8; 4];
    loop {
        if r.fill_buf()?.is_empty() {
            return Ok(Next::End);
        }
        exact(r, &mut sig, "a record signature")?;
        match &sig {
            LOCAL => break,
            CENTRAL | END | ZIP64_END | ZIP64_LOCATOR => {
                return Ok(Next::Directory(sig));
            }
            // A spanned-archive marker before the first entry.
            DESCRIPTOR | b"PK00" if first => first = false,
            _ => {
                return Err(corrupt(format!(
                    "no local header where one should be (found {sig:02x?})"
                )));
            }
        }
    }
    let mut h = [0u8; LocalView::LEN];
    h[..4].copy_from_slice(&sig);
    exact(r, &mut h[4..], "a local header")?;
    let h = LocalView::new(&h);
    let flags = h.flags();
    let method = h.method();
    let crc = h.crc();
    let mut csize = h.compressed_size() as u64;
    let mut usize = h.size() as u64;
    let name_len = h.name_len() as usize;
    let extra_len = h.extra_len() as usize;
    let mut name = vec![0u8; name_len];
    exact(r, &mut name, "a local header")?;
    let mut extra = vec![0u8; extra_len];
    exact(r, &mut extra, "a local header")?;
    let mut zip64 = false;
    for (id, body) in extra_fields(&extra) {
        if id == ZIP64_EXTRA {
            zip64 = true;
            widen(body, &mut [&mut usize, &mut csize]);
        }
    }
    let name = dos_separators(name_of(&name, flags), h.host());
    Ok(Next::Entry(LocalHeader {
        name,
        flags,
        method,
        crc,
        csize,
        usize,
        zip64,
    }))
}

/// Reads a data descriptor after an entry's data: its CRC-32 and
/// compressed size (the signature is optional, sizes are 8 bytes in zip64).
pub(in crate::source) fn descriptor(r: &mut dyn BufRead, zip64: bool) -> io::Result<(u32, u64)> {
    let mut b = [0u8; 4];
    exact(r, &mut b, "a data descriptor")?;
    let crc = if &b == DESCRIPTOR {
        exact(r, &mut b, "a data descriptor")?;
        le32(&b)
    } else {
        le32(&b)
    };
    let csize = if zip64 {
        let mut s = [0u8; 16];
        exact(r, &mut s, "a data descriptor")?;
        le64(&s)
    } else {
        let mut s = [0u8; 8];
        exact(r, &mut s, "a data descriptor")?;
        le32(&s) as u64
    };
    Ok((crc, csize))
}

/// A central directory read as a stream after the local headers (`sig`,
/// its first signature, already read), to its end record: the count of
/// its records (names skipped, never kept) and the count the end record
/// announces. A zip read from its local headers is whole only if the two
/// agree with the entries read: bytes that merely look like a directory
/// signature (four stray bytes `PK\1\2` after an entry) must not end the
/// reading quietly.
pub(in crate::source) fn directory_stream(
    r: &mut dyn BufRead,
    first: [u8; 4],
) -> io::Result<(u64, u64)> {
    let mut sig = first;
    let mut records = 0u64;
    let mut zip64_count = None;
    loop {
        match &sig {
            CENTRAL => {
                let mut h = [0u8; CentralView::LEN];
                h[..4].copy_from_slice(&sig);
                exact(r, &mut h[4..], "its central directory")?;
                skip_exact(r, CentralView::new(&h).variable_len() as u64)?;
                records += 1;
            }
            ZIP64_END => {
                // Its head, then its body up to the entry count (a short
                // record has none to tell).
                const HEAD: usize = Zip64EndView::HEAD;
                let mut h = [0u8; Zip64EndView::THROUGH_ENTRIES];
                h[..4].copy_from_slice(&sig);
                exact(r, &mut h[4..HEAD], "its zip64 end record")?;
                let size = Zip64EndView::new(&h).size();
                let keep = size.min((h.len() - HEAD) as u64) as usize;
                exact(r, &mut h[HEAD..HEAD + keep], "its zip64 end record")?;
                if HEAD + keep == h.len() {
                    zip64_count = Some(Zip64EndView::new(&h).entries());
                }
                skip_exact(r, size - keep as u64)?;
            }
            ZIP64_LOCATOR => skip_exact(r, (Zip64LocatorView::LEN - 4) as u64)?,
            END => {
                let mut h = [0u8; EndView::LEN];
                h[..4].copy_from_slice(&sig);
                exact(r, &mut h[4..], "its end record")?;
                let count = EndView::new(&h).entries() as u64;
                let count = match zip64_count {
                    Some(n) if count == 0xffff => n,
                    _ => count,
                };
                return Ok((records, count));
            }
            _ => {
                return Err(corrupt(format!(
                    "no central directory record where one should be (found {sig:02x?})"
                )));
            }
        }
        exact(r, &mut sig, "its central directory")?;
    }
}

pub(super) fn skip_exact(r: &mut dyn BufRead, n: u64) -> io::Result<()> {
    if io::copy(&mut r.take(n), &mut io::sink())? < n {
        return Err(truncated("zip ends inside its central directory"));
    }
    Ok(())
}

/// An entry of a zip's central directory, offsets absolute in the file.
#[derive(Debug)]
pub(in crate::source) struct CdEntry {
    pub name: String,
    pub flags: u16,
    pub method: u16,
    pub crc: u32,
    pub csize: u64,
    pub usize: u64,
    /// Where its local header starts.
    pub header: u64,
    /// Flagged as a Unix symlink by its external attributes.
    pub symlink: bool,
    /// Its raw name in the directory, to compare with the local header's;
    /// None when it is `name`'s bytes (most names: nothing more is held).
    raw_name: Option<Box<[u8]>>,
}

impl CdEntry {
    pub(in crate::source) fn encrypted(&self) -> bool {
        self.flags & 1 != 0
    }
    pub(in crate::source) fn is_dir(&self) -> bool {
        self.name.ends_with('/') && self.usize == 0
    }
    /// Its raw name, as the central directory holds it.
    pub(in crate::source) fn raw_name(&self) -> &[u8] {
        self.raw_name.as_deref().unwrap_or(self.name.as_bytes())
    }
}

/// Why a zip's central directory could not be used; the zip is then read
/// from its local headers.
#[derive(Debug, thiserror::Error)]
pub(in crate::source) enum DirectoryError {
    #[error("no end-of-central-directory record")]
    NoEnd,
    #[error(
        "the end-of-central-directory record does not fit this file ({0}): it may belong to a zip stored inside a cut one"
    )]
    Misfit(&'static str),
    #[error("the central directory announces {0} entries")]
    TooMany(u64),
    /// The file could not be read (it changed while read): not a zip's
    /// damage, an error of the artifact.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A zip's central directory, read from a whole zip in place (entries'
/// offsets include any bytes before the zip: a self-extractor stub, junk).
pub(in crate::source) struct Directory {
    pub entries: Vec<CdEntry>,
    /// Each entry's data, from its local header: start and end (None
    /// when there is no local header where it says).
    pub spans: Vec<Option<(u64, u64)>>,
    /// Where the directory starts in the zip.
    pub start: u64,
}

/// Finds the end record that belongs to this file: its central directory
/// must lie before it, start with a directory record, hold as many entries
/// as announced, and point at local headers inside the file. An end record
/// whose offsets only fit if the zip started later, in a file that starts
/// with a local header, is a stored inner zip's, not this file's.
pub(in crate::source) fn central_directory(
    data: Data<'_>,
    max_entries: u64,
) -> Result<Directory, DirectoryError> {
    let len = data.len();
    const N: usize = EndView::LEN;
    // The end record and its comment lie in the last 22 + 65535 bytes.
    let from = len.saturating_sub(N as u64 + 0xffff);
    let tail = data.get(from, (len - from) as usize)?.unwrap_or_default();
    let mut found = Vec::new();
    let mut i = tail.len().saturating_sub(N);
    loop {
        if tail.len() < N {
            break;
        }
        if &tail[i..i + 4] == END {
            found.push(i);
        }
        if i == 0 {
            break;
        }
        i -= 1;
    }
    if found.is_empty() {
        return Err(DirectoryError::NoEnd);
    }
    // Records whose comment reaches exactly to the end first: a comment
    // holding end-record-like bytes must not win over the real record.
    let exact =
        |&p: &usize| p + N + EndView::new(&tail[p..p + N]).comment_len() as usize == tail.len();
    let (mut first, rest): (Vec<usize>, Vec<usize>) = found.into_iter().partition(exact);
    first.extend(rest);
    let mut why = "its central directory is not where it says";
    for pos in first {
        let end = EndView::new(&tail[pos..pos + N]);
        match directory_at(data, end, from + pos as u64, max_entries) {
            Ok(d) => return Ok(d),
            Err(DirectoryError::Misfit(w)) => why = w,
            Err(e) => return Err(e),
        }
    }
    Err(DirectoryError::Misfit(why))
}

/// The directory of the end record `e`, at `pos`.
pub(super) fn directory_at(
    data: Data<'_>,
    e: EndView<'_>,
    pos: u64,
    max_entries: u64,
) -> Result<Directory, DirectoryError> {
    let mut count = e.entries() as u64;
    let mut cd_size = e.directory_size() as u64;
    let mut cd_offset = e.directory_offset() as u64;
    // Where the directory ends: the end record, or the zip64 end record.
    let mut end = pos;
    // How far the zip64 locator's offset is from where its record lies
    // (bytes before the zip); the directory must agree.
    let mut shift64 = None;
    const LOC: usize = Zip64LocatorView::LEN;
    const Z64: usize = Zip64EndView::LEN;
    let locator = match pos.checked_sub(LOC as u64) {
        Some(l) => data.get(l, LOC)?,
        None => None,
    };
    if let Some(locator) = locator.filter(|l| Zip64LocatorView::new(l).is_locator()) {
        let at = Zip64LocatorView::new(&locator).zip64_end_offset();
        // The zip64 end record ends where the locator begins (Python
        // reads it there, whatever the locator says). A locator that
        // points elsewhere, at a decoy record and directory stored inside
        // an entry, is not followed: the decoy would hide the entries
        // the real directory lists.
        let mut z64 = None;
        for z in [pos.checked_sub((LOC + Z64) as u64), Some(at)]
            .into_iter()
            .flatten()
        {
            // Its record: 56 bytes at least, its size field counting
            // from after itself (12 bytes) to the locator.
            let Some(size) = (pos - LOC as u64)
                .checked_sub(z)
                .filter(|&s| s >= Z64 as u64)
            else {
                continue;
            };
            let Some(r) = data.get(z, Z64)? else { continue };
            let v = Zip64EndView::new(&r);
            if v.is_zip64_end() && v.size() == size - Zip64EndView::HEAD as u64 {
                z64 = Some((z, r));
                break;
            }
        }
        if let Some((z, r)) = z64 {
            let r = Zip64EndView::new(&r);
            count = r.entries();
            cd_size = r.directory_size();
            cd_offset = r.directory_offset();
            end = z;
            shift64 = Some(z.checked_sub(at).ok_or(DirectoryError::Misfit(
                "its zip64 locator points past its zip64 end record",
            ))?);
        } else if count == 0xffff || cd_size == 0xffff_ffff || cd_offset == 0xffff_ffff {
            return Err(DirectoryError::Misfit(
                "its zip64 end record is not where its locator says",
            ));
        }
    }
    if count > max_entries {
        return Err(DirectoryError::TooMany(count));
    }
    let Some(start) = end.checked_sub(cd_size) else {
        return Err(DirectoryError::Misfit(
            "its central directory would start before the file",
        ));
    };
    let Some(prefix) = start.checked_sub(cd_offset) else {
        return Err(DirectoryError::Misfit(
            "its central directory would start past where it ends",
        ));
    };
    if shift64.is_some_and(|s| s != prefix) {
        return Err(DirectoryError::Misfit(
            "its zip64 locator and its central directory disagree on where the zip starts",
        ));
    }
    if prefix > 0 && data.get(0, 4)?.is_some_and(|h| &*h == LOCAL) {
        return Err(DirectoryError::Misfit(
            "its offsets fit only a zip that starts later in the file",
        ));
    }
    // The records, read in order (a file's directory is never held whole).
    let mut cd = data.span(start, end);
    let mut left = end - start;
    let mut entries = Vec::new();
    const CD: usize = CentralView::LEN;
    let mut buf = [0u8; CD];
    let mut var = Vec::new();
    while left >= CD as u64 {
        cd.read_exact(&mut buf)?;
        let h = CentralView::new(&buf);
        if !h.is_central() {
            break;
        }
        let made_by = h.made_by();
        let flags = h.flags();
        let method = h.method();
        let crc = h.crc();
        let mut csize = h.compressed_size() as u64;
        let mut usize = h.size() as u64;
        let name_len = h.name_len() as usize;
        let extra_len = h.extra_len() as usize;
        let attr = h.external_attributes();
        let mut header = h.local_header_offset() as u64;
        let total = CD + h.variable_len();
        if left < total as u64 {
            return Err(DirectoryError::Misfit(
                "a directory record runs past its end",
            ));
        }
        var.resize(total - CD, 0);
        cd.read_exact(&mut var)?;
        let raw_name = &var[..name_len];
        let extra = &var[name_len..name_len + extra_len];
        let mut unicode = None;
        for (id, body) in extra_fields(extra) {
            match id {
                ZIP64_EXTRA => widen(body, &mut [&mut usize, &mut csize, &mut header]),
                // Info-ZIP Unicode path: used only if it was made from
                // this very name (its CRC matches), as libarchive does;
                // not UTF-8 after all: the main name (libarchive too).
                UNICODE_PATH => {
                    if let Some(u) = UnicodePathView::new(body).filter(|u| {
                        u.name_crc() == crc32fast::hash(raw_name)
                            && std::str::from_utf8(u.name()).is_ok()
                    }) {
                        unicode = Some(String::from_utf8_lossy(u.name()).into_owned());
                    }
                }
                _ => {}
            }
        }
        let name = dos_separators(
            unicode.unwrap_or_else(|| name_of(raw_name, flags)),
            (made_by >> 8) as u8,
        );
        let symlink = made_by >> 8 == 3 && (attr >> 16) & 0o170000 == 0o120000;
        let raw_name = (raw_name != name.as_bytes()).then(|| raw_name.into());
        entries.push(CdEntry {
            name,
            flags,
            method,
            crc,
            csize,
            usize,
            header: header.saturating_add(prefix),
            symlink,
            raw_name,
        });
        left -= total as u64;
    }
    // The 16-bit count wraps in zips over 65535 entries without zip64.
    if entries.len() as u64 % 0x1_0000 != count % 0x1_0000 {
        return Err(DirectoryError::Misfit(
            "its central directory holds fewer entries than it announces",
        ));
    }
    if let Some(first) = entries.iter().map(|e| e.header).min()
        && data.get(first, 4)?.is_none_or(|h| &*h != LOCAL)
    {
        return Err(DirectoryError::Misfit(
            "its first entry has no local header where it says",
        ));
    }
    let mut spans = Vec::with_capacity(entries.len());
    for e in &entries {
        let span = data_start(data, e.header)?.and_then(|s| Some((s, s.checked_add(e.csize)?)));
        spans.push(span);
    }
    // Entries come before their directory: one stored inside an entry's
    // data (a decoy that lists some entries and hides the rest) does not
    // describe this file.
    let inside = entries
        .iter()
        .zip(&spans)
        .any(|(e, s)| s.is_some_and(|(_, d)| d > start && e.header < start));
    if inside {
        return Err(DirectoryError::Misfit("it lies inside an entry's data"));
    }
    Ok(Directory {
        entries,
        spans,
        start,
    })
}

/// The raw name and flags of the local header at `at`.
pub(in crate::source) fn local_name<'a>(
    data: Data<'a>,
    at: u64,
) -> io::Result<Option<(std::borrow::Cow<'a, [u8]>, u16)>> {
    const N: usize = LocalView::LEN;
    let Some(h) = data.get(at, N)? else {
        return Ok(None);
    };
    let h = LocalView::new(&h);
    let n = h.name_len() as usize;
    Ok(data.get(at + N as u64, n)?.map(|name| (name, h.flags())))
}

/// A name as cited, from its raw bytes, general purpose flags and host.
pub(in crate::source) fn decode_name(raw: &[u8], flags: u16, host: u8) -> String {
    dos_separators(name_of(raw, flags), host)
}

/// Where an entry's data starts, from its local header at `at`.
pub(in crate::source) fn data_start(data: Data<'_>, at: u64) -> io::Result<Option<u64>> {
    const N: usize = LocalView::LEN;
    let Some(h) = data.get(at, N)? else {
        return Ok(None);
    };
    let h = LocalView::new(&h);
    if !h.is_local() {
        return Ok(None);
    }
    Ok(Some(
        at + N as u64 + h.name_len() as u64 + h.extra_len() as u64,
    ))
}

/// Windows archivers (host 0, MS-DOS) sometimes separate folders with `\`:
/// a name with `\` and no `/` from such a host gets `/`, as libarchive
/// does, so `arc\test` is cited as `arc/test` by both.
pub(super) fn dos_separators(name: String, host: u8) -> String {
    if host == 0 && name.contains('\\') && !name.contains('/') {
        name.replace('\\', "/")
    } else {
        name
    }
}

/// A name: UTF-8 when flagged (bit 11), else IBM code page 437.
pub(super) fn name_of(raw: &[u8], flags: u16) -> String {
    if flags & (1 << 11) != 0 {
        crate::location::name_from_bytes(raw)
    } else {
        cp437(raw)
    }
}

/// The kind and message for an entry artiscan does not decode, if it is one.
pub(in crate::source) fn unsupported(encrypted: bool, method: u16) -> Option<(ErrorKind, String)> {
    if encrypted {
        return Some((
            ErrorKind::Unsupported,
            "encrypted zip entry: not read".into(),
        ));
    }
    match method {
        STORED | DEFLATED | ZSTD => None,
        m => Some((
            ErrorKind::Unsupported,
            format!("zip entry compressed with {}: not read", method_name(m)),
        )),
    }
}

/// Names without the UTF-8 flag are IBM code page 437, as the `zip` crate
/// reads them from the central directory.
pub(super) fn cp437(raw: &[u8]) -> String {
    raw.iter()
        .map(|&b| {
            if b < 0x80 {
                b as char
            } else {
                CP437_HIGH[(b - 0x80) as usize]
            }
        })
        .collect()
}

pub(super) const CP437_HIGH: [char; 128] = [
    '\u{00c7}', '\u{00fc}', '\u{00e9}', '\u{00e2}', '\u{00e4}', '\u{00e0}', '\u{00e5}', '\u{00e7}',
    '\u{00ea}', '\u{00eb}', '\u{00e8}', '\u{00ef}', '\u{00ee}', '\u{00ec}', '\u{00c4}', '\u{00c5}',
    '\u{00c9}', '\u{00e6}', '\u{00c6}', '\u{00f4}', '\u{00f6}', '\u{00f2}', '\u{00fb}', '\u{00f9}',
    '\u{00ff}', '\u{00d6}', '\u{00dc}', '\u{00a2}', '\u{00a3}', '\u{00a5}', '\u{20a7}', '\u{0192}',
    '\u{00e1}', '\u{00ed}', '\u{00f3}', '\u{00fa}', '\u{00f1}', '\u{00d1}', '\u{00aa}', '\u{00ba}',
    '\u{00bf}', '\u{2310}', '\u{00ac}', '\u{00bd}', '\u{00bc}', '\u{00a1}', '\u{00ab}', '\u{00bb}',
    '\u{2591}', '\u{2592}', '\u{2593}', '\u{2502}', '\u{2524}', '\u{2561}', '\u{2562}', '\u{2556}',
    '\u{2555}', '\u{2563}', '\u{2551}', '\u{2557}', '\u{255d}', '\u{255c}', '\u{255b}', '\u{2510}',
    '\u{2514}', '\u{2534}', '\u{252c}', '\u{251c}', '\u{2500}', '\u{253c}', '\u{255e}', '\u{255f}',
    '\u{255a}', '\u{2554}', '\u{2569}', '\u{2566}', '\u{2560}', '\u{2550}', '\u{256c}', '\u{2567}',
    '\u{2568}', '\u{2564}', '\u{2565}', '\u{2559}', '\u{2558}', '\u{2552}', '\u{2553}', '\u{256b}',
    '\u{256a}', '\u{2518}', '\u{250c}', '\u{2588}', '\u{2584}', '\u{258c}', '\u{2590}', '\u{2580}',
    '\u{03b1}', '\u{00df}', '\u{0393}', '\u{03c0}', '\u{03a3}', '\u{03c3}', '\u{00b5}', '\u{03c4}',
    '\u{03a6}', '\u{0398}', '\u{03a9}', '\u{03b4}', '\u{221e}', '\u{03c6}', '\u{03b5}', '\u{2229}',
    '\u{2261}', '\u{00b1}', '\u{2265}', '\u{2264}', '\u{2320}', '\u{2321}', '\u{00f7}', '\u{2248}',
    '\u{00b0}', '\u{2219}', '\u{00b7}', '\u{221a}', '\u{207f}', '\u{00b2}', '\u{25a0}', '\u{00a0}',
];
