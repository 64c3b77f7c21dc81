//! Pack rules over the lines of a member: evidence records with typed
//! captures and ranks, aggregates for high-frequency rules.

use super::rank::RankKey;
use crate::engine;
use crate::lines::{Line, LineReader, LineSink, Outcome, clean};
use crate::location::Location;
use crate::output::{self, AggregateRecord, Citation, EvidenceRecord, Quote, Stats};
use crate::pack::{AnchoredCaptures, CapType, LiteralCursor, Literals, RuleSet, VariantKind};
use crate::source::{self, Artifact, Coverage, Limits};
use regex::bytes::Captures;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read};
use std::sync::Arc;

/// A scan output record, in the order it was found.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Record {
    Evidence(EvidenceRecord),
    Aggregate(AggregateRecord),
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ScanOptions {
    /// One record per matching line even for rules that aggregate.
    pub every_match: bool,
    /// Ignore prefilters: run every rule on every line (pack self-tests).
    pub force: bool,
}

/// Members in memory at least this big are split across threads.
const SPLIT_MIN: usize = 8 << 20;

/// Evidence records one artifact keeps. Past this (or
/// [`MAX_RECORD_BYTES`]), further matching lines are counted in aggregate
/// records marked `"overflow": true`, and a `limit` error in coverage says
/// so (claims of absence, or about every line, are then not judged). Keeps
/// memory bounded on floods: 6 million Traceback lines in a 611 KB `.gz`.
pub const MAX_RECORDS: usize = 100_000;
/// Estimated bytes of the evidence records one artifact keeps (see
/// `record_cost`).
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// What the records kept so far cost: a prefix of the records in member
/// and line order, so the cut is the same on any number of threads.
#[derive(Debug, Default, Clone, Copy)]
pub struct Budget {
    records: usize,
    bytes: usize,
    full: bool,
}

impl Budget {
    /// Takes one more record of `cost`, unless the budget is spent.
    fn take(&mut self, cost: usize) -> bool {
        if self.full || self.records + 1 > MAX_RECORDS || self.bytes + cost > MAX_RECORD_BYTES {
            self.full = true;
            return false;
        }
        self.records += 1;
        self.bytes += cost;
        true
    }
}

/// Estimated heap bytes of an evidence record: the struct and its maps, the
/// capture strings, and the line text when it is the first record of its
/// line (the others share it).
fn record_cost(e: &EvidenceRecord, first_of_line: bool) -> usize {
    let caps: usize = e
        .captures
        .iter()
        .flatten()
        .map(|(k, v)| k.len() + 48 + v.as_str().map_or(0, str::len))
        .sum();
    let text = if first_of_line { e.text.line_len() } else { 0 };
    768 + e.rule.len() + caps + text
}

/// Everything one artifact yielded.
#[derive(Debug, Default)]
pub struct ArtifactScan {
    pub records: Vec<Record>,
    pub coverage: Coverage,
    pub sha256: Option<String>,
    /// Matching lines per rule (aggregated ones included).
    pub counts: BTreeMap<String, u64>,
}

impl ArtifactScan {
    pub fn evidence(&self) -> impl Iterator<Item = &EvidenceRecord> {
        self.records.iter().filter_map(|r| match r {
            Record::Evidence(e) => Some(e),
            Record::Aggregate(_) => None,
        })
    }
}

/// Scans one artifact with `set`; hashes the file alongside.
pub fn scan_artifact(
    set: &RuleSet,
    artifact: &Artifact,
    limits: &Limits,
    opts: ScanOptions,
) -> ArtifactScan {
    scan_artifact_on(set, artifact, limits, opts, 1)
}

/// Scans `artifacts` on `threads` workers and hands each scan to `consume`
/// in order of completion (input order with one thread). With fewer
/// artifacts than threads, the spare threads work inside an artifact. A
/// progress bar runs on a terminal: `consume` gets it to print around it.
pub fn scan_all(
    set: &RuleSet,
    artifacts: &[Artifact],
    limits: &Limits,
    opts: ScanOptions,
    threads: usize,
    mut consume: impl FnMut(&Artifact, ArtifactScan, &indicatif::ProgressBar),
) {
    let member_threads = engine::member_threads(artifacts.len(), threads);
    let pb = engine::progress(artifacts);
    let mut done = 0;
    engine::parallel(
        artifacts,
        threads,
        |a| scan_artifact_on(set, a, limits, opts, member_threads),
        |a, scan| {
            done += 1;
            let size = engine::artifact_size(a);
            crate::output::progress::advance(&pb, size, done, artifacts.len());
            consume(a, scan, &pb);
        },
    );
    pb.finish_and_clear();
}

/// [`scan_artifact`] with `member_threads` threads for one member (for few
/// artifacts on many cores): a member in memory is split at line ends, a
/// stream is decoded on one thread and matched on another.
fn scan_artifact_on(
    set: &RuleSet,
    artifact: &Artifact,
    limits: &Limits,
    opts: ScanOptions,
    member_threads: usize,
) -> ArtifactScan {
    let (sha256, mut scan) = rayon::join(
        || engine::sha256_of(artifact),
        || {
            let mut scan = ArtifactScan::default();
            if member_threads > 1 {
                scan_members_parallel(set, artifact, limits, opts, member_threads, &mut scan);
                return scan;
            }
            let mut lines = LineReader::new(limits.max_line, limits.binary);
            let mut budget = Budget::default();
            source::for_each_member(artifact, limits, &mut scan.coverage, |leaf| {
                let name = member_name(artifact, leaf.members);
                let mut sink = MemberScan::new(set, &artifact.path, leaf.members, name, opts);
                let result = match leaf.slice {
                    Some(bytes) => Ok(scan_in_memory(&mut sink, bytes, &lines, 1)),
                    None => lines.scan(leaf.reader, &mut sink),
                };
                sink.finish_capped(
                    &mut scan.records,
                    &mut scan.counts,
                    &mut budget,
                    leaf.coverage,
                );
                let outcome = result?;
                engine::account(leaf.coverage, leaf.members, &outcome, limits.max_line);
                Ok(())
            });
            scan
        },
    );
    let key = sha256.clone().unwrap_or_else(|| artifact.path.clone());
    for r in &mut scan.records {
        if let Record::Evidence(e) = r {
            e.id = Some(evidence_id(&key, e));
        }
    }
    scan.sha256 = sha256;
    scan
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
    outcome: Outcome,
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
    budget: Budget,
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
            engine::account(&mut mine, &d.members, &outcome, self.max_line);
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
    limits: &Limits,
    opts: ScanOptions,
    threads: usize,
    scan: &mut ArtifactScan,
) {
    use std::sync::atomic::Ordering::SeqCst;
    let done: std::sync::Mutex<Vec<MemberDone<'a>>> = std::sync::Mutex::new(Vec::new());
    let in_flight = std::sync::atomic::AtomicUsize::new(0);
    let push = |d: MemberDone<'a>| done.lock().unwrap_or_else(|p| p.into_inner()).push(d);
    let mut lines = LineReader::new(limits.max_line, limits.binary);
    let mut order = InOrder {
        set,
        artifact,
        opts,
        max_line: limits.max_line,
        reader: LineReader::new(limits.max_line, limits.binary),
        started: 0,
        next: 0,
        inserted: (0, 0),
        budget: Budget::default(),
    };
    let ArtifactScan {
        records,
        coverage,
        counts,
        ..
    } = scan;
    rayon::scope(|sc| {
        source::for_each_member(artifact, limits, coverage, |leaf| {
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
                outcome: Outcome::default(),
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
            let mut buf = Vec::new();
            let read = leaf
                .reader
                .take(MEMBER_IN_MEMORY as u64 + 1)
                .read_to_end(&mut buf);
            let len = buf.len();
            let whole = read.is_ok() && len <= MEMBER_IN_MEMORY;
            let queued = in_flight.load(SeqCst);
            if whole && queued + len <= MEMBERS_IN_FLIGHT {
                in_flight.fetch_add(len, SeqCst);
                here.charge = len;
                here.sink.soft_limit = Some(SOFT_RECORD_BYTES);
                sc.spawn(move |_| {
                    let mut d = here;
                    let reader = LineReader::new(limits.max_line, limits.binary);
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
            let mut r = io::Cursor::new(buf).chain(Failed(read.err()).chain(leaf.reader));
            let (lines, sink) = (&mut lines, &mut d.sink);
            let result = crate::lines::read_ahead(&mut r, move |r| lines.scan(r, sink));
            if let Ok(outcome) = &result {
                d.outcome = *outcome;
            }
            push(d);
            order.drain(done, in_flight, cov, records, counts);
            result.map(|_| ())
        });
    });
    order.drain_all(&done, &in_flight, coverage, records, counts);
}

/// A reader that fails once with the error a read of the stream met, or
/// yields nothing.
struct Failed(Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// Scans a member held in memory; a big one is split at line ends into one
/// part per thread. Each part knows its first line number (newlines counted
/// first); a block still open at the end of a part is followed into the
/// next part by the same scanner until it closes, so records are those of
/// one pass.
fn scan_in_memory(
    first: &mut MemberScan<'_>,
    bytes: &[u8],
    reader: &LineReader,
    threads: usize,
) -> Outcome {
    let whole = crate::lines::read_whole(bytes, reader.binary);
    if threads <= 1 || bytes.len() < SPLIT_MIN || whole {
        return reader.scan_slice(bytes, 0, 1, first);
    }
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
    let parts: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let newlines: Vec<u64> = std::thread::scope(|s| {
        let counting: Vec<_> = parts
            .iter()
            .map(|&(a, b)| s.spawn(move || bytecount::count(&bytes[a..b], b'\n') as u64))
            .collect();
        counting
            .into_iter()
            .map(|h| h.join().expect("count newlines"))
            .collect()
    });
    let first_line: Vec<u64> = newlines
        .iter()
        .scan(1, |n, c| {
            let here = *n;
            *n += c;
            Some(here)
        })
        .collect();
    let part = |sink: &mut MemberScan<'_>, k: usize| {
        let (a, b) = parts[k];
        let out = reader.scan_slice(&bytes[a..b], a as u64, first_line[k], sink);
        if !sink.blocks.is_empty() && k + 1 < parts.len() {
            sink.overrun = true;
            reader.scan_slice(&bytes[b..], b as u64, first_line[k + 1], sink);
            sink.overrun = false;
        }
        out
    };
    let (mut total, rest) = std::thread::scope(|s| {
        let running: Vec<_> = (1..parts.len())
            .map(|k| {
                let mut sink = first.fork();
                let part = &part;
                s.spawn(move || {
                    let out = part(&mut sink, k);
                    (sink, out)
                })
            })
            .collect();
        let out = part(first, 0);
        let rest: Vec<_> = running
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        (out, rest)
    });
    for (sink, out) in rest {
        total.bytes += out.bytes;
        total.lines += out.lines;
        total.long_lines += out.long_lines;
        if total.first_long_line == 0 {
            total.first_long_line = out.first_long_line;
        }
        first.absorb(sink);
    }
    first.sort_by_line();
    total
}

/// Stable id of an evidence record: artifact sha256 (or path for stdin),
/// members, line, rule and column.
pub fn evidence_id(artifact_key: &str, e: &EvidenceRecord) -> String {
    let mut h = Sha256::new();
    h.update(artifact_key.as_bytes());
    for m in e.location.members.iter() {
        h.update(b"\0");
        h.update(m.as_bytes());
    }
    h.update(
        format!(
            "\0{}\0{}\0{}",
            e.location.line,
            e.rule,
            e.location.column.unwrap_or(0)
        )
        .as_bytes(),
    );
    engine::hex(&h.finalize()[..12])
}

/// A compensated (Neumaier) sum: near exact, so that a mean does not depend
/// on how a member was split across threads.
#[derive(Debug, Clone, Copy, Default)]
struct Sum {
    hi: f64,
    lo: f64,
}

impl Sum {
    fn add(&mut self, x: f64) {
        let t = self.hi + x;
        self.lo += if self.hi.abs() >= x.abs() {
            (self.hi - t) + x
        } else {
            (x - t) + self.hi
        };
        self.hi = t;
    }

    fn add_sum(&mut self, other: Sum) {
        self.add(other.hi);
        self.lo += other.lo;
    }

    /// The mean to 12 significant digits (what a log's decimals carry, and
    /// the same whatever the order of the additions).
    fn mean(self, count: u64) -> f64 {
        let m = (self.hi + self.lo) / count as f64;
        if m == 0.0 || !m.is_finite() {
            return m;
        }
        format!("{m:.11e}").parse().unwrap_or(m)
    }
}

/// Rule, rank and the values of the other group captures.
type AggKey = (usize, RankKey, String);

struct Agg {
    group: Map<String, Value>,
    count: u64,
    first: (u64, u64),
    last: (u64, u64),
    stats: BTreeMap<String, (f64, f64, Sum)>,
}

impl Agg {
    /// Adds the counts of the same group from another part of the member
    /// (first and last by line: parts may come in any order).
    fn merge(&mut self, b: Agg) {
        self.count += b.count;
        self.first = self.first.min(b.first);
        self.last = self.last.max(b.last);
        for (name, (min, max, sum)) in b.stats {
            let s = self.stats.entry(name).or_insert((min, max, Sum::default()));
            s.0 = s.0.min(min);
            s.1 = s.1.max(max);
            s.2.add_sum(sum);
        }
    }

    fn add_stat(&mut self, name: &str, x: f64) {
        match self.stats.get_mut(name) {
            Some(s) => {
                s.0 = s.0.min(x);
                s.1 = s.1.max(x);
                s.2.add(x);
            }
            None => {
                let mut sum = Sum::default();
                sum.add(x);
                self.stats.insert(name.to_string(), (x, x, sum));
            }
        }
    }

    fn record(
        self,
        rule: &crate::pack::compile::Rule,
        path: &Arc<str>,
        members: &Arc<[String]>,
        cite: &Arc<str>,
    ) -> AggregateRecord {
        let at = |(line, _): (u64, u64)| Citation::new(cite.clone(), line).to_string();
        AggregateRecord {
            kind: AggregateRecord::KIND,
            rule: rule.id.clone(),
            pack: rule.pack.clone(),
            path: path.to_string(),
            members: members.to_vec(),
            group: self.group,
            count: self.count,
            stats: self
                .stats
                .into_iter()
                .map(|(k, (min, max, sum))| {
                    let mean = sum.mean(self.count);
                    (k, Stats { min, max, mean })
                })
                .collect(),
            first: at(self.first),
            last: at(self.last),
        }
    }
}

/// Rule matching over one member's lines.
pub struct MemberScan<'a> {
    set: &'a RuleSet,
    path: Arc<str>,
    members: Arc<[String]>,
    /// `path!member!member`, shared by every record's citation.
    cite: Arc<str>,
    /// The text of the last line that made a record, shared by its records.
    line_text: Option<(u64, Arc<str>, bool)>,
    /// This scanner's own records (bounds memory before the artifact's
    /// budget is applied in order, in `finish_capped`).
    budget: Budget,
    /// Matched out of order: stop once records cost more than this, to be
    /// matched again in order (`aborted`).
    soft_limit: Option<usize>,
    aborted: bool,
    /// Lines past the budget, by rule and rank.
    overflow: HashMap<(usize, String), Agg, foldhash::fast::RandomState>,
    active: Vec<bool>,
    literals: Arc<Literals>,
    cursor: LiteralCursor,
    every_line: bool,
    opts: ScanOptions,
    /// Open blocks: variant and the captures of the line that opened it.
    blocks: Vec<(usize, Map<String, Value>)>,
    hits: Vec<usize>,
    /// Reused match slots of anchored regexes, by variant.
    anchored_caps: Vec<Option<AnchoredCaptures>>,
    scratch: Vec<u8>,
    records: Vec<Record>,
    aggs: HashMap<AggKey, Agg, foldhash::fast::RandomState>,
    agg_order: Vec<AggKey>,
    /// Reused text of the aggregate group being looked up.
    agg_key: String,
    /// Matching lines per rule index.
    counts: Vec<u64>,
    /// Past the end of its part of a split member: only follows the open
    /// blocks, and stops when they close.
    overrun: bool,
}

impl<'a> MemberScan<'a> {
    pub fn new(
        set: &'a RuleSet,
        path: &'a str,
        members: &[String],
        name: &str,
        opts: ScanOptions,
    ) -> Self {
        let active = set.active_for(name);
        let literals = set.literals_for(&active);
        let cite = Location::member_citation(path, members).into();
        MemberScan::with(
            set,
            (path.into(), members.into(), cite),
            active,
            literals,
            opts,
        )
    }

    fn with(
        set: &'a RuleSet,
        (path, members, cite): (Arc<str>, Arc<[String]>, Arc<str>),
        active: Vec<bool>,
        literals: Arc<Literals>,
        opts: ScanOptions,
    ) -> Self {
        MemberScan {
            set,
            path,
            members,
            cite,
            line_text: None,
            budget: Budget::default(),
            soft_limit: None,
            aborted: false,
            overflow: HashMap::default(),
            active,
            cursor: literals.cursor(),
            every_line: opts.force || literals.needs_every_line(),
            literals,
            opts,
            blocks: Vec::new(),
            hits: Vec::new(),
            anchored_caps: (0..set.variants.len()).map(|_| None).collect(),
            scratch: Vec::new(),
            records: Vec::new(),
            aggs: HashMap::default(),
            agg_order: Vec::new(),
            agg_key: String::new(),
            counts: vec![0; set.rules.len()],
            overrun: false,
        }
    }

    /// A fresh scanner for another part of the same member.
    fn fork(&self) -> MemberScan<'a> {
        MemberScan::with(
            self.set,
            (self.path.clone(), self.members.clone(), self.cite.clone()),
            self.active.clone(),
            self.literals.clone(),
            self.opts,
        )
    }

    /// Takes in what the scanner of the next part of the member found.
    fn absorb(&mut self, later: MemberScan<'a>) {
        self.records.extend(later.records);
        for (key, b) in later.overflow {
            match self.overflow.get_mut(&key) {
                Some(a) => a.merge(b),
                None => {
                    self.overflow.insert(key, b);
                }
            }
        }
        for (c, n) in self.counts.iter_mut().zip(later.counts) {
            *c += n;
        }
        let mut aggs = later.aggs;
        for key in later.agg_order {
            let b = aggs.remove(&key).expect("aggregate");
            match self.aggs.get_mut(&key) {
                Some(a) => a.merge(b),
                None => {
                    self.agg_order.push(key.clone());
                    self.aggs.insert(key, b);
                }
            }
        }
    }

    /// Records in line order (a block followed across a part's end adds
    /// records after those of the next part's first lines).
    fn sort_by_line(&mut self) {
        self.records.sort_by_key(|r| match r {
            Record::Evidence(e) => e.location.line,
            Record::Aggregate(_) => 0,
        });
    }

    /// Flushes aggregates and hands the member's records over (pack
    /// self-tests: one member, no artifact budget shared).
    pub fn finish(self, records: &mut Vec<Record>, counts: &mut BTreeMap<String, u64>) {
        self.finish_capped(
            records,
            counts,
            &mut Budget::default(),
            &mut Coverage::default(),
        );
    }

    /// Hands the member's records over while the artifact's `budget` lasts;
    /// the rest become overflow aggregates, and a `limit` error in
    /// `coverage` names the member and the rules.
    pub fn finish_capped(
        mut self,
        records: &mut Vec<Record>,
        counts: &mut BTreeMap<String, u64>,
        budget: &mut Budget,
        coverage: &mut Coverage,
    ) {
        let mut last_line = None;
        let mut rule = 0;
        for r in std::mem::take(&mut self.records) {
            let Record::Evidence(e) = r else {
                records.push(r);
                continue;
            };
            let first = last_line != Some(e.location.line);
            last_line = Some(e.location.line);
            if budget.take(record_cost(&e, first)) {
                records.push(Record::Evidence(e));
                continue;
            }
            if self.set.rules.get(rule).is_none_or(|r| r.id != e.rule) {
                rule = self
                    .set
                    .rules
                    .iter()
                    .position(|r| r.id == e.rule)
                    .expect("rule of the set");
            }
            self.spill(rule, &e);
        }
        for key in std::mem::take(&mut self.agg_order) {
            let a = self.aggs.remove(&key).expect("aggregate");
            let rule = &self.set.rules[key.0];
            records.push(Record::Aggregate(a.record(
                rule,
                &self.path,
                &self.members,
                &self.cite,
            )));
        }
        // In line order whatever order the parts of the member came in.
        let mut over: Vec<_> = std::mem::take(&mut self.overflow).into_iter().collect();
        over.sort_by(|a, b| (a.1.first, &a.0).cmp(&(b.1.first, &b.0)));
        if !over.is_empty() {
            let lines: u64 = over.iter().map(|(_, a)| a.count).sum();
            let mut rules: Vec<&str> = over
                .iter()
                .map(|((r, _), _)| self.set.rules[*r].id.as_str())
                .collect();
            rules.dedup();
            rules.sort_unstable();
            rules.dedup();
            coverage.error(
                &self.members,
                source::ErrorKind::Limit,
                format!(
                    "the artifact reached its cap of {MAX_RECORDS} evidence records ({} MiB): \
                     {lines} more matching line(s) of {} are counted in aggregate records \
                     (\"overflow\": true), not listed",
                    MAX_RECORD_BYTES >> 20,
                    rules.join(", ")
                ),
            );
        }
        for ((rule, _), a) in over {
            let rule = &self.set.rules[rule];
            records.push(Record::Aggregate(a.record(
                rule,
                &self.path,
                &self.members,
                &self.cite,
            )));
        }
        for (rule, n) in self.counts.into_iter().enumerate().filter(|(_, n)| *n > 0) {
            *counts.entry(self.set.rules[rule].id.clone()).or_default() += n;
        }
    }

    /// Counts a record past the budget in its rule's overflow aggregate
    /// (grouped by rank; numeric captures summarised).
    fn spill(&mut self, rule: usize, e: &EvidenceRecord) {
        let rank = e
            .rank
            .as_ref()
            .map(|r| serde_json::to_string(r).unwrap_or_default());
        let key = (rule, rank.unwrap_or_default());
        let at = (e.location.line, e.location.byte_offset);
        let agg = self.overflow.entry(key).or_insert_with(|| {
            let mut group = Map::new();
            for (k, v) in e.rank.iter().flatten() {
                group.insert(k.clone(), Value::from(*v));
            }
            group.insert("overflow".into(), Value::Bool(true));
            Agg {
                group,
                count: 0,
                first: at,
                last: at,
                stats: BTreeMap::new(),
            }
        });
        agg.count += 1;
        agg.first = agg.first.min(at);
        agg.last = agg.last.max(at);
        for (name, v) in e.captures.iter().flatten() {
            if let Some(x) = v.as_f64() {
                agg.add_stat(name, x);
            }
        }
    }

    fn emit(
        &mut self,
        variant: usize,
        line: &Line<'_>,
        text: &[u8],
        column: usize,
        captures: Map<String, Value>,
    ) {
        let rule_index = self.set.variants[variant].rule;
        let rule = &self.set.rules[rule_index];
        self.counts[rule_index] += 1;
        let rank = RankKey::parse(text).to_map();
        let location = Location {
            path: self.path.clone(),
            members: self.members.clone(),
            line: line.number,
            byte_offset: line.offset,
            column: Some(column as u64 + 1),
        };
        // Every record of one line shares its text; a long line is quoted
        // by an excerpt around each match.
        let first = !matches!(&self.line_text, Some((n, _, _)) if *n == line.number);
        if first {
            let (text, lossy) = output::line_text(text);
            self.line_text = Some((line.number, text.into(), lossy));
        }
        let (_, shared, lossy) = self.line_text.as_ref().expect("line text");
        let (text, lossy) = (Quote::around(shared.clone(), column), *lossy);
        let text_start = text.excerpt_start();
        let e = EvidenceRecord {
            kind: EvidenceRecord::KIND,
            rule: rule.id.clone(),
            pack: Some(rule.pack.clone()),
            citation: Citation::new(self.cite.clone(), line.number),
            location,
            text,
            text_start,
            lossy,
            truncated: line.truncated,
            captures: Some(captures),
            rank,
            id: None,
        };
        if !self.budget.take(record_cost(&e, first)) {
            self.spill(rule_index, &e);
            return;
        }
        if self.soft_limit.is_some_and(|soft| self.budget.bytes > soft) {
            self.aborted = true;
        }
        self.records.push(Record::Evidence(e));
    }

    fn aggregates(&self, variant: usize) -> bool {
        !self.opts.every_match
            && !self.set.rules[self.set.variants[variant].rule]
                .aggregate
                .is_empty()
    }

    /// Counts a line of an aggregating rule: no record, no allocation once
    /// its group exists.
    fn aggregate<'t>(
        &mut self,
        variant: usize,
        line: &Line<'_>,
        text: &[u8],
        group: &dyn Fn(&str) -> Option<&'t [u8]>,
    ) {
        let v = &self.set.variants[variant];
        let rule_index = v.rule;
        let rule = &self.set.rules[rule_index];
        self.counts[rule_index] += 1;
        let rank = if rule.aggregate.iter().any(|k| k == "rank") {
            RankKey::parse(text)
        } else {
            RankKey::default()
        };
        // A group field the line does not capture may be set by its variant
        // (`set = { phase = "gen" }`): the same group as a captured `gen`.
        let set_text = |k: &str| {
            v.set
                .get(k)
                .map(|val| val.as_str().map_or_else(|| val.to_string(), str::to_string))
        };
        let mut extra = std::mem::take(&mut self.agg_key);
        extra.clear();
        for k in rule.aggregate.iter().filter(|k| *k != "rank") {
            match group(k) {
                Some(b) => extra.push_str(&String::from_utf8_lossy(b)),
                None => extra.push_str(&set_text(k).unwrap_or_default()),
            }
            extra.push('\0');
        }
        let mut key = (rule_index, rank, extra);
        let at = (line.number, line.offset);
        if !self.aggs.contains_key(&key) {
            let mut fields = Map::new();
            for k in &rule.aggregate {
                if k == "rank" {
                    for (n, v) in rank.to_map().into_iter().flatten() {
                        fields.insert(n, Value::from(v));
                    }
                } else if let Some(b) = group(k) {
                    let t = rule.captures.get(k).copied().unwrap_or(CapType::Str);
                    fields.insert(k.clone(), t.convert(&String::from_utf8_lossy(b)));
                } else if let Some(val) = v.set.get(k) {
                    fields.insert(k.clone(), val.clone());
                }
            }
            self.agg_order.push(key.clone());
            self.aggs.insert(
                key.clone(),
                Agg {
                    group: fields,
                    count: 0,
                    first: at,
                    last: at,
                    stats: BTreeMap::new(),
                },
            );
        }
        let agg = self.aggs.get_mut(&key).expect("aggregate");
        // The key's text buffer serves the next line.
        self.agg_key = std::mem::take(&mut key.2);
        agg.count += 1;
        agg.last = at;
        for name in &rule.numeric {
            let Some(x) =
                group(name).and_then(|m| std::str::from_utf8(m).ok()?.trim().parse::<f64>().ok())
            else {
                continue;
            };
            agg.add_stat(name, x);
        }
    }

    /// Lines inside open blocks: records, or the block closes.
    fn continue_blocks(&mut self, line: &Line<'_>, text: &[u8]) {
        let mut i = 0;
        while i < self.blocks.len() {
            let vi = self.blocks[i].0;
            let v = &self.set.variants[vi];
            if v.end.as_ref().is_some_and(|e| e.is_match(text)) {
                self.blocks.remove(i);
                continue;
            }
            let each = v.each.as_ref().expect("block has each");
            if let Some(c) = each.captures(text) {
                if self.aggregates(vi) {
                    self.aggregate(vi, line, text, &named(&[&c]));
                    i += 1;
                    continue;
                }
                let mut caps = self.blocks[i].1.clone();
                caps.extend(self.set.captures(v, &[&c], &[each]));
                let column = c.get(0).map_or(0, |m| m.start());
                self.emit(vi, line, text, column, caps);
                i += 1;
            } else if is_blank_or_comment(text) {
                i += 1;
            } else {
                self.blocks.remove(i);
            }
        }
    }

    /// Runs the rules whose literal is on the line; the first matching
    /// variant of each rule wins.
    fn rules(&mut self, line: &Line<'_>, text: &[u8], raw: bool) {
        let mut hits = std::mem::take(&mut self.hits);
        if self.opts.force {
            hits.clear();
            hits.extend((0..self.set.variants.len()).filter(|&v| self.active[v]));
        } else if raw {
            self.literals
                .hits_at(&mut self.cursor, line.raw, line.offset, &mut hits);
        } else {
            self.literals.hits(text, &mut hits);
        }
        let mut done_rule = usize::MAX;
        for &vi in &hits {
            let v = &self.set.variants[vi];
            if v.rule == done_rule || v.excluded(text) {
                continue;
            }
            let matched = match v.kind {
                VariantKind::Line if v.anchored.is_some() && self.aggregates(vi) => {
                    let a = v.anchored.as_ref().expect("anchored");
                    let mut caps = self.anchored_caps[vi]
                        .take()
                        .unwrap_or_else(|| a.new_captures());
                    let found = a.captures(text, &mut caps);
                    if found {
                        self.aggregate(vi, line, text, &|name| a.group(text, &caps, name));
                    }
                    self.anchored_caps[vi] = Some(caps);
                    found
                }
                VariantKind::Line => {
                    let re = v.regex.as_ref().expect("line variant has regex");
                    match re.captures(text) {
                        None => false,
                        Some(c) => match &v.each {
                            None if self.aggregates(vi) => {
                                self.aggregate(vi, line, text, &named(&[&c]));
                                true
                            }
                            None => {
                                let caps = self.set.captures(v, &[&c], &[re]);
                                let column = c.get(0).map_or(0, |m| m.start());
                                self.emit(vi, line, text, column, caps);
                                true
                            }
                            Some(each) => {
                                let span = c.get(0).expect("group 0");
                                let mut any = false;
                                for e in each.captures_iter(&text[span.start()..span.end()]) {
                                    if self.aggregates(vi) {
                                        self.aggregate(vi, line, text, &named(&[&c, &e]));
                                        any = true;
                                        continue;
                                    }
                                    let caps = self.set.captures(v, &[&c, &e], &[re, each]);
                                    let column = span.start() + e.get(0).map_or(0, |m| m.start());
                                    self.emit(vi, line, text, column, caps);
                                    any = true;
                                }
                                any
                            }
                        },
                    }
                }
                VariantKind::Block => {
                    let start = v.start.as_ref().expect("block has start");
                    match start.captures(text) {
                        None => false,
                        Some(c) => {
                            let caps = self.set.captures(v, &[&c], &[start]);
                            self.blocks.retain(|b| b.0 != vi);
                            self.blocks.push((vi, caps));
                            true
                        }
                    }
                }
            };
            if matched {
                done_rule = v.rule;
            }
        }
        self.hits = hits;
    }
}

impl LineSink for MemberScan<'_> {
    fn candidate(&mut self, hay: &[u8], offset: u64) -> Option<usize> {
        if self.every_line || !self.blocks.is_empty() {
            return Some(0);
        }
        self.literals.candidate(&mut self.cursor, hay, offset)
    }

    fn line(&mut self, line: &Line<'_>) -> bool {
        let mut scratch = std::mem::take(&mut self.scratch);
        let text = clean(line.raw, &mut scratch);
        if self.overrun {
            self.continue_blocks(line, text);
            // A block that starts again here is the next part's to follow.
            let set = self.set;
            self.blocks.retain(|(vi, _)| {
                let start = set.variants[*vi].start.as_ref();
                !start.is_some_and(|re| re.is_match(text))
            });
            self.scratch = scratch;
            return !self.blocks.is_empty();
        }
        if !self.blocks.is_empty() {
            self.continue_blocks(line, text);
        }
        // The cursor knows where the literals are in raw lines only.
        let raw = std::ptr::eq(text.as_ptr(), line.raw.as_ptr());
        self.rules(line, text, raw);
        self.scratch = scratch;
        !self.aborted
    }
}

/// A capture group's bytes by name, from the first of `caps` that has it.
fn named<'a, 't>(caps: &'a [&'a Captures<'t>]) -> impl Fn(&str) -> Option<&'t [u8]> + 'a {
    move |name| caps.iter().find_map(|c| c.name(name)).map(|m| m.as_bytes())
}

/// Blank lines and `#` comments do not end a block (YAML recipes have both).
fn is_blank_or_comment(text: &[u8]) -> bool {
    let t = text.trim_ascii_start();
    t.is_empty() || t.starts_with(b"#")
}
