//! Tar: [`for_each_entry`] pushes each member to the walker, from a tar
//! reader of artiscan's own, lenient where GNU tar, bsdtar and
//! Python's tarfile are lenient and strict about coverage: ustar, GNU
//! (long names and links, `./` names), pax (path, linkpath, size; the last
//! of redundant headers wins), V7, checksums summed with signed or unsigned
//! bytes, size fields of NULs or base-256. A tar that ends without its
//! end-of-archive blocks, or inside a header or a member, is `truncated`.
//! GNU sparse members (old GNU, pax 0.0/0.1/1.0) get their real name and
//! their real content, holes read as zeros as libarchive gives them; every
//! synthesised byte goes through the member's byte budget like any other,
//! so a tiny file that claims an exabyte hole stops at `--max-bytes`. A
//! sparse map that cannot be read makes the member `unsupported`, a map
//! that claims more data than the member stores makes it `corrupt`.
//!
//! Names and pax records are read up to [`MAX_NAME`] and [`MAX_PAX`]
//! bytes; the rest is skipped (read, not kept), so memory stays bounded
//! whatever a header claims.

use super::entries::{Entries, MAX_NAME, Names, name_cut, unique};
use super::layer::{Charge, Layer, Tagged};
use super::{ErrorKind, NoteKind};
use crate::location;
use std::io::{self, Read};

mod header;
mod sparse;
pub(in crate::source) use header::checksum_ok;
use header::{BLOCK, Header, cstr, octal};
use sparse::SparseData;
/// Largest pax extended header parsed; a bigger one stops the archive.
pub(super) const MAX_PAX: u64 = 1 << 20;
/// Most regions of a sparse map kept (16 bytes each); a bigger map makes
/// the member `unsupported`, so memory stays bounded.
pub(super) const MAX_SPARSE: usize = 1 << 16;
/// Most zeros a sparse member's holes are expanded to: past them the
/// member stops with a `limit` error. A tiny tar claiming a 2^62-byte hole
/// after some text took 3.4 s a member to read its zeros up to
/// `--max-member-bytes`; CI logs have no holes this size.
pub(super) const MAX_HOLES: u64 = 64 << 20;

/// The first bytes of the file index `pixz` appends after a tar, in the
/// same xz stream (`PIXZ_INDEX_MAGIC`, little-endian).
const PIXZ_INDEX_MAGIC: [u8; 8] = 0xDBAE_14D6_2E32_4CA6u64.to_le_bytes();
/// A pixz index bigger than this is not taken for one (a name and an
/// offset per member: a tarball of 100 000 logs has a few MiB).
const MAX_PIXZ_INDEX: u64 = 64 << 20;

/// Whether `b` is a whole pixz file index: the magic, then entries of a
/// NUL-terminated name and an 8-byte offset, the last with an empty name,
/// and nothing after it.
fn is_pixz_index(b: &[u8]) -> bool {
    let Some(mut rest) = b.strip_prefix(&PIXZ_INDEX_MAGIC) else {
        return false;
    };
    loop {
        let Some(nul) = rest.iter().position(|&c| c == 0) else {
            return false;
        };
        let Some(after) = rest.get(nul + 1 + 8..) else {
            return false;
        };
        if nul == 0 {
            return after.is_empty();
        }
        rest = after;
    }
}

/// Why a tar could not be read on: typed, so the kind never depends on
/// message wording.
#[derive(Debug, thiserror::Error)]
pub(super) enum TarError {
    #[error("tar ends inside {what} at byte {at}")]
    Cut { what: &'static str, at: u64 },
    #[error("tar ends after byte {at} without its end-of-archive blocks")]
    NoEnd { at: u64 },
    #[error("tar header at byte {at} has a bad checksum: the rest is not read")]
    Checksum { at: u64 },
    #[error("tar header at byte {at} has an unreadable {field} field")]
    Field { field: &'static str, at: u64 },
    #[error("pax header at byte {at} is {size} bytes, more than {MAX_PAX}: the rest is not read")]
    PaxTooBig { size: u64, at: u64 },
    #[error("sparse member's map {why} (data at byte {at})")]
    SparseMap { why: &'static str, at: u64 },
    #[error("sparse member's holes are more than {MAX_HOLES} bytes of zeros: the rest is not read")]
    SparseHoles,
    #[error(
        "trailing data: {bytes} bytes after the tar's end-of-archive blocks (from byte {at}) are not tar headers: not read"
    )]
    Trailing { at: u64, bytes: u64 },
    #[error("tar multi-volume continuation at byte {at}: not supported")]
    MultiVolume { at: u64 },
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl TarError {
    pub(super) fn kind(&self) -> ErrorKind {
        match self {
            TarError::Cut { .. } | TarError::NoEnd { .. } => ErrorKind::Truncated,
            TarError::Checksum { .. }
            | TarError::Field { .. }
            | TarError::SparseMap { .. }
            | TarError::Trailing { .. } => ErrorKind::Corrupt,
            TarError::PaxTooBig { .. } | TarError::SparseHoles => ErrorKind::Limit,
            TarError::MultiVolume { .. } => ErrorKind::Unsupported,
            TarError::Io(e) => super::layer::classify(e),
        }
    }
}

/// Reads the tar in `r` and pushes each member to `w`, in archive order:
/// directories are passed over; links, devices and sparse members whose
/// map cannot be read go into coverage; a member the stream ends inside
/// is `truncated`.
pub(super) fn for_each_entry(
    w: &mut dyn Entries<'_>,
    r: &mut dyn Read,
    depth: usize,
) -> io::Result<()> {
    let mut t = TarReader::new(r);
    let mut names = Names::default();
    loop {
        let entry = match t.next() {
            Ok(Next::End) => return Ok(()),
            Ok(Next::Entry(e)) => e,
            Err(e) => return Err(tar_error(w.members(), e)),
        };
        if matches!(entry.item, Item::Dir) {
            continue;
        }
        let name = tar_name(&entry.name);
        if name.is_empty() && entry.size == 0 {
            continue;
        }
        let name = unique(w, &mut names, name);
        let mut at = w.members().to_vec();
        at.push(name.clone());
        if let Some(end) = entry.after_end {
            let msg = format!(
                "after the end-of-archive block at byte {end}: read, as `tar -i` reads it (`tar` without -i stops there)"
            );
            w.coverage().note(&at, NoteKind::AfterEnd, msg);
        }
        if entry.name_cut {
            name_cut(w.coverage(), &at, None);
        }
        let skipped = |what: String| format!("{what}: not read");
        match entry.item {
            Item::Dir => {}
            Item::Symlink(to) | Item::Hardlink(to) => {
                let to = location::name_from_bytes(&to);
                let msg = skipped(format!("link to {:?}, not followed", location::escape(&to)));
                w.coverage().error(&at, ErrorKind::Skipped, msg);
            }
            Item::Special(what) => {
                w.coverage()
                    .error(&at, ErrorKind::Skipped, skipped(format!("{what} member")));
            }
            Item::Sparse(None) => {
                let msg = "GNU sparse member whose sparse map cannot be read: not read";
                w.coverage().error(&at, ErrorKind::Unsupported, msg);
            }
            item @ (Item::File | Item::Sparse(Some(_))) => {
                let errors = w.coverage().errors.len();
                // Holes expand: a sparse member's output is counted.
                let charge = match item {
                    Item::Sparse(_) => Charge::Counted,
                    _ => Charge::Free,
                };
                let (mut plain, mut sparse);
                // A sparse member is read expanded, holes as zeros:
                // those bytes count against the budget like any other.
                let data: &mut dyn Read = match item {
                    Item::Sparse(Some(s)) => {
                        sparse = SparseData::new(t.reader(), s);
                        &mut sparse
                    }
                    _ => {
                        plain = t.reader();
                        &mut plain
                    }
                };
                let mut member = Layer::new(data, w.members(), "tar", w.budget(), None, charge);
                member.set_member(name.clone());
                let result = w.entry(name, Some(entry.size), &mut member, depth);
                drop(member);
                result?;
                // What the visitor left is read through, so a member
                // cut by the end of the stream is caught (once).
                if let Err(e) = t.finish() {
                    if matches!(e, TarError::Cut { .. }) {
                        let seen = w.coverage().errors[errors..]
                            .iter()
                            .any(|e| e.members == at && e.kind != ErrorKind::Skipped);
                        if !seen {
                            let msg = format!(
                                "tar member declares {} bytes, the archive ends before them",
                                entry.size
                            );
                            w.coverage().error(&at, ErrorKind::Truncated, msg);
                        }
                        return Ok(());
                    }
                    // Recorded at the member, returned to the container.
                    let e = tar_error(&at, e);
                    w.record(&at, &e);
                    return Err(e);
                }
            }
        }
    }
}

/// A tar error of the container at `members` (a decoder's
/// error below it keeps its own tag).
fn tar_error(members: &[String], e: TarError) -> io::Error {
    match e {
        TarError::Io(e) if Tagged::of(&e).is_some() => e,
        e => Tagged::io(members, e.kind(), &e),
    }
}

/// A tar member name as cited: its bytes as [`location::name_from_bytes`]
/// keeps them (one-to-one, so two names never share a citation).
fn tar_name(raw: &[u8]) -> String {
    let s = location::name_from_bytes(raw);
    // The name as the archive spells it (`./sweep.log` stays so), so that
    // `tar -xO ARCHIVE NAME` finds the member a citation names; only the
    // archive's root itself (`.`, `./`) is no member.
    if s.trim_end_matches('/')
        .chars()
        .all(|c| c == '.' || c == '/')
        && !s.contains("..")
    {
        String::new()
    } else {
        s.to_string()
    }
}

/// What a header announces.
#[derive(Debug)]
pub(super) enum Item {
    /// Content to read: a regular file (or a type GNU tar extracts as one).
    File,
    Symlink(Vec<u8>),
    Hardlink(Vec<u8>),
    /// A device, fifo or other member without content.
    Special(&'static str),
    /// A directory (also an old-style `name/` regular entry); not a member.
    Dir,
    /// A GNU sparse member; None when its map cannot be read.
    Sparse(Option<Sparse>),
}

/// Where the data of a sparse member goes in the file it stands for.
#[derive(Debug)]
pub(super) struct Sparse {
    /// (offset, length) of each data region, in order; None for pax 1.0,
    /// whose map starts the member's data.
    pub map: Option<Vec<(u64, u64)>>,
    /// Size of the expanded file.
    pub real_size: u64,
}

/// One entry: its name (raw bytes, cut to [`MAX_NAME`]) and data size.
#[derive(Debug)]
pub(super) struct Entry {
    pub name: Vec<u8>,
    /// The name was longer than [`MAX_NAME`] and was cut.
    pub name_cut: bool,
    pub item: Item,
    /// Bytes of data that follow the header (padded to a block).
    pub size: u64,
    /// Where the end-of-archive block(s) before this header began: a
    /// member that `tar` without `-i` never lists.
    pub after_end: Option<u64>,
}

pub(super) enum Next {
    Entry(Entry),
    /// The end-of-archive block(s).
    End,
}

/// A tar stream, read header by header.
pub(super) struct TarReader<'r> {
    r: &'r mut dyn Read,
    pos: u64,
    /// Bytes read ahead (hardlink heuristic), served before `r`.
    ahead: Vec<u8>,
    ahead_at: usize,
    /// Data bytes of the current entry not yet read, then its padding.
    left: u64,
    pad: u64,
}

/// Pending extended attributes for the next entry (the last header wins).
#[derive(Default)]
struct Extended {
    long_name: Option<(Vec<u8>, bool)>,
    long_link: Option<Vec<u8>>,
    pax_path: Option<(Vec<u8>, bool)>,
    pax_link: Option<Vec<u8>>,
    pax_size: Option<u64>,
    /// GNU.sparse.name (pax sparse 0.1/1.0: the real name).
    sparse_name: Option<(Vec<u8>, bool)>,
    sparse: bool,
    /// GNU.sparse.major/minor (1.0 keeps the map in the data).
    sparse_version: (Option<u64>, Option<u64>),
    /// GNU.sparse.size or GNU.sparse.realsize.
    sparse_size: Option<u64>,
    /// Offsets and lengths, alternating: GNU.sparse.map (0.1) or each
    /// GNU.sparse.offset and GNU.sparse.numbytes (0.0), in order.
    sparse_numbers: Vec<u64>,
    /// A sparse record that could not be parsed, or too many regions.
    sparse_bad: bool,
    pax: bool,
}

impl<'r> TarReader<'r> {
    pub(super) fn new(r: &'r mut dyn Read) -> Self {
        TarReader {
            r,
            pos: 0,
            ahead: Vec::new(),
            ahead_at: 0,
            left: 0,
            pad: 0,
        }
    }

    /// One read, from the bytes read ahead first; counts the position.
    fn raw(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = if self.ahead_at < self.ahead.len() {
            let n = buf.len().min(self.ahead.len() - self.ahead_at);
            buf[..n].copy_from_slice(&self.ahead[self.ahead_at..self.ahead_at + n]);
            self.ahead_at += n;
            n
        } else {
            self.r.read(buf)?
        };
        self.pos += n as u64;
        Ok(n)
    }

    /// Fills `buf` as far as the stream allows; the count read.
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.raw(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    fn block(&mut self, buf: &mut [u8; BLOCK]) -> io::Result<usize> {
        self.fill(buf)
    }

    /// Skips `n` bytes of the stream; false if it ended first.
    fn skip(&mut self, mut n: u64) -> io::Result<bool> {
        while n > 0 && self.ahead_at < self.ahead.len() {
            let take = n.min((self.ahead.len() - self.ahead_at) as u64);
            self.ahead_at += take as usize;
            self.pos += take;
            n -= take;
        }
        let got = io::copy(&mut (&mut self.r).take(n), &mut io::sink())?;
        self.pos += got;
        Ok(got == n)
    }

    /// Reads `size` bytes of an extended header's data, keeping at most
    /// `keep` of them; None if the stream ends first.
    fn data(&mut self, size: u64, keep: u64) -> Result<Vec<u8>, TarError> {
        let kept = size.min(keep);
        let mut buf = vec![0u8; kept as usize];
        let n = self.fill(&mut buf)?;
        let cut = TarError::Cut {
            what: "an extended header",
            at: self.pos,
        };
        if (n as u64) < kept {
            return Err(cut);
        }
        let rest = size - kept + pad(size);
        if !self.skip(rest)? {
            return Err(cut);
        }
        Ok(buf)
    }

    /// Finishes the current entry's data and padding (what the visitor left
    /// is read and dropped). Err(Cut) if the stream ends first.
    pub(super) fn finish(&mut self) -> Result<(), TarError> {
        let n = self.left + self.pad;
        self.left = 0;
        self.pad = 0;
        if self.skip(n)? {
            Ok(())
        } else {
            Err(TarError::Cut {
                what: "a member",
                at: self.pos,
            })
        }
    }

    /// The next entry, after skipping what is left of the current one.
    pub(super) fn next(&mut self) -> Result<Next, TarError> {
        self.finish()?;
        let mut ext = Extended::default();
        let mut h = [0u8; BLOCK];
        let mut after_end = None;
        loop {
            let at = self.pos;
            let n = self.block(&mut h)?;
            if after_end.is_some() && h[..n].iter().all(|&b| b == 0) {
                if n < BLOCK {
                    return Ok(Next::End);
                }
                continue;
            }
            if n == 0 {
                return Err(TarError::NoEnd { at });
            }
            if after_end.is_some() && h[..n].starts_with(&PIXZ_INDEX_MAGIC) {
                // pixz appends its file index after the tar, in the same xz
                // stream: part of the format, read past as xz readers do.
                let mut rest = h[..n].to_vec();
                rest.extend_from_slice(&self.ahead[self.ahead_at..]);
                self.ahead_at = self.ahead.len();
                (&mut self.r)
                    .take(MAX_PIXZ_INDEX + 1)
                    .read_to_end(&mut rest)?;
                if rest.len() as u64 <= MAX_PIXZ_INDEX && is_pixz_index(&rest) {
                    return Ok(Next::End);
                }
                let more = io::copy(&mut self.r, &mut io::sink())?;
                return Err(TarError::Trailing {
                    at,
                    bytes: rest.len() as u64 + more,
                });
            }
            if after_end.is_some() && (n < BLOCK || !checksum_ok(&h)) {
                // Bytes after the end that are no header: `zcat | grep`
                // sees them, so they are reported, never passed over.
                let rest = io::copy(&mut self.r, &mut io::sink())?;
                let bytes = n as u64 + (self.ahead.len() - self.ahead_at) as u64 + rest;
                return Err(TarError::Trailing { at, bytes });
            }
            if n < BLOCK {
                return Err(TarError::Cut {
                    what: "a header",
                    at: self.pos,
                });
            }
            if h.iter().all(|&b| b == 0) {
                // A zero block ends the archive for `tar` (without `-i`)
                // and Python, but what follows is read on, as `tar -i`
                // does: a lone zero block before a member, or a second
                // archive after the first (`cat a.tar b.tar`), must not
                // hide its members. The rest must be zeros or headers.
                after_end = Some(at);
                continue;
            }
            if !checksum_ok(&h) {
                return Err(TarError::Checksum { at });
            }
            let hd = Header(&h);
            let size = if matches!(hd.typeflag(), b'1' | b'2' | b'5') {
                // Link and directory sizes may be garbage in old writers.
                hd.size().unwrap_or(0)
            } else {
                hd.size().ok_or(TarError::Field { field: "size", at })?
            };
            let typeflag = hd.typeflag();
            match typeflag {
                b'L' => {
                    let d = self.data(size, MAX_NAME as u64 + 1)?;
                    ext.long_name = Some(cut_name(cstr(&d)));
                    continue;
                }
                b'K' => {
                    let d = self.data(size, MAX_NAME as u64)?;
                    ext.long_link = Some(cstr(&d).to_vec());
                    continue;
                }
                b'x' | b'X' => {
                    if size > MAX_PAX {
                        return Err(TarError::PaxTooBig { size, at });
                    }
                    let d = self.data(size, MAX_PAX)?;
                    pax(&d, &mut ext);
                    ext.pax = true;
                    continue;
                }
                b'g' => {
                    if size > MAX_PAX {
                        return Err(TarError::PaxTooBig { size, at });
                    }
                    self.data(size, 0)?;
                    continue;
                }
                b'V' if size == 0 => {
                    // A volume label: no member.
                    self.left = size;
                    self.pad = pad(size);
                    self.finish()?;
                    continue;
                }
                b'M' => return Err(TarError::MultiVolume { at }),
                _ => {}
            }
            let mut size = ext.pax_size.unwrap_or(size);
            let ustar = hd.is_ustar();
            let (name, name_cut) = if let Some(n) = ext.sparse_name.take() {
                n
            } else if let Some(n) = ext.pax_path.take() {
                n
            } else if let Some(n) = ext.long_name.take() {
                n
            } else {
                let base = hd.name();
                let prefix = if ustar { hd.prefix() } else { &[][..] };
                let mut full = Vec::with_capacity(prefix.len() + 1 + base.len());
                if !prefix.is_empty() {
                    full.extend_from_slice(prefix);
                    full.push(b'/');
                }
                full.extend_from_slice(base);
                (full, false)
            };
            let link = ext
                .pax_link
                .take()
                .or(ext.long_link.take())
                .unwrap_or_else(|| hd.linkname().to_vec());
            if matches!(typeflag, b'2' | b'3' | b'4' | b'6')
                && !ext.sparse
                && size > 0
                && self.header_follows()?
            {
                // A link, device or fifo never has a body for GNU tar or
                // Python; a size on one is the writer's noise.
                size = 0;
            }
            let item = match typeflag {
                _ if ext.sparse => Item::Sparse(pax_sparse(&mut ext)),
                b'S' => {
                    // Old GNU sparse: 4 regions in the header, then
                    // extension blocks of 21 while "isextended" is set.
                    let mut regions = Vec::new();
                    let mut bad = !old_sparse_regions(hd.gnu_sparse(), &mut regions);
                    let mut extended = hd.gnu_is_extended();
                    let mut e = [0u8; BLOCK];
                    while extended {
                        if self.block(&mut e)? < BLOCK {
                            return Err(TarError::Cut {
                                what: "a sparse header",
                                at: self.pos,
                            });
                        }
                        bad |= !old_sparse_regions(&e[..504], &mut regions);
                        extended = e[504] != 0;
                    }
                    let real_size = hd.gnu_real_size();
                    Item::Sparse(match real_size {
                        Some(real_size) if !bad && ordered(&regions, real_size) => Some(Sparse {
                            map: Some(regions),
                            real_size,
                        }),
                        _ => None,
                    })
                }
                b'1' => {
                    if size > 0 && self.header_follows()? {
                        // Traditional writers put the target's size on a
                        // hardlink without data (libarchive's heuristic);
                        // a pax header before it (Python writes one for a
                        // comment or a long name) does not make a body
                        // appear: GNU tar and Python never read one.
                        size = 0;
                    }
                    if size > 0 {
                        // pax allows a hardlink with a body: its content.
                        Item::File
                    } else {
                        Item::Hardlink(link)
                    }
                }
                b'2' => Item::Symlink(link),
                b'3' => Item::Special("character device"),
                b'4' => Item::Special("block device"),
                b'6' => Item::Special("fifo"),
                // Data where none is expected (Python's tarfile gives it
                // back for `D` and `V`): not searched, so not `complete`.
                b'5' if size > 0 => Item::Special("directory entry with data"),
                b'D' if size > 0 => Item::Special("GNU dumpdir (incremental listing)"),
                b'V' => Item::Special("volume header with data"),
                b'5' | b'D' => Item::Dir,
                b'0' | 0 | b'7' if name.ends_with(b"/") => Item::Dir,
                // Regular, contiguous, and every other type: GNU tar
                // extracts unknown types as regular files.
                _ => Item::File,
            };
            self.left = size;
            self.pad = pad(size);
            return Ok(Next::Entry(Entry {
                name,
                name_cut,
                item,
                size,
                after_end,
            }));
        }
    }

    /// Whether the next block is a tar header or an end block (read ahead
    /// and kept for the next read).
    fn header_follows(&mut self) -> io::Result<bool> {
        let mut b = [0u8; BLOCK];
        let at = self.pos;
        let n = self.fill(&mut b)?;
        // Put it back: served before the stream by the next reads.
        let mut ahead = b[..n].to_vec();
        ahead.extend_from_slice(&self.ahead[self.ahead_at..]);
        self.ahead = ahead;
        self.ahead_at = 0;
        self.pos = at;
        Ok(n == 0 || (n == BLOCK && (b.iter().all(|&x| x == 0) || checksum_ok(&b))))
    }

    /// A reader of the current entry's data. On a stream that ends early
    /// it returns a `truncated` error after the bytes it had.
    pub(super) fn reader(&mut self) -> Data<'_, 'r> {
        Data { t: self }
    }
}

fn pad(size: u64) -> u64 {
    (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64
}

fn cut_name(raw: &[u8]) -> (Vec<u8>, bool) {
    if raw.len() > MAX_NAME {
        (raw[..MAX_NAME].to_vec(), true)
    } else {
        (raw.to_vec(), false)
    }
}

/// Parses pax records (`LEN key=value\n`); unknown keys are ignored.
fn pax(mut d: &[u8], ext: &mut Extended) {
    while !d.is_empty() {
        let Some(sp) = memchr::memchr(b' ', d) else {
            return;
        };
        let Some(len) = std::str::from_utf8(&d[..sp])
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
        else {
            return;
        };
        if len <= sp + 1 || len > d.len() {
            return;
        }
        let rec = &d[sp + 1..len];
        let rec = rec.strip_suffix(b"\n").unwrap_or(rec);
        d = &d[len..];
        let Some(eq) = memchr::memchr(b'=', rec) else {
            continue;
        };
        let (key, value) = (&rec[..eq], &rec[eq + 1..]);
        match key {
            b"path" => ext.pax_path = Some(cut_name(value)),
            b"linkpath" => ext.pax_link = Some(value[..value.len().min(MAX_NAME)].to_vec()),
            b"size" => ext.pax_size = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok()),
            b"GNU.sparse.name" => ext.sparse_name = Some(cut_name(value)),
            k if k.starts_with(b"GNU.sparse.") => {
                ext.sparse = true;
                let number = || {
                    std::str::from_utf8(value)
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok())
                };
                match k {
                    b"GNU.sparse.major" => ext.sparse_version.0 = number(),
                    b"GNU.sparse.minor" => ext.sparse_version.1 = number(),
                    b"GNU.sparse.size" | b"GNU.sparse.realsize" => ext.sparse_size = number(),
                    b"GNU.sparse.offset" | b"GNU.sparse.numbytes" => match number() {
                        Some(n) if ext.sparse_numbers.len() < 2 * MAX_SPARSE => {
                            ext.sparse_numbers.push(n)
                        }
                        _ => ext.sparse_bad = true,
                    },
                    b"GNU.sparse.map" => {
                        // 0.1: "off,len,off,len,..." (the last record wins).
                        ext.sparse_numbers.clear();
                        for n in value.split(|&b| b == b',') {
                            match std::str::from_utf8(n).ok().and_then(|s| s.parse().ok()) {
                                Some(n) if ext.sparse_numbers.len() < 2 * MAX_SPARSE => {
                                    ext.sparse_numbers.push(n)
                                }
                                _ => ext.sparse_bad = true,
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// The map of a pax sparse member (0.0, 0.1 in the header; 1.0 in the
/// data), or None if it cannot be read.
fn pax_sparse(ext: &mut Extended) -> Option<Sparse> {
    let real_size = ext.sparse_size?;
    if ext.sparse_bad {
        return None;
    }
    if ext.sparse_version == (Some(1), Some(0)) {
        return Some(Sparse {
            map: None,
            real_size,
        });
    }
    let known = matches!(
        ext.sparse_version,
        (None, None) | (Some(0), Some(0)) | (Some(0), Some(1)) | (Some(0), None)
    );
    if !known || ext.sparse_numbers.len() % 2 != 0 {
        return None;
    }
    let regions: Vec<(u64, u64)> = ext
        .sparse_numbers
        .chunks_exact(2)
        .map(|p| (p[0], p[1]))
        .collect();
    ordered(&regions, real_size).then_some(Sparse {
        map: Some(regions),
        real_size,
    })
}

/// Old GNU sparse entries (12-byte octal offset, 12-byte octal length)
/// until an empty one; false if one is unreadable or there are too many.
fn old_sparse_regions(area: &[u8], out: &mut Vec<(u64, u64)>) -> bool {
    for e in area.chunks_exact(24) {
        if e[0] == 0 {
            break;
        }
        match (octal(&e[..12]), octal(&e[12..])) {
            (Some(off), Some(len)) if out.len() < MAX_SPARSE => out.push((off, len)),
            _ => return false,
        }
    }
    true
}

/// Regions in order, not overlapping, inside the real size.
fn ordered(regions: &[(u64, u64)], real_size: u64) -> bool {
    let mut end = 0u64;
    for &(off, len) in regions {
        if off < end {
            return false;
        }
        match off.checked_add(len) {
            Some(e) if e <= real_size => end = e,
            _ => return false,
        }
    }
    true
}

/// The data of the current entry.
pub(super) struct Data<'t, 'r> {
    t: &'t mut TarReader<'r>,
}

impl Read for Data<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let t = &mut *self.t;
        if t.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(t.left.min(usize::MAX as u64) as usize);
        let n = t.raw(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                TarError::Cut {
                    what: "a member",
                    at: t.pos,
                },
            ));
        }
        t.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octal_fields() {
        assert_eq!(octal(b"0000644\0"), Some(0o644));
        assert_eq!(octal(b"   644 \0"), Some(0o644));
        assert_eq!(octal(b"\0\0\0\0\0\0\0\0"), Some(0));
        assert_eq!(octal(b"        "), Some(0));
        // A NUL before the digits ends the field (all three references).
        assert_eq!(octal(b"\0\0\0\0\0\0\0 0016\0"), Some(0));
        assert_eq!(octal(b"12a4"), None);
        assert_eq!(octal(&[0x80, 0, 0, 0, 0, 0, 0, 1, 0]), Some(256));
    }
}
