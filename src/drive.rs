//! The driver every command that reads artifacts goes through (grep, scan,
//! check, ls, audit), as ripgrep's `search.rs` is for its searches: the
//! artifacts walked are worked on in parallel on a rayon pool (each
//! artifact's work one closure, handed its index in the input), the results
//! handed to one consumer in input order whatever the thread count (output
//! never depends on `-j`), a [`Progress`] observer told of each one done,
//! coverage errors printed by one capped, filtered printer
//! ([`report_coverage_errors`]), and the tallies kept in one [`Stats`].
//! Commands supply the per-artifact work and what to do with its result.

use crate::escape;
use crate::hash::finish_hex;
use crate::lines::LinesRead;
use crate::location::Location;
use crate::source::{Artifact, ArtifactKind, Coverage, ErrorKind, MemberError, NoteKind};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

/// Watches a run: told of each artifact done, asked to step aside while a
/// message is printed. A progress bar implements it (in `commands`, which
/// knows the terminal).
pub(crate) trait Progress {
    /// Whether it shows sizes: when not, the driver does not look up each
    /// artifact's size (a `stat` by path, twice an artifact).
    fn shows_sizes(&self) -> bool {
        true
    }
    /// The run starts: `artifacts` artifacts of `total_bytes` file bytes.
    fn start(&self, total_bytes: u64, artifacts: usize);
    /// One more artifact of `size` file bytes done, `done` of `of`.
    fn advance(&self, size: u64, done: usize, of: usize);
    /// Runs `print` with the display out of the way.
    fn suspend(&self, print: &mut dyn FnMut());
    /// The run is over: clear the display.
    fn finish(&self);
}

/// A result's rough size in memory while it waits for the consumer: what
/// bounds how far workers run ahead when results are big (an env dump's
/// thousands of records) and the consumer is slower than the workers.
pub(crate) trait Held {
    fn held_bytes(&self) -> usize;
}

/// Bytes of results finished ahead of the consumer past which no worker
/// starts another artifact (but the one the consumer waits for).
const AHEAD_BYTES: usize = 16 << 20;

/// Runs `work` on every artifact on `threads` workers and hands each result
/// to `consume` on the calling thread in input order, with the artifact's
/// index (a path given twice is two artifacts), after telling `progress`.
/// `consume` answers whether to go on: `Break` (its output cannot be
/// written, say) starts no more work, and the results still coming are
/// dropped.
pub(crate) fn run<T, F, C>(
    artifacts: &[Artifact],
    threads: usize,
    progress: &dyn Progress,
    work: F,
    mut consume: C,
) where
    T: Send + Held,
    F: Fn(usize, &Artifact) -> T + Sync,
    C: FnMut(usize, &Artifact, T) -> ControlFlow<()>,
{
    let sizes: Vec<u64> = if progress.shows_sizes() {
        artifacts.iter().map(artifact_size).collect()
    } else {
        Vec::new()
    };
    progress.start(sizes.iter().sum(), artifacts.len());
    let mut done = 0;
    parallel(artifacts, threads, work, |i, a, t| {
        done += 1;
        progress.advance(sizes.get(i).copied().unwrap_or(0), done, artifacts.len());
        consume(i, a, t)
    });
    progress.finish();
}

/// Results finished ahead of the one the consumer waits for, at most, per
/// thread: a worker claims an artifact only this near the consumer, so a
/// folder of 100,000 small files holds a few hundred results, not half the
/// folder (a range split in halves lets the second thread run that far
/// ahead).
const AHEAD_PER_THREAD: usize = 16;

/// Runs `work` on every artifact with `threads` workers and passes each
/// result to `consume` on the calling thread, in input order (results that
/// finish early wait for the ones before them), until it answers `Break`.
/// Workers claim artifacts in input order and stay within a window of the
/// consumer, so what waits is bounded by the thread count, not the input.
fn parallel<T, F, C>(artifacts: &[Artifact], threads: usize, work: F, mut consume: C)
where
    T: Send + Held,
    F: Fn(usize, &Artifact) -> T + Sync,
    C: FnMut(usize, &Artifact, T) -> ControlFlow<()>,
{
    if threads <= 1 || artifacts.len() <= 1 {
        for (i, a) in artifacts.iter().enumerate() {
            let t = work(i, a);
            if consume(i, a, t).is_break() {
                return;
            }
        }
        return;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let window = Window {
        claimed: AtomicUsize::new(0),
        consumed: Mutex::new(Consumed::default()),
        moved: Condvar::new(),
        stop: AtomicBool::new(false),
        ahead: AHEAD_PER_THREAD * threads,
    };
    let (tx, rx) = mpsc::channel::<(usize, usize, T)>();
    std::thread::scope(|s| {
        let (work, window) = (&work, &window);
        s.spawn(move || {
            // One long-lived task per thread; a member split across threads
            // (few artifacts) still borrows the pool's idle workers.
            pool.scope(|sc| {
                for _ in 0..threads {
                    let tx = tx.clone();
                    sc.spawn(move |_| {
                        let _stop_on_panic = StopOnPanic(window);
                        while let Some(i) = window.claim(artifacts.len()) {
                            let t = work(i, &artifacts[i]);
                            let held = t.held_bytes();
                            window.hold(held);
                            if tx.send((i, held, t)).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
        });
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        'results: for (i, held, t) in rx {
            waiting.insert(i, (held, t));
            while let Some((held, t)) = waiting.remove(&next) {
                if consume(next, &artifacts[next], t).is_break() {
                    break 'results;
                }
                next += 1;
                window.consumed(next, held);
            }
        }
        // A Break, or the end: waiting workers leave. A worker that
        // panicked stopped the others; the scope re-raises it.
        window.halt();
    });
}

/// The artifacts workers may claim: the next in input order, while it is
/// within `ahead` of the consumer and the results waiting hold less than
/// [`AHEAD_BYTES`].
struct Window {
    claimed: AtomicUsize,
    consumed: Mutex<Consumed>,
    moved: Condvar,
    stop: AtomicBool,
    ahead: usize,
}

#[derive(Default)]
struct Consumed {
    /// Results consumed: the next one the consumer waits for.
    next: usize,
    /// Bytes of the results finished and not consumed.
    held: usize,
    /// Workers waiting in [`Window::claim`]: the consumer wakes them only
    /// when there are some (a wake-up is a system call, per artifact).
    waiting: usize,
}

impl Window {
    /// The next artifact to work on, after waiting for the consumer to come
    /// near enough; `None` when all are claimed or the run stopped.
    fn claim(&self, len: usize) -> Option<usize> {
        let i = self.claimed.fetch_add(1, Ordering::Relaxed);
        if i >= len {
            return None;
        }
        let mut c = self.lock();
        // The artifact the consumer waits for may always start, so whoever
        // claimed it never waits here: no deadlock.
        while i != c.next
            && (i >= c.next + self.ahead || c.held >= AHEAD_BYTES)
            && !self.stop.load(Ordering::Relaxed)
        {
            c.waiting += 1;
            c = self.moved.wait(c).unwrap_or_else(|p| p.into_inner());
            c.waiting -= 1;
        }
        (!self.stop.load(Ordering::Relaxed)).then_some(i)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Consumed> {
        self.consumed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A result of `held` bytes is finished.
    fn hold(&self, held: usize) {
        self.lock().held += held;
    }

    /// The consumer took a result of `held` bytes; it waits for `next`.
    fn consumed(&self, next: usize, held: usize) {
        let mut c = self.lock();
        c.next = next;
        c.held -= held.min(c.held);
        if c.waiting > 0 {
            drop(c);
            self.moved.notify_all();
        }
    }

    /// No more work starts; waiting workers wake and leave.
    fn halt(&self) {
        let _guard = self.lock();
        self.stop.store(true, Ordering::Relaxed);
        self.moved.notify_all();
    }
}

/// Halts the window when a worker unwinds, so the others do not wait for a
/// result that will never come.
struct StopOnPanic<'a>(&'a Window);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.halt();
        }
    }
}

/// The tallies of a run, one type for every command (the JSON summary
/// record and the exit code are made from it).
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) artifacts: u64,
    /// Artifacts with at least one reported coverage error.
    pub(crate) incomplete: u64,
    pub(crate) members: u64,
    pub(crate) bytes: u64,
    /// Matching lines (grep) or evidence records (scan).
    pub(crate) matches: u64,
    /// Reported coverage errors plus inputs that could not be walked.
    pub(crate) errors: u64,
    /// An input that could not be read at all (see [`unreadable`]).
    pub(crate) unreadable: bool,
    /// Evidence per rule id (scan).
    pub(crate) rules: BTreeMap<String, u64>,
}

impl Stats {
    /// Inputs that could not be walked (a missing path).
    pub(crate) fn walk_errors(&mut self, n: usize) {
        self.errors += n as u64;
        self.unreadable |= n > 0;
    }

    /// One artifact's coverage.
    pub(crate) fn artifact(&mut self, coverage: &Coverage) {
        self.artifacts += 1;
        self.members += coverage.members;
        self.bytes += coverage.bytes;
        self.errors += coverage.errors.iter().filter(|e| reported(e)).count() as u64;
        self.incomplete += u64::from(!coverage.complete());
        self.unreadable |= unreadable(coverage);
    }

    /// Evidence counts per rule.
    pub(crate) fn rules(&mut self, counts: &BTreeMap<String, u64>) {
        for (rule, n) in counts {
            *self.rules.entry(rule.clone()).or_default() += n;
            self.matches += n;
        }
    }
}

/// Coverage errors worth a message and an error exit: all but `excluded`
/// (members the user left out with `-g` on purpose).
pub(crate) fn reported(e: &MemberError) -> bool {
    e.kind != ErrorKind::Excluded
}

/// An artifact, or a member, that could not be read at all (`io`: a file
/// that cannot be opened or read, an unreadable folder entry;
/// `not_an_archive`: a page saved in place of a download): grep's exit 2,
/// unlike damage inside an archive that was read.
pub(crate) fn unreadable(coverage: &Coverage) -> bool {
    coverage
        .errors
        .iter()
        .any(|e| matches!(e.kind, ErrorKind::Io | ErrorKind::NotAnArchive))
}

/// Prints the inputs that could not be walked (a missing path, an
/// unreadable folder), escaped, one line each, on stderr.
pub(crate) fn report_walk_errors(
    err: &mut dyn Write,
    errors: &[(String, io::Error)],
) -> io::Result<()> {
    for (path, e) in errors {
        report_input_error(err, path, &e.to_string())?;
    }
    Ok(())
}

/// Prints an input that could not be read at all (not walked, not
/// opened, not a file), escaped, on one line on stderr: the one printer of
/// such errors, as [`report_coverage_errors`] is of errors inside one.
pub(crate) fn report_input_error(err: &mut dyn Write, path: &str, why: &str) -> io::Result<()> {
    writeln!(
        err,
        "artiscan: {}: {}",
        escape::text(path),
        escape::text(why)
    )
}

/// Errors of one kind shown per artifact on stderr; the coverage record
/// (JSON) lists them all.
const SHOWN_PER_KIND: usize = 20;

/// An artifact's coverage errors on stderr, escaped, at most
/// `SHOWN_PER_KIND` of each kind, then how many more there are (an
/// artifact past the record cap has one per member). The one printer of
/// coverage errors: every command's messages go through it.
pub(crate) fn report_coverage_errors(
    err: &mut dyn Write,
    path: &str,
    errors: &[MemberError],
) -> io::Result<()> {
    let mut shown: Vec<(ErrorKind, usize)> = Vec::new();
    for e in errors.iter().filter(|e| reported(e)) {
        let n = match shown.iter_mut().find(|(k, _)| *k == e.kind) {
            Some((_, n)) => n,
            None => {
                shown.push((e.kind, 0));
                &mut shown.last_mut().expect("pushed").1
            }
        };
        *n += 1;
        if *n <= SHOWN_PER_KIND {
            let cite = Location::member_citation(path, &e.members);
            writeln!(
                err,
                "artiscan: {cite}: {:?}: {}",
                e.kind,
                escape::text(&e.message)
            )?;
        }
    }
    for (kind, n) in shown.into_iter().filter(|(_, n)| *n > SHOWN_PER_KIND) {
        writeln!(
            err,
            "artiscan: {}: {} more {kind:?} error(s) not shown; the coverage record lists them all",
            crate::location::escape(path),
            n - SHOWN_PER_KIND
        )?;
    }
    Ok(())
}

/// Threads each artifact may use for one member: the spare ones when there
/// are fewer artifacts than threads (one big log, one tarball).
pub(crate) fn member_threads(artifacts: usize, threads: usize) -> usize {
    if artifacts == 0 || artifacts >= threads {
        1
    } else {
        threads / artifacts
    }
}

/// Size of an artifact's file (0 for stdin or when it cannot be read).
pub(crate) fn artifact_size(a: &Artifact) -> u64 {
    match &a.kind {
        ArtifactKind::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
        ArtifactKind::Stdin
        | ArtifactKind::Stream(_)
        | ArtifactKind::Unreadable(_)
        | ArtifactKind::Skipped(_) => 0,
    }
}

/// Default worker count: the machine's cores.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// SHA-256 of an artifact file, hex.
pub(crate) fn sha256_file(path: &Path) -> io::Result<String> {
    let mut h = Sha256::new();
    if crate::source::for_each_window(path, |b| h.update(b)).is_ok() {
        return Ok(finish_hex(h));
    }
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(finish_hex(h))
}

/// Adds what reading one leaf found to the artifact's coverage.
pub(crate) fn account(
    coverage: &mut Coverage,
    members: &[String],
    outcome: &LinesRead,
    max_line: usize,
) {
    coverage.bytes += outcome.bytes;
    if let (true, Some(format)) = (outcome.binary, outcome.image) {
        // Pixels hold no log lines: passed over, coverage stays complete.
        coverage.note(
            members,
            if format == crate::source::detect::CORE_DUMP {
                NoteKind::CoreDump
            } else {
                NoteKind::Image
            },
            if format == crate::source::detect::CORE_DUMP {
                format!("{format} (a crashed process's memory): holds no log lines, not searched")
            } else {
                format!("{format} image: holds no log lines, not searched")
            },
        );
    } else if outcome.binary {
        // Not searched, so nothing may be claimed absent from it.
        coverage.error(
            members,
            ErrorKind::Skipped,
            "binary member (NUL in the first block) not searched; --binary searches it",
        );
    }
    if outcome.undecodable > 0 {
        // Text that could not be decoded may hide a match: not complete.
        coverage.error(
            members,
            crate::source::ErrorKind::Corrupt,
            format!(
                "UTF-16 member: {} byte(s) could not be decoded (unpaired surrogate or odd last byte), read as U+FFFD",
                outcome.undecodable
            ),
        );
    }
    // Read in windows, a long line was searched whole: nothing to note.
    if outcome.long_lines > 0 && !outcome.windowed {
        coverage.note(
            members,
            NoteKind::LongLine,
            format!(
                "{} line(s) longer than --max-line {max_line} searched up to the cap, the first is line {}",
                outcome.long_lines, outcome.first_long_line
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Held for usize {
        fn held_bytes(&self) -> usize {
            0
        }
    }

    struct Quiet;
    impl Progress for Quiet {
        fn start(&self, _: u64, _: usize) {}
        fn advance(&self, _: u64, _: usize, _: usize) {}
        fn suspend(&self, print: &mut dyn FnMut()) {
            print();
        }
        fn finish(&self) {}
    }

    fn artifacts(n: usize) -> Vec<Artifact> {
        (0..n)
            .map(|i| Artifact {
                path: format!("a{i}.log"),
                kind: ArtifactKind::Stdin,
            })
            .collect()
    }

    /// Runs `n` artifacts on two threads, `make` giving each result, with
    /// a consumer that sleeps `pause` every `every` results; checks that
    /// the results came in input order and answers how far ahead of the
    /// last one consumed an artifact was started, at most.
    fn furthest_ahead<T: Held + Send>(
        n: usize,
        make: impl Fn(usize) -> T + Sync,
        index: impl Fn(&T) -> usize,
        every: usize,
        pause: std::time::Duration,
    ) -> usize {
        let consumed = AtomicUsize::new(0);
        let furthest = AtomicUsize::new(0);
        let mut order = Vec::new();
        run(
            &artifacts(n),
            2,
            &Quiet,
            |i, _| {
                furthest.fetch_max(i - consumed.load(Ordering::SeqCst), Ordering::SeqCst);
                make(i)
            },
            |i, _, t| {
                if i % every == 0 {
                    std::thread::sleep(pause);
                }
                order.push(index(&t));
                consumed.store(i + 1, Ordering::SeqCst);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(order, (0..n).collect::<Vec<_>>());
        furthest.into_inner()
    }

    /// Workers stay near the consumer: with a slow consumer, no artifact
    /// is started more than the window ahead of the last one consumed
    /// (counted; a range split in halves starts the second thread at the
    /// middle, 1,000 ahead), and every result still comes in order.
    #[test]
    fn workers_stay_within_a_window_of_the_consumer() {
        let pause = std::time::Duration::from_micros(200);
        let furthest = furthest_ahead(2000, |i| i, |&t| t, 64, pause);
        assert!(furthest <= 2 * AHEAD_PER_THREAD, "{furthest} ahead");
    }

    struct Big(usize);
    impl Held for Big {
        fn held_bytes(&self) -> usize {
            AHEAD_BYTES / 4
        }
    }

    /// Big results bound how far workers run ahead: with results of a
    /// quarter of [`AHEAD_BYTES`] each and a slow consumer, no artifact
    /// starts more than a few ahead of the last one consumed (counted),
    /// and every result still comes in order.
    #[test]
    fn big_results_keep_workers_nearer_the_consumer() {
        let pause = std::time::Duration::from_micros(100);
        let furthest = furthest_ahead(300, Big, |t| t.0, 1, pause);
        assert!(furthest <= 4 + 2, "{furthest} ahead");
    }

    /// A consumer that answers `Break` (its output is a closed pipe) stops
    /// the run: on one thread nothing more is worked on; on two, what was
    /// under way finishes and nothing more starts (counted, not timed: the
    /// 2,000 items of 1 ms each would take a second without the stop).
    #[test]
    fn a_consumer_that_breaks_stops_the_work() {
        let artifacts = artifacts(2000);
        for threads in [1, 2] {
            let worked = AtomicUsize::new(0);
            let mut consumed = Vec::new();
            run(
                &artifacts,
                threads,
                &Quiet,
                |i, _| {
                    worked.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    i
                },
                |i, _, t| {
                    consumed.push((i, t));
                    if i == 2 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            );
            assert_eq!(consumed, [(0, 0), (1, 1), (2, 2)], "-j{threads}");
            let worked = worked.into_inner();
            if threads == 1 {
                assert_eq!(worked, 3);
            } else {
                assert!(worked < artifacts.len() / 2, "{worked} worked on");
            }
        }
    }
}
