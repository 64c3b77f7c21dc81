//! A big plain file matched across threads in bounded memory: read in
//! windows into two reused buffers (the next window is read while this one
//! is matched), each window cut at its last line end (the rest carried
//! into the next) and split at line ends into a few parts per thread, as a
//! member in memory is (`schedule::scan_parts`). Nothing is mapped: a file
//! cut while read just reads short (see `source::file_bytes`).
//!
//! One pass's semantics are kept as `scan_parts` keeps them: each part has
//! its own scanner; one still following a block or a `then` line at its
//! part's end reads on (overrun) into the next parts and windows until that
//! closes; scanners are merged into the first in part order, each once the
//! ones before it stopped following.

use super::evidence::MemberScan;
use super::schedule::{Failed, PARTS_PER_THREAD, SPLIT_MIN, first_lines, line_cuts, run_parts};
use crate::lines::{LineReader, LinesRead};
use std::collections::VecDeque;
use std::io::{self, Read};

/// Bytes read per thread into one window.
const PART: usize = 8 << 20;

/// Scans a plain member streamed from `r` in windows split across
/// `threads` threads; what the streamed scan would return (the lines
/// before a read error, then the error).
pub(super) fn scan_windowed(
    first: &mut MemberScan<'_>,
    r: &mut dyn Read,
    lines: &mut LineReader,
    threads: usize,
) -> (LinesRead, Option<io::Error>) {
    scan_windowed_by(first, r, lines, threads, PART * threads, SPLIT_MIN)
}

/// [`scan_windowed`] with windows of `chunk` bytes read (plus the carried
/// tail), split when at least `split_min` bytes (small in tests).
pub(super) fn scan_windowed_by(
    first: &mut MemberScan<'_>,
    r: &mut dyn Read,
    lines: &mut LineReader,
    threads: usize,
    chunk: usize,
    split_min: usize,
) -> (LinesRead, Option<io::Error>) {
    let chunk = chunk.max(1);
    let mut cur = vec![0u8; chunk];
    let (n, mut err) = fill(r, &mut cur);
    cur.truncate(n);
    let mut done = n < chunk || err.is_some();
    // Short, binary, UTF-16 or json-file (read whole), or a first line
    // longer than the window: streamed as before.
    if done || crate::lines::read_whole(&cur, lines.binary) || !cur.contains(&b'\n') {
        let mut rr = io::Cursor::new(cur).chain(Failed(err).chain(r));
        return crate::lines::read_ahead(&mut rr, |rr| lines.scan_counted(rr, first));
    }
    let reader = LineReader::new(lines.limits());
    let mut chain = Chain {
        first,
        queue: VecDeque::new(),
    };
    let (mut off, mut line_no) = (0u64, 1u64);
    let mut total: Option<LinesRead> = None;
    let mut spare: Vec<u8> = Vec::new();
    loop {
        let end = if done {
            if err.is_some() {
                // The whole lines before a read error, as when streamed.
                memchr::memrchr(b'\n', &cur).map_or(0, |p| p + 1)
            } else {
                cur.len()
            }
        } else {
            match memchr::memrchr(b'\n', &cur) {
                Some(p) => p + 1,
                None if chain.following() => {
                    // A line longer than the window while a block is
                    // followed across it: the window grows to hold it.
                    let at = cur.len();
                    cur.resize(at + chunk, 0);
                    let (n, e) = fill(r, &mut cur[at..]);
                    cur.truncate(at + n);
                    (done, err) = (n < chunk || e.is_some(), e);
                    continue;
                }
                None => {
                    // A line longer than the window, nothing followed: the
                    // rest is streamed, by a scanner of its own (a part).
                    chain.absorb_all();
                    // Streamed in the line reader's memory, not the windows'.
                    drop(std::mem::take(&mut spare));
                    let mut rest = chain.first.fork();
                    let mut rr = io::Cursor::new(std::mem::take(&mut cur)).chain(r);
                    let (out, e) = crate::lines::read_ahead(&mut rr, |rr| {
                        lines.scan_counted_from(rr, &mut rest, off, line_no)
                    });
                    chain.first.absorb(rest);
                    merge(&mut total, out);
                    chain.first.sort_by_line();
                    return (total.unwrap_or_default(), e);
                }
            }
        };
        let bytes = &cur[..end];
        if done {
            let (out, _) = chain.window(bytes, off, line_no, &reader, threads, split_min);
            merge(&mut total, out);
            // Bytes read after the last whole line before an error count
            // as read, as when streamed.
            if let Some(t) = &mut total {
                t.bytes += (cur.len() - end) as u64;
            }
            break;
        }
        // The tail is carried into the next window, read while this one is
        // matched.
        let carry = cur.len() - end;
        // Grown, never cleared: zeroing a window's worth each time costs.
        if spare.len() < carry + chunk {
            // Exactly (no doubling): with some room for the carried tail.
            let want = (carry + chunk).max(chunk + chunk / 8);
            spare.reserve_exact(want - spare.len());
            spare.resize(carry + chunk, 0);
        }
        spare[..carry].copy_from_slice(&cur[end..]);
        let ((out, newlines), (n, e)) = std::thread::scope(|s| {
            let chain = &mut chain;
            let reader = &reader;
            let matching =
                s.spawn(move || chain.window(bytes, off, line_no, reader, threads, split_min));
            let read = fill(r, &mut spare[carry..carry + chunk]);
            let m = matching
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (m, read)
        });
        merge(&mut total, out);
        spare.truncate(carry + n);
        (done, err) = (n < chunk || e.is_some(), e);
        off += end as u64;
        line_no += newlines;
        std::mem::swap(&mut cur, &mut spare);
    }
    chain.absorb_all();
    chain.first.sort_by_line();
    (total.unwrap_or_default(), err)
}

/// The member's scanners: the first (which takes in the others), and
/// those of later parts waiting their turn to be merged, in part order.
struct Chain<'s, 'a> {
    first: &'s mut MemberScan<'a>,
    queue: VecDeque<MemberScan<'a>>,
}

impl<'a> Chain<'_, 'a> {
    /// Whether a scanner still reads past its part's end.
    fn following(&self) -> bool {
        self.first.following() || self.queue.iter().any(MemberScan::following)
    }

    /// Merges the waiting scanners whose turn has come: those before which
    /// nothing follows any more.
    fn absorb_ready(&mut self) {
        if self.first.following() {
            return;
        }
        self.first.overrun = false;
        while self.queue.front().is_some_and(|s| !s.following()) {
            let mut s = self.queue.pop_front().expect("front");
            s.overrun = false;
            self.first.absorb(s);
        }
    }

    /// At the member's end: every scanner, in order.
    fn absorb_all(&mut self) {
        self.first.overrun = false;
        while let Some(mut s) = self.queue.pop_front() {
            s.overrun = false;
            self.first.absorb(s);
        }
    }

    /// Matches one window (`bytes`, whole lines but for the member's last,
    /// at member offset `off` on line `line_no`): the scanners still
    /// following read on into it, then its parts are matched, taken in
    /// turn by `threads` threads (`run_parts`). What its parts read, and
    /// its line ends.
    fn window(
        &mut self,
        bytes: &[u8],
        off: u64,
        line_no: u64,
        reader: &LineReader,
        threads: usize,
        split_min: usize,
    ) -> (LinesRead, u64) {
        let following = std::iter::once(&mut *self.first)
            .chain(self.queue.iter_mut())
            .filter(|s| s.following());
        for s in following {
            s.overrun = true;
            reader.scan_slice(bytes, off, line_no, s);
        }
        if bytes.is_empty() {
            // The member ended (or failed) at a window's end.
            self.absorb_ready();
            return (LinesRead::default(), 0);
        }
        let split = if bytes.len() >= split_min {
            threads * PARTS_PER_THREAD
        } else {
            1
        };
        let cuts = line_cuts(bytes, split);
        let parts: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
        let (first_line, newlines) = first_lines(bytes, &parts, line_no, threads);
        let part = |sink: &mut MemberScan<'_>, k: usize| {
            let (a, b) = parts[k];
            let out = reader.scan_slice(&bytes[a..b], off + a as u64, first_line[k], sink);
            if sink.following() && k + 1 < parts.len() {
                sink.overrun = true;
                reader.scan_slice(&bytes[b..], off + b as u64, first_line[k + 1], sink);
            }
            out
        };
        let outs = run_parts(self.first, off == 0, parts.len(), threads, part);
        let mut total: Option<LinesRead> = None;
        for (sink, out) in outs {
            merge(&mut total, out);
            self.queue.extend(sink);
        }
        self.absorb_ready();
        (total.unwrap_or_default(), newlines)
    }
}

/// Adds what a later part read to what the parts before it read.
fn merge(total: &mut Option<LinesRead>, out: LinesRead) {
    match total {
        Some(t) => t.then(&out),
        None => *total = Some(out),
    }
}

/// Bytes asked for per read: the reader hashes what it read while it is
/// still in cache.
const READ: usize = 256 << 10;

/// Reads until `buf` is full, the end, or an error.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        let to = buf.len().min(n + READ);
        match r.read(&mut buf[n..to]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}
