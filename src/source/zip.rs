//! Zip: [`for_each_entry`] pushes each entry to the walker. Entries are
//! decoded by artiscan itself, from the central directory (parsed here)
//! or from the local headers of a zip read as a stream. Decoding here keeps every byte before damage, checks the
//! CRC, skips encrypted entries by their size, and finds the end of a
//! deflated entry that has a data descriptor.

use super::entries::{Entries, MAX_NAME, Names, name_cut, unique};
use super::gzip::{Damage, bytes_then_error, corrupt, inflate, truncated};
use super::layer::{Charge, Counted, Layer, Tagged, ZstdWindow, classify};
use super::meter::Origin;
use super::pread::{Data, FileAt};
use super::{ErrorKind, MAX_DIRECTORY_ENTRIES, NoteKind, ZSTD_WINDOW_LOG_MAX};
use crate::location;
use flate2::Decompress;
use std::cell::Cell;
use std::io::{self, BufRead, Cursor, Read};
use std::rc::Rc;

/// A zip as the walker holds it.
pub(super) enum Input<'a> {
    /// A stream: spooled to memory when it fits the spool budget, else
    /// read from its local headers.
    Stream(&'a mut dyn Read),
    /// A whole zip in memory (a file read whole, a spool): opened in place.
    Slice(&'a [u8]),
    /// A big zip file, opened in place: read at offsets, never whole.
    File(FileAt<'a>),
}

/// Reads the zip in `input` and pushes each entry to `w`: in central
/// directory order when the directory is usable, else in local header
/// order. Entries the directory does not account for, overlapping entries
/// (zip bombs), encrypted or undecoded methods, and cut entries go into
/// coverage.
pub(super) fn for_each_entry(
    w: &mut dyn Entries<'_>,
    input: Input<'_>,
    depth: usize,
) -> io::Result<()> {
    match input {
        Input::Stream(r) => stream(w, r, depth),
        Input::Slice(data) => whole(w, Data::Mem(data), depth),
        Input::File(file) => whole(w, Data::File(file), depth),
    }
}

/// A zip entry's name as cited: cut to [`MAX_NAME`] bytes as
/// a tar name is (a `long_name` note: every record under it repeats
/// the name, in memory and output), then made unique among its siblings.
fn zip_name(w: &mut dyn Entries<'_>, names: &mut Names, name: &str) -> String {
    let mut end = name.len().min(MAX_NAME);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let unique = unique(w, names, name[..end].to_string());
    if end < name.len() {
        let mut at = w.members().to_vec();
        at.push(unique.clone());
        name_cut(w.coverage(), &at, Some(name.len()));
    }
    unique
}

/// A zip inside a stream: spool it to memory up to what is left of the
/// artifact's spool budget and open it in place, or read its local
/// headers in order when it is bigger. Spools nested inside each other
/// share the one budget, so nesting cannot multiply memory.
fn stream(w: &mut dyn Entries<'_>, r: &mut dyn Read, depth: usize) -> io::Result<()> {
    let budget = w.budget();
    let cap = budget.spool_left();
    let mut spool = Vec::new();
    r.take(cap as u64 + 1).read_to_end(&mut spool)?;
    let _held = budget.hold_spool(spool.len());
    if spool.len() <= cap {
        return whole(w, Data::Mem(&spool), depth);
    }
    let mut rest = Cursor::new(spool).chain(r);
    local_headers(
        w,
        &mut rest,
        depth,
        LocalHeaders::TooBig,
        &mut Names::default(),
    )
}

/// A whole zip in place (in memory, or a file read at offsets): entries
/// from its central directory, or from its local headers when the
/// directory is missing or does not fit.
fn whole(w: &mut dyn Entries<'_>, data: Data<'_>, depth: usize) -> io::Result<()> {
    let chain_len = w.members().len();
    let len = data.len();
    let dir = match central_directory(data, MAX_DIRECTORY_ENTRIES) {
        Ok(d) => d,
        Err(DirectoryError::Io(e)) => return Err(e),
        Err(DirectoryError::TooMany(_)) => {
            // A huge directory is not held in memory: the local headers
            // are read in order instead.
            let mut r = w
                .meter()
                .reader(data.span(0, len), Origin::at(w.members().len()));
            return local_headers(
                w,
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
            let here = w.members().to_vec();
            w.coverage().error(&here, ErrorKind::Truncated, msg);
            let start = data.find(0, len, b"PK\x03\x04")?.unwrap_or(len);
            let mut r = w
                .meter()
                .reader(data.span(start, len), Origin::at(w.members().len()));
            return local_headers(
                w,
                &mut r,
                depth,
                LocalHeaders::DirectoryDamaged,
                &mut Names::default(),
            );
        }
    };
    let entries = &dir.entries;
    let spans = &dir.spans;
    let overlaps = overlaps(entries, spans);
    let mut names = Names::default();
    let hidden = hidden(data, entries, spans, dir.start)?;
    for (i, e) in entries.iter().enumerate() {
        if e.is_dir() {
            continue;
        }
        let name = zip_name(w, &mut names, &e.name);
        let mut at = w.members().to_vec();
        at.push(name.clone());
        if let Some(j) = overlaps[i] {
            let msg = format!(
                "zip entry overlaps the data of entry {:?} (an overlapping-entry zip bomb): not read",
                location::escape(&entries[j].name)
            );
            w.coverage().error(&at, ErrorKind::Limit, msg);
            continue;
        }
        if let Some((kind, msg)) = unsupported(e.encrypted(), e.method) {
            w.coverage().error(&at, kind, msg);
            continue;
        }
        let Some((start, end)) = spans[i] else {
            let msg = "no local header where the central directory says: not read";
            w.coverage().error(&at, ErrorKind::Corrupt, msg);
            continue;
        };
        if let Some((raw, flags)) = local_name(data, e.header)?
            && *raw != *e.raw_name()
        {
            // Readers differ (libarchive and a stream reader take the
            // local name): the one not cited is said.
            let local = decode_name(&raw, flags, 3);
            let msg = format!(
                "its local header names it {:?}: cited by its central directory name, as unzip lists it",
                location::escape(&local)
            );
            w.coverage().note(&at, NoteKind::NameMismatch, msg);
        }
        if e.symlink {
            // Its bytes are searched like any member's; never followed.
            let msg = "zip entry flagged as a symlink: its bytes were searched, never followed";
            w.coverage().note(&at, NoteKind::Link, msg);
        }
        let have = (start.min(len), end.min(len));
        let cut = have.1 - have.0 < e.csize;
        let span = data.span(have.0, have.1);
        let mut raw = Counted::new(w.meter().reader(span, Origin::at(chain_len)));
        entry(
            w,
            name,
            Some(e.csize),
            e.method,
            &mut raw,
            Some((e.crc, e.usize)),
            depth,
            EntryEnd::Known,
        )?;
        if cut && !w.coverage().errors.iter().any(|x| x.members == at) {
            let msg = format!("zip ends inside this entry's {} bytes", e.csize);
            w.coverage().error(&at, ErrorKind::Truncated, msg);
        }
    }
    // Local headers the directory does not list, between its entries
    // or after the last (Python and unzip would not list them, a
    // stream reader would): read from there, and said.
    for (from, to) in hidden {
        let msg = format!(
            "bytes {from}..{to} hold a local header the central directory does not list: read from its local headers"
        );
        let here = w.members().to_vec();
        w.coverage().error(&here, ErrorKind::Corrupt, msg);
        let mut r = w.meter().reader(data.span(from, to), Origin::at(chain_len));
        local_headers(w, &mut r, depth, LocalHeaders::DirectoryDamaged, &mut names)?;
    }
    Ok(())
}

/// A zip read from its local headers reached its central directory
/// (`sig` read): the directory must list as many entries as were read
/// and end with an end record that announces them; else entries may
/// lie where the local headers did not lead, and coverage says so.
fn directory_agrees(
    w: &mut dyn Entries<'_>,
    input: &mut dyn BufRead,
    sig: [u8; 4],
    seen: u64,
) -> io::Result<()> {
    let at = w.members().to_vec();
    match directory_stream(input, sig) {
        Ok((records, announced))
            if records == seen && records % 0x1_0000 == announced % 0x1_0000 => {}
        Ok((records, announced)) => {
            let msg = format!(
                "{seen} entries read from local headers, but the central directory holds {records} records and announces {announced}: entries may not have been read"
            );
            w.coverage().error(&at, ErrorKind::Corrupt, msg);
        }
        Err(e) if Tagged::of(&e).is_some() => return Err(e),
        Err(e) => {
            let msg = format!(
                "zip: after {seen} entries read from local headers: {e}; entries may not have been read"
            );
            w.coverage().error(&at, classify(&e), msg);
        }
    }
    Ok(())
}

/// Decodes one zip entry from its raw bytes and visits it as member
/// `name`. With [`EntryEnd::Unknown`], whatever the visitor left is decoded too, to
/// find where the entry ends in a stream. Returns the CRC-32 and length
/// of the output when its end was reached cleanly.
#[allow(clippy::too_many_arguments)]
fn entry<B: BufRead>(
    w: &mut dyn Entries<'_>,
    name: String,
    stored: Option<u64>,
    method: u16,
    raw: &mut Counted<B>,
    expect: Option<(u32, u64)>,
    depth: usize,
    end: EntryEnd,
) -> io::Result<Option<(u32, u64)>> {
    let consumed = raw.counter();
    let mut at = w.members().to_vec();
    at.push(name.clone());
    let dec: Box<dyn Read + '_> = match method {
        DEFLATED => Box::new(Inflate::new(&mut *raw)),
        ZSTD => {
            let mut d = zstd::stream::read::Decoder::with_buffer(&mut *raw)
                .map_err(|e| Tagged::io(&at, ErrorKind::Corrupt, &e))?;
            d.window_log_max(ZSTD_WINDOW_LOG_MAX)
                .map_err(|e| Tagged::io(&at, ErrorKind::Limit, &e))?;
            Box::new(ZstdWindow::new(d, &at))
        }
        _ => Box::new(&mut *raw),
    };
    // A decoder that ends cleanly but short is damage, not a cut.
    let short = match method {
        STORED => Short::Cut,
        _ => Short::Damage,
    };
    let mut checked = Checked::new(dec, expect, short);
    let sums = checked.sums();
    let mut member = Layer::new(
        &mut checked,
        w.members(),
        "zip",
        w.budget(),
        Some(consumed),
        Charge::Counted,
    );
    member.set_member(name.clone());
    w.entry(name, stored, &mut member, depth)?;
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
fn local_headers(
    w: &mut dyn Entries<'_>,
    r: &mut dyn Read,
    depth: usize,
    why: LocalHeaders,
    names: &mut Names,
) -> io::Result<()> {
    let mut input = io::BufReader::with_capacity(64 << 10, r);
    let mut seen = 0u64;
    loop {
        let h = match local_header(&mut input) {
            Ok(Next::Entry(h)) => h,
            Ok(Next::Directory(sig)) if why == LocalHeaders::TooBig => {
                directory_agrees(w, &mut input, sig, seen)?;
                return Ok(());
            }
            Ok(Next::Directory(_)) => return Ok(()),
            Ok(Next::End) => {
                if why == LocalHeaders::TooBig {
                    let msg = "zip ends without a central directory";
                    let here = w.members().to_vec();
                    w.coverage().error(&here, ErrorKind::Truncated, msg);
                }
                return Ok(());
            }
            Err(e) if Tagged::of(&e).is_some() => return Err(e),
            Err(e) => {
                let (kind, here) = (classify(&e), w.members().to_vec());
                w.coverage().error(&here, kind, format!("zip: {e}"));
                return Ok(());
            }
        };
        seen += 1;
        let name = zip_name(w, names, &h.name);
        let mut at = w.members().to_vec();
        at.push(name.clone());
        let unsupported = unsupported(h.encrypted(), h.method);
        // With a data descriptor the sizes follow the data; a deflate
        // stream shows its own end, anything else needs the size.
        let size_known = !h.descriptor() || h.csize > 0;
        if !size_known && (unsupported.is_some() || h.method != DEFLATED) {
            let why = unsupported.map_or_else(|| "stored zip entry".to_string(), |(_, m)| m);
            let msg = format!(
                "{why}; its size follows its data, so the rest of the zip cannot be found in a stream"
            );
            w.coverage().error(&at, ErrorKind::Unsupported, msg);
            return Ok(());
        }
        let limit = if size_known { h.csize } else { u64::MAX };
        let mut raw = Counted::new((&mut input).take(limit));
        let ended = if let Some((kind, msg)) = unsupported {
            w.coverage().error(&at, kind, msg);
            None
        } else if name.ends_with('/') && h.csize == 0 {
            Some((0, 0))
        } else {
            let expect = if h.descriptor() {
                None
            } else {
                Some((h.crc, h.usize))
            };
            entry(
                w,
                name.clone(),
                size_known.then_some(h.csize),
                h.method,
                &mut raw,
                expect,
                depth,
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
                    w.coverage().error(&at, ErrorKind::Truncated, msg);
                    return Ok(());
                }
                Err(e) if Tagged::of(&e).is_some() => return Err(e),
                Err(e) => {
                    w.coverage().error(&at, classify(&e), format!("zip: {e}"));
                    return Ok(());
                }
            }
        } else if ended.is_none() {
            drop(raw);
            let msg = "the end of this entry could not be found: the rest of the zip was not read";
            w.coverage().error(&at, ErrorKind::Corrupt, msg);
            return Ok(());
        }
        if h.descriptor() {
            match descriptor(&mut input, h.zip64) {
                Ok((crc, _)) => {
                    if let Some((ours, _)) = ended
                        && ours != crc
                    {
                        let msg = format!(
                            "CRC mismatch (stored {crc:08x}, computed {ours:08x}): the content was read but may be damaged"
                        );
                        w.coverage().error(&at, ErrorKind::Corrupt, msg);
                    }
                }
                Err(e) if Tagged::of(&e).is_some() => return Err(e),
                Err(e) => {
                    w.coverage().error(&at, classify(&e), format!("zip: {e}"));
                    return Ok(());
                }
            }
        }
    }
}

/// Spans of a zip that hold a local header no directory entry accounts
/// for: from that header to the next listed entry (or the directory).
/// Bytes before the first entry (a self-extractor stub) are not looked at.
fn hidden(
    data: Data<'_>,
    entries: &[CdEntry],
    spans: &[Option<(u64, u64)>],
    dir_start: u64,
) -> io::Result<Vec<(u64, u64)>> {
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
        if start >= next || from >= next || next > data.len() {
            continue;
        }
        if let Some(at) = data.find(from, next, b"PK\x03\x04")? {
            out.push((at, next));
        }
    }
    Ok(out)
}

/// For each entry, the entry whose data it overlaps, if any. Real zips
/// never overlap; a zip bomb points many directory records at one
/// compressed kernel (or nests local headers inside other entries' data)
/// to multiply its output. The first entry in file order is read.
fn overlaps(entries: &[CdEntry], spans: &[Option<(u64, u64)>]) -> Vec<Option<usize>> {
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

/// Compression methods artiscan decodes.
pub(super) const STORED: u16 = 0;
pub(super) const DEFLATED: u16 = 8;
pub(super) const ZSTD: u16 = 93;

/// A method's name, for errors.
pub(super) fn method_name(m: u16) -> String {
    match m {
        STORED => "stored".into(),
        DEFLATED => "deflate".into(),
        9 => "deflate64".into(),
        12 => "bzip2".into(),
        14 => "lzma".into(),
        ZSTD => "zstd".into(),
        95 => "xz".into(),
        99 => "AES".into(),
        m => format!("method {m}"),
    }
}

/// A raw deflate stream that stops exactly at its end (consuming nothing
/// after it) and gives back every byte decoded before damage.
pub(super) struct Inflate<R> {
    inner: R,
    z: Decompress,
    done: bool,
    /// The end of the deflate stream was reached.
    pub finished: bool,
    pending: Option<io::Error>,
}

impl<R: BufRead> Inflate<R> {
    pub(super) fn new(inner: R) -> Self {
        Inflate {
            inner,
            z: Decompress::new(false),
            done: false,
            finished: false,
            pending: None,
        }
    }
}

impl<R: BufRead> Read for Inflate<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        loop {
            let (produced, state) = inflate(&mut self.z, &mut self.inner, buf)?;
            let err = match state {
                Ok(true) => {
                    self.done = true;
                    self.finished = true;
                    return Ok(produced);
                }
                Ok(false) => None,
                Err(Damage::Truncated) => Some(truncated("entry ends inside its deflate data")),
                Err(Damage::Stuck) => Some(corrupt("deflate data makes no progress")),
                Err(Damage::Corrupt(e)) => Some(corrupt(format!("corrupt deflate data: {e}"))),
            };
            if let Some(e) = err {
                self.done = true;
                return bytes_then_error(&mut self.pending, produced, e);
            }
            if produced > 0 {
                return Ok(produced);
            }
        }
    }
}

/// What was decoded of an entry: CRC-32 and length, once it ended.
pub(super) type Sums = Rc<Cell<Option<(u32, u64)>>>;

/// Checks the CRC-32 and length of an entry's output at its end against
/// the header's (`expect`), or records them in `sums` for a data
/// descriptor that comes after the data.
pub(super) struct Checked<R> {
    inner: R,
    crc: crc32fast::Hasher,
    size: u64,
    expect: Option<(u32, u64)>,
    sums: Sums,
    done: bool,
    /// The decoder failed: no end to check.
    failed: bool,
    short: Short,
}

/// What output shorter than the header says means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Short {
    /// The input was cut (stored data: its bytes are its output).
    Cut,
    /// The entry is damaged (a decoder that ended cleanly but short).
    Damage,
}

impl<R: Read> Checked<R> {
    pub(super) fn new(inner: R, expect: Option<(u32, u64)>, short: Short) -> Self {
        Checked {
            inner,
            crc: crc32fast::Hasher::new(),
            size: 0,
            expect,
            sums: Rc::new(Cell::new(None)),
            done: false,
            failed: false,
            short,
        }
    }

    pub(super) fn sums(&self) -> Sums {
        self.sums.clone()
    }
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                self.failed = true;
                return Err(e);
            }
        };
        if self.failed {
            return Ok(0);
        }
        if n > 0 {
            self.crc.update(&buf[..n]);
            self.size += n as u64;
            return Ok(n);
        }
        self.done = true;
        let crc = self.crc.clone().finalize();
        self.sums.set(Some((crc, self.size)));
        match self.expect {
            Some((_, size)) if self.size < size && self.short == Short::Cut => Err(truncated(
                format!("entry ends after {} of its {size} bytes", self.size),
            )),
            Some((_, size)) if self.size != size => Err(corrupt(format!(
                "entry decodes to {} bytes, its header says {size}",
                self.size
            ))),
            Some((want, _)) if want != crc => Err(corrupt(format!(
                "CRC mismatch (stored {want:08x}, computed {crc:08x}): the content was read but may be damaged"
            ))),
            _ => Ok(0),
        }
    }
}

/// A local file header (APPNOTE 4.3.7), with zip64 sizes applied.
#[derive(Debug)]
pub(super) struct LocalHeader {
    pub name: String,
    pub flags: u16,
    pub method: u16,
    pub crc: u32,
    pub csize: u64,
    pub usize: u64,
    pub zip64: bool,
}

impl LocalHeader {
    pub(super) fn encrypted(&self) -> bool {
        self.flags & 1 != 0
    }
    /// Sizes and CRC follow the data (general purpose flag bit 3).
    pub(super) fn descriptor(&self) -> bool {
        self.flags & 8 != 0
    }
}

fn le16(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

fn exact(r: &mut dyn BufRead, buf: &mut [u8], what: &str) -> io::Result<()> {
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
pub(super) enum Next {
    Entry(LocalHeader),
    /// The central directory (or another end record) begins: its
    /// signature, read.
    Directory([u8; 4]),
    /// The data ends.
    End,
}

/// Reads the next local header.
pub(super) fn local_header(r: &mut dyn BufRead) -> io::Result<Next> {
    let mut first = true;
    let mut sig = [0u8; 4];
    loop {
        if r.fill_buf()?.is_empty() {
            return Ok(Next::End);
        }
        exact(r, &mut sig, "a record signature")?;
        match &sig {
            b"PK\x03\x04" => break,
            b"PK\x01\x02" | b"PK\x05\x06" | b"PK\x06\x06" | b"PK\x06\x07" => {
                return Ok(Next::Directory(sig));
            }
            // A spanned-archive marker before the first entry.
            b"PK\x07\x08" | b"PK00" if first => first = false,
            _ => {
                return Err(corrupt(format!(
                    "no local header where one should be (found {sig:02x?})"
                )));
            }
        }
    }
    let mut h = [0u8; 26];
    exact(r, &mut h, "a local header")?;
    let flags = le16(&h[2..]);
    let method = le16(&h[4..]);
    let crc = le32(&h[10..]);
    let mut csize = le32(&h[14..]) as u64;
    let mut usize = le32(&h[18..]) as u64;
    let name_len = le16(&h[22..]) as usize;
    let extra_len = le16(&h[24..]) as usize;
    let mut name = vec![0u8; name_len];
    exact(r, &mut name, "a local header")?;
    let mut extra = vec![0u8; extra_len];
    exact(r, &mut extra, "a local header")?;
    let mut zip64 = false;
    for (id, body) in extra_fields(&extra) {
        if id == 0x0001 {
            zip64 = true;
            widen(body, &mut [&mut usize, &mut csize]);
        }
    }
    // The high byte of "version needed" stands where the central
    // directory keeps the host system; libarchive reads it the same way.
    let name = dos_separators(name_of(&name, flags), h[1]);
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
pub(super) fn descriptor(r: &mut dyn BufRead, zip64: bool) -> io::Result<(u32, u64)> {
    let mut b = [0u8; 4];
    exact(r, &mut b, "a data descriptor")?;
    let crc = if &b == b"PK\x07\x08" {
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
pub(super) fn directory_stream(r: &mut dyn BufRead, first: [u8; 4]) -> io::Result<(u64, u64)> {
    let mut sig = first;
    let mut records = 0u64;
    let mut zip64_count = None;
    loop {
        match &sig {
            b"PK\x01\x02" => {
                let mut h = [0u8; 42];
                exact(r, &mut h, "its central directory")?;
                let skip = le16(&h[24..]) as u64 + le16(&h[26..]) as u64 + le16(&h[28..]) as u64;
                skip_exact(r, skip)?;
                records += 1;
            }
            b"PK\x06\x06" => {
                let mut h = [0u8; 8];
                exact(r, &mut h, "its zip64 end record")?;
                let size = le64(&h);
                let mut body = [0u8; 28];
                let keep = size.min(28) as usize;
                exact(r, &mut body[..keep], "its zip64 end record")?;
                if keep == 28 {
                    zip64_count = Some(le64(&body[20..]));
                }
                skip_exact(r, size - keep as u64)?;
            }
            b"PK\x06\x07" => skip_exact(r, 16)?,
            b"PK\x05\x06" => {
                let mut h = [0u8; 18];
                exact(r, &mut h, "its end record")?;
                let count = le16(&h[6..]) as u64;
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

fn skip_exact(r: &mut dyn BufRead, n: u64) -> io::Result<()> {
    if io::copy(&mut r.take(n), &mut io::sink())? < n {
        return Err(truncated("zip ends inside its central directory"));
    }
    Ok(())
}

/// An entry of a zip's central directory, offsets absolute in the file.
#[derive(Debug)]
pub(super) struct CdEntry {
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
    pub(super) fn encrypted(&self) -> bool {
        self.flags & 1 != 0
    }
    pub(super) fn is_dir(&self) -> bool {
        self.name.ends_with('/') && self.usize == 0
    }
    /// Its raw name, as the central directory holds it.
    pub(super) fn raw_name(&self) -> &[u8] {
        self.raw_name.as_deref().unwrap_or(self.name.as_bytes())
    }
}

/// Why a zip's central directory could not be used; the zip is then read
/// from its local headers.
#[derive(Debug, thiserror::Error)]
pub(super) enum DirectoryError {
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
pub(super) struct Directory {
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
pub(super) fn central_directory(
    data: Data<'_>,
    max_entries: u64,
) -> Result<Directory, DirectoryError> {
    let len = data.len();
    // The end record and its comment lie in the last 22 + 65535 bytes.
    let from = len.saturating_sub(22 + 0xffff);
    let tail = data.get(from, (len - from) as usize)?.unwrap_or_default();
    let mut found = Vec::new();
    let mut i = tail.len().saturating_sub(22);
    loop {
        if tail.len() < 22 {
            break;
        }
        if &tail[i..i + 4] == b"PK\x05\x06" {
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
    let exact = |&p: &usize| p + 22 + le16(&tail[p + 20..]) as usize == tail.len();
    let (mut first, rest): (Vec<usize>, Vec<usize>) = found.into_iter().partition(exact);
    first.extend(rest);
    let mut why = "its central directory is not where it says";
    for pos in first {
        match directory_at(data, &tail[pos..pos + 22], from + pos as u64, max_entries) {
            Ok(d) => return Ok(d),
            Err(DirectoryError::Misfit(w)) => why = w,
            Err(e) => return Err(e),
        }
    }
    Err(DirectoryError::Misfit(why))
}

/// The directory of the end record `e` (its 22 bytes), at `pos`.
fn directory_at(
    data: Data<'_>,
    e: &[u8],
    pos: u64,
    max_entries: u64,
) -> Result<Directory, DirectoryError> {
    let mut count = le16(&e[10..]) as u64;
    let mut cd_size = le32(&e[12..]) as u64;
    let mut cd_offset = le32(&e[16..]) as u64;
    // Where the directory ends: the end record, or the zip64 end record.
    let mut end = pos;
    // How far the zip64 locator's offset is from where its record lies
    // (bytes before the zip); the directory must agree.
    let mut shift64 = None;
    let locator = match pos.checked_sub(20) {
        Some(l) => data.get(l, 20)?,
        None => None,
    };
    if let Some(locator) = locator.filter(|l| &l[..4] == b"PK\x06\x07") {
        let at = le64(&locator[8..]);
        // The zip64 end record ends where the locator begins (Python
        // reads it there, whatever the locator says). A locator that
        // points elsewhere, at a decoy record and directory stored inside
        // an entry, is not followed: the decoy would hide the entries
        // the real directory lists.
        let mut z64 = None;
        for z in [pos.checked_sub(20 + 56), Some(at)].into_iter().flatten() {
            // Its record: 56 bytes at least, its size field counting
            // from after itself (12 bytes) to the locator.
            let Some(size) = (pos - 20).checked_sub(z).filter(|&s| s >= 56) else {
                continue;
            };
            let Some(r) = data.get(z, 56)? else { continue };
            if &r[..4] == b"PK\x06\x06" && le64(&r[4..]) == size - 12 {
                z64 = Some((z, r));
                break;
            }
        }
        if let Some((z, r)) = z64 {
            count = le64(&r[32..]);
            cd_size = le64(&r[40..]);
            cd_offset = le64(&r[48..]);
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
    if prefix > 0 && data.get(0, 4)?.is_some_and(|h| &*h == b"PK\x03\x04") {
        return Err(DirectoryError::Misfit(
            "its offsets fit only a zip that starts later in the file",
        ));
    }
    // The records, read in order (a file's directory is never held whole).
    let mut cd = data.span(start, end);
    let mut left = end - start;
    let mut entries = Vec::new();
    let mut h = [0u8; 46];
    let mut var = Vec::new();
    while left >= 46 {
        cd.read_exact(&mut h)?;
        if &h[..4] != b"PK\x01\x02" {
            break;
        }
        let made_by = le16(&h[4..]);
        let flags = le16(&h[8..]);
        let method = le16(&h[10..]);
        let crc = le32(&h[16..]);
        let mut csize = le32(&h[20..]) as u64;
        let mut usize = le32(&h[24..]) as u64;
        let name_len = le16(&h[28..]) as usize;
        let extra_len = le16(&h[30..]) as usize;
        let comment_len = le16(&h[32..]) as usize;
        let attr = le32(&h[38..]);
        let mut header = le32(&h[42..]) as u64;
        let total = 46 + name_len + extra_len + comment_len;
        if left < total as u64 {
            return Err(DirectoryError::Misfit(
                "a directory record runs past its end",
            ));
        }
        var.resize(total - 46, 0);
        cd.read_exact(&mut var)?;
        let raw_name = &var[..name_len];
        let extra = &var[name_len..name_len + extra_len];
        let mut unicode = None;
        for (id, body) in extra_fields(extra) {
            match id {
                0x0001 => widen(body, &mut [&mut usize, &mut csize, &mut header]),
                // Info-ZIP Unicode path: used only if it was made from
                // this very name (its CRC matches), as libarchive does.
                0x7075
                    if body.len() > 5
                        && body[0] == 1
                        && le32(&body[1..]) == crc32fast::hash(raw_name)
                        && std::str::from_utf8(&body[5..]).is_ok() =>
                {
                    // Not UTF-8 after all: the main name (libarchive too).
                    unicode = Some(String::from_utf8_lossy(&body[5..]).into_owned());
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
        && data.get(first, 4)?.is_none_or(|h| &*h != b"PK\x03\x04")
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

/// (id, body) of each extra field.
/// A zip64 extra field's body: the 8-byte values of the fields whose
/// 32-bit value is 0xffffffff, in the order given (APPNOTE 4.5.3).
fn widen(mut b: &[u8], fields: &mut [&mut u64]) {
    for field in fields {
        if **field == 0xffff_ffff && b.len() >= 8 {
            **field = le64(b);
            b = &b[8..];
        }
    }
}

fn extra_fields(mut e: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    std::iter::from_fn(move || {
        if e.len() < 4 {
            return None;
        }
        let (id, len) = (le16(e), le16(&e[2..]) as usize);
        let body = &e[4..(4 + len).min(e.len())];
        e = &e[(4 + len).min(e.len())..];
        Some((id, body))
    })
}

/// The raw name and flags of the local header at `at`.
pub(super) fn local_name<'a>(
    data: Data<'a>,
    at: u64,
) -> io::Result<Option<(std::borrow::Cow<'a, [u8]>, u16)>> {
    let Some(h) = data.get(at, 30)? else {
        return Ok(None);
    };
    let n = le16(&h[26..]) as usize;
    Ok(data.get(at + 30, n)?.map(|name| (name, le16(&h[6..]))))
}

/// A name as cited, from its raw bytes, general purpose flags and host.
pub(super) fn decode_name(raw: &[u8], flags: u16, host: u8) -> String {
    dos_separators(name_of(raw, flags), host)
}

/// Where an entry's data starts, from its local header at `at`.
pub(super) fn data_start(data: Data<'_>, at: u64) -> io::Result<Option<u64>> {
    let Some(h) = data.get(at, 30)? else {
        return Ok(None);
    };
    if &h[..4] != b"PK\x03\x04" {
        return Ok(None);
    }
    Ok(Some(
        at + 30 + le16(&h[26..]) as u64 + le16(&h[28..]) as u64,
    ))
}

/// Windows archivers (host 0, MS-DOS) sometimes separate folders with `\`:
/// a name with `\` and no `/` from such a host gets `/`, as libarchive
/// does, so `arc\test` is cited as `arc/test` by both.
fn dos_separators(name: String, host: u8) -> String {
    if host == 0 && name.contains('\\') && !name.contains('/') {
        name.replace('\\', "/")
    } else {
        name
    }
}

/// A name: UTF-8 when flagged (bit 11), else IBM code page 437.
fn name_of(raw: &[u8], flags: u16) -> String {
    if flags & (1 << 11) != 0 {
        crate::location::name_from_bytes(raw)
    } else {
        cp437(raw)
    }
}

/// The kind and message for an entry artiscan does not decode, if it is one.
pub(super) fn unsupported(encrypted: bool, method: u16) -> Option<(ErrorKind, String)> {
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
fn cp437(raw: &[u8]) -> String {
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

const CP437_HIGH: [char; 128] = [
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn inflate_stops_at_the_end_of_its_stream() {
        let mut z = deflate(b"hello\nworld\n");
        z.extend_from_slice(b"AFTER");
        let mut r = &z[..];
        let mut out = Vec::new();
        let mut inf = Inflate::new(&mut r);
        inf.read_to_end(&mut out).unwrap();
        assert!(inf.finished);
        assert_eq!(out, b"hello\nworld\n");
        assert_eq!(r, b"AFTER");
    }

    #[test]
    fn damage_keeps_the_prefix_and_crc_is_checked() {
        let data: Vec<u8> = (0..50_000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let mut z = deflate(&data);
        let mid = z.len() / 2;
        z[mid..mid + 32].fill(0xff);
        let mut r = Inflate::new(&z[..]);
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1 << 20];
        let err = loop {
            match r.read(&mut buf) {
                Ok(0) => panic!("no error"),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        let same = out.iter().zip(&data).take_while(|(a, b)| a == b).count();
        assert!(same > data.len() / 3, "{same} bytes kept");

        let ok = deflate(b"abc");
        let mut c = Checked::new(Inflate::new(&ok[..]), Some((0xdead_beef, 3)), Short::Damage);
        let err = c.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("CRC"));
        let mut c = Checked::new(
            Inflate::new(&ok[..]),
            Some((crc32fast::hash(b"abc"), 3)),
            Short::Damage,
        );
        c.read_to_end(&mut Vec::new()).unwrap();
    }

    #[test]
    fn backslash_names_from_dos_hosts() {
        assert_eq!(dos_separators("arc\\test".into(), 0), "arc/test");
        // A Unix name may hold a backslash; a mixed name is left alone.
        assert_eq!(dos_separators("arc\\test".into(), 3), "arc\\test");
        assert_eq!(dos_separators("a/b\\c".into(), 0), "a/b\\c");
    }

    #[test]
    fn cp437_names() {
        assert_eq!(cp437(b"caf\x82.log"), "café.log");
        assert_eq!(cp437(b"a\0b"), "a\0b");
    }
}
