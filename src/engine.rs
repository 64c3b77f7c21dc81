//! Running a piece of work over many artifacts: in parallel on a rayon pool,
//! each artifact's output kept together, handed to one consumer in input
//! order whatever the thread count, so output never depends on `-j`.

use crate::lines::LinesRead;
use crate::source::{Artifact, ArtifactKind, Coverage, ErrorKind, NoteKind};
use sha2::{Digest, Sha256};
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;

/// Runs `work` on every artifact with `threads` workers and passes each
/// result to `consume` on the calling thread, in input order (results that
/// finish early wait for the ones before them).
pub(crate) fn parallel<T, F, C>(artifacts: &[Artifact], threads: usize, work: F, mut consume: C)
where
    T: Send,
    F: Fn(&Artifact) -> T + Sync,
    C: FnMut(&Artifact, T),
{
    if threads <= 1 || artifacts.len() <= 1 {
        for a in artifacts {
            let t = work(a);
            consume(a, t);
        }
        return;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|s| {
        let work = &work;
        s.spawn(move || {
            use rayon::prelude::*;
            pool.install(|| {
                artifacts
                    .par_iter()
                    .enumerate()
                    .for_each_with(tx, |tx, (i, a)| {
                        let _ = tx.send((i, work(a)));
                    })
            });
        });
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0;
        for (i, t) in rx {
            waiting.insert(i, t);
            while let Some(t) = waiting.remove(&next) {
                consume(&artifacts[next], t);
                next += 1;
            }
        }
    });
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

/// A progress bar over the artifacts' file sizes (see [`crate::output::progress`]).
pub(crate) fn progress(artifacts: &[Artifact]) -> indicatif::ProgressBar {
    let total = artifacts.iter().map(artifact_size).sum();
    crate::output::progress::bar(true, total, artifacts.len())
}

/// Default worker count: the machine's cores.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// SHA-256 of an artifact file, hex.
pub(crate) fn sha256_file(path: &Path) -> io::Result<String> {
    let mut h = Sha256::new();
    if crate::source::for_each_window(path, |b| h.update(b)).is_ok() {
        return Ok(hex(&h.finalize()));
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
    Ok(hex(&h.finalize()))
}

pub(crate) fn sha256_of(artifact: &Artifact) -> Option<String> {
    match &artifact.kind {
        ArtifactKind::File(p) => sha256_file(p).ok(),
        // A stream is read once, by the scan; never hashed (it may not end).
        ArtifactKind::Stdin
        | ArtifactKind::Stream(_)
        | ArtifactKind::Unreadable(_)
        | ArtifactKind::Skipped(_) => None,
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
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
            NoteKind::Image,
            format!("{format} image: holds no log lines, not searched"),
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
    if outcome.long_lines > 0 {
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
