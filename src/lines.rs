//! Lines of a member: exact `grep -n` numbering, byte offsets, a cap on line
//! length, binary detection, UTF-16 (with a BOM) decoding, and the cleaning
//! (ANSI escapes, trailing `\r`, BOM, Docker json-file records) that
//! matching sees. The sink decides where to look next, so a
//! prefilter can skip whole runs of lines without visiting them.

use serde::{Deserialize, Serialize};
use std::io::{self, Read};
use std::sync::mpsc;

/// The line reader's settings, enforced here by [`LineReader`] (apart from
/// the archive limits of [`crate::source::Limits`], which this module never
/// reads). Part of [`crate::limits::ReadLimits`]: flags, audit fingerprint,
/// README table. A field's doc comment is its `--help` text.
#[derive(clap::Args, Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LineLimits {
    /// Longest line searched, in bytes
    // The rest of a longer line is skipped, with a `long_line` note.
    #[arg(long, default_value_t = LineLimits::default().max_line, value_parser = crate::sizes::parse_size_usize)]
    pub max_line: usize,
    /// Search binary members too (`-a`/`--text` as in grep)
    // Off, a member with a NUL in its first `BINARY_PROBE` bytes is a
    // `skipped` coverage error.
    #[arg(short = 'a', long, visible_alias = "text")]
    pub binary: bool,
}

impl Default for LineLimits {
    fn default() -> Self {
        LineLimits {
            max_line: 1 << 20,
            binary: false,
        }
    }
}

/// A reader that fails once with a stored error (or yields nothing).
struct ErrorOnce(Option<io::Error>);

impl Read for ErrorOnce {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

mod utf16;
use utf16::Utf16Reader;

pub(crate) use crate::source::detect::BINARY_PROBE;
const MIN_BUF: usize = 256 << 10;
/// The line buffer's first size; it doubles when a line does not fit, up
/// to `max_line` and a margin (at least `MIN_BUF`).
const FIRST_BUF: usize = 64 << 10;

/// One line, without its `\n`, as read (not yet cleaned).
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// 1-based, counting `\n` exactly as `grep -n`.
    pub number: u64,
    /// Byte offset of the line start within the decompressed member.
    pub offset: u64,
    pub raw: &'a [u8],
    /// `raw` followed by the rest of the buffer it was read from (whole
    /// lines): a literal search that passes the line's end finds the next
    /// candidate in the same call.
    pub hay: &'a [u8],
    /// `raw` does not reach the line's end: the line is longer than the
    /// cap and `raw` is one window of it (the first, for a sink that does
    /// not read [`LineSink::windows`]).
    pub truncated: bool,
    /// Where `raw` starts in the line: 0, or for the later windows of a
    /// long line their offset (`offset` stays the line's).
    pub window: u64,
    /// Bytes a window shares with the one before and after it (0 for a
    /// line within the cap).
    pub shared: usize,
}

impl Line<'_> {
    /// Whether a match starting at `at` in `raw` is this window's to
    /// report: consecutive windows share [`Line::shared`] bytes, and each
    /// match belongs to exactly one of them (the one whose middle holds
    /// its start), so a match up to half the overlap long is found whole
    /// once, wherever the windows were cut.
    pub fn owns(&self, at: usize) -> bool {
        let half = self.shared / 2;
        (self.window == 0 || at >= half)
            && (!self.truncated || at < self.raw.len().saturating_sub(half))
    }

    /// Where in `raw` this window's own matches may start.
    pub fn owned_from(&self) -> usize {
        if self.window == 0 { 0 } else { self.shared / 2 }
    }
}

/// Most bytes two windows of a long line share.
const MAX_OVERLAP: usize = 64 << 10;

/// The overlap of consecutive windows of a line longer than `max_line`.
pub(crate) fn overlap(max_line: usize) -> usize {
    (max_line / 2).min(MAX_OVERLAP)
}

pub trait LineSink {
    /// Where in `hay` (a run of whole lines at member offset `offset`; each
    /// call asks about a later place than the one before) the next line of
    /// interest may be: an index inside it, or `None` when no line in it can
    /// matter. The default visits every line.
    fn candidate(&mut self, hay: &[u8], offset: u64) -> Option<usize> {
        let _ = (hay, offset);
        Some(0)
    }

    /// The cap on line length of the reader that calls this sink, told
    /// before the first line: a longer line is handed over cut there.
    fn max_line(&mut self, max_line: usize) {
        let _ = max_line;
    }

    /// Whether this sink reads a line longer than the cap whole, in
    /// windows of at most `max_line` bytes that overlap (several calls of
    /// [`LineSink::line`] with the same number, see [`Line::owns`]); else
    /// it is handed the line's first `max_line` bytes only.
    fn windows(&self) -> bool {
        false
    }

    /// A line of interest. Returns false to stop reading this member.
    fn line(&mut self, line: &Line<'_>) -> bool;
}

/// What reading a member found.
#[derive(Debug, Default, Clone, Copy)]
pub struct LinesRead {
    pub bytes: u64,
    pub lines: u64,
    /// Skipped: NUL bytes in the first block.
    pub binary: bool,
    /// Of those, an image by its magic bytes (`PNG`, `JPEG`, ...).
    pub image: Option<&'static str>,
    pub long_lines: u64,
    /// Number of the first line cut at the cap (0: none).
    pub first_long_line: u64,
    /// The long lines were read whole, in windows: nothing was cut.
    pub windowed: bool,
    /// The sink asked to stop before the end.
    pub stopped: bool,
    /// The member was UTF-16 (it had a BOM) and was decoded to UTF-8; line
    /// offsets then count the UTF-8 decoding.
    pub utf16: bool,
    /// Bytes of a UTF-16 member that could not be decoded (unpaired
    /// surrogates, an odd last byte); they read as U+FFFD.
    pub undecodable: u64,
}

impl LinesRead {
    /// Adds what the next part of the same member read (split scans).
    pub fn then(&mut self, later: &LinesRead) {
        self.bytes += later.bytes;
        self.lines += later.lines;
        self.long_lines += later.long_lines;
        self.windowed |= later.windowed;
        if self.first_long_line == 0 {
            self.first_long_line = later.first_long_line;
        }
    }
}

/// Where line 1 starts in a member whose first bytes are `head` (at least
/// [`BINARY_PROBE`] of them, or all): after a UTF-8 BOM, which is not part
/// of line 1 (offsets stay member offsets, so line 1 starts at byte 3).
/// None: a NUL in the first block, and binary members are not searched
/// (`search_binary` false).
pub(crate) fn first_line(head: &[u8], search_binary: bool) -> Option<usize> {
    if !search_binary && memchr::memchr(0, &head[..head.len().min(BINARY_PROBE)]).is_some() {
        return None;
    }
    Some(if head.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    })
}

/// Bytes looked at to decide that a member is UTF-16.
const UTF16_PROBE: usize = 512;

/// Whether a member whose first bytes are `head` (up to `UTF16_PROBE` of
/// them, or all) is UTF-16 text: a byte order mark, then mostly code units
/// below U+0100 (logs are ASCII-heavy). `FF FE` in front of other bytes is
/// just bytes, read as UTF-8 (lossily), never decoded into other text.
/// Some(little endian).
pub(crate) fn utf16_bom(head: &[u8]) -> Option<bool> {
    let le = match head {
        [0xff, 0xfe, ..] => true,
        [0xfe, 0xff, ..] => false,
        _ => return None,
    };
    let units = head[2..head.len().min(UTF16_PROBE)].chunks_exact(2);
    let n = units.len();
    let narrow = units
        .filter(|u| if le { u[1] == 0 } else { u[0] == 0 })
        .count();
    (narrow * 2 >= n).then_some(le)
}

pub(crate) use crate::source::detect::JSON_FILE;

/// Whether a member held in memory must be read in one piece rather than
/// split at line ends across threads: binary (skipped whole), UTF-16
/// (`\n` bytes are not line ends) or a json-file log (every line is
/// looked at).
pub(crate) fn read_whole(head: &[u8], search_binary: bool) -> bool {
    utf16_bom(head).is_some()
        || match first_line(head, search_binary) {
            None => true,
            Some(at) => head[at..].starts_with(JSON_FILE),
        }
}

/// A reusable line reader (its buffer is kept across members).
pub struct LineReader {
    buf: Vec<u8>,
    pub max_line: usize,
    pub binary: bool,
}

impl LineReader {
    pub fn new(limits: LineLimits) -> LineReader {
        LineReader {
            buf: Vec::new(),
            max_line: limits.max_line.max(1),
            binary: limits.binary,
        }
    }

    /// The settings this reader was built with (`max_line` at least 1).
    pub fn limits(&self) -> LineLimits {
        LineLimits {
            max_line: self.max_line,
            binary: self.binary,
        }
    }

    /// Visits the lines of `bytes`, a part of a member held in memory that
    /// starts at member offset `offset` on line `line_no` (a part other than
    /// the member's last ends with `\n`). Nothing is copied.
    pub fn scan_slice(
        &self,
        bytes: &[u8],
        offset: u64,
        line_no: u64,
        sink: &mut dyn LineSink,
    ) -> LinesRead {
        if offset == 0 {
            if let Some(le) = utf16_bom(bytes) {
                let mut dec = Utf16Reader::new(&bytes[2..], le);
                let mut reader = LineReader::new(self.limits());
                let mut out = reader.scan_plain(&mut dec, sink, 0, 1).0;
                out.bytes = bytes.len() as u64;
                out.utf16 = true;
                out.undecodable = dec.undecodable;
                return out;
            }
        }
        sink.max_line(self.max_line);
        let mut st = State {
            out: LinesRead {
                bytes: bytes.len() as u64,
                ..LinesRead::default()
            },
            base: offset,
            line_no,
            max_line: self.max_line,
            every_line: false,
        };
        let mut start = 0;
        if offset == 0 {
            match first_line(bytes, self.binary) {
                Some(at) => {
                    start = at;
                    st.every_line = bytes[at..].starts_with(JSON_FILE);
                }
                None => {
                    st.out.binary = true;
                    st.out.image = crate::source::detect::image(bytes);
                    return st.out;
                }
            }
        }
        if start < bytes.len() && !st.region(&bytes[start..], start, sink) {
            return st.out;
        }
        st.out.lines = st.line_no - line_no;
        st.out
    }

    /// Reads `r` to its end, handing lines to `sink`. On a read error the
    /// whole lines before it are still delivered, then the error returned.
    /// A member that starts with a UTF-16 BOM is decoded to UTF-8 first.
    pub fn scan(&mut self, r: &mut dyn Read, sink: &mut dyn LineSink) -> io::Result<LinesRead> {
        match self.scan_counted(r, sink) {
            (out, None) => Ok(out),
            (_, Some(e)) => Err(e),
        }
    }

    /// [`LineReader::scan`], and on a read error also what was read before
    /// it (coverage counts those bytes: their lines were searched).
    pub fn scan_counted(
        &mut self,
        r: &mut dyn Read,
        sink: &mut dyn LineSink,
    ) -> (LinesRead, Option<io::Error>) {
        let mut head = [0u8; UTF16_PROBE];
        let mut n = 0;
        // An error in the probe comes after the bytes read before it, so
        // that nothing decoded is dropped.
        let mut failed = ErrorOnce(None);
        while n < UTF16_PROBE {
            match r.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    failed.0 = Some(e);
                    break;
                }
            }
        }
        let r: &mut dyn Read = if failed.0.is_some() { &mut failed } else { r };
        match utf16_bom(&head[..n]) {
            Some(le) => {
                let mut dec = Utf16Reader::new((&head[2..n]).chain(r), le);
                let (mut out, error) = self.scan_plain(&mut dec, sink, 0, 1);
                out.bytes = dec.consumed + 2;
                out.utf16 = true;
                out.undecodable = dec.undecodable;
                (out, error)
            }
            None => self.scan_plain(&mut (&head[..n]).chain(r), sink, 0, 1),
        }
    }

    /// Reads `r` to its end or its first error, handing lines to `sink`:
    /// what was read (bytes and lines up to the error count too), and the
    /// error.
    /// [`LineReader::scan_counted`] for the rest of a plain member from a
    /// line start other than its first (`offset` > 0, on line `line_no`):
    /// its head was probed already, so nothing is probed or decoded here.
    pub(crate) fn scan_counted_from(
        &mut self,
        r: &mut dyn Read,
        sink: &mut dyn LineSink,
        offset: u64,
        line_no: u64,
    ) -> (LinesRead, Option<io::Error>) {
        self.scan_plain(r, sink, offset, line_no)
    }

    fn scan_plain(
        &mut self,
        r: &mut dyn Read,
        sink: &mut dyn LineSink,
        offset: u64,
        first_no: u64,
    ) -> (LinesRead, Option<io::Error>) {
        sink.max_line(self.max_line);
        let size = (self.max_line + (64 << 10)).max(MIN_BUF);
        // Grown as it fills (below), so that a small member does not pay
        // for zeroing a buffer sized for the longest line.
        if self.buf.len() < FIRST_BUF.min(size) {
            self.buf.resize(FIRST_BUF.min(size), 0);
        }
        let mut st = State {
            out: LinesRead::default(),
            base: offset,
            line_no: first_no,
            max_line: self.max_line,
            every_line: false,
        };
        let buf = &mut self.buf;
        let (mut start, mut filled) = (0usize, 0usize);
        let mut skipping = false; // discarding the tail of a long line
        // Reading a long line in windows: its number, offset, and where
        // `buf[start]` is in it.
        let mut long: Option<(u64, u64, u64)> = None;
        // A continuation's head was probed with the member's start.
        let mut probed = offset > 0;
        loop {
            if filled == buf.len() {
                if start == 0 {
                    // A line that does not fit yet: room for it, up to the cap.
                    buf.resize((buf.len() * 2).min(size), 0);
                }
                buf.copy_within(start..filled, 0);
                st.base += start as u64;
                filled -= start;
                start = 0;
            }
            let n = match r.read(&mut buf[filled..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if !probed {
                        // The first block is short: probe what there is.
                        match first_line(&buf[..filled], self.binary) {
                            Some(at) => start = at,
                            // Binary: the error is what coverage reports.
                            None => return (st.out, Some(e)),
                        }
                    }
                    if !skipping && long.is_none() && !st.out.stopped {
                        if let Some(p) = memchr::memrchr(b'\n', &buf[start..filled]) {
                            st.region(&buf[start..start + p + 1], start, sink);
                        }
                    }
                    st.out.lines = st.line_no - first_no;
                    return (st.out, Some(e));
                }
            };
            filled += n;
            st.out.bytes += n as u64;
            let eof = n == 0;
            if !probed {
                if filled < BINARY_PROBE && !eof {
                    continue;
                }
                probed = true;
                match first_line(&buf[..filled], self.binary) {
                    Some(at) => {
                        start = at;
                        st.every_line = buf[at..filled].starts_with(JSON_FILE);
                    }
                    None => {
                        st.out.binary = true;
                        st.out.image = crate::source::detect::image(&buf[..filled]);
                        return (st.out, None);
                    }
                }
            }
            if skipping {
                match memchr::memchr(b'\n', &buf[start..filled]) {
                    Some(p) => {
                        start += p + 1;
                        skipping = false;
                    }
                    None => {
                        start = filled;
                        if eof {
                            break;
                        }
                        continue;
                    }
                }
            }
            if let Some((number, offset, mut at)) = long {
                let nl = memchr::memchr(b'\n', &buf[start..filled]);
                let end = nl.map_or(filled, |p| start + p);
                let last = nl.is_some() || eof;
                let Some(used) = st.windows(&buf[start..end], number, offset, &mut at, last, sink)
                else {
                    st.out.stopped = true;
                    return (st.out, None);
                };
                if !last {
                    start += used;
                    long = Some((number, offset, at));
                    continue;
                }
                long = None;
                start = if nl.is_some() { end + 1 } else { end };
            }
            if eof {
                if start < filled {
                    st.region(&buf[start..filled], start, sink);
                }
                break;
            }
            if let Some(p) = memchr::memrchr(b'\n', &buf[start..filled]) {
                let end = start + p + 1;
                if !st.region(&buf[start..end], start, sink) {
                    return (st.out, None);
                }
                start = end;
            } else if filled - start >= self.max_line && sink.windows() {
                st.out.long(st.line_no);
                st.out.windowed = true;
                let (number, offset) = (st.line_no, st.base + start as u64);
                st.line_no += 1;
                let mut at = 0;
                let Some(used) =
                    st.windows(&buf[start..filled], number, offset, &mut at, false, sink)
                else {
                    st.out.stopped = true;
                    return (st.out, None);
                };
                start += used;
                long = Some((number, offset, at));
            } else if filled - start >= self.max_line {
                let line = Line {
                    number: st.line_no,
                    offset: st.base + start as u64,
                    raw: &buf[start..start + self.max_line],
                    hay: &buf[start..start + self.max_line],
                    truncated: true,
                    window: 0,
                    shared: 0,
                };
                st.out.long(st.line_no);
                st.line_no += 1;
                if !sink.line(&line) {
                    st.out.stopped = true;
                    return (st.out, None);
                }
                start = filled;
                skipping = true;
            }
        }
        st.out.lines = st.line_no - first_no;
        (st.out, None)
    }
}

struct State {
    out: LinesRead,
    /// Member offset of `buf[0]`.
    base: u64,
    /// Number of the line that starts at the region start.
    line_no: u64,
    max_line: usize,
    /// A json-file log: the sink's literals are looked for in the unwrapped
    /// message, not in the escaped raw line, so every line is visited.
    every_line: bool,
}

impl LinesRead {
    fn long(&mut self, line: u64) {
        self.long_lines += 1;
        if self.first_long_line == 0 {
            self.first_long_line = line;
        }
    }
}

impl State {
    /// Hands `sink` the windows of `seg`, a part of long line `number`
    /// (member offset `offset`) that starts at `at` in the line: windows
    /// of `max_line` bytes, each sharing [`overlap`] bytes with the next.
    /// With `last` (the part reaches the line's end) through its end;
    /// else as far as a whole window reaches, answering how much of `seg`
    /// the next part need not repeat. `None`: the sink stopped.
    fn windows(
        &mut self,
        seg: &[u8],
        number: u64,
        offset: u64,
        at: &mut u64,
        last: bool,
        sink: &mut dyn LineSink,
    ) -> Option<usize> {
        let w = self.max_line;
        let shared = overlap(w);
        let step = w - shared;
        let mut i = 0;
        loop {
            let rest = seg.len() - i;
            if last && rest <= w {
                let line = Line {
                    number,
                    offset,
                    raw: &seg[i..],
                    hay: &seg[i..],
                    truncated: false,
                    window: *at,
                    shared,
                };
                return sink.line(&line).then_some(seg.len());
            }
            if !last && rest < w {
                return Some(i);
            }
            let raw = &seg[i..i + w];
            let line = Line {
                number,
                offset,
                raw,
                hay: raw,
                truncated: true,
                window: *at,
                shared,
            };
            if !sink.line(&line) {
                return None;
            }
            i += step;
            *at += step as u64;
        }
    }

    /// Counts every line of `region` longer than the cap, visited or not
    /// (the sink skips lines without candidates). Jumps a cap's length at a
    /// time to the last `\n` in reach, so short lines cost nothing.
    fn count_long_lines(&mut self, region: &[u8]) {
        let cap = self.max_line;
        let (mut pos, mut counted, mut line) = (0, 0, self.line_no);
        while region.len() - pos > cap {
            match memchr::memrchr(b'\n', &region[pos..pos + cap + 1]) {
                Some(j) => pos += j + 1,
                None => {
                    line += bytecount::count(&region[counted..pos], b'\n') as u64;
                    counted = pos;
                    self.out.long(line);
                    match memchr::memchr(b'\n', &region[pos + cap..]) {
                        Some(j) => pos += cap + j + 1,
                        None => break,
                    }
                }
            }
        }
    }

    /// Visits the candidate lines of `region` (whole lines, the last one
    /// without `\n` only at the end of the member), which starts at `at` in
    /// the buffer. False: the sink stopped.
    fn region(&mut self, region: &[u8], at: usize, sink: &mut dyn LineSink) -> bool {
        let origin = self.base + at as u64;
        self.count_long_lines(region);
        let windows = sink.windows();
        // A long line the literal search passes over held no literal of
        // the sink's anywhere (the search reads whole lines): searched too.
        self.out.windowed |= windows;
        let mut pos = 0;
        while pos < region.len() {
            let next = if self.every_line {
                Some(0)
            } else {
                sink.candidate(&region[pos..], origin + pos as u64)
            };
            let Some(i) = next else {
                break;
            };
            let c = pos + i;
            let ls = memchr::memrchr(b'\n', &region[pos..c]).map_or(pos, |j| pos + j + 1);
            self.line_no += bytecount::count(&region[pos..ls], b'\n') as u64;
            let le = memchr::memchr(b'\n', &region[c..]).map_or(region.len(), |j| c + j);
            let offset = origin + ls as u64;
            // A line longer than the cap that still fits the buffer is cut
            // the same way as one that does not.
            let truncated = le - ls > self.max_line;
            if truncated && windows {
                self.out.windowed = true;
                let number = self.line_no;
                if self
                    .windows(&region[ls..le], number, offset, &mut 0, true, sink)
                    .is_none()
                {
                    self.out.stopped = true;
                    return false;
                }
                self.line_no += 1;
                pos = le + 1;
                continue;
            }
            let raw = &region[ls..if truncated { ls + self.max_line } else { le }];
            let line = Line {
                number: self.line_no,
                offset,
                raw,
                hay: &region[ls..],
                truncated,
                window: 0,
                shared: 0,
            };
            if !sink.line(&line) {
                self.out.stopped = true;
                return false;
            }
            self.line_no += 1;
            pos = le + 1;
        }
        if pos < region.len() {
            self.line_no += bytecount::count(&region[pos..], b'\n') as u64;
            if region.last() != Some(&b'\n') {
                // The member's last line had no `\n` and was not visited.
                self.line_no += 1;
            }
        }
        true
    }
}

/// Decoded bytes handed from the reading thread to the matching one.
const AHEAD_CHUNK: usize = 1 << 20;

/// Runs `consume` on what `r` yields, reading `r` on the calling thread and
/// consuming on another, so that decompression and matching overlap. What
/// `consume` reads is exactly what `r` gives: the same bytes, then `r`'s
/// error unchanged. Input that fits one chunk is consumed here, unthreaded.
pub(crate) fn read_ahead<T: Send>(
    r: &mut dyn Read,
    consume: impl FnOnce(&mut dyn Read) -> T + Send,
) -> T {
    let mut first = vec![0; AHEAD_CHUNK];
    let (n, err) = fill(r, &mut first);
    first.truncate(n);
    if n < AHEAD_CHUNK || err.is_some() {
        let mut rd = Ahead {
            cur: first,
            pos: 0,
            rx: None,
            back: None,
            err,
        };
        return consume(&mut rd);
    }
    let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(4);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    std::thread::scope(|s| {
        let matcher = s.spawn(move || {
            let mut rd = Ahead {
                cur: first,
                pos: 0,
                rx: Some(rx),
                back: Some(back_tx),
                err: None,
            };
            consume(&mut rd)
        });
        loop {
            let mut buf = back_rx.try_recv().unwrap_or_default();
            buf.resize(AHEAD_CHUNK, 0);
            let (n, err) = fill(r, &mut buf);
            buf.truncate(n);
            // A send fails once the consumer has stopped reading.
            if n > 0 && tx.send(Ok(buf)).is_err() {
                break;
            }
            if let Some(e) = err {
                let _ = tx.send(Err(e));
                break;
            }
            if n < AHEAD_CHUNK {
                break;
            }
        }
        drop(tx);
        matcher
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// Reads until `buf` is full, the end, or an error.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// The consuming side of [`read_ahead`].
struct Ahead {
    cur: Vec<u8>,
    pos: usize,
    rx: Option<mpsc::Receiver<io::Result<Vec<u8>>>>,
    /// Spent buffers go back to be filled again.
    back: Option<mpsc::Sender<Vec<u8>>>,
    err: Option<io::Error>,
}

impl Read for Ahead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            let next = self.rx.as_ref().and_then(|rx| rx.recv().ok());
            match next {
                Some(Ok(buf)) => {
                    let spent = std::mem::replace(&mut self.cur, buf);
                    self.pos = 0;
                    if let Some(back) = &self.back {
                        let _ = back.send(spent);
                    }
                }
                Some(Err(e)) => {
                    self.rx = None;
                    return Err(e);
                }
                None => {
                    self.rx = None;
                    return match self.err.take() {
                        Some(e) => Err(e),
                        None => Ok(0),
                    };
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The text that matching sees: ANSI escape sequences removed and a trailing
/// `\r` dropped; a Docker json-file record (`{"log":"msg\n","stream":..}`)
/// is its unescaped `log` message. Borrows when there is nothing to remove.
pub(crate) fn clean<'a>(raw: &'a [u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    if let Some(escaped) = raw.strip_prefix(JSON_FILE) {
        let msg = json_string(escaped);
        let msg = msg.strip_suffix(b"\n").unwrap_or(&msg);
        let msg = msg.strip_suffix(b"\r").unwrap_or(msg);
        scratch.clear();
        strip_ansi(msg, scratch);
        return scratch;
    }
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if memchr::memchr(0x1b, raw).is_none() {
        return raw;
    }
    scratch.clear();
    strip_ansi(raw, scratch);
    let n = scratch.len();
    let trimmed = scratch[..n].strip_suffix(b"\r").map_or(n, |t| t.len());
    &scratch[..trimmed]
}

/// The bytes of a JSON string body up to its closing quote (or the end of
/// a cut line), escapes decoded; a lone surrogate reads as U+FFFD.
fn json_string(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    let hex4 = |at: usize| -> Option<u32> {
        let h = std::str::from_utf8(s.get(at..at + 4)?).ok()?;
        u32::from_str_radix(h, 16).ok()
    };
    while i < s.len() {
        let b = s[i];
        if b == b'"' {
            break;
        }
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&e) = s.get(i + 1) else { break };
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' => {
                let Some(u) = hex4(i) else { break };
                i += 4;
                let mut c = u;
                if (0xd800..0xdc00).contains(&u) && s.get(i..i + 2) == Some(b"\\u") {
                    if let Some(lo) = hex4(i + 2).filter(|lo| (0xdc00..0xe000).contains(lo)) {
                        c = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                        i += 6;
                    }
                }
                let ch = char::from_u32(c).unwrap_or('\u{fffd}');
                out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
            }
            other => out.push(other),
        }
    }
    out
}

/// Appends `raw` without its ANSI escape sequences to `scratch`.
fn strip_ansi(raw: &[u8], scratch: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        // The text between escapes goes over in one copy.
        let Some(j) = memchr::memchr(0x1b, &raw[i..]) else {
            scratch.extend_from_slice(&raw[i..]);
            return;
        };
        scratch.extend_from_slice(&raw[i..i + j]);
        i = escape_end(raw, i + j);
    }
}

/// The runs of escape sequences in `raw`, as [`clean`] takes them out
/// (sequences that follow one another are one run): (start, end).
pub(crate) fn escape_runs(raw: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let esc = at + memchr::memchr(0x1b, &raw[at..])?;
        let mut end = escape_end(raw, esc);
        while raw.get(end) == Some(&0x1b) {
            end = escape_end(raw, end);
        }
        at = end;
        Some((esc, end))
    })
}

/// Where the escape sequence that starts with the ESC at `raw[esc]` ends
/// (the index after it), as [`clean`] removes it.
fn escape_end(raw: &[u8], esc: usize) -> usize {
    let mut i = esc + 1;
    match raw.get(i) {
        // CSI: parameters, intermediates, one final byte.
        Some(b'[') => {
            i += 1;
            while i < raw.len() && (0x20..=0x3f).contains(&raw[i]) {
                i += 1;
            }
            if i < raw.len() && (0x40..=0x7e).contains(&raw[i]) {
                i += 1;
            }
        }
        // OSC: up to BEL or ESC \.
        Some(b']') => {
            i += 1;
            while i < raw.len() && raw[i] != 0x07 && raw[i] != 0x1b {
                i += 1;
            }
            if i < raw.len() && raw[i] == 0x07 {
                i += 1;
            } else if raw.get(i..i + 2) == Some(b"\x1b\\") {
                i += 2;
            }
        }
        Some(_) => i += 1,
        None => {}
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Collect(Vec<(u64, u64, String, bool)>);
    impl LineSink for Collect {
        fn line(&mut self, l: &Line<'_>) -> bool {
            self.0.push((
                l.number,
                l.offset,
                String::from_utf8_lossy(l.raw).into_owned(),
                l.truncated,
            ));
            true
        }
    }

    fn lines(data: &[u8], max_line: usize) -> (Vec<(u64, u64, String, bool)>, LinesRead) {
        let mut sink = Collect(Vec::new());
        let mut r = data;
        let out = LineReader::new(LineLimits {
            max_line,
            binary: false,
        })
        .scan(&mut r, &mut sink)
        .unwrap();
        (sink.0, out)
    }

    #[test]
    fn numbers_and_offsets_match_grep() {
        let (l, out) = lines(b"a\nbb\n\nccc", 1 << 20);
        assert_eq!(
            l,
            vec![
                (1, 0, "a".into(), false),
                (2, 2, "bb".into(), false),
                (3, 5, "".into(), false),
                (4, 6, "ccc".into(), false)
            ]
        );
        assert_eq!(out.lines, 4);
    }

    #[test]
    fn bom_dropped_and_binary_detected() {
        let (l, _) = lines(b"\xef\xbb\xbfhello\nx", 1 << 20);
        assert_eq!(l[0].2, "hello");
        let (l, out) = lines(b"abc\0def\n", 1 << 20);
        assert!(out.binary && l.is_empty());
    }

    #[test]
    fn every_long_line_is_counted_visited_or_not() {
        struct OnlyX;
        impl LineSink for OnlyX {
            fn candidate(&mut self, hay: &[u8], _: u64) -> Option<usize> {
                memchr::memchr(b'X', hay)
            }
            fn line(&mut self, _: &Line<'_>) -> bool {
                true
            }
        }
        let mut data = Vec::new();
        data.extend_from_slice(b"short\n");
        data.extend(std::iter::repeat_n(b'a', 300));
        data.extend_from_slice(b"\nshort\n");
        data.extend(std::iter::repeat_n(b'b', 300));
        data.extend_from_slice(b"X\n");
        data.extend(std::iter::repeat_n(b'c', 100));
        data.extend_from_slice(b"\n");
        data.extend(std::iter::repeat_n(b'd', 257));
        let reader = LineReader::new(LineLimits {
            max_line: 256,
            binary: false,
        });
        let out = reader.scan_slice(&data, 0, 1, &mut OnlyX);
        assert_eq!((out.long_lines, out.first_long_line), (3, 2));
        let mut streamed = LineReader::new(LineLimits {
            max_line: 256,
            binary: false,
        });
        let out = streamed.scan(&mut &data[..], &mut OnlyX).unwrap();
        assert_eq!((out.long_lines, out.first_long_line), (3, 2));
        // One line longer than the whole buffer, then a short one.
        let mut big = vec![b'z'; 600 << 10];
        big.extend_from_slice(b"\nok\n");
        let mut streamed = LineReader::new(LineLimits {
            max_line: 256,
            binary: false,
        });
        let out = streamed.scan(&mut &big[..], &mut OnlyX).unwrap();
        assert_eq!((out.long_lines, out.first_long_line, out.lines), (1, 1, 2));
    }

    #[test]
    fn long_line_is_capped_and_numbering_continues() {
        let mut data = vec![b'x'; 3 * MIN_BUF];
        data.extend_from_slice(b"\nafter\n");
        let (l, out) = lines(&data, 1000);
        assert_eq!(out.long_lines, 1);
        assert_eq!((l[0].0, l[0].2.len(), l[0].3), (1, 1000, true));
        assert_eq!(
            (l[1].0, l[1].1, l[1].2.as_str()),
            (2, 3 * MIN_BUF as u64 + 1, "after")
        );
    }

    #[test]
    fn lines_over_the_cap_are_cut_even_inside_the_buffer() {
        let mut data = vec![b'y'; 5000];
        data.extend_from_slice(b"\nok\n");
        let (l, out) = lines(&data, 4096);
        assert_eq!((l[0].2.len(), l[0].3, out.long_lines), (4096, true, 1));
        assert_eq!((l[1].0, l[1].2.as_str(), l[1].3), (2, "ok", false));
    }

    #[test]
    fn utf16_with_bom_is_decoded_and_bad_units_counted() {
        let text =
            "[2026-10-29 04:21:13 TP0] Traceback (most recent call last):\r\nzwei \u{1f600} ok\r\n";
        for le in [true, false] {
            let mut data: Vec<u8> = if le {
                vec![0xff, 0xfe]
            } else {
                vec![0xfe, 0xff]
            };
            for u in text.encode_utf16() {
                data.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            let (l, out) = lines(&data, 1 << 20);
            assert!(out.utf16 && !out.binary && out.undecodable == 0);
            assert_eq!(out.bytes, data.len() as u64);
            assert_eq!(l.len(), 2);
            assert_eq!(
                l[0].2,
                "[2026-10-29 04:21:13 TP0] Traceback (most recent call last):\r"
            );
            assert_eq!(l[1].2, "zwei \u{1f600} ok\r");
            // The same from memory.
            let mut sink = Collect(Vec::new());
            let out = LineReader::new(LineLimits::default()).scan_slice(&data, 0, 1, &mut sink);
            assert_eq!((sink.0.len(), out.utf16), (2, true));
            assert!(read_whole(&data, false));
        }
        // FF FE in front of ASCII-looking garbage is not UTF-16.
        let (l, out) = lines(b"\xff\xfe\xfd garbage\nneedle\n", 1 << 20);
        assert!(!out.utf16 && l.len() == 2 && l[1].2 == "needle");
        // An unpaired high surrogate and an odd last byte.
        let mut data = vec![0xff, 0xfe];
        for u in "a"
            .encode_utf16()
            .chain([0xd800])
            .chain("b\nc".encode_utf16())
        {
            data.extend_from_slice(&u.to_le_bytes());
        }
        data.push(b'x');
        let (l, out) = lines(&data, 1 << 20);
        assert_eq!(out.undecodable, 3);
        assert_eq!(l[0].2, "a\u{fffd}b");
        assert_eq!(l[1].2, "c\u{fffd}");
    }

    #[test]
    fn json_file_records_are_unwrapped_and_every_line_visited() {
        let mut s = Vec::new();
        assert_eq!(
            clean(
                br#"{"log":"\u001b[32mINFO\u001b[0m \"a\"\tb \u00e9 \ud83d\ude00 \\ [2026-10-29 04:21:13 TP1] x\r\n","stream":"stderr","time":"2026-10-29T04:21:13.5Z"}"#,
                &mut s
            ),
            "INFO \"a\"\tb \u{e9} \u{1f600} \\ [2026-10-29 04:21:13 TP1] x".as_bytes()
        );
        // A sink that wants no line still sees every line of a json-file log.
        struct Nothing(u64);
        impl LineSink for Nothing {
            fn candidate(&mut self, _: &[u8], _: u64) -> Option<usize> {
                None
            }
            fn line(&mut self, _: &Line<'_>) -> bool {
                self.0 += 1;
                true
            }
        }
        let data = b"{\"log\":\"a\\n\",\"stream\":\"stdout\"}\n{\"log\":\"b\\n\"}\n";
        let mut sink = Nothing(0);
        LineReader::new(LineLimits::default())
            .scan(&mut &data[..], &mut sink)
            .unwrap();
        assert_eq!(sink.0, 2);
        let mut sink = Nothing(0);
        LineReader::new(LineLimits::default()).scan_slice(data, 0, 1, &mut sink);
        assert_eq!(sink.0, 2);
        assert!(read_whole(data, false));
        assert!(!read_whole(b"plain\n", false));
    }

    #[test]
    fn clean_strips_ansi_and_cr() {
        let mut s = Vec::new();
        assert_eq!(
            clean(b"\x1b[1;36m(Worker_TP1 pid=530)\x1b[0;0m hi\r", &mut s),
            b"(Worker_TP1 pid=530) hi"
        );
        let mut s = Vec::new();
        assert_eq!(clean(b"50%|\r60%|\r", &mut s), b"50%|\r60%|");
    }
}

#[cfg(test)]
mod window_tests {
    //! Lines longer than the cap, read in overlapping windows.
    use super::*;

    /// Every window handed over, and the starts (in the line) of the
    /// matches of `needle` each window owns.
    struct Windows {
        needle: &'static [u8],
        found: Vec<(u64, u64)>,
        windows: usize,
        longest: usize,
    }

    impl LineSink for Windows {
        fn windows(&self) -> bool {
            true
        }
        fn line(&mut self, l: &Line<'_>) -> bool {
            self.windows += 1;
            self.longest = self.longest.max(l.raw.len());
            let n = self.needle.len();
            for i in 0..l.raw.len().saturating_sub(n - 1) {
                if &l.raw[i..i + n] == self.needle && l.owns(i) {
                    self.found.push((l.number, l.window + i as u64));
                }
            }
            true
        }
    }

    fn run(data: &[u8], max_line: usize, in_memory: bool) -> (Windows, LinesRead) {
        let mut w = Windows {
            needle: b"CUDA out of memory",
            found: Vec::new(),
            windows: 0,
            longest: 0,
        };
        let mut reader = LineReader::new(LineLimits {
            max_line,
            binary: false,
        });
        let out = if in_memory {
            reader.scan_slice(data, 0, 1, &mut w)
        } else {
            reader.scan(&mut &data[..], &mut w).unwrap()
        };
        (w, out)
    }

    /// A match far past the first window and one across a window's end
    /// are each found once, on the line's number, at their place in the
    /// line; no window is longer than the cap; the lines after it keep
    /// their numbers. Streamed and in memory alike, whatever the cap.
    #[test]
    fn a_long_line_is_searched_whole_in_bounded_windows() {
        let needle = "CUDA out of memory";
        for max_line in [64, 100, 1000, 4096] {
            let mut line = "x".repeat(max_line * 7);
            // Across the first window's end, then far past it.
            let across = max_line - needle.len() / 2;
            line.replace_range(across..across + needle.len(), needle);
            let far = max_line * 6 + 3;
            line.replace_range(far..far + needle.len(), needle);
            let data = format!("first\n{line}\nlast {needle}\n");
            for in_memory in [false, true] {
                let (w, out) = run(data.as_bytes(), max_line, in_memory);
                assert_eq!(
                    w.found,
                    vec![(2, across as u64), (2, far as u64), (3, 5)],
                    "cap {max_line} in memory {in_memory}"
                );
                assert!(w.longest <= max_line);
                assert!(w.windows > 7, "{}", w.windows);
                assert!(out.windowed);
                assert_eq!((out.long_lines, out.first_long_line, out.lines), (1, 2, 3));
            }
        }
    }

    /// Without the window reading (`show`, `cite`), a long line is still
    /// handed over cut at the cap, as before.
    #[test]
    fn a_sink_without_windows_sees_the_first_window_only() {
        struct First(Vec<(u64, usize, bool)>);
        impl LineSink for First {
            fn line(&mut self, l: &Line<'_>) -> bool {
                self.0.push((l.number, l.raw.len(), l.truncated));
                true
            }
        }
        let data = format!("a\n{}\nb\n", "y".repeat(500));
        let mut f = First(Vec::new());
        let mut reader = LineReader::new(LineLimits {
            max_line: 100,
            binary: false,
        });
        let out = reader.scan(&mut data.as_bytes(), &mut f).unwrap();
        assert_eq!(f.0, vec![(1, 1, false), (2, 100, true), (3, 1, false)]);
        assert!(!out.windowed);
    }
}
