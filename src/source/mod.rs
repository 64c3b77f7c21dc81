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
//!   io errors or typed errors (`tar::TarError`,
//!   `zip::DirectoryError`) that map to a kind; only the zstd crate's
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
mod entries;
mod gzip;
pub(crate) mod junk;
mod layer;
pub(crate) mod meter;
mod pread;
mod tar;
pub(crate) mod walk;
mod walker;
mod zip;

use detect::{Format, HEAD_LEN, detect};
use layer::{Charge, Layer, Tagged};
use meter::Origin;
use serde::{Deserialize, Serialize};
use std::io::{self, Cursor, Read};
use walker::Walker;

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
    /// A server log with no bytes at all: the server logged nothing, so
    /// nothing may be claimed absent from it (its claims are unknown).
    Empty,
}

impl ErrorKind {
    /// Every kind, for readers that check stored names (the audit store).
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::Truncated,
        ErrorKind::Corrupt,
        ErrorKind::Limit,
        ErrorKind::Unsupported,
        ErrorKind::Io,
        ErrorKind::Skipped,
        ErrorKind::Excluded,
        ErrorKind::NotAnArchive,
        ErrorKind::Empty,
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
            ErrorKind::Empty => "empty",
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
    /// An ELF core dump (a crashed process's memory, by its header),
    /// passed over as an image is: it holds no log lines.
    CoreDump,
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
    // Told of the file bytes consumed, for a progress display (see
    // `meter`). Not a limit: no flag, not in the audit fingerprint.
    #[serde(skip)]
    #[arg(skip)]
    pub observer: Option<std::sync::Arc<dyn meter::ReadObserver>>,
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
            observer: None,
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
    /// The whole member when it is a plain file read whole (enables
    /// splitting).
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
/// another thread while they are searched). None for a stream, a file
/// that could not be read in full, or one no member of which was read (all
/// left out by `-g`: nothing in it is cited or claimed, so its bytes are
/// not read to the end for the hash); a file that changed while it was read
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

/// Files up to this size are read (one `read` pass into memory); bigger
/// ones are streamed (and hashed as they are read), except zips, which
/// are read in place at offsets (see [`file_bytes`]).
const READ_WHOLE: u64 = 8 << 20;

/// Plain-text files from this size up are streamed too: through the line
/// reader's buffer, which stays in cache, the kernel's copy and the search
/// after it cost about half what they cost into a buffer of the whole file
/// (`grep -c -F` on a real run folder of 1-8 MB logs: half the CPU time).
/// Smaller ones are cheaper read whole, and archives, binary, UTF-16 and
/// json-file logs are read whole as before (their handling wants them in
/// memory).
const STREAM_TEXT: u64 = 256 << 10;

/// A regular file's size and modification time, to tell that it changed
/// while it was read.
fn stamp(file: &std::fs::File) -> io::Result<(u64, Option<std::time::SystemTime>)> {
    let m = file.metadata()?;
    Ok((m.len(), m.modified().ok()))
}

/// A regular file's bytes, from one open file: read into memory when
/// small; when big, a zip (its directory is at the end) is read in place
/// at offsets, anything else is streamed. Nothing is mapped: a file
/// truncated while mapped (logrotate's copytruncate, a download started
/// again) would kill the process with SIGBUS, where a read just comes
/// back short (an `io` error, `changed while read`).
fn file_bytes(file: &mut std::fs::File, len: u64) -> io::Result<Bytes> {
    if len == 0 {
        return Ok(Bytes::Empty);
    }
    if len <= READ_WHOLE && !(len >= STREAM_TEXT && plain_text(pread::FileAt::new(file, len))?) {
        let mut buf = spare_buffer(len as usize + 1);
        // One byte more than the size asked for: a file that grew reads long.
        file.take(len + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 != len {
            return Err(changed(len, buf.len() as u64));
        }
        return Ok(Bytes::Read(buf));
    }
    Ok(if is_zip(pread::FileAt::new(file, len))? {
        Bytes::Zip
    } else {
        Bytes::Big
    })
}

/// Whether a file's head is plain text that the line reader takes as a
/// stream as it would take it whole: no container or compression, no NUL
/// in the binary probe, no UTF-16 BOM, no json-file record (`{"log":"`).
/// Anything else is read whole, as before.
fn plain_text(file: pread::FileAt<'_>) -> io::Result<bool> {
    let mut head = vec![0u8; detect::BINARY_PROBE.min(file.len() as usize)];
    file.read_exact_at(0, &mut head)?;
    Ok(detect(&head) == Format::Text
        && memchr::memchr(0, &head).is_none()
        && !head.starts_with(b"\xff\xfe")
        && !head.starts_with(b"\xfe\xff")
        && memchr::memmem::find(&head, detect::JSON_FILE).is_none())
}

/// Whether a big file is opened as a zip, as [`Walker::slice`] decides for
/// one in memory: it starts as a zip, or ends with a zip's central
/// directory (a self-extractor). Read at offsets: the file's position
/// stays at the start.
fn is_zip(file: pread::FileAt<'_>) -> io::Result<bool> {
    let mut head = vec![0u8; HEAD_LEN.min(file.len() as usize)];
    file.read_exact_at(0, &mut head)?;
    Ok(match detect(&head) {
        Format::Zip => true,
        Format::Text => {
            let data = pread::Data::File(file);
            let from = file.len().saturating_sub(22 + 0xffff);
            data.find(from, file.len(), b"PK\x05\x06")?.is_some()
                && match zip::central_directory(data, MAX_DIRECTORY_ENTRIES) {
                    Ok(d) => !d.entries.is_empty(),
                    Err(zip::DirectoryError::Io(e)) => return Err(e),
                    Err(_) => false,
                }
        }
        _ => false,
    })
}

/// A reader that counts, and hashes when asked, the bytes read through it.
struct Hashing<R> {
    inner: R,
    sha: Option<sha2::Sha256>,
    read: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if let Some(h) = &mut self.sha {
            h.update(&buf[..n]);
        }
        Ok(n)
    }
}

fn changed(was: u64, read: u64) -> io::Error {
    io::Error::other(format!(
        "changed while read: {was} bytes when opened, {read} read"
    ))
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
    // Members handed to `visit`: an artifact none of whose members is read
    // (all left out by `-g`) backs no claim, so its hash is not paid for.
    let visited = std::cell::Cell::new(0u64);
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
            _ => {
                visited.set(visited.get() + 1);
                visit(leaf)
            }
        }
    };
    // The bar follows the artifact's file bytes as they are consumed.
    let meter = meter::Meter::new(limits.observer.clone());
    let mut w = Walker {
        limits,
        budget: &budget,
        meter: meter.clone(),
        layers: Vec::new(),
        stored: Vec::new(),
        members: Vec::new(),
        coverage,
        visit,
    };
    let result = match &artifact.kind {
        ArtifactKind::File(path) => match std::fs::File::open(path) {
            Ok(mut file) => {
                match stamp(&file).and_then(|st| Ok((st, file_bytes(&mut file, st.0)?))) {
                    Ok((before, Bytes::Big)) => {
                        // Streamed, and hashed in the same pass.
                        let mut hashed = Hashing {
                            inner: &mut file,
                            sha: hash.then(sha2::Sha256::default),
                            read: 0,
                        };
                        let out = {
                            let metered = meter.reader(&mut hashed, Origin::File);
                            let mut layer =
                                Layer::new(metered, &[], "file", &budget, None, Charge::Free);
                            w.stream(&mut layer, 0)
                        };
                        // The walk may stop before the end (a limit): the
                        // rest is hashed too, so the hash is the file's.
                        let hash = hash && visited.get() > 0;
                        let drained = !hash || io::copy(&mut hashed, &mut io::sink()).is_ok();
                        let (read, sha) = (hashed.read, hashed.sha);
                        match stamp(&file) {
                            Ok(after) if after != before || (hash && read != before.0) => {
                                let now = if after != before { after.0 } else { read };
                                w.record(&io::Error::other(Tagged::new(
                                    &[],
                                    ErrorKind::Io,
                                    changed(before.0, now).to_string(),
                                )));
                            }
                            Ok(_) if drained && hash => sha256 = sha.map(crate::hash::finish_hex),
                            _ => {}
                        }
                        out
                    }
                    Ok((before, Bytes::Zip)) => {
                        // Hashed on another thread, read at its own
                        // offsets, while the entries are read.
                        let at = pread::FileAt::new(&file, before.0);
                        let (h, out) = if hash {
                            std::thread::scope(|s| {
                                let h = s.spawn(|| at.sha256());
                                let out = w.zip_file(at);
                                let h = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                                (Some(h), out)
                            })
                        } else {
                            (None, w.zip_file(at))
                        };
                        // Where reading stopped is said first (a read
                        // that found the file cut), the change after.
                        if let Err(e) = &out {
                            w.record(e);
                        }
                        // The hash is of the bytes scanned only if the
                        // file is still as it was when opened.
                        match (stamp(&file), h) {
                            (Ok(after), _) if after != before => {
                                let e = changed(before.0, after.0);
                                w.changed(io::Error::other(Tagged::new(
                                    &[],
                                    ErrorKind::Io,
                                    e.to_string(),
                                )));
                                out
                            }
                            (Ok(_), Some(Err(e))) => {
                                w.changed(e);
                                out
                            }
                            (Ok(_), h) => {
                                sha256 = h.and_then(Result::ok);
                                out
                            }
                            (Err(e), _) => Err(io::Error::other(Tagged::new(
                                &[],
                                ErrorKind::Io,
                                e.to_string(),
                            ))),
                        }
                    }
                    Ok((before, bytes)) => {
                        let out = if hash {
                            // A big file is hashed on another thread while it
                            // is searched; a small one costs less than a thread.
                            let (h, out) = if bytes.len() < (1 << 20) {
                                let out = w.slice(&bytes);
                                (
                                    (visited.get() > 0).then(|| crate::hash::sha256_hex(&bytes)),
                                    out,
                                )
                            } else {
                                std::thread::scope(|s| {
                                    let h = s.spawn(|| crate::hash::sha256_hex(&bytes));
                                    let out = w.slice(&bytes);
                                    (
                                        Some(
                                            h.join()
                                                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                                        ),
                                        out,
                                    )
                                })
                            };
                            sha256 = h;
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

/// The bytes of a regular file: read whole when small; a big one is
/// read in place at offsets (a zip) or streamed.
enum Bytes {
    Read(Vec<u8>),
    Empty,
    /// Too big to read whole, and a zip: read at offsets.
    Zip,
    /// Too big to read whole: to be streamed.
    Big,
}

thread_local! {
    /// The last read-whole buffer of this thread, kept for its next file:
    /// the kernel then copies into pages already mapped (and in cache)
    /// rather than faulting in fresh ones for every file, which cost a
    /// folder of small logs a fifth of its time. At most [`READ_WHOLE`]
    /// bytes per thread.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// An empty buffer for at least `cap` bytes, this thread's spare if any.
fn spare_buffer(cap: usize) -> Vec<u8> {
    let mut v = SPARE.take();
    v.clear();
    v.reserve(cap);
    v
}

impl Drop for Bytes {
    fn drop(&mut self) {
        if let Bytes::Read(v) = self {
            if v.capacity() <= READ_WHOLE as usize + 1 {
                SPARE.set(std::mem::take(v));
            }
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Read(b) => b,
            Bytes::Empty | Bytes::Zip | Bytes::Big => &[],
        }
    }
}

/// Calls `f` with a regular file's bytes in order, a window at a time
/// (read, not mapped: a file truncated meanwhile reads short instead of
/// faulting), without holding more than one window.
pub(crate) fn for_each_window(path: &std::path::Path, mut f: impl FnMut(&[u8])) -> io::Result<()> {
    const WINDOW: usize = 1 << 20;
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; WINDOW];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => f(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Zips with more entries than this are read from their local headers.
const MAX_DIRECTORY_ENTRIES: u64 = 100_000;

/// The largest zstd window decoded: 2^27 = 128 MiB, zstd's own default; a
/// frame asking for more is refused instead of allocating it.
const ZSTD_WINDOW_LOG_MAX: u32 = 27;

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
        assert_eq!(h.unwrap(), crate::hash::sha256_hex(&seen));
        assert!(cov.complete());
    }

    /// A big log truncated while it is read (logrotate's copytruncate)
    /// reads short and is an `io` error of the artifact, with no hash: it
    /// is streamed, not mapped, so the process does not die of SIGBUS.
    /// The truncation happens from inside the visitor, at a known point.
    #[test]
    fn a_big_log_truncated_while_read_is_an_error_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("server.log");
        let line = b"[2026-06-04 10:00:00] decode batch. #running-req: 64, accept len: 3.10\n";
        let lines = (READ_WHOLE as usize * 2) / line.len();
        std::fs::write(&p, line.repeat(lines)).unwrap();
        let whole = (line.len() * lines) as u64;
        let a = Artifact {
            path: "server.log".into(),
            kind: ArtifactKind::File(p.clone()),
        };
        // Untouched: streamed, and hashed in the same pass.
        let mut cov = Coverage::default();
        let mut seen = Vec::new();
        let h = for_each_member_hashed(&a, &Limits::default(), &mut cov, |leaf| {
            leaf.reader.read_to_end(&mut seen)?;
            Ok(())
        });
        assert_eq!(seen.len() as u64, whole);
        assert_eq!(h.unwrap(), crate::hash::sha256_hex(&seen));
        assert!(cov.complete(), "{:?}", cov.errors);
        // Cut to 4 KiB after its first MiB was read.
        let mut cov = Coverage::default();
        let mut got = 0u64;
        let h = for_each_member_hashed(&a, &Limits::default(), &mut cov, |leaf| {
            let mut buf = vec![0u8; 1 << 20];
            leaf.reader.read_exact(&mut buf)?;
            std::fs::OpenOptions::new()
                .write(true)
                .open(&p)?
                .set_len(4096)?;
            got = (1 << 20) + io::copy(leaf.reader, &mut io::sink())?;
            Ok(())
        });
        assert!(got < whole, "{got}");
        assert_eq!(h, None);
        let e = cov
            .errors
            .iter()
            .find(|e| e.kind == ErrorKind::Io)
            .unwrap_or_else(|| panic!("{:?}", cov.errors));
        assert!(e.message.starts_with("changed while read"), "{}", e.message);
    }

    /// Plain-text files from [`STREAM_TEXT`] up are streamed; smaller ones,
    /// and those the line reader wants whole (binary, UTF-16, json-file
    /// logs) or that are containers, are read whole; a text stub before a
    /// zip's directory is still opened as the zip.
    #[test]
    fn mid_size_plain_text_is_streamed_the_rest_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let line = b"[2026-06-04 10:00:00] decode batch. accept len: 3.10\n";
        let text = line.repeat(STREAM_TEXT as usize / line.len() + 1);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), Default::default());
        io::Write::write_all(&mut gz, &text).unwrap();
        let mut gz = gz.finish().unwrap();
        gz.resize(text.len(), 0);
        let nul = [b"x\0".as_slice(), &text].concat();
        let utf16 = [b"\xff\xfe".as_slice(), &text].concat();
        let json = [
            br#"{"log":"a\n","stream":"stdout"}"#.as_slice(),
            b"\n",
            &text,
        ]
        .concat();
        let sfx = zip_of(&text, &[("in.log", b"inside\n", true)]);
        let kind = |bytes: &[u8]| {
            let p = dir.path().join("f");
            std::fs::write(&p, bytes).unwrap();
            let mut f = std::fs::File::open(&p).unwrap();
            match file_bytes(&mut f, bytes.len() as u64).unwrap() {
                Bytes::Read(_) => "whole",
                Bytes::Big => "stream",
                Bytes::Zip => "zip",
                Bytes::Empty => "empty",
            }
        };
        assert_eq!(kind(&text), "stream");
        assert_eq!(kind(&text[..STREAM_TEXT as usize - 1]), "whole");
        for other in [&gz, &nul, &utf16, &json] {
            assert_eq!(kind(other), "whole");
        }
        assert_eq!(kind(&sfx), "zip");
    }

    /// A zip of `entries` (name, bytes, deflated?), after `prefix` (a
    /// self-extractor's stub).
    fn zip_of(prefix: &[u8], entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
        use std::io::Write;
        let mut out = prefix.to_vec();
        let mut cd = Vec::new();
        for (name, data, deflated) in entries {
            let at = out.len() as u32;
            let body = if *deflated {
                let mut e = flate2::write::DeflateEncoder::new(Vec::new(), Default::default());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            } else {
                data.to_vec()
            };
            let method: u16 = if *deflated { 8 } else { 0 };
            let mut fixed = Vec::new();
            fixed.extend_from_slice(&20u16.to_le_bytes());
            fixed.extend_from_slice(&0u16.to_le_bytes());
            fixed.extend_from_slice(&method.to_le_bytes());
            fixed.extend_from_slice(&[0; 4]);
            fixed.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
            fixed.extend_from_slice(&(body.len() as u32).to_le_bytes());
            fixed.extend_from_slice(&(data.len() as u32).to_le_bytes());
            fixed.extend_from_slice(&(name.len() as u16).to_le_bytes());
            fixed.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(b"PK\x03\x04");
            out.extend_from_slice(&fixed);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&body);
            cd.extend_from_slice(b"PK\x01\x02");
            cd.extend_from_slice(&0x031eu16.to_le_bytes());
            cd.extend_from_slice(&fixed);
            // Comment length, disk, internal attributes.
            cd.extend_from_slice(&[0; 6]);
            cd.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
            cd.extend_from_slice(&(at - prefix.len() as u32).to_le_bytes());
            cd.extend_from_slice(name.as_bytes());
        }
        let cd_at = (out.len() - prefix.len()) as u32;
        out.extend_from_slice(&cd);
        out.extend_from_slice(b"PK\x05\x06");
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(cd.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_at.to_le_bytes());
        out.extend_from_slice(&[0; 2]);
        out
    }

    /// Numbered lines of a log tagged `tag`, about `bytes` long.
    fn log_text(tag: &str, bytes: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes + 100);
        let mut i = 0;
        while out.len() < bytes {
            i += 1;
            let line = format!("{tag} {i:08} decode batch #running-req: {}\n", i % 97);
            out.extend_from_slice(line.as_bytes());
        }
        out
    }

    /// Each member read: its chain and bytes.
    type Seen = Vec<(Vec<String>, Vec<u8>)>;

    /// Every member's name and bytes, and the hash.
    fn read_all(a: &Artifact, cov: &mut Coverage) -> (Seen, Option<String>) {
        let mut seen = Vec::new();
        let h = for_each_member_hashed(a, &Limits::default(), cov, |leaf| {
            let mut bytes = Vec::new();
            leaf.reader.read_to_end(&mut bytes)?;
            seen.push((leaf.members.to_vec(), bytes));
            Ok(())
        });
        (seen, h)
    }

    /// A big zip (over `READ_WHOLE`) is read in place at offsets: its
    /// members and hash are those of the bytes, as a small one's; a
    /// self-extractor too.
    #[test]
    fn a_big_zip_is_read_at_offsets_whole_and_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let a_log = log_text("a", 3 << 20);
        let b_log = log_text("b", 5 << 20);
        let c_log = log_text("c", 6 << 20);
        let entries: [(&str, &[u8], bool); 3] = [
            ("a.log", &a_log, false),
            ("b.log", &b_log, true),
            ("c.log", &c_log, false),
        ];
        for prefix in [&b""[..], &b"#!/bin/sh\necho self-extracting\nexit 0\n"[..]] {
            let zip = zip_of(prefix, &entries);
            assert!(zip.len() as u64 > READ_WHOLE, "{}", zip.len());
            let p = dir.path().join("big.zip");
            std::fs::write(&p, &zip).unwrap();
            let a = Artifact {
                path: "big.zip".into(),
                kind: ArtifactKind::File(p.clone()),
            };
            let mut cov = Coverage::default();
            let (seen, h) = read_all(&a, &mut cov);
            assert!(cov.complete(), "{:?}", cov.errors);
            let want: Seen = entries
                .iter()
                .map(|(n, d, _)| (vec![n.to_string()], d.to_vec()))
                .collect();
            assert!(
                seen == want,
                "{:?}",
                seen.iter().map(|s| &s.0).collect::<Vec<_>>()
            );
            assert_eq!(h.unwrap(), crate::hash::sha256_hex(&zip));
        }
    }

    /// A big log that ends with bytes like a zip's end record, but no
    /// directory before them, is a log: streamed whole, not a zip.
    #[test]
    fn a_big_log_ending_like_a_zip_is_read_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = log_text("a", 9 << 20);
        log.extend_from_slice(b"PK\x05\x06 is not an end record here\n");
        let p = dir.path().join("server.log");
        std::fs::write(&p, &log).unwrap();
        let a = Artifact {
            path: "server.log".into(),
            kind: ArtifactKind::File(p),
        };
        let mut cov = Coverage::default();
        let (seen, h) = read_all(&a, &mut cov);
        assert!(cov.complete(), "{:?}", cov.errors);
        assert!(seen.len() == 1 && seen[0].0.is_empty() && seen[0].1 == log);
        assert_eq!(h.unwrap(), crate::hash::sha256_hex(&log));
    }

    /// A big zip cut while it is read (a download started again): the
    /// members read before are kept, the rest is an `io` error of the
    /// artifact, with no hash, and the process does not die of SIGBUS.
    /// The cut happens from inside the visitor, after the first entry.
    #[test]
    fn a_big_zip_truncated_while_read_is_an_error_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let a_log = log_text("a", 3 << 20);
        let b_log = log_text("b", 5 << 20);
        let c_log = log_text("c", 4 << 20);
        let d_log = log_text("d", 1 << 20);
        let zip = zip_of(
            b"",
            &[
                ("a.log", &a_log, true),
                ("b.log", &b_log, false),
                ("c.log", &c_log, false),
                ("d.log", &d_log, true),
            ],
        );
        assert!(zip.len() as u64 > READ_WHOLE, "{}", zip.len());
        let p = dir.path().join("big.zip");
        for cut in [0, 4096, zip.len() as u64 / 2, zip.len() as u64 - 100] {
            std::fs::write(&p, &zip).unwrap();
            let a = Artifact {
                path: "big.zip".into(),
                kind: ArtifactKind::File(p.clone()),
            };
            let mut cov = Coverage::default();
            let mut seen = Vec::new();
            let h = for_each_member_hashed(&a, &Limits::default(), &mut cov, |leaf| {
                let mut bytes = Vec::new();
                leaf.reader.read_to_end(&mut bytes)?;
                if seen.is_empty() {
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(&p)?
                        .set_len(cut)?;
                }
                seen.push((leaf.members.to_vec(), bytes));
                Ok(())
            });
            assert_eq!(h, None, "cut at {cut}");
            assert_eq!(seen[0], (vec!["a.log".to_string()], a_log.clone()));
            // Cut inside the directory, after it was read: the entries
            // are whole, but not the file that was hashed and cited.
            let read = if cut > zip.len() as u64 / 2 { 4 } else { 1 };
            assert_eq!(seen.len(), read, "cut at {cut}");
            let changed: Vec<_> = cov
                .errors
                .iter()
                .filter(|e| e.message.starts_with("changed while read"))
                .collect();
            assert!(
                changed.len() == 1 && changed[0].kind == ErrorKind::Io,
                "cut at {cut}: {:?}",
                cov.errors
            );
            assert!(!cov.complete());
        }
    }
}
