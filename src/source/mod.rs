//! The source layer: walk inputs, detect formats by magic bytes, peel
//! compression layers and open containers (nested to a depth limit), and call
//! back once per leaf member with a reader of its decompressed bytes.
//! Nothing is extracted to disk; member names are data, never paths.

pub mod detect;
mod gzip;
mod layer;
pub mod walk;
mod zipread;

use detect::{Format, HEAD_LEN, detect};
use layer::{Layer, Tagged};
use serde::Serialize;
use std::io::{self, BufRead, Cursor, Read, Seek};

pub use layer::Budget;
pub use walk::{Artifact, ArtifactKind, walk};

/// Why part of an artifact could not be read.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The data ends early (a cut download, a short tar member).
    Truncated,
    /// The data is damaged (bad deflate block, CRC mismatch, bad header).
    Corrupt,
    /// A safety limit stopped reading (depth, bytes, ratio, window).
    Limit,
    /// A feature artiscan does not read (encrypted entry, xz, bzip2).
    Unsupported,
    /// The operating system failed to read the file.
    Io,
}

/// One part of an artifact that was not read completely.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MemberError {
    /// Member chain where the problem was noticed (empty: the artifact itself).
    pub members: Vec<String>,
    pub kind: ErrorKind,
    pub message: String,
}

/// Something skipped on purpose; the artifact can still be complete.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Note {
    pub members: Vec<String>,
    pub kind: NoteKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// A member with NUL bytes in its first block, not searched (`--binary` searches it).
    Binary,
    /// A symlink or hardlink member, reported and never followed.
    Link,
    /// A device, fifo or other special member with no content.
    Special,
    /// Lines longer than `--max-line` were searched up to the cap only.
    LongLine,
}

/// Safety limits. The defaults let a real 10 GiB log through and stop bombs.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Nesting of compression layers and containers.
    pub max_depth: usize,
    /// Decompressed bytes per artifact, all layers together.
    pub max_bytes: u64,
    /// Decompressed bytes of one member (one decoder output).
    pub max_member_bytes: u64,
    /// Decompressed/compressed ratio of one member, checked past `ratio_grace` bytes.
    pub max_ratio: f64,
    pub ratio_grace: u64,
    /// A zip inside a stream is spooled in memory up to this size, then read
    /// from its local headers instead.
    pub spool_cap: usize,
    /// Longest line searched; the rest of a longer line is skipped with a note.
    pub max_line: usize,
    /// Search members that look binary.
    pub binary: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 8,
            max_bytes: 64 << 30,
            max_member_bytes: 16 << 30,
            max_ratio: 1000.0,
            ratio_grace: 64 << 20,
            spool_cap: 64 << 20,
            max_line: 1 << 20,
            binary: false,
        }
    }
}

/// What was read of one artifact. `complete()` only if nothing is in `errors`.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Leaf members opened (text or binary).
    pub members: u64,
    /// Decompressed bytes of leaf members searched.
    pub bytes: u64,
    pub errors: Vec<MemberError>,
    pub notes: Vec<Note>,
}

impl Coverage {
    pub fn complete(&self) -> bool {
        self.errors.is_empty()
    }

    pub fn note(&mut self, members: &[String], kind: NoteKind, message: impl Into<String>) {
        self.notes.push(Note {
            members: members.to_vec(),
            kind,
            message: message.into(),
        });
    }

    pub fn error(&mut self, members: &[String], kind: ErrorKind, message: impl Into<String>) {
        self.errors.push(MemberError {
            members: members.to_vec(),
            kind,
            message: message.into(),
        });
    }
}

/// A leaf member handed to the visitor.
pub struct Leaf<'a, 'r> {
    /// Member chain from the artifact (empty for a plain file).
    pub members: &'a [String],
    /// The decompressed bytes. Errors it returns carry their location and
    /// must be passed back unchanged.
    pub reader: &'a mut (dyn Read + 'r),
    /// The whole member when it is a mapped plain file (enables splitting).
    pub slice: Option<&'a [u8]>,
    pub coverage: &'a mut Coverage,
}

/// Reads one artifact and calls `visit` once per leaf member, in archive
/// order. Everything that could not be read lands in `coverage`; this never
/// fails as a whole.
pub fn for_each_member<F>(artifact: &Artifact, limits: &Limits, coverage: &mut Coverage, visit: F)
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    let budget = Budget::new(limits);
    let mut w = Walker {
        limits,
        budget: &budget,
        members: Vec::new(),
        coverage,
        visit,
    };
    let result = match &artifact.kind {
        ArtifactKind::File(path) => match std::fs::File::open(path) {
            Ok(file) => match map(&file) {
                Ok(bytes) => w.slice(&bytes),
                Err(e) => Err(io::Error::other(Tagged::new(
                    &[],
                    ErrorKind::Io,
                    e.to_string(),
                ))),
            },
            Err(e) => Err(io::Error::other(Tagged::new(
                &[],
                ErrorKind::Io,
                e.to_string(),
            ))),
        },
        ArtifactKind::Stdin => {
            let stdin = io::stdin();
            let mut lock = stdin.lock();
            let mut layer = Layer::new(&mut lock, &[], "stdin", &budget, None, false);
            w.stream(&mut layer, 0)
        }
    };
    if let Err(e) = result {
        w.record(&e);
    }
}

/// The bytes of a file: mapped when it is a regular non-empty file.
enum Bytes {
    Map(memmap2::Mmap),
    Empty,
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Empty => &[],
        }
    }
}

fn map(file: &std::fs::File) -> io::Result<Bytes> {
    if file.metadata()?.len() == 0 {
        return Ok(Bytes::Empty);
    }
    // SAFETY: the map is read-only and private to this scan. Artifacts are
    // finished files; if one is truncated while mapped, reads fault (SIGBUS),
    // which is the documented cost of mapping instead of copying.
    unsafe { memmap2::Mmap::map(file) }.map(Bytes::Map)
}

struct Walker<'l, 'c, F> {
    limits: &'l Limits,
    budget: &'l Budget,
    members: Vec<String>,
    coverage: &'c mut Coverage,
    visit: F,
}

impl<F> Walker<'_, '_, F>
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    /// Records an error once, at the deepest member where it was noticed.
    fn record(&mut self, e: &io::Error) {
        match Tagged::of(e) {
            Some(t) if t.recorded.get() => {}
            Some(t) => {
                t.recorded.set(true);
                let mut members = self.members.clone();
                if members.len() < t.members.len() {
                    members = t.members.clone();
                }
                self.coverage.error(&members, t.kind, t.message.clone());
            }
            None => {
                let kind = layer::classify(e);
                self.coverage
                    .error(&self.members.clone(), kind, e.to_string());
            }
        }
    }

    /// Whether reading may go on at container level `level` after `e`: only
    /// if the error came from inside the member (a deeper layer).
    fn recoverable(e: &io::Error, level: usize) -> bool {
        Tagged::of(e).is_some_and(|t| t.members.len() > level && t.kind != ErrorKind::Io)
    }

    fn too_deep(&mut self, depth: usize) -> bool {
        if depth >= self.limits.max_depth {
            let msg = format!("nested deeper than --max-depth {}", self.limits.max_depth);
            self.coverage
                .error(&self.members.clone(), ErrorKind::Limit, msg);
            return true;
        }
        false
    }

    /// A whole member in memory (a mapped file): zips open in place.
    fn slice(&mut self, bytes: &[u8]) -> io::Result<()> {
        match detect(&bytes[..bytes.len().min(HEAD_LEN)]) {
            // Opened in place; its members are one level down, as when
            // a zip is reached by `stream`.
            Format::Zip if self.too_deep(0) => Ok(()),
            Format::Zip => self.zip_seekable(Cursor::new(bytes), 1),
            Format::Text => {
                let members = self.members.clone();
                let mut reader = bytes;
                self.leaf(&members, &mut reader, Some(bytes))
            }
            _ => {
                let mut reader = bytes;
                self.stream(&mut reader, 0)
            }
        }
    }

    /// A member as a stream: detect, then decode, open or visit.
    fn stream(&mut self, r: &mut dyn Read, depth: usize) -> io::Result<()> {
        let mut head = Vec::with_capacity(HEAD_LEN);
        r.take(HEAD_LEN as u64).read_to_end(&mut head)?;
        let format = detect(&head);
        let mut r = Cursor::new(head).chain(r);
        let level = self.members.len();
        match format {
            Format::Text => {
                let members = self.members.clone();
                self.leaf(&members, &mut r, None)
            }
            _ if self.too_deep(depth) => Ok(()),
            Format::Gzip => {
                let input = layer::Counted::new(&mut r);
                let consumed = input.counter();
                let dec = gzip::GzReader::new(io::BufReader::with_capacity(128 << 10, input));
                let mut layer = Layer::new(
                    dec,
                    &self.members,
                    "gzip",
                    self.budget,
                    Some(consumed),
                    true,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Zstd => {
                let input = layer::Counted::new(&mut r);
                let consumed = input.counter();
                let mut dec = zstd::stream::read::Decoder::new(input)
                    .map_err(|e| Tagged::io(&self.members, ErrorKind::Corrupt, &e))?;
                dec.window_log_max(ZSTD_WINDOW_LOG_MAX)
                    .map_err(|e| Tagged::io(&self.members, ErrorKind::Limit, &e))?;
                let dec = layer::ZstdWindow::new(dec, &self.members);
                let mut layer = Layer::new(
                    dec,
                    &self.members,
                    "zstd",
                    self.budget,
                    Some(consumed),
                    true,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Xz | Format::Bzip2 => {
                let what = if format == Format::Xz { "xz" } else { "bzip2" };
                let msg = format!("{what} compression is not supported");
                self.coverage
                    .error(&self.members.clone(), ErrorKind::Unsupported, msg);
                Ok(())
            }
            Format::Tar => self.tar(&mut r, depth + 1, level),
            Format::Zip => self.zip_stream(&mut r, depth + 1),
        }
    }

    fn leaf(
        &mut self,
        members: &[String],
        r: &mut dyn Read,
        slice: Option<&[u8]>,
    ) -> io::Result<()> {
        self.coverage.members += 1;
        (self.visit)(Leaf {
            members,
            reader: r,
            slice,
            coverage: self.coverage,
        })
    }

    /// Opens `member` (pushed onto the chain) and streams it; errors from
    /// inside it are recorded here, errors of the enclosing stream returned.
    fn member(
        &mut self,
        name: String,
        r: &mut dyn Read,
        depth: usize,
        level: usize,
    ) -> io::Result<()> {
        self.members.push(name);
        let result = self.stream(r, depth);
        let out = match result {
            Err(e) if Self::recoverable(&e, level) => {
                self.record(&e);
                Ok(())
            }
            Err(e) => {
                self.record(&e);
                Err(e)
            }
            Ok(()) => Ok(()),
        };
        self.members.pop();
        out
    }

    fn tar(&mut self, r: &mut dyn Read, depth: usize, level: usize) -> io::Result<()> {
        let mut archive = tar::Archive::new(r);
        let entries = archive
            .entries()
            .map_err(|e| Tagged::io(&self.members, ErrorKind::Corrupt, &e))?;
        for entry in entries {
            let mut entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    let kind = match layer::classify(&e) {
                        ErrorKind::Io => ErrorKind::Corrupt,
                        k => k,
                    };
                    return Err(Tagged::io(&self.members, kind, &e));
                }
            };
            let name = tar_name(&entry.path_bytes());
            let kind = entry.header().entry_type();
            if kind.is_dir() || name.is_empty() || kind.is_pax_global_extensions() {
                continue;
            }
            if kind.is_symlink() || kind.is_hard_link() {
                let target = entry
                    .link_name_bytes()
                    .map(|t| String::from_utf8_lossy(&t).into_owned())
                    .unwrap_or_default();
                let mut at = self.members.clone();
                at.push(name);
                self.coverage.note(
                    &at,
                    NoteKind::Link,
                    format!("link to {target:?} not followed"),
                );
                continue;
            }
            if !(kind.is_file() || kind.is_contiguous() || kind.is_gnu_sparse()) {
                let mut at = self.members.clone();
                at.push(name);
                self.coverage.note(
                    &at,
                    NoteKind::Special,
                    format!("{kind:?} member has no content"),
                );
                continue;
            }
            let declared = entry.size();
            let mut counted = layer::Counted::new(&mut entry);
            let consumed = counted.counter();
            let mut member =
                Layer::new(&mut counted, &self.members, "tar", self.budget, None, false);
            member.set_member(name.clone());
            let result = self.member(name.clone(), &mut member, depth, level);
            drop(member);
            result?;
            // Whatever the visitor left unread is skipped, but counted, so a
            // member cut short by the end of the stream is caught.
            if let Err(e) = io::copy(&mut counted, &mut io::sink()) {
                self.members.push(name);
                let e = Tagged::io(&self.members, layer::classify(&e), &e);
                self.record(&e);
                self.members.pop();
                return Err(e);
            }
            let read = consumed.get();
            if read < declared {
                let mut at = self.members.clone();
                at.push(name);
                let msg =
                    format!("tar member declares {declared} bytes, the archive ends after {read}");
                self.coverage.error(&at, ErrorKind::Truncated, msg);
                return Ok(());
            }
        }
        Ok(())
    }

    /// A zip inside a stream: spool it to memory up to what is left of the
    /// artifact's spool budget and open it in place, or read its local
    /// headers in order when it is bigger. Spools nested inside each other
    /// share the one budget, so nesting cannot multiply memory.
    fn zip_stream(&mut self, r: &mut dyn Read, depth: usize) -> io::Result<()> {
        let budget = self.budget;
        let cap = budget.spool_left();
        let mut spool = Vec::new();
        r.take(cap as u64 + 1).read_to_end(&mut spool)?;
        let _held = budget.hold_spool(spool.len());
        if spool.len() <= cap {
            return self.zip_seekable(Cursor::new(&spool[..]), depth);
        }
        let mut rest = Cursor::new(spool).chain(r);
        self.zip_local_headers(&mut rest, depth, false)
    }

    fn zip_seekable<R: Read + Seek>(&mut self, r: R, depth: usize) -> io::Result<()> {
        let level = self.members.len();
        let mut r = r;
        // The `zip` crate holds its whole directory in memory (about half a
        // KiB per entry): a huge one is read from the local headers instead.
        if zipread::directory_entries(&mut r)
            .is_ok_and(|n| n.is_some_and(|n| n > MAX_DIRECTORY_ENTRIES))
        {
            return self.zip_local_headers(&mut r, depth, false);
        }
        let mut archive = match zip::ZipArchive::new(&mut r) {
            Ok(a) => a,
            Err(e) => {
                // A cut download has no central directory: what the local
                // headers still hold is read, and the artifact is incomplete.
                let kind = if matches!(e, zip::result::ZipError::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof)
                    || e.to_string().contains("central directory")
                    || e.to_string().contains("EOCD")
                {
                    ErrorKind::Truncated
                } else {
                    ErrorKind::Corrupt
                };
                let msg =
                    format!("zip central directory unreadable ({e}); read from local headers");
                self.coverage.error(&self.members.clone(), kind, msg);
                r.seek(io::SeekFrom::Start(0))
                    .map_err(|e| Tagged::io(&self.members, ErrorKind::Io, &e))?;
                return self.zip_local_headers(&mut r, depth, true);
            }
        };
        let overlaps = zip_overlaps(&mut archive);
        for (i, overlap) in overlaps.iter().enumerate() {
            let name = zip_name(&archive, i);
            if let Some(j) = *overlap {
                let mut at = self.members.clone();
                at.push(name);
                let other = zip_name(&archive, j);
                let msg = format!(
                    "zip entry overlaps the data of entry {other:?} (an overlapping-entry zip bomb): not read"
                );
                self.coverage.error(&at, ErrorKind::Limit, msg);
                continue;
            }
            let file = match archive.by_index_raw(i) {
                Ok(f) => f,
                Err(e) => {
                    let mut at = self.members.clone();
                    at.push(name);
                    let (kind, msg) = zip_error(&e);
                    self.coverage.error(&at, kind, msg);
                    continue;
                }
            };
            if file.is_dir() {
                continue;
            }
            if file.is_symlink() {
                let mut at = self.members.clone();
                at.push(name);
                self.coverage
                    .note(&at, NoteKind::Link, "symlink entry not followed");
                continue;
            }
            #[allow(deprecated)]
            let method = file.compression().to_u16();
            if let Some((kind, msg)) = zipread::unsupported(file.encrypted(), method) {
                let mut at = self.members.clone();
                at.push(name);
                self.coverage.error(&at, kind, msg);
                continue;
            }
            let expect = Some((file.crc32(), file.size()));
            let mut raw = layer::Counted::new(io::BufReader::with_capacity(64 << 10, file));
            self.zip_entry(name, method, &mut raw, expect, depth, level, false)?;
        }
        Ok(())
    }

    /// Decodes one zip entry from its raw bytes and visits it as member
    /// `name`. With `to_end`, whatever the visitor left is decoded too, to
    /// find where the entry ends in a stream. Returns the CRC-32 and length
    /// of the output when its end was reached cleanly.
    #[allow(clippy::too_many_arguments)]
    fn zip_entry<B: BufRead>(
        &mut self,
        name: String,
        method: u16,
        raw: &mut layer::Counted<B>,
        expect: Option<(u32, u64)>,
        depth: usize,
        level: usize,
        to_end: bool,
    ) -> io::Result<Option<(u32, u64)>> {
        let consumed = raw.counter();
        let mut at = self.members.clone();
        at.push(name.clone());
        let dec: Box<dyn Read + '_> = match method {
            zipread::DEFLATED => Box::new(zipread::Inflate::new(&mut *raw)),
            zipread::ZSTD => {
                let mut d = zstd::stream::read::Decoder::with_buffer(&mut *raw)
                    .map_err(|e| Tagged::io(&at, ErrorKind::Corrupt, &e))?;
                d.window_log_max(ZSTD_WINDOW_LOG_MAX)
                    .map_err(|e| Tagged::io(&at, ErrorKind::Limit, &e))?;
                Box::new(layer::ZstdWindow::new(d, &at))
            }
            _ => Box::new(&mut *raw),
        };
        // A decoder that ends cleanly but short is damage, not a cut.
        let mut checked = zipread::Checked::new(dec, expect, method == zipread::STORED);
        let sums = checked.sums();
        let mut member = Layer::new(
            &mut checked,
            &self.members,
            "zip",
            self.budget,
            Some(consumed),
            true,
        );
        member.set_member(name.clone());
        self.member(name, &mut member, depth, level)?;
        if to_end && sums.get().is_none() && io::copy(&mut member, &mut io::sink()).is_err() {
            return Ok(None);
        }
        Ok(sums.get())
    }

    /// Reads a zip from its local headers, in order: a zip inside a stream
    /// too big to spool, or one whose central directory is unreadable
    /// (`damaged`: that was reported, and the zip may end anywhere).
    fn zip_local_headers(
        &mut self,
        r: &mut dyn Read,
        depth: usize,
        damaged: bool,
    ) -> io::Result<()> {
        let level = self.members.len();
        let mut input = io::BufReader::with_capacity(64 << 10, r);
        loop {
            let h = match zipread::local_header(&mut input) {
                Ok(zipread::Next::Entry(h)) => h,
                Ok(zipread::Next::Directory) => return Ok(()),
                Ok(zipread::Next::End) => {
                    if !damaged {
                        let msg = "zip ends without a central directory";
                        self.coverage
                            .error(&self.members.clone(), ErrorKind::Truncated, msg);
                    }
                    return Ok(());
                }
                Err(e) if Tagged::of(&e).is_some() => return Err(e),
                Err(e) => {
                    let kind = layer::classify(&e);
                    self.coverage
                        .error(&self.members.clone(), kind, format!("zip: {e}"));
                    return Ok(());
                }
            };
            let name = h.name.clone();
            let mut at = self.members.clone();
            at.push(name.clone());
            let unsupported = zipread::unsupported(h.encrypted(), h.method);
            // With a data descriptor the sizes follow the data; a deflate
            // stream shows its own end, anything else needs the size.
            let size_known = !h.descriptor() || h.csize > 0;
            if !size_known && (unsupported.is_some() || h.method != zipread::DEFLATED) {
                let why = unsupported.map_or_else(|| "stored zip entry".to_string(), |(_, m)| m);
                let msg = format!(
                    "{why}; its size follows its data, so the rest of the zip cannot be found in a stream"
                );
                self.coverage.error(&at, ErrorKind::Unsupported, msg);
                return Ok(());
            }
            let limit = if size_known { h.csize } else { u64::MAX };
            let mut raw = layer::Counted::new((&mut input).take(limit));
            let ended = if let Some((kind, msg)) = unsupported {
                self.coverage.error(&at, kind, msg);
                None
            } else if name.ends_with('/') && h.csize == 0 {
                Some((0, 0))
            } else {
                let expect = if h.descriptor() {
                    None
                } else {
                    Some((h.crc, h.usize))
                };
                self.zip_entry(
                    name.clone(),
                    h.method,
                    &mut raw,
                    expect,
                    depth,
                    level,
                    !size_known,
                )?
            };
            // Whatever the decoder left of a sized entry is skipped raw; an
            // entry of unknown size must have been decoded to its end.
            if size_known {
                let skipped =
                    io::copy(&mut raw, &mut io::sink()).map(|_| raw.counter().get() == h.csize);
                drop(raw);
                match skipped {
                    Ok(true) => {}
                    Ok(false) => {
                        let msg = format!("zip ends inside this entry's {} bytes", h.csize);
                        self.coverage.error(&at, ErrorKind::Truncated, msg);
                        return Ok(());
                    }
                    Err(e) if Tagged::of(&e).is_some() => return Err(e),
                    Err(e) => {
                        self.coverage
                            .error(&at, layer::classify(&e), format!("zip: {e}"));
                        return Ok(());
                    }
                }
            } else if ended.is_none() {
                drop(raw);
                let msg =
                    "the end of this entry could not be found: the rest of the zip was not read";
                self.coverage.error(&at, ErrorKind::Corrupt, msg);
                return Ok(());
            }
            if h.descriptor() {
                match zipread::descriptor(&mut input, h.zip64) {
                    Ok((crc, _)) => {
                        if let Some((ours, _)) = ended
                            && ours != crc
                        {
                            let msg = format!(
                                "CRC mismatch (stored {crc:08x}, computed {ours:08x}): the content was read but may be damaged"
                            );
                            self.coverage.error(&at, ErrorKind::Corrupt, msg);
                        }
                    }
                    Err(e) if Tagged::of(&e).is_some() => return Err(e),
                    Err(e) => {
                        self.coverage
                            .error(&at, layer::classify(&e), format!("zip: {e}"));
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// The name of zip entry `i`, or `#i` when it has none.
fn zip_name<R: Read + Seek>(archive: &zip::ZipArchive<R>, i: usize) -> String {
    archive
        .name_for_index(i)
        .map(str::to_string)
        .unwrap_or_else(|| format!("#{i}"))
}

/// For each entry, the entry whose data it overlaps, if any. Real zips
/// never overlap; a zip bomb points many directory records at one
/// compressed kernel (or nests local headers inside other entries' data)
/// to multiply its output. The first entry in file order is read.
fn zip_overlaps<R: Read + Seek>(archive: &mut zip::ZipArchive<R>) -> Vec<Option<usize>> {
    let n = archive.len();
    let mut spans = Vec::with_capacity(n);
    for i in 0..n {
        if let Ok(f) = archive.by_index_raw(i) {
            let end = f.data_start().saturating_add(f.compressed_size());
            spans.push((f.header_start(), end, i));
        }
    }
    spans.sort_unstable();
    let mut out = vec![None; n];
    let mut owner: Option<(u64, usize)> = None;
    for (start, end, i) in spans {
        match owner {
            Some((owner_end, j)) if start < owner_end => out[i] = Some(j),
            _ => owner = Some((end, i)),
        }
    }
    out
}

fn zip_error(e: &zip::result::ZipError) -> (ErrorKind, String) {
    use zip::result::ZipError;
    match e {
        ZipError::UnsupportedArchive(msg) if *msg == ZipError::PASSWORD_REQUIRED => (
            ErrorKind::Unsupported,
            "encrypted zip entry: not read".into(),
        ),
        ZipError::UnsupportedArchive(msg) => (
            ErrorKind::Unsupported,
            format!("unsupported zip entry: {msg}"),
        ),
        ZipError::Io(io) if io.kind() == io::ErrorKind::UnexpectedEof => {
            (ErrorKind::Truncated, format!("zip entry cut short: {io}"))
        }
        other => (ErrorKind::Corrupt, format!("zip entry unreadable: {other}")),
    }
}

/// Zips with more entries than this are read from their local headers.
const MAX_DIRECTORY_ENTRIES: u64 = 100_000;

/// The largest zstd window decoded: 2^27 = 128 MiB, zstd's own default; a
/// frame asking for more is refused instead of allocating it.
const ZSTD_WINDOW_LOG_MAX: u32 = 27;

/// A tar member name as cited: lossy UTF-8, a leading `./` dropped.
fn tar_name(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    let mut s: &str = &s;
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    if s == "." {
        String::new()
    } else {
        s.to_string()
    }
}
