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

mod header;
mod records;
use records::*;
pub(super) use records::{DirectoryError, central_directory};

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
