//! The source layer: walk inputs, detect formats by magic bytes, peel
//! compression layers and open containers (nested to a depth limit), and call
//! back once per leaf member with a reader of its decompressed bytes.
//! Nothing is extracted to disk; member names are data, never paths.
//!
//! # Error protocol
//! - Every reader between layers (`layer::Layer`) turns an error into a
//!   `layer::Tagged` io error carrying the member chain where it happened
//!   and its [`ErrorKind`]. The kind comes from typed errors: artiscan's own
//!   readers (gzip, zip entries, tar) return `InvalidData`/`UnexpectedEof`
//!   io errors or typed errors (`tarread::TarError`,
//!   `zipread::DirectoryError`) that map to a kind; only the zstd crate's
//!   window refusal is recognised by its wording (in one place, `ZstdWindow`).
//! - A reader hands back every byte it decoded before an error first and
//!   returns the error on the next read; the first-block read that detects
//!   the format keeps its bytes too (`layer::Pending`).
//! - The visitor passes reader errors back unchanged. The walker records
//!   each error once (`Tagged::recorded`), at the deepest member where it
//!   was noticed; an error from inside a member lets the container go on
//!   with the next member, an error of the container's own stream stops
//!   that container and is returned to the one around it.
//! - Whatever was not searched is an error in coverage: damage (`truncated`,
//!   `corrupt`), `limit`, `unsupported` formats and entries, `io`, and
//!   `skipped` members (binary, links, devices). Coverage is complete only
//!   when there is none; notes (long lines, duplicate or long names) never
//!   make it incomplete.

pub(crate) mod detect;
mod gzip;
mod layer;
mod tarread;
pub(crate) mod walk;
mod zipread;

use crate::location;
use crate::output::progress::Level;
use detect::{Format, HEAD_LEN, detect};
use layer::{Charge, Layer, Tagged};
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Cursor, Read};

pub(crate) use layer::Budget;
pub(crate) use walk::{Artifact, ArtifactKind, walk};

/// Why part of an artifact could not be read.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The data ends early (a cut download, a short tar member).
    Truncated,
    /// The data is damaged (bad deflate block, CRC mismatch, bad header).
    Corrupt,
    /// A safety limit stopped reading (depth, bytes, ratio, window).
    Limit,
    /// A feature artiscan does not read (encrypted entry, lz4, GNU sparse).
    Unsupported,
    /// The operating system failed to read the file.
    Io,
    /// A member that was not searched: binary, a link, a device or fifo.
    /// Nothing is known about what it would have held, so absence cannot
    /// be claimed.
    Skipped,
    /// A member left out by `-g/--member`: not read, so absence cannot be
    /// claimed either.
    Excluded,
    /// Named as an archive or compressed stream (`.zip`, `.tar.gz`, ...)
    /// but its bytes are not one: a page saved in place of a download.
    #[serde(rename = "not_an_archive")]
    NotAnArchive,
}

impl ErrorKind {
    /// Every kind, for readers that check stored names (the audit store).
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::Truncated,
        ErrorKind::Corrupt,
        ErrorKind::Limit,
        ErrorKind::Unsupported,
        ErrorKind::Io,
        ErrorKind::Skipped,
        ErrorKind::Excluded,
        ErrorKind::NotAnArchive,
    ];

    /// The name in JSON and in the audit store.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated",
            ErrorKind::Corrupt => "corrupt",
            ErrorKind::Limit => "limit",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Io => "io",
            ErrorKind::Skipped => "skipped",
            ErrorKind::Excluded => "excluded",
            ErrorKind::NotAnArchive => "not_an_archive",
        }
    }
}

/// One part of an artifact that was not read completely.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct MemberError {
    /// Member chain where the problem was noticed (empty: the artifact itself).
    pub members: Vec<String>,
    pub kind: ErrorKind,
    pub message: String,
}

/// Something worth knowing that lost nothing; the artifact can still be
/// complete.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Note {
    pub members: Vec<String>,
    pub kind: NoteKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// Not written any more (binary members are `skipped` errors); read
    /// back from older audit stores.
    Binary,
    /// A zip entry flagged as a symlink: its bytes were searched, the link
    /// never followed. (Tar links are `skipped` errors.)
    Link,
    /// Not written any more (special members are `skipped` errors).
    Special,
    /// Lines longer than `--max-line` were searched up to the cap only.
    LongLine,
    /// An image (PNG, JPEG, GIF, WebP by its magic bytes), passed over:
    /// it holds no log lines, so coverage stays complete.
    Image,
    /// A member with the name of an earlier one in the same container,
    /// read and cited with a `#N` suffix.
    Duplicate,
    /// Not written any more (a name cut in its citation is a `limit`
    /// error: rules chosen by member name may not apply); read back from
    /// older audit stores.
    LongName,
    /// A tar member after the archive's end-of-archive block(s): read (as
    /// `tar -i` reads it), though `tar` without `-i` stops before it.
    AfterEnd,
    /// A zip entry whose local header names it otherwise than the central
    /// directory: cited by the directory's name (as `unzip` lists it).
    NameMismatch,
}

/// Archive limits, enforced in this layer: depth by the walker, bytes,
/// ratio and the zip spool by `Budget` (and the layers charged to it).
/// The defaults let a real 10 GiB log through and stop bombs. With the
/// line reader's [`crate::lines::LineLimits`] they make
/// [`crate::limits::ReadLimits`]: the flags, the audit fingerprint (field
/// names as written) and the README's limits table (tests check all
/// three). A field's doc comment is its `--help` text, its default is in
/// `Default` below (the flag shows that one); a field without a flag is
/// `#[arg(skip)]`.
#[derive(clap::Args, Clone, Debug, Serialize, Deserialize)]
pub struct Limits {
    /// Deepest nesting of compression layers and containers
    #[arg(long, default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Decompressed bytes allowed per artifact
    // All layers together.
    #[arg(long, default_value_t = Limits::default().max_bytes, value_parser = crate::sizes::parse_size)]
    pub max_bytes: u64,
    /// Decompressed bytes allowed per member
    // One decoder's output.
    #[arg(long, default_value_t = Limits::default().max_member_bytes, value_parser = crate::sizes::parse_size)]
    pub max_member_bytes: u64,
    /// Largest decompressed/compressed ratio of a member (checked past 64 MiB)
    // Past `ratio_grace` bytes, whose default is the 64 MiB above.
    #[arg(long, default_value_t = Limits::default().max_ratio)]
    pub max_ratio: f64,
    #[arg(skip = Limits::default().ratio_grace)]
    pub ratio_grace: u64,
    // A zip inside a stream is spooled in memory up to this size, then read
    // from its local headers instead.
    #[arg(skip = Limits::default().spool_cap)]
    pub spool_cap: usize,
    // `-g/--member`: only these members are read (see
    // `crate::member_glob`; the flag is the commands' `MemberArgs`). Not a
    // limit of the audit fingerprint: `audit` reads every member.
    #[serde(skip)]
    #[arg(skip)]
    pub members: Option<std::sync::Arc<crate::member_glob::MemberGlobs>>,
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
            members: None,
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
    /// Formats detected from the artifact down to this leaf, outermost
    /// first (`["zip", "gzip", "tar", "text"]`), for `ls`.
    pub layers: &'a [&'static str],
    /// Each member of the chain's size as stored in its container (zip:
    /// compressed size; tar: size), `None` when not known before reading.
    pub stored: &'a [Option<u64>],
}

/// The suffix a name promises an archive or compressed stream by (`.zip`,
/// `.tar.gz`, `.gz`, ...), when the leaf reached under that name was read as
/// plain text with no decoding layer of its own: the name and the bytes
/// disagree.
pub(crate) fn packed_name_on_text(
    path: &str,
    members: &[String],
    layers: &[&str],
) -> Option<String> {
    let name = members.last().map_or(path, String::as_str);
    // The layers of this member alone: those after its container's.
    let own = layers
        .iter()
        .rposition(|l| matches!(*l, "zip" | "tar"))
        .filter(|_| !members.is_empty())
        .map_or(layers, |i| &layers[i + 1..]);
    if own != ["text"] {
        return None;
    }
    crate::formats::archive_suffix(name)
}

/// Reads one artifact and calls `visit` once per leaf member, in archive
/// order. Everything that could not be read lands in `coverage`; this never
/// fails as a whole.
pub fn for_each_member<F>(artifact: &Artifact, limits: &Limits, coverage: &mut Coverage, visit: F)
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    walk_members(artifact, limits, coverage, false, visit);
}

/// [`for_each_member`], and the SHA-256 (hex) of a regular file's bytes:
/// the bytes that were searched, from the same open file (hashed on
/// another thread while they are searched). None for a stream, or a file
/// that could not be read in full; a file that changed while it was read
/// is an `io` error of the artifact (its verdicts are not complete).
pub(crate) fn for_each_member_hashed<F>(
    artifact: &Artifact,
    limits: &Limits,
    coverage: &mut Coverage,
    visit: F,
) -> Option<String>
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    walk_members(artifact, limits, coverage, true, visit)
}

/// Files up to this size are read (one `read` pass into memory), not
/// mapped: a file truncated while mapped kills the process (SIGBUS), and
/// below the size at which a member is split across threads mapping buys
/// nothing.
const READ_WHOLE: u64 = 8 << 20;

/// A regular file's size and modification time, to tell that it changed
/// while it was read.
fn stamp(file: &std::fs::File) -> io::Result<(u64, Option<std::time::SystemTime>)> {
    let m = file.metadata()?;
    Ok((m.len(), m.modified().ok()))
}

/// A regular file's bytes, from one open file: read into memory when
/// small, else mapped.
fn file_bytes(file: &mut std::fs::File, len: u64) -> io::Result<Bytes> {
    if len == 0 {
        return Ok(Bytes::Empty);
    }
    if len <= READ_WHOLE {
        let mut buf = Vec::with_capacity(len as usize + 1);
        // One byte more than the size asked for: a file that grew reads long.
        file.take(len + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 != len {
            return Err(changed(len, buf.len() as u64));
        }
        return Ok(Bytes::Read(buf));
    }
    // Mapping fails where address space is short (`ulimit -v`): then the
    // file is streamed, never left unread.
    Ok(map(file).unwrap_or(Bytes::Unmapped))
}

fn changed(was: u64, read: u64) -> io::Error {
    io::Error::other(format!(
        "changed while read: {was} bytes when opened, {read} read"
    ))
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    let mut h = sha2::Sha256::new();
    // In windows, so that a mapped file is not all resident at once.
    for w in bytes.chunks(8 << 20) {
        h.update(w);
    }
    h.finalize()
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

fn walk_members<F>(
    artifact: &Artifact,
    limits: &Limits,
    coverage: &mut Coverage,
    hash: bool,
    visit: F,
) -> Option<String>
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    let mut sha256 = None;
    let budget = Budget::new(limits);
    let mut visit = visit;
    // `-g`: a member left out is not read, and says so in coverage.
    let visit = |leaf: Leaf<'_, '_>| -> io::Result<()> {
        if let Some(said) = packed_name_on_text(&artifact.path, leaf.members, leaf.layers) {
            // A saved error page in place of a download: the name promised
            // an archive, so what it held was never read. Its text is still
            // searched below (it says what went wrong).
            let msg = format!(
                "named as {said} but its bytes are not one (text: a page saved in place of the download?)"
            );
            leaf.coverage
                .error(leaf.members, ErrorKind::NotAnArchive, msg);
        }
        match &limits.members {
            Some(g) if !g.admits(&artifact.path, leaf.members) => {
                leaf.coverage.members = leaf.coverage.members.saturating_sub(1);
                let msg = format!("not read: left out by -g {}", g.shown());
                leaf.coverage.error(leaf.members, ErrorKind::Excluded, msg);
                Ok(())
            }
            _ => visit(leaf),
        }
    };
    // The bar follows the artifact's file bytes as they are consumed.
    let meter = crate::output::progress::Meter::new();
    let mut w = Walker {
        limits,
        budget: &budget,
        meter: meter.clone(),
        layers: Vec::new(),
        stored: Vec::new(),
        next_stored: None,
        members: Vec::new(),
        coverage,
        visit,
    };
    let result = match &artifact.kind {
        ArtifactKind::File(path) => match std::fs::File::open(path) {
            Ok(mut file) => {
                match stamp(&file).and_then(|st| Ok((st, file_bytes(&mut file, st.0)?))) {
                    Ok((before, Bytes::Unmapped)) => {
                        // Not hashed: the walk may stop before the end.
                        let mut layer =
                            Layer::new(&mut file, &[], "file", &budget, None, Charge::Free);
                        let out = w.stream(&mut layer, 0);
                        match stamp(&file) {
                            Ok(after) if after != before => {
                                w.record(&io::Error::other(Tagged::new(
                                    &[],
                                    ErrorKind::Io,
                                    changed(before.0, after.0).to_string(),
                                )));
                                out
                            }
                            _ => out,
                        }
                    }
                    Ok((before, bytes)) => {
                        let out = if hash {
                            // A big file is hashed on another thread while it
                            // is searched; a small one costs less than a thread.
                            let (h, out) = if bytes.len() < (1 << 20) {
                                (sha256_hex(&bytes), w.slice(&bytes))
                            } else {
                                std::thread::scope(|s| {
                                    let h = s.spawn(|| sha256_hex(&bytes));
                                    let out = w.slice(&bytes);
                                    (
                                        h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                                        out,
                                    )
                                })
                            };
                            sha256 = Some(h);
                            out
                        } else {
                            w.slice(&bytes)
                        };
                        // Read from memory, the bytes are consistent; but
                        // verdicts must not stand on a file that is no longer
                        // what was hashed and cited.
                        match stamp(&file) {
                            Ok(after) if after == before => out,
                            Ok(after) => {
                                sha256 = None;
                                w.record(&io::Error::other(Tagged::new(
                                    &[],
                                    ErrorKind::Io,
                                    changed(before.0, after.0).to_string(),
                                )));
                                out
                            }
                            Err(e) => Err(io::Error::other(Tagged::new(
                                &[],
                                ErrorKind::Io,
                                e.to_string(),
                            ))),
                        }
                    }
                    Err(e) => Err(io::Error::other(Tagged::new(
                        &[],
                        ErrorKind::Io,
                        e.to_string(),
                    ))),
                }
            }
            Err(e) => Err(io::Error::other(Tagged::new(
                &[],
                ErrorKind::Io,
                e.to_string(),
            ))),
        },
        ArtifactKind::Stdin => {
            let stdin = io::stdin();
            let mut lock = stdin.lock();
            // Counted against --max-bytes: a stream may never end.
            let mut layer = Layer::new(&mut lock, &[], "stdin", &budget, None, Charge::Counted);
            w.stream(&mut layer, 0)
        }
        ArtifactKind::Stream(path) => match open_stream(path) {
            Ok(mut file) => {
                let mut layer =
                    Layer::new(&mut file, &[], "stream", &budget, None, Charge::Counted);
                w.stream(&mut layer, 0)
            }
            Err(e) => Err(io::Error::other(Tagged::new(
                &[],
                ErrorKind::Io,
                e.to_string(),
            ))),
        },
        ArtifactKind::Unreadable(message) => Err(io::Error::other(Tagged::new(
            &[],
            ErrorKind::Io,
            message.clone(),
        ))),
        ArtifactKind::Skipped(message) => Err(io::Error::other(Tagged::new(
            &[],
            ErrorKind::Skipped,
            message.clone(),
        ))),
    };
    if let Err(e) = result {
        w.record(&e);
    }
    meter.finish();
    sha256
}

/// A detected format's name in [`Leaf::layers`].
fn layer_name(format: Format) -> &'static str {
    match format {
        Format::Unsupported(what) => what,
        Format::Text => "text",
        f => crate::formats::info(f).map_or("text", |i| i.name),
    }
}

/// How long opening a FIFO may wait for a writer.
const OPEN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Opens a pipe, FIFO or device. Opening a FIFO blocks until it has a
/// writer: past [`OPEN_WAIT`] it is refused (the opening thread is left
/// to finish or die with the process) instead of hanging the scan.
fn open_stream(path: &std::path::Path) -> io::Result<std::fs::File> {
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::File::open(owned));
    });
    match rx.recv_timeout(OPEN_WAIT) {
        Ok(r) => r,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "no writer opened it within {} s: not read",
                OPEN_WAIT.as_secs()
            ),
        )),
    }
}

/// The bytes of a regular file: read, or mapped when big.
enum Bytes {
    Map(memmap2::Mmap),
    Read(Vec<u8>),
    Empty,
    /// Too big to read whole and could not be mapped: to be streamed.
    Unmapped,
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Read(b) => b,
            Bytes::Empty | Bytes::Unmapped => &[],
        }
    }
}

fn map(file: &std::fs::File) -> io::Result<Bytes> {
    if file.metadata()?.len() == 0 {
        return Ok(Bytes::Empty);
    }
    // SAFETY: the map is read-only and private to this scan. Only files
    // over `READ_WHOLE` are mapped (to be split across threads); if one is
    // truncated while mapped, reads fault (SIGBUS), the documented cost of
    // mapping a big file instead of copying it.
    unsafe { memmap2::Mmap::map(file) }.map(Bytes::Map)
}

/// Calls `f` with a regular file's bytes in order, a mapped window at a
/// time: read without a copy through the kernel (hashing reads every byte
/// of an artifact once more), and without holding more than one window.
pub(crate) fn for_each_window(path: &std::path::Path, mut f: impl FnMut(&[u8])) -> io::Result<()> {
    const WINDOW: u64 = 8 << 20;
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut at = 0;
    while at < len {
        let n = WINDOW.min(len - at);
        // SAFETY: as in `map`: read-only, private, and dropped before the
        // next window is mapped.
        let window = unsafe {
            memmap2::MmapOptions::new()
                .offset(at)
                .len(n as usize)
                .map(&file)
        }?;
        f(&window);
        at += n;
    }
    Ok(())
}

/// Why a zip is read from its local headers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LocalHeaders {
    /// Too big to spool, or too many entries to hold its directory: the
    /// zip should still end with a central directory.
    TooBig,
    /// The central directory is unusable (that was reported already): the
    /// zip may end anywhere.
    DirectoryDamaged,
}

/// Where a zip entry's data ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EntryEnd {
    /// Sized by its header or the central directory.
    Known,
    /// A streamed entry (data descriptor): whatever the visitor leaves is
    /// decoded too, to find its end.
    Unknown,
}

struct Walker<'l, 'c, F> {
    limits: &'l Limits,
    budget: &'l Budget,
    /// Consumption of the artifact's own file bytes, for the progress bar.
    meter: crate::output::progress::Meter,
    /// Formats detected down to here (see [`Leaf::layers`]).
    layers: Vec<&'static str>,
    /// Stored sizes along `members` (see [`Leaf::stored`]).
    stored: Vec<Option<u64>>,
    /// The stored size of the member about to be opened.
    next_stored: Option<u64>,
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
            Format::Zip => self.with_layer("zip", |w| w.zip_slice(bytes, 1)),
            // A zip after more than a block of other bytes (a
            // self-extractor stub): its end record says so.
            // The end record's signature is looked for first: one memchr
            // pass, where the directory search tries every place.
            Format::Text
                if memchr::memmem::rfind(
                    &bytes[bytes.len().saturating_sub(22 + 0xffff)..],
                    b"PK\x05\x06",
                )
                .is_some()
                    && zipread::central_directory(bytes, MAX_DIRECTORY_ENTRIES)
                        .is_ok_and(|d| !d.entries.is_empty()) =>
            {
                if self.too_deep(0) {
                    return Ok(());
                }
                self.with_layer("zip", |w| w.zip_slice(bytes, 1))
            }
            Format::Text => {
                let members = self.members.clone();
                let mut reader = self.meter.reader(bytes, Level::File);
                self.with_layer("text", |w| w.leaf(&members, &mut reader, Some(bytes)))
            }
            _ => {
                let mut reader = self.meter.reader(bytes, Level::File);
                self.stream(&mut reader, 0)
            }
        }
    }

    /// A member as a stream: detect, then decode, open or visit.
    fn stream(&mut self, r: &mut dyn Read, depth: usize) -> io::Result<()> {
        // An error inside the first block must not swallow the bytes
        // decoded before it: they go on, then the error.
        let (head, pending) = read_head(r);
        let format = detect(&head);
        let mut r = Cursor::new(head).chain(layer::Pending::new(pending, r));
        self.with_layer(layer_name(format), |w| w.open(format, &mut r, depth))
    }

    /// `f` with `name` on the stack of detected formats.
    fn with_layer<T>(&mut self, name: &'static str, f: impl FnOnce(&mut Self) -> T) -> T {
        self.layers.push(name);
        let out = f(self);
        self.layers.pop();
        out
    }

    /// Decodes, opens or visits a stream of the detected `format`.
    fn open(&mut self, format: Format, r: &mut dyn Read, depth: usize) -> io::Result<()> {
        let mut r = r;
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
                    Charge::Counted,
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
                    Charge::Counted,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Xz | Format::Bzip2 | Format::Lz4 => {
                let input = layer::Counted::new(&mut r);
                let consumed = input.counter();
                let (dec, what): (Box<dyn Read + '_>, &'static str) = match format {
                    Format::Xz => {
                        // Bounded like zstd's window: a header may ask for
                        // a 1.5 GiB dictionary.
                        let stream = liblzma::stream::Stream::new_stream_decoder(
                            XZ_MEMLIMIT,
                            liblzma::stream::CONCATENATED,
                        )
                        .map_err(|e| Tagged::io(&self.members, ErrorKind::Limit, &e))?;
                        (
                            Box::new(layer::Xz(liblzma::read::XzDecoder::new_stream(
                                input, stream,
                            ))),
                            "xz",
                        )
                    }
                    Format::Bzip2 => (Box::new(bzip2::read::MultiBzDecoder::new(input)), "bzip2"),
                    _ => (Box::new(layer::Lz4::new(input)), "lz4"),
                };
                let mut layer = Layer::new(
                    dec,
                    &self.members,
                    what,
                    self.budget,
                    Some(consumed),
                    Charge::Counted,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Unsupported(what) => {
                // Recognised by its magic, not decoded: never "binary".
                let msg = format!("{what} data is not decoded: not read");
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
            layers: &self.layers,
            stored: &self.stored,
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
        self.stored.push(self.next_stored.take());
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
        self.stored.pop();
        out
    }

    fn tar(&mut self, r: &mut dyn Read, depth: usize, level: usize) -> io::Result<()> {
        let mut t = tarread::TarReader::new(r);
        let mut names = Names::default();
        loop {
            let entry = match t.next() {
                Ok(tarread::Next::End) => return Ok(()),
                Ok(tarread::Next::Entry(e)) => e,
                Err(e) => return Err(self.tar_error(e)),
            };
            if matches!(entry.item, tarread::Item::Dir) {
                continue;
            }
            let name = tar_name(&entry.name);
            if name.is_empty() && entry.size == 0 {
                continue;
            }
            let name = self.unique(&mut names, name);
            let mut at = self.members.clone();
            at.push(name.clone());
            if let Some(end) = entry.after_end {
                let msg = format!(
                    "after the end-of-archive block at byte {end}: read, as `tar -i` reads it (`tar` without -i stops there)"
                );
                self.coverage.note(&at, NoteKind::AfterEnd, msg);
            }
            if entry.name_cut {
                self.name_cut(&at, None);
            }
            let skipped = |what: String| format!("{what}: not read");
            match entry.item {
                tarread::Item::Dir => {}
                tarread::Item::Symlink(to) | tarread::Item::Hardlink(to) => {
                    let to = location::name_from_bytes(&to);
                    let msg = skipped(format!("link to {:?}, not followed", location::escape(&to)));
                    self.coverage.error(&at, ErrorKind::Skipped, msg);
                }
                tarread::Item::Special(what) => {
                    self.coverage
                        .error(&at, ErrorKind::Skipped, skipped(format!("{what} member")));
                }
                tarread::Item::Sparse(None) => {
                    let msg = "GNU sparse member whose sparse map cannot be read: not read";
                    self.coverage.error(&at, ErrorKind::Unsupported, msg);
                }
                item @ (tarread::Item::File | tarread::Item::Sparse(Some(_))) => {
                    let errors = self.coverage.errors.len();
                    // Holes expand: a sparse member's output is counted.
                    let charge = match item {
                        tarread::Item::Sparse(_) => Charge::Counted,
                        _ => Charge::Free,
                    };
                    let (mut plain, mut sparse);
                    // A sparse member is read expanded, holes as zeros:
                    // those bytes count against the budget like any other.
                    let data: &mut dyn Read = match item {
                        tarread::Item::Sparse(Some(s)) => {
                            sparse = tarread::SparseData::new(t.reader(), s);
                            &mut sparse
                        }
                        _ => {
                            plain = t.reader();
                            &mut plain
                        }
                    };
                    let mut member =
                        Layer::new(data, &self.members, "tar", self.budget, None, charge);
                    member.set_member(name.clone());
                    self.next_stored = Some(entry.size);
                    let result = self.member(name, &mut member, depth, level);
                    drop(member);
                    result?;
                    // What the visitor left is read through, so a member
                    // cut by the end of the stream is caught (once).
                    if let Err(e) = t.finish() {
                        if matches!(e, tarread::TarError::Cut { .. }) {
                            let seen = self.coverage.errors[errors..]
                                .iter()
                                .any(|e| e.members == at && e.kind != ErrorKind::Skipped);
                            if !seen {
                                let msg = format!(
                                    "tar member declares {} bytes, the archive ends before them",
                                    entry.size
                                );
                                self.coverage.error(&at, ErrorKind::Truncated, msg);
                            }
                            return Ok(());
                        }
                        self.members.push(at.pop().unwrap_or_default());
                        let e = self.tar_error(e);
                        self.record(&e);
                        self.members.pop();
                        return Err(e);
                    }
                }
            }
        }
    }

    /// A tar error at this container's level (a decoder's error below it
    /// keeps its own tag).
    fn tar_error(&self, e: tarread::TarError) -> io::Error {
        match e {
            tarread::TarError::Io(e) if Tagged::of(&e).is_some() => e,
            e => Tagged::io(&self.members, e.kind(), &e),
        }
    }

    /// A unique name for a member of one container; a duplicate is noted.
    /// A zip entry's name as cited: cut to [`tarread::MAX_NAME`] bytes as
    /// a tar name is (a `long_name` note: every record under it repeats
    /// the name, in memory and output), then made unique among its siblings.
    fn zip_name(&mut self, names: &mut Names, name: &str) -> String {
        let mut end = name.len().min(tarread::MAX_NAME);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        let unique = self.unique(names, name[..end].to_string());
        if end < name.len() {
            let mut at = self.members.clone();
            at.push(unique.clone());
            self.name_cut(&at, Some(name.len()));
        }
        unique
    }

    /// A member whose name was cut: its lines are read, but the rules that
    /// apply by member name (`*.json`, `*env*.txt`) were chosen from the
    /// cut name and may not be the ones its whole name selects, so claims
    /// of absence cannot rest on it (a `limit` error, not a note).
    fn name_cut(&mut self, at: &[String], len: Option<usize>) {
        let max = tarread::MAX_NAME;
        let what = match len {
            Some(n) => format!("member name of {n} bytes"),
            None => format!("member name longer than {max} bytes"),
        };
        let msg = format!(
            "{what}: cut to {max} bytes in citations; rules chosen by member name may not apply"
        );
        self.coverage.error(at, ErrorKind::Limit, msg);
    }

    fn unique(&mut self, names: &mut Names, name: String) -> String {
        let (unique, dup) = names.unique(name);
        if dup {
            let mut at = self.members.clone();
            at.push(unique.clone());
            let msg = "another member of this container has the same name: cited with a #N suffix";
            self.coverage.note(&at, NoteKind::Duplicate, msg);
        }
        unique
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
            return self.zip_slice(&spool, depth);
        }
        let mut rest = Cursor::new(spool).chain(r);
        self.zip_local_headers(
            &mut rest,
            depth,
            LocalHeaders::TooBig,
            &mut Names::default(),
        )
    }

    /// A whole zip in memory: entries from its central directory, or from
    /// its local headers when the directory is missing or does not fit.
    fn zip_slice(&mut self, data: &[u8], depth: usize) -> io::Result<()> {
        let level = self.members.len();
        let dir = match zipread::central_directory(data, MAX_DIRECTORY_ENTRIES) {
            Ok(d) => d,
            Err(zipread::DirectoryError::TooMany(_)) => {
                // A huge directory is not held in memory: the local headers
                // are read in order instead.
                let mut r = self.meter.reader(data, Level::at(self.members.len()));
                return self.zip_local_headers(
                    &mut r,
                    depth,
                    LocalHeaders::TooBig,
                    &mut Names::default(),
                );
            }
            Err(e) => {
                // A cut download has no central directory (or only one of
                // a zip stored inside it): what the local headers still
                // hold is read, and the artifact is incomplete.
                let msg = format!("zip central directory unusable ({e}); read from local headers");
                self.coverage
                    .error(&self.members.clone(), ErrorKind::Truncated, msg);
                let start = memchr::memmem::find(data, b"PK\x03\x04").unwrap_or(data.len());
                let mut r = self
                    .meter
                    .reader(&data[start..], Level::at(self.members.len()));
                return self.zip_local_headers(
                    &mut r,
                    depth,
                    LocalHeaders::DirectoryDamaged,
                    &mut Names::default(),
                );
            }
        };
        let entries = &dir.entries;
        let spans: Vec<Option<(u64, u64)>> = entries
            .iter()
            .map(|e| {
                let start = zipread::data_start(data, e.header)?;
                let end = start.checked_add(e.csize)?;
                Some((start, end))
            })
            .collect();
        let overlaps = zip_overlaps(entries, &spans);
        let mut names = Names::default();
        let hidden = zip_hidden(data, entries, &spans, dir.start);
        for (i, e) in entries.iter().enumerate() {
            if e.is_dir() {
                continue;
            }
            let name = self.zip_name(&mut names, &e.name);
            let mut at = self.members.clone();
            at.push(name.clone());
            if let Some(j) = overlaps[i] {
                let msg = format!(
                    "zip entry overlaps the data of entry {:?} (an overlapping-entry zip bomb): not read",
                    location::escape(&entries[j].name)
                );
                self.coverage.error(&at, ErrorKind::Limit, msg);
                continue;
            }
            if let Some((kind, msg)) = zipread::unsupported(e.encrypted(), e.method) {
                self.coverage.error(&at, kind, msg);
                continue;
            }
            let Some((start, end)) = spans[i] else {
                let msg = "no local header where the central directory says: not read";
                self.coverage.error(&at, ErrorKind::Corrupt, msg);
                continue;
            };
            if let Some((raw, flags)) = zipread::local_name(data, e.header)
                && raw != &data[e.raw_name.0..e.raw_name.0 + e.raw_name.1]
            {
                // Readers differ (libarchive and a stream reader take the
                // local name): the one not cited is said.
                let local = zipread::decode_name(raw, flags, 3);
                let msg = format!(
                    "its local header names it {:?}: cited by its central directory name, as unzip lists it",
                    location::escape(&local)
                );
                self.coverage.note(&at, NoteKind::NameMismatch, msg);
            }
            if e.symlink {
                // Its bytes are searched like any member's; never followed.
                let msg = "zip entry flagged as a symlink: its bytes were searched, never followed";
                self.coverage.note(&at, NoteKind::Link, msg);
            }
            let have =
                &data[start.min(data.len() as u64) as usize..end.min(data.len() as u64) as usize];
            let cut = (have.len() as u64) < e.csize;
            let mut raw = layer::Counted::new(self.meter.reader(have, Level::at(level)));
            self.next_stored = Some(e.csize);
            self.zip_entry(
                name,
                e.method,
                &mut raw,
                Some((e.crc, e.usize)),
                depth,
                level,
                EntryEnd::Known,
            )?;
            if cut && !self.coverage.errors.iter().any(|x| x.members == at) {
                let msg = format!("zip ends inside this entry's {} bytes", e.csize);
                self.coverage.error(&at, ErrorKind::Truncated, msg);
            }
        }
        // Local headers the directory does not list, between its entries
        // or after the last (Python and unzip would not list them, a
        // stream reader would): read from there, and said.
        for (from, to) in hidden {
            let msg = format!(
                "bytes {from}..{to} hold a local header the central directory does not list: read from its local headers"
            );
            self.coverage
                .error(&self.members.clone(), ErrorKind::Corrupt, msg);
            let mut r = self
                .meter
                .reader(&data[from as usize..to as usize], Level::at(level));
            self.zip_local_headers(&mut r, depth, LocalHeaders::DirectoryDamaged, &mut names)?;
        }
        Ok(())
    }

    /// A zip read from its local headers reached its central directory
    /// (`sig` read): the directory must list as many entries as were read
    /// and end with an end record that announces them; else entries may
    /// lie where the local headers did not lead, and coverage says so.
    fn zip_directory_agrees(
        &mut self,
        input: &mut dyn BufRead,
        sig: [u8; 4],
        seen: u64,
    ) -> io::Result<()> {
        let at = self.members.clone();
        match zipread::directory_stream(input, sig) {
            Ok((records, announced))
                if records == seen && records % 0x1_0000 == announced % 0x1_0000 => {}
            Ok((records, announced)) => {
                let msg = format!(
                    "{seen} entries read from local headers, but the central directory holds {records} records and announces {announced}: entries may not have been read"
                );
                self.coverage.error(&at, ErrorKind::Corrupt, msg);
            }
            Err(e) if Tagged::of(&e).is_some() => return Err(e),
            Err(e) => {
                let msg = format!(
                    "zip: after {seen} entries read from local headers: {e}; entries may not have been read"
                );
                self.coverage.error(&at, layer::classify(&e), msg);
            }
        }
        Ok(())
    }

    /// Decodes one zip entry from its raw bytes and visits it as member
    /// `name`. With [`EntryEnd::Unknown`], whatever the visitor left is decoded too, to
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
        end: EntryEnd,
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
        let short = match method {
            zipread::STORED => zipread::Short::Cut,
            _ => zipread::Short::Damage,
        };
        let mut checked = zipread::Checked::new(dec, expect, short);
        let sums = checked.sums();
        let mut member = Layer::new(
            &mut checked,
            &self.members,
            "zip",
            self.budget,
            Some(consumed),
            Charge::Counted,
        );
        member.set_member(name.clone());
        self.member(name, &mut member, depth, level)?;
        if end == EntryEnd::Unknown
            && sums.get().is_none()
            && io::copy(&mut member, &mut io::sink()).is_err()
        {
            return Ok(None);
        }
        Ok(sums.get())
    }

    /// Reads a zip from its local headers, in order: a zip inside a stream
    /// too big to spool (or with too many entries), or one whose central
    /// directory is unreadable.
    fn zip_local_headers(
        &mut self,
        r: &mut dyn Read,
        depth: usize,
        why: LocalHeaders,
        names: &mut Names,
    ) -> io::Result<()> {
        let level = self.members.len();
        let mut input = io::BufReader::with_capacity(64 << 10, r);
        let mut seen = 0u64;
        loop {
            let h = match zipread::local_header(&mut input) {
                Ok(zipread::Next::Entry(h)) => h,
                Ok(zipread::Next::Directory(sig)) if why == LocalHeaders::TooBig => {
                    self.zip_directory_agrees(&mut input, sig, seen)?;
                    return Ok(());
                }
                Ok(zipread::Next::Directory(_)) => return Ok(()),
                Ok(zipread::Next::End) => {
                    if why == LocalHeaders::TooBig {
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
            seen += 1;
            let name = self.zip_name(names, &h.name);
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
                self.next_stored = size_known.then_some(h.csize);
                self.zip_entry(
                    name.clone(),
                    h.method,
                    &mut raw,
                    expect,
                    depth,
                    level,
                    if size_known {
                        EntryEnd::Known
                    } else {
                        EntryEnd::Unknown
                    },
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

/// Spans of a zip that hold a local header no directory entry accounts
/// for: from that header to the next listed entry (or the directory).
/// Bytes before the first entry (a self-extractor stub) are not looked at.
fn zip_hidden(
    data: &[u8],
    entries: &[zipread::CdEntry],
    spans: &[Option<(u64, u64)>],
    dir_start: u64,
) -> Vec<(u64, u64)> {
    let mut order: Vec<(u64, u64)> = entries
        .iter()
        .zip(spans)
        .filter_map(|(e, s)| s.map(|(_, end)| (e.header, end)))
        .collect();
    order.sort_unstable();
    let mut out = Vec::new();
    let mut reach = None::<u64>;
    let nexts = order.iter().map(|o| o.0).skip(1).chain([dir_start]);
    for (&(start, end), next) in order.iter().zip(nexts) {
        let from = reach.map_or(end, |r| r.max(end));
        reach = Some(from);
        if start >= next || from >= next || next as usize > data.len() {
            continue;
        }
        let gap = &data[from as usize..next as usize];
        if let Some(i) = memchr::memmem::find(gap, b"PK\x03\x04") {
            out.push((from + i as u64, next));
        }
    }
    out
}

/// For each entry, the entry whose data it overlaps, if any. Real zips
/// never overlap; a zip bomb points many directory records at one
/// compressed kernel (or nests local headers inside other entries' data)
/// to multiply its output. The first entry in file order is read.
fn zip_overlaps(entries: &[zipread::CdEntry], spans: &[Option<(u64, u64)>]) -> Vec<Option<usize>> {
    let mut order: Vec<(u64, u64, usize)> = entries
        .iter()
        .zip(spans)
        .enumerate()
        .filter_map(|(i, (e, s))| s.map(|(_, end)| (e.header, end, i)))
        .collect();
    order.sort_unstable();
    let mut out = vec![None; entries.len()];
    let mut owner: Option<(u64, usize)> = None;
    for (start, end, i) in order {
        match owner {
            Some((owner_end, j)) if start < owner_end => out[i] = Some(j),
            _ => owner = Some((end, i)),
        }
    }
    out
}

/// Memory the xz decoder may use (its dictionary), as zstd's window.
const XZ_MEMLIMIT: u64 = 1 << 28;

/// Zips with more entries than this are read from their local headers.
const MAX_DIRECTORY_ENTRIES: u64 = 100_000;

/// The largest zstd window decoded: 2^27 = 128 MiB, zstd's own default; a
/// frame asking for more is refused instead of allocating it.
const ZSTD_WINDOW_LOG_MAX: u32 = 27;

/// The first block of a stream, and the error that stopped it early, if any
/// (returned after the bytes, so nothing decoded is lost).
fn read_head(r: &mut dyn Read) -> (Vec<u8>, Option<io::Error>) {
    let mut head = vec![0u8; HEAD_LEN];
    let mut n = 0;
    while n < HEAD_LEN {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                head.truncate(n);
                return (head, Some(e));
            }
        }
    }
    head.truncate(n);
    (head, None)
}

/// Member names of one container made unique: a member with the name of
/// an earlier one is cited as `NAME#2` (or `#3`, ..., the first free), so
/// two members never share a citation and `cite` reopens the right one.
/// Names are kept as 64-bit hashes, so memory is 16 bytes per member.
#[derive(Default)]
struct Names {
    seen: std::collections::HashSet<u64>,
    next: std::collections::HashMap<u64, u64>,
}

impl Names {
    fn hash(s: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        // Fixed keys: the same archive always gets the same suffixes.
        let mut h = std::hash::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }

    /// The name to cite, and whether it was a duplicate.
    fn unique(&mut self, name: String) -> (String, bool) {
        let h = Self::hash(&name);
        if self.seen.insert(h) {
            return (name, false);
        }
        let next = self.next.entry(h).or_insert(2);
        loop {
            let candidate = format!("{name}#{next}");
            *next += 1;
            if self.seen.insert(Self::hash(&candidate)) {
                return (candidate, true);
            }
        }
    }
}

/// A tar member name as cited: its bytes as [`location::name_from_bytes`]
/// keeps them (one-to-one, so two names never share a citation), a leading
/// `./` dropped.
fn tar_name(raw: &[u8]) -> String {
    let s = location::name_from_bytes(raw);
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

#[cfg(test)]
mod read_tests {
    use super::*;

    /// A file that is not the size it had when opened (grown or cut
    /// while read) is an error, never bytes of two versions.
    #[test]
    fn a_file_read_short_or_long_is_changed_while_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.log");
        std::fs::write(&p, b"line one\nline two\n").unwrap();
        let mut f = std::fs::File::open(&p).unwrap();
        let e = file_bytes(&mut f, 10).err().unwrap();
        assert!(e.to_string().starts_with("changed while read"), "{e}");
        let mut f = std::fs::File::open(&p).unwrap();
        let e = file_bytes(&mut f, 30).err().unwrap();
        assert!(e.to_string().starts_with("changed while read"), "{e}");
        let mut f = std::fs::File::open(&p).unwrap();
        assert_eq!(&*file_bytes(&mut f, 18).unwrap(), b"line one\nline two\n");
        // The hash is of the bytes the walk read.
        let a = Artifact {
            path: "a.log".into(),
            kind: ArtifactKind::File(p.clone()),
        };
        let mut cov = Coverage::default();
        let mut seen = Vec::new();
        let h = for_each_member_hashed(&a, &Limits::default(), &mut cov, |leaf| {
            leaf.reader.read_to_end(&mut seen)?;
            Ok(())
        });
        assert_eq!(h.unwrap(), sha256_hex(&seen));
        assert!(cov.complete());
    }
}
