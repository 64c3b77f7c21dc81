//! Scheduling scans: artifacts over worker threads, members of one
//! artifact decoded on one thread and matched on another, and a big member
//! in memory split at line ends across threads. What a member's lines
//! yield is [`MemberScan`]'s business; the order and merging of its
//! results are this module's.

use super::evidence::{ArtifactScan, MemberScan, Record, RecordBudget, ScanOptions, evidence_id};
use crate::drive;
use crate::limits::ReadLimits;
use crate::lines::{LineReader, LinesRead};
use crate::pack::RuleSet;
use crate::source::{self, Artifact, Coverage};
use std::collections::BTreeMap;
use std::io::{self, Read};

/// Members in memory at least this big are split across threads.
pub(super) const SPLIT_MIN: usize = 8 << 20;

/// Scans one artifact with `set`; hashes the file alongside.
pub fn scan_artifact(
    set: &RuleSet,
    artifact: &Artifact,
    limits: &ReadLimits,
    opts: ScanOptions,
) -> ArtifactScan {
    scan_artifact_on(set, artifact, limits, opts, 1)
}

/// Scans `artifacts` on `threads` workers through the driver and hands
/// each scan to `consume` in input order, with its index. With fewer
/// artifacts than threads, the spare threads work inside an artifact.
pub(crate) fn scan_all(
    set: &RuleSet,
    artifacts: &[Artifact],
    limits: &ReadLimits,
    opts: ScanOptions,
    threads: usize,
    progress: &dyn drive::Progress,
    consume: impl FnMut(usize, &Artifact, ArtifactScan) -> std::ops::ControlFlow<()>,
) {
    let member_threads = drive::member_threads(artifacts.len(), threads);
    drive::run(
        artifacts,
        threads,
        progress,
        |_, a| scan_artifact_on(set, a, limits, opts, member_threads),
        consume,
    );
}

/// [`scan_artifact`] with `member_threads` threads for one member (for few
/// artifacts on many cores): a member in memory is split at line ends, a
/// stream is decoded on one thread and matched on another.
fn scan_artifact_on(
    set: &RuleSet,
    artifact: &Artifact,
    limits: &ReadLimits,
    opts: ScanOptions,
    member_threads: usize,
) -> ArtifactScan {
    // The hash is of the bytes the scan read, from the same open file.
    let (sha256, mut scan) = {
        let mut scan = ArtifactScan::default();
        if member_threads > 1 {
            let sha256 =
                scan_members_parallel(set, artifact, limits, opts, member_threads, &mut scan);
            (sha256, scan)
        } else {
            let mut lines = LineReader::new(limits.lines);
            let mut budget = RecordBudget::default();
            let sha256 = source::for_each_member_hashed(
                artifact,
                &limits.source,
                &mut scan.coverage,
                |leaf| {
                    let name = member_name(artifact, leaf.members);
                    let mut sink = MemberScan::new(set, &artifact.path, leaf.members, name, opts);
                    let (outcome, error) = match leaf.slice {
                        Some(bytes) => (scan_in_memory(&mut sink, bytes, &lines, 1), None),
                        None => lines.scan_counted(leaf.reader, &mut sink),
                    };
                    sink.finish_capped(
                        &mut scan.records,
                        &mut scan.counts,
                        &mut budget,
                        leaf.coverage,
                    );
                    // Also before a read error: the lines before it were searched.
                    drive::account(leaf.coverage, leaf.members, &outcome, limits.lines.max_line);
                    if error.is_none() && outcome.bytes == 0 && is_server_log(name) {
                        // Silence is no evidence: the claims about this
                        // server are unknown, never not applicable.
                        leaf.coverage.error(
                            leaf.members,
                            crate::source::ErrorKind::Empty,
                            format!("{name} is empty: the server logged nothing"),
                        );
                    }
                    error.map_or(Ok(()), Err)
                },
            );
            (sha256, scan)
        }
    };
    let key = sha256.clone().unwrap_or_else(|| artifact.path.clone());
    for r in &mut scan.records {
        if let Record::Evidence(e) = r {
            e.id = Some(evidence_id(&key, e));
        }
    }
    scan.sha256 = sha256;
    scan
}

/// Whether a member is a server's log by its name (`server.log`,
/// `vllm_server.log`, compressed or not).
fn is_server_log(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    let base = crate::formats::strip_compression(base).map_or(base, |(rest, _)| rest);
    base.ends_with("server.log")
}

/// The name rules are selected by: the innermost member, or the file name.
fn member_name<'m>(artifact: &'m Artifact, members: &'m [String]) -> &'m str {
    members
        .last()
        .map(String::as_str)
        .unwrap_or_else(|| artifact.path.rsplit('/').next().unwrap_or(&artifact.path))
}

/// A member up to this size is read into memory and matched on another
/// thread while the next one is decoded; a bigger one is matched as it
/// streams.
const MEMBER_IN_MEMORY: usize = 8 << 20;
/// Decoded member bytes waiting for or in matching, at most.
const MEMBERS_IN_FLIGHT: usize = 12 << 20;
/// Members matched (or being matched) ahead of the one handed over next,
/// at most: with [`SOFT_RECORD_BYTES`] each, this bounds the records that
/// wait for their turn.
const MAX_PENDING: usize = 8;
/// Estimated record bytes a member matched ahead of its turn may hold; a
/// member that makes more stops and is matched again when its turn comes,
/// under the artifact's budget.
const SOFT_RECORD_BYTES: usize = 4 << 20;

/// What one member yielded, kept until its turn to be handed over.
struct MemberDone<'a> {
    index: usize,
    sink: MemberScan<'a>,
    outcome: LinesRead,
    members: Vec<String>,
    /// Where its notes and errors go among the artifact's (in member
    /// order), as counted when it started ...
    notes_at: usize,
    errors_at: usize,
    /// ... and how many had been inserted by hand-overs by then.
    inserted_at: (usize, usize),
    /// Stopped at [`SOFT_RECORD_BYTES`]: the member's bytes, to match again.
    redo: Option<Vec<u8>>,
    /// Bytes counted in `in_flight` until the hand-over.
    charge: usize,
}

/// Hands members over in member order, as from one thread.
struct InOrder<'a> {
    set: &'a RuleSet,
    artifact: &'a Artifact,
    opts: ScanOptions,
    max_line: usize,
    reader: LineReader,
    /// Members started, and handed over.
    started: usize,
    next: usize,
    /// Notes and errors inserted by hand-overs so far.
    inserted: (usize, usize),
    budget: RecordBudget,
}

impl<'a> InOrder<'a> {
    fn pending(&self) -> usize {
        self.started - self.next
    }

    /// Hands over every member whose turn has come.
    fn drain(
        &mut self,
        done: &std::sync::Mutex<Vec<MemberDone<'a>>>,
        in_flight: &std::sync::atomic::AtomicUsize,
        coverage: &mut Coverage,
        records: &mut Vec<Record>,
        counts: &mut BTreeMap<String, u64>,
    ) {
        loop {
            let d = {
                let mut list = done.lock().unwrap_or_else(|p| p.into_inner());
                match list.iter().position(|d| d.index == self.next) {
                    Some(i) => list.swap_remove(i),
                    None => return,
                }
            };
            self.next += 1;
            let (mut sink, mut outcome) = (d.sink, d.outcome);
            if let Some(buf) = &d.redo {
                let name = member_name(self.artifact, &d.members);
                sink = MemberScan::new(self.set, &self.artifact.path, &d.members, name, self.opts);
                outcome = self.reader.scan_slice(buf, 0, 1, &mut sink);
            }
            in_flight.fetch_sub(d.charge, std::sync::atomic::Ordering::SeqCst);
            let mut mine = Coverage::default();
            sink.finish_capped(records, counts, &mut self.budget, &mut mine);
            drive::account(&mut mine, &d.members, &outcome, self.max_line);
            coverage.bytes += mine.bytes;
            let at = d.notes_at + self.inserted.0 - d.inserted_at.0;
            let at = at.min(coverage.notes.len());
            self.inserted.0 += mine.notes.len();
            coverage.notes.splice(at..at, mine.notes);
            let at = d.errors_at + self.inserted.1 - d.inserted_at.1;
            let at = at.min(coverage.errors.len());
            self.inserted.1 += mine.errors.len();
            coverage.errors.splice(at..at, mine.errors);
        }
    }

    /// Waits (helping the thread pool) until every member started is
    /// handed over (after the last member).
    fn drain_all(
        &mut self,
        done: &std::sync::Mutex<Vec<MemberDone<'a>>>,
        in_flight: &std::sync::atomic::AtomicUsize,
        coverage: &mut Coverage,
        records: &mut Vec<Record>,
        counts: &mut BTreeMap<String, u64>,
    ) {
        self.drain_until(0, done, in_flight, coverage, records, counts);
    }

    /// Waits until at most `pending` members started are not handed over
    /// (1: all but the one being read now).
    fn drain_until(
        &mut self,
        pending: usize,
        done: &std::sync::Mutex<Vec<MemberDone<'a>>>,
        in_flight: &std::sync::atomic::AtomicUsize,
        coverage: &mut Coverage,
        records: &mut Vec<Record>,
        counts: &mut BTreeMap<String, u64>,
    ) {
        loop {
            self.drain(done, in_flight, coverage, records, counts);
            if self.pending() <= pending {
                return;
            }
            if !matches!(rayon::yield_now(), Some(rayon::Yield::Executed)) {
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        }
    }
}

/// [`scan_artifact_on`] for several threads: the calling thread decodes and
/// reads members into memory, other threads match them (the calling thread
/// matches too when too many bytes wait). Members are handed over in
/// member order as they finish, so records, notes and aggregates come out
/// as from one thread, and the record budget cuts at the same place.
fn scan_members_parallel<'a>(
    set: &'a RuleSet,
    artifact: &'a Artifact,
    limits: &ReadLimits,
    opts: ScanOptions,
    threads: usize,
    scan: &mut ArtifactScan,
) -> Option<String> {
    use std::sync::atomic::Ordering::SeqCst;
    let done: std::sync::Mutex<Vec<MemberDone<'a>>> = std::sync::Mutex::new(Vec::new());
    let in_flight = std::sync::atomic::AtomicUsize::new(0);
    let push = |d: MemberDone<'a>| done.lock().unwrap_or_else(|p| p.into_inner()).push(d);
    let mut lines = LineReader::new(limits.lines);
    let mut order = InOrder {
        set,
        artifact,
        opts,
        max_line: limits.lines.max_line,
        reader: LineReader::new(limits.lines),
        started: 0,
        next: 0,
        inserted: (0, 0),
        budget: RecordBudget::default(),
    };
    let ArtifactScan {
        records,
        coverage,
        counts,
        ..
    } = scan;
    let sha256 = rayon::scope(|sc| {
        source::for_each_member_hashed(artifact, &limits.source, coverage, |leaf| {
            let (done, in_flight) = (&done, &in_flight);
            let cov = &mut *leaf.coverage;
            order.drain_until(MAX_PENDING - 1, done, in_flight, cov, records, counts);
            let mut here = MemberDone {
                index: order.started,
                sink: MemberScan::new(
                    set,
                    &artifact.path,
                    leaf.members,
                    member_name(artifact, leaf.members),
                    opts,
                ),
                outcome: LinesRead::default(),
                members: leaf.members.to_vec(),
                notes_at: cov.notes.len(),
                errors_at: cov.errors.len(),
                inserted_at: order.inserted,
                redo: None,
                charge: 0,
            };
            order.started += 1;
            if let Some(bytes) = leaf.slice {
                // Matched in its turn, split across threads.
                order.drain_until(1, done, in_flight, cov, records, counts);
                here.outcome = scan_in_memory(&mut here.sink, bytes, &lines, threads);
                push(here);
                order.drain(done, in_flight, cov, records, counts);
                return Ok(());
            }
            // A member its container says is big is streamed from its first
            // byte: reading its first 8 MiB here, before handing it over,
            // would leave the matching thread idle while they are decoded.
            let big = leaf
                .stored
                .last()
                .copied()
                .flatten()
                .is_some_and(|n| n > MEMBER_IN_MEMORY as u64);
            let mut buf = Vec::new();
            let read = if big {
                Ok(0)
            } else {
                leaf.reader
                    .take(MEMBER_IN_MEMORY as u64 + 1)
                    .read_to_end(&mut buf)
            };
            let len = buf.len();
            let whole = !big && read.is_ok() && len <= MEMBER_IN_MEMORY;
            let queued = in_flight.load(SeqCst);
            if whole && queued + len <= MEMBERS_IN_FLIGHT {
                in_flight.fetch_add(len, SeqCst);
                here.charge = len;
                here.sink.soft_limit = Some(SOFT_RECORD_BYTES);
                sc.spawn(move |_| {
                    let mut d = here;
                    let reader = LineReader::new(limits.lines);
                    d.outcome = reader.scan_slice(&buf, 0, 1, &mut d.sink);
                    if d.sink.aborted {
                        d.redo = Some(buf);
                    }
                    push(d);
                });
                return Ok(());
            }
            if whole {
                // Matched here while others are matched elsewhere: ahead
                // of its turn unless nothing is pending.
                let ahead = order.pending() > 1;
                if ahead {
                    here.sink.soft_limit = Some(SOFT_RECORD_BYTES);
                }
                here.outcome = lines.scan_slice(&buf, 0, 1, &mut here.sink);
                if here.sink.aborted {
                    in_flight.fetch_add(len, SeqCst);
                    here.charge = len;
                    here.redo = Some(buf);
                }
                push(here);
                order.drain(done, in_flight, cov, records, counts);
                return Ok(());
            }
            // A big member (or a read error after some bytes): matched in
            // its turn as it streams, what was read first.
            order.drain_until(1, done, in_flight, cov, records, counts);
            let mut d = here;
            // A big plain file whose head holds a line end and is not read
            // whole: matched in windows across threads (a first line longer
            // than the head streams as before, in the memory it took).
            let plain = leaf.members.is_empty()
                && leaf.layers == ["text"]
                && read.is_ok()
                && buf.len() > MEMBER_IN_MEMORY
                && memchr::memchr(b'\n', &buf).is_some()
                && !crate::lines::read_whole(&buf, lines.binary);
            let mut r = io::Cursor::new(buf).chain(Failed(read.err()).chain(leaf.reader));
            let (lines, sink) = (&mut lines, &mut d.sink);
            let (outcome, error) = if plain {
                super::window::scan_windowed(sink, &mut r, lines, threads)
            } else {
                crate::lines::read_ahead(&mut r, move |r| lines.scan_counted(r, sink))
            };
            d.outcome = outcome;
            push(d);
            order.drain(done, in_flight, cov, records, counts);
            error.map_or(Ok(()), Err)
        })
    });
    order.drain_all(&done, &in_flight, coverage, records, counts);
    sha256
}

/// A reader that fails once with the error a read of the stream met, or
/// yields nothing.
pub(super) struct Failed(pub(super) Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// Scans a member held in memory; a big one is split at line ends into a few
/// parts per thread. Each part knows its first line number (newlines counted
/// first); a block still open at the end of a part is followed into the
/// next part by the same scanner until it closes, so records are those of
/// one pass.
fn scan_in_memory(
    first: &mut MemberScan<'_>,
    bytes: &[u8],
    reader: &LineReader,
    threads: usize,
) -> LinesRead {
    let whole = crate::lines::read_whole(bytes, reader.binary);
    if threads <= 1 || bytes.len() < SPLIT_MIN || whole {
        return reader.scan_slice(bytes, 0, 1, first);
    }
    let cuts = line_cuts(bytes, threads * PARTS_PER_THREAD);
    scan_parts(first, bytes, reader, &cuts, threads)
}

/// The number of each part's first line, the first part's being
/// `line_no`, and the newlines of all parts; counted on `threads`
/// threads, a run of parts each.
pub(super) fn first_lines(
    bytes: &[u8],
    parts: &[(usize, usize)],
    line_no: u64,
    threads: usize,
) -> (Vec<u64>, u64) {
    let per = parts.len().div_ceil(threads.max(1)).max(1);
    let newlines: Vec<u64> = std::thread::scope(|s| {
        let counting: Vec<_> = parts
            .chunks(per)
            .map(|run| {
                s.spawn(move || {
                    run.iter()
                        .map(|&(a, b)| bytecount::count(&bytes[a..b], b'\n') as u64)
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        counting
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut next = line_no;
    let firsts = newlines
        .iter()
        .map(|c| {
            let here = next;
            next += c;
            here
        })
        .collect();
    (firsts, next - line_no)
}

/// Runs `part` on every part `0..parts` of a member, `threads` at a time:
/// part 0 on `first` when `own_first`, every other part on a fork of it,
/// taken in order by whichever thread is free. What each part found, in
/// part order (`None`: the part was `first`'s).
pub(super) fn run_parts<'a, F>(
    first: &mut MemberScan<'a>,
    own_first: bool,
    parts: usize,
    threads: usize,
    part: F,
) -> Vec<(Option<MemberScan<'a>>, LinesRead)>
where
    F: Fn(&mut MemberScan<'a>, usize) -> LinesRead + Sync,
{
    let from = usize::from(own_first);
    let queue: std::sync::Mutex<std::collections::VecDeque<(usize, MemberScan<'a>)>> =
        std::sync::Mutex::new((from..parts).map(|k| (k, first.fork())).collect());
    let work = || {
        let mut done = Vec::new();
        loop {
            let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
            let Some((k, mut sink)) = next else {
                return done;
            };
            let out = part(&mut sink, k);
            done.push((k, Some(sink), out));
        }
    };
    let mut outs = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.min(parts).max(1))
            .map(|_| s.spawn(work))
            .collect();
        let mut outs = Vec::with_capacity(parts);
        if own_first {
            outs.push((0, None, part(first, 0)));
        }
        outs.extend(work());
        for h in helpers {
            outs.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        outs
    });
    outs.sort_by_key(|o| o.0);
    outs.into_iter().map(|(_, sink, out)| (sink, out)).collect()
}

/// Where `bytes` is cut into about `threads` equal parts at line starts:
/// 0, the cuts, then the end (fewer parts where lines are long).
pub(super) fn line_cuts(bytes: &[u8], threads: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for i in 1..threads {
        let want = (bytes.len() / threads * i).max(*cuts.last().expect("cut"));
        match memchr::memchr(b'\n', &bytes[want..]) {
            Some(j) if want + j + 1 < bytes.len() => cuts.push(want + j + 1),
            _ => break,
        }
    }
    cuts.push(bytes.len());
    cuts.dedup();
    cuts
}

/// Parts a big member (or window) is cut into per thread. Threads take
/// parts as they finish one: lines differ in cost, and the reader of a
/// windowed file takes a core now and then, so one part per thread left a
/// core idle for up to a third of each window (measured: 40 against 57 ms).
/// 16 (half-MiB parts of a window) rather than 4: Intel Xeon, 1 GiB log,
/// 0.97x CPU and 0.98x wall of 4 (9 pairs; 32 was no better), presumably
/// because each literal searcher streams through a part on its own and a
/// smaller part is still in the core's cache for the next.
pub(super) const PARTS_PER_THREAD: usize = 16;

/// Scans `bytes` in the parts between `cuts` (line starts, from 0 to the
/// end) on `threads` threads, and merges what the parts found into `first`.
fn scan_parts(
    first: &mut MemberScan<'_>,
    bytes: &[u8],
    reader: &LineReader,
    cuts: &[usize],
    threads: usize,
) -> LinesRead {
    let parts: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let (first_line, _) = first_lines(bytes, &parts, 1, threads);
    let part = |sink: &mut MemberScan<'_>, k: usize| {
        let (a, b) = parts[k];
        let out = reader.scan_slice(&bytes[a..b], a as u64, first_line[k], sink);
        if sink.following() && k + 1 < parts.len() {
            sink.overrun = true;
            reader.scan_slice(&bytes[b..], b as u64, first_line[k + 1], sink);
            sink.overrun = false;
        }
        out
    };
    let mut outs = run_parts(first, true, parts.len(), threads, part).into_iter();
    let (_, mut total) = outs.next().expect("part 0");
    for (sink, out) in outs {
        total.then(&out);
        first.absorb(sink.expect("a fork"));
    }
    first.sort_by_line();
    total
}

#[cfg(test)]
mod tests {
    //! One member through every path a scan can take (streamed in small
    //! reads, whole in memory, split in 2 to 4 parts at every line start):
    //! the records, aggregates and counts must be the same, whatever the
    //! cuts (blocks followed across them, aggregates merged).
    use super::*;
    use crate::pack::compile::Selection;

    /// Every example line of every built-in rule (blocks included), with
    /// the decode lines aggregating rules count in between.
    fn member_text(set: &RuleSet) -> Vec<u8> {
        let mut text = String::new();
        for round in 0..1 {
            for r in &set.rules {
                for e in &r.examples {
                    for l in e.line.iter().chain(e.lines.iter().flatten()) {
                        text.push_str(l);
                        text.push('\n');
                    }
                }
                text.push_str(&format!(
                    "[2026-10-29 04:30:0{round} TP{round} EP{round}] Decode batch, #running-req: 13, \
                     accept len: 3.{round}7, accept rate: 0.55, cuda graph: True, gen throughput \
                     (token/s): 1012.55, #queue-req: 0\n"
                ));
            }
        }
        text.into_bytes()
    }

    /// At most `n` bytes per read: line and buffer edges meet everywhere.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// The records (as JSON), then the coverage errors (a dump read in
    /// part), and the counts.
    fn finish(sink: MemberScan<'_>) -> (Vec<String>, BTreeMap<String, u64>) {
        let (mut records, mut counts, mut cov) = (Vec::new(), BTreeMap::new(), Coverage::default());
        sink.finish_capped(
            &mut records,
            &mut counts,
            &mut RecordBudget::default(),
            &mut cov,
        );
        let json = records
            .iter()
            .map(|r| serde_json::to_string(&crate::output::sink::ScanRecord::from(r)).unwrap())
            .chain(
                cov.errors
                    .iter()
                    .map(|e| format!("error {:?}: {}", e.kind, e.message)),
            )
            .collect();
        (json, counts)
    }

    /// Equal, or the first record that differs.
    fn same(
        got: (Vec<String>, BTreeMap<String, u64>),
        want: &(Vec<String>, BTreeMap<String, u64>),
        how: &str,
    ) {
        assert_eq!(got.1, want.1, "counts, {how}");
        assert_eq!(got.0.len(), want.0.len(), "records, {how}");
        if let Some((g, w)) = got.0.iter().zip(&want.0).find(|(g, w)| g != w) {
            panic!("{how}:\n got {g}\nwant {w}");
        }
    }

    #[test]
    fn every_path_and_every_cut_finds_the_same() {
        let packs = crate::pack::builtin().unwrap();
        let set = RuleSet::compile(&packs, &Selection::all()).unwrap();
        let text = member_text(&set);
        let members = vec!["server.log".to_string()];
        let reader = LineReader::new(crate::lines::LineLimits::default());
        for opts in [
            ScanOptions::default(),
            ScanOptions {
                every_match: true,
                skip_prefilter: false,
            },
        ] {
            let sink = || MemberScan::new(&set, "a.zip", &members, "server.log", opts);
            let mut whole = sink();
            let lines = reader.scan_slice(&text, 0, 1, &mut whole).lines;
            let want = finish(whole);
            assert!(want.0.len() > 100, "{} records", want.0.len());
            for chunk in [1, 7, 4096] {
                let mut s = sink();
                LineReader::new(crate::lines::LineLimits::default())
                    .scan(&mut Trickle(&text, chunk), &mut s)
                    .unwrap();
                same(finish(s), &want, &format!("streamed in reads of {chunk}"));
            }
            // Streamed in windows split across 2 and 3 threads: windows of
            // less than a line (the rest streamed), about a line, many lines
            // and the whole member, read in small reads; a block is followed
            // across windows.
            let mut sizes: Vec<usize> = (1..40).chain((40..400).step_by(9)).collect();
            let (mut a, mut b) = (400, 647);
            while a < text.len() {
                sizes.push(a);
                (a, b) = (b, a + b);
            }
            sizes.extend([text.len() - 1, text.len(), text.len() + 1]);
            for (i, &chunk) in sizes.iter().enumerate() {
                let threads = 2 + i % 2;
                let mut s = sink();
                let (out, err) = super::super::window::scan_windowed_by(
                    &mut s,
                    &mut Trickle(&text, 4096 + i),
                    &mut LineReader::new(crate::lines::LineLimits::default()),
                    threads,
                    chunk,
                    0,
                );
                assert!(err.is_none());
                assert_eq!(
                    (out.lines, out.bytes),
                    (lines, text.len() as u64),
                    "windows of {chunk}"
                );
                same(
                    finish(s),
                    &want,
                    &format!("windows of {chunk} on {threads} threads"),
                );
            }
            let starts: Vec<usize> = std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', &text).map(|i| i + 1))
                .filter(|&i| i < text.len())
                .collect();
            // Every line start for one mode, every 7th for the other (the
            // suite's time).
            let step = if opts.every_match { 7 } else { 1 };
            for (k, &cut) in starts.iter().enumerate().skip(1).step_by(step) {
                let mut s = sink();
                let out = scan_parts(&mut s, &text, &reader, &[0, cut, text.len()], 2);
                assert_eq!(out.lines, lines);
                same(finish(s), &want, &format!("cut at line {}", k + 1));
            }
            // Three and four parts, cuts spread over the member.
            for step in [3, 5, 11] {
                let n = starts.len();
                for parts in [3, 4] {
                    let mut cuts: Vec<usize> = (1..parts)
                        .map(|p| starts[(n * p / parts + step) % n])
                        .collect();
                    cuts.push(0);
                    cuts.push(text.len());
                    cuts.sort_unstable();
                    cuts.dedup();
                    let mut s = sink();
                    scan_parts(&mut s, &text, &reader, &cuts, 2);
                    same(finish(s), &want, &format!("cuts {cuts:?}"));
                }
            }
        }
    }

    /// A pack of two rules for the state machine's own tests: a block
    /// (`env:` then indented `NAME=value` lines) and an aggregating line
    /// rule grouped by rank.
    const PACK: &str = r#"
name = "t"
version = "1"

[[rule]]
id = "t.env"
source = "test"
[[rule.variant]]
kind = "block"
prefilter = ["env:"]
start = '^env:$'
each = '^  (?P<name>[A-Z_]+)=(?P<value>\S*)$'

[[rule]]
id = "t.speed"
source = "test"
aggregate = ["rank"]
[rule.captures]
tps = "float"
[[rule.variant]]
prefilter = ["speed: "]
regex = 'speed: (?P<tps>\d+(?:\.\d+)?)'
"#;

    fn pack_set() -> RuleSet {
        let pack = crate::pack::parse_pack("t.toml", PACK).unwrap();
        RuleSet::compile(&[pack], &Selection::default()).unwrap()
    }

    fn scan(set: &RuleSet, text: &str, cuts: &[usize]) -> Vec<serde_json::Value> {
        let members = vec!["x.log".to_string()];
        let reader = LineReader::new(crate::lines::LineLimits::default());
        let mut sink = MemberScan::new(set, "a", &members, "x.log", ScanOptions::default());
        let mut parts = vec![0];
        parts.extend_from_slice(cuts);
        parts.push(text.len());
        scan_parts(&mut sink, text.as_bytes(), &reader, &parts, 2);
        finish(sink)
            .0
            .iter()
            .map(|r| serde_json::from_str(r).unwrap())
            .collect()
    }

    /// A block whose lines fall in the next part is followed across the
    /// cut by the part that opened it (overrun), to its end line, and the
    /// next part does not also report them.
    #[test]
    fn a_block_is_followed_across_a_cut_to_its_end() {
        let set = pack_set();
        let text = "env:\n  A=1\n  B=2\nend\n  C=3\n";
        for cut in [5, 11, 17] {
            let got = scan(&set, text, &[cut]);
            let names: Vec<(&str, u64)> = got
                .iter()
                .map(|r| {
                    (
                        r["captures"]["name"].as_str().unwrap(),
                        r["location"]["line"].as_u64().unwrap(),
                    )
                })
                .collect();
            assert_eq!(names, [("A", 2), ("B", 3)], "cut at byte {cut}");
        }
    }

    /// Past its part, a scanner follows only its open blocks: a block that
    /// opens again in the next part belongs to that part (no record twice).
    #[test]
    fn an_overrun_stops_where_the_next_part_opens_a_block() {
        let set = pack_set();
        let text = "env:\n  A=1\nenv:\n  B=2\n";
        for cut in [5, 11] {
            let got = scan(&set, text, &[cut]);
            let lines: Vec<u64> = got
                .iter()
                .map(|r| r["location"]["line"].as_u64().unwrap())
                .collect();
            assert_eq!(lines, [2, 4], "cut at byte {cut}");
        }
    }

    /// A rule that reads a dump whole (`complete`) beside a line variant of
    /// the same rule that matches the dump's entries too.
    const COMPLETE: &str = r#"
name = "t"
version = "1"

[[rule]]
id = "t.dump"
source = "test"
[[rule.variant]]
kind = "block"
prefilter = ["dump {"]
start = '^dump \{$'
each = '^  (?P<name>[A-Z]+)=(?P<value>\S*)$'
end = '^\}$'
complete = true
set = { form = "block" }
[[rule.variant]]
prefilter = ["="]
regex = '(?P<name>[A-Z]+)=(?P<value>\S*)'
set = { form = "line" }
"#;

    /// Records (as JSON) and coverage errors (kind, message) of `text` as
    /// one member cut at `cuts` (none: one scan).
    fn scan_with_coverage(set: &RuleSet, text: &str, cuts: &[usize]) -> (Vec<String>, Vec<String>) {
        let members = vec!["x.log".to_string()];
        let reader = LineReader::new(crate::lines::LineLimits::default());
        let mut sink = MemberScan::new(set, "a", &members, "x.log", ScanOptions::default());
        let mut parts = vec![0];
        parts.extend_from_slice(cuts);
        parts.push(text.len());
        scan_parts(&mut sink, text.as_bytes(), &reader, &parts, 2);
        let (mut records, mut counts, mut cov) = (Vec::new(), BTreeMap::new(), Coverage::default());
        sink.finish_capped(
            &mut records,
            &mut counts,
            &mut RecordBudget::default(),
            &mut cov,
        );
        let records = records
            .iter()
            .map(|r| serde_json::to_string(&crate::output::sink::ScanRecord::from(r)).unwrap())
            .collect();
        let errors = cov
            .errors
            .iter()
            .map(|e| format!("{:?}: {}", e.kind, e.message))
            .collect();
        (records, errors)
    }

    /// A `complete` block that opens in the first of three parts, spans the
    /// whole second and closes (at its end, at a line it cannot read, or
    /// not at all) in the third: the records and the coverage errors are
    /// those of one scan, wherever the cuts fall inside it.
    #[test]
    fn a_complete_block_over_a_whole_part_is_judged_as_in_one_scan() {
        let pack = crate::pack::parse_pack("t.toml", COMPLETE).unwrap();
        let set = RuleSet::compile(&[pack], &Selection::default()).unwrap();
        let head = "before\ndump {\n  A=1\n";
        let middle = "  B=2\n  C=3\n";
        for (tail, cut) in [
            ("  D=4\n}\nE=5\n", false),
            ("  D=4\n  nested {\nF=6\n", true),
            ("  D=4\n  G=7\n", true),
        ] {
            let text = format!("{head}{middle}{tail}");
            let whole = scan_with_coverage(&set, &text, &[]);
            assert_eq!(
                whole.1.len(),
                usize::from(cut),
                "one scan of {text:?}: {:?}",
                whole.1
            );
            let starts: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&i| i < text.len())
                .collect();
            // Part 1 ends inside the block, part 2 lies wholly in it, part 3
            // holds its end: every such pair of cuts, and the plain pair.
            let (a, b) = (head.len(), head.len() + middle.len());
            let mut pairs = vec![(a, b)];
            for &x in starts
                .iter()
                .filter(|&&x| x > head.find("dump").unwrap() && x <= a)
            {
                for &y in starts.iter().filter(|&&y| y > x && y <= b) {
                    pairs.push((x, y));
                }
            }
            for (x, y) in pairs {
                assert_eq!(
                    scan_with_coverage(&set, &text, &[x, y]),
                    whole,
                    "{text:?} cut at bytes {x} and {y}"
                );
            }
        }
    }

    /// Aggregates of one group counted in several parts merge into one
    /// record: count, first and last line, min/max/mean, whatever the cuts.
    #[test]
    fn aggregates_merge_across_parts() {
        let set = pack_set();
        let text = "[2026-10-29 04:30:00 TP0] speed: 1\n[2026-10-29 04:30:00 TP1] speed: 5\n\
                    [2026-10-29 04:30:01 TP0] speed: 3\n[2026-10-29 04:30:02 TP0] speed: 2.5\n";
        let starts: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes())
            .map(|i| i + 1)
            .filter(|&i| i < text.len())
            .collect();
        let whole = scan(&set, text, &[]);
        assert_eq!(whole.len(), 2, "{whole:?}");
        for cuts in [&starts[..1], &starts[1..2], &starts[..2], &starts[..]] {
            assert_eq!(scan(&set, text, cuts), whole, "cuts {cuts:?}");
        }
        let tp0 = whole.iter().find(|r| r["group"]["tp"] == 0).unwrap();
        assert_eq!(tp0["count"], 3);
        assert_eq!(
            (tp0["first"].as_str(), tp0["last"].as_str()),
            (Some("a!x.log:1"), Some("a!x.log:4"))
        );
        let tps = &tp0["stats"]["tps"];
        assert_eq!(
            (tps["min"].as_f64(), tps["max"].as_f64()),
            (Some(1.0), Some(3.0))
        );
        // The mean to 12 significant digits (the same whatever the cuts).
        assert_eq!(tps["mean"].as_f64(), Some(2.16666666667));
    }
}
