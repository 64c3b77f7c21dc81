//! Lines of a member: exact `grep -n` numbering, byte offsets, a cap on line
//! length, binary detection, and the cleaning (ANSI escapes, trailing `\r`,
//! BOM) that matching sees. The sink decides where to look next, so a
//! prefilter can skip whole runs of lines without visiting them.

use std::io::{self, Read};
use std::sync::mpsc;

/// How much of a member is looked at to decide that it is binary (a NUL).
pub const BINARY_PROBE: usize = 8 << 10;
const MIN_BUF: usize = 256 << 10;

/// One line, without its `\n`, as read (not yet cleaned).
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// 1-based, counting `\n` exactly as `grep -n`.
    pub number: u64,
    /// Byte offset of the line start within the decompressed member.
    pub offset: u64,
    pub raw: &'a [u8],
    /// The line was longer than the cap; `raw` is its first `max_line` bytes.
    pub truncated: bool,
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

    /// A line of interest. Returns false to stop reading this member.
    fn line(&mut self, line: &Line<'_>) -> bool;
}

/// What reading a member found.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    pub bytes: u64,
    pub lines: u64,
    /// Skipped: NUL bytes in the first block.
    pub binary: bool,
    pub long_lines: u64,
    /// Number of the first line cut at the cap (0: none).
    pub first_long_line: u64,
    /// The sink asked to stop before the end.
    pub stopped: bool,
}

/// Where line 1 starts in a member whose first bytes are `head` (at least
/// [`BINARY_PROBE`] of them, or all): after a UTF-8 BOM, which is not part
/// of line 1 (offsets stay member offsets, so line 1 starts at byte 3).
/// None: a NUL in the first block, and binary members are not searched
/// (`search_binary` false).
pub fn first_line(head: &[u8], search_binary: bool) -> Option<usize> {
    if !search_binary && memchr::memchr(0, &head[..head.len().min(BINARY_PROBE)]).is_some() {
        return None;
    }
    Some(if head.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    })
}

/// A reusable line reader (its buffer is kept across members).
pub struct LineReader {
    buf: Vec<u8>,
    pub max_line: usize,
    pub binary: bool,
}

impl LineReader {
    pub fn new(max_line: usize, binary: bool) -> LineReader {
        LineReader {
            buf: Vec::new(),
            max_line: max_line.max(1),
            binary,
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
    ) -> Outcome {
        let mut st = State {
            out: Outcome {
                bytes: bytes.len() as u64,
                ..Outcome::default()
            },
            base: offset,
            line_no,
            max_line: self.max_line,
        };
        let mut start = 0;
        if offset == 0 {
            match first_line(bytes, self.binary) {
                Some(at) => start = at,
                None => {
                    st.out.binary = true;
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
    pub fn scan(&mut self, r: &mut dyn Read, sink: &mut dyn LineSink) -> io::Result<Outcome> {
        let size = (self.max_line + (64 << 10)).max(MIN_BUF);
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        let mut st = State {
            out: Outcome::default(),
            base: 0,
            line_no: 1,
            max_line: self.max_line,
        };
        let buf = &mut self.buf;
        let (mut start, mut filled) = (0usize, 0usize);
        let mut skipping = false; // discarding the tail of a long line
        let mut probed = false;
        loop {
            if filled == buf.len() {
                buf.copy_within(start..filled, 0);
                st.base += start as u64;
                filled -= start;
                start = 0;
            }
            let n = match r.read(&mut buf[filled..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if !skipping && !st.out.stopped {
                        if let Some(p) = memchr::memrchr(b'\n', &buf[start..filled]) {
                            st.region(&buf[start..start + p + 1], start, sink);
                        }
                    }
                    return Err(e);
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
                    Some(at) => start = at,
                    None => {
                        st.out.binary = true;
                        return Ok(st.out);
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
            if eof {
                if start < filled {
                    st.region(&buf[start..filled], start, sink);
                }
                break;
            }
            if let Some(p) = memchr::memrchr(b'\n', &buf[start..filled]) {
                let end = start + p + 1;
                if !st.region(&buf[start..end], start, sink) {
                    return Ok(st.out);
                }
                start = end;
            } else if filled - start >= self.max_line {
                let line = Line {
                    number: st.line_no,
                    offset: st.base + start as u64,
                    raw: &buf[start..start + self.max_line],
                    truncated: true,
                };
                st.out.long(st.line_no);
                st.line_no += 1;
                if !sink.line(&line) {
                    st.out.stopped = true;
                    return Ok(st.out);
                }
                start = filled;
                skipping = true;
            }
        }
        st.out.lines = st.line_no - 1;
        Ok(st.out)
    }
}

struct State {
    out: Outcome,
    /// Member offset of `buf[0]`.
    base: u64,
    /// Number of the line that starts at the region start.
    line_no: u64,
    max_line: usize,
}

impl Outcome {
    fn long(&mut self, line: u64) {
        self.long_lines += 1;
        if self.first_long_line == 0 {
            self.first_long_line = line;
        }
    }
}

impl State {
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
        let mut pos = 0;
        while pos < region.len() {
            let Some(i) = sink.candidate(&region[pos..], origin + pos as u64) else {
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
            let raw = &region[ls..if truncated { ls + self.max_line } else { le }];
            let line = Line {
                number: self.line_no,
                offset,
                raw,
                truncated,
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
pub fn read_ahead<T: Send>(r: &mut dyn Read, consume: impl FnOnce(&mut dyn Read) -> T + Send) -> T {
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
/// `\r` dropped. Borrows when there is nothing to remove.
pub fn clean<'a>(raw: &'a [u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if memchr::memchr(0x1b, raw).is_none() {
        return raw;
    }
    scratch.clear();
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b != 0x1b {
            scratch.push(b);
            i += 1;
            continue;
        }
        i += 1;
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
    }
    let n = scratch.len();
    let trimmed = scratch[..n].strip_suffix(b"\r").map_or(n, |t| t.len());
    &scratch[..trimmed]
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

    fn lines(data: &[u8], max_line: usize) -> (Vec<(u64, u64, String, bool)>, Outcome) {
        let mut sink = Collect(Vec::new());
        let mut r = data;
        let out = LineReader::new(max_line, false)
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
        let reader = LineReader::new(256, false);
        let out = reader.scan_slice(&data, 0, 1, &mut OnlyX);
        assert_eq!((out.long_lines, out.first_long_line), (3, 2));
        let mut streamed = LineReader::new(256, false);
        let out = streamed.scan(&mut &data[..], &mut OnlyX).unwrap();
        assert_eq!((out.long_lines, out.first_long_line), (3, 2));
        // One line longer than the whole buffer, then a short one.
        let mut big = vec![b'z'; 600 << 10];
        big.extend_from_slice(b"\nok\n");
        let mut streamed = LineReader::new(256, false);
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
