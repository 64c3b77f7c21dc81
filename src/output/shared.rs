//! One output written by parallel workers, each artifact's output kept
//! together, with memory bounded whatever an artifact prints.
//!
//! Artifacts come out in input order whatever the thread count: each has
//! its index. A worker collects its artifact's output in memory; finished
//! early, it is parked until the artifacts before it are out. Past a cap a
//! worker waits for its turn, takes the shared writer and streams the rest
//! of that artifact straight into it, so memory per running artifact is at
//! most the cap and nothing is written to disk.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

/// Output kept in memory per artifact before it streams.
pub(crate) const ARTIFACT_BUFFER: usize = 4 << 20;

struct State<'w> {
    out: &'w mut (dyn Write + Send),
    error: Option<io::Error>,
    /// An artifact is streaming: others wait for it to finish.
    busy: bool,
    /// Index of the artifact whose output goes out next.
    next: usize,
    /// Output of finished artifacts waiting for their turn.
    parked: BTreeMap<usize, Vec<u8>>,
}

/// The writer all workers share.
pub(crate) struct SharedOut<'w> {
    state: Mutex<State<'w>>,
    free: Condvar,
    failed: AtomicBool,
    cap: usize,
}

impl<'w> SharedOut<'w> {
    pub(crate) fn new(out: &'w mut (dyn Write + Send), cap: usize) -> Self {
        SharedOut {
            state: Mutex::new(State {
                out,
                error: None,
                busy: false,
                next: 0,
                parked: BTreeMap::new(),
            }),
            free: Condvar::new(),
            failed: AtomicBool::new(false),
            cap,
        }
    }

    /// The output of the artifact at `index` in input order (every index
    /// from 0 on must be opened once, or the ones after it never come out).
    pub(crate) fn artifact(&self, index: usize) -> ArtifactOut<'_, 'w> {
        ArtifactOut {
            buf: Vec::new(),
            shared: self,
            streaming: false,
            index,
        }
    }

    /// Whether a write failed (a closed pipe): workers may stop early.
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Writes a whole piece of output (a summary) and flushes.
    pub(crate) fn finish(self, tail: &[u8]) -> io::Result<()> {
        let state = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = state.error {
            return Err(e);
        }
        // Only after a worker died: what is parked still goes out, in order.
        for (_, buf) in state.parked {
            state.out.write_all(&buf)?;
        }
        state.out.write_all(tail)?;
        state.out.flush()
    }
}

/// Where a sink writes: a buffer that may be drained into the real output.
pub(crate) trait Spill {
    fn buf(&mut self) -> &mut Vec<u8>;
    /// Called between lines: writes the buffer out when it is over the cap.
    /// False once the output is gone (stop reading).
    fn spill(&mut self) -> bool;
}

/// A plain buffer never spills (tests, single results).
impl Spill for Vec<u8> {
    fn buf(&mut self) -> &mut Vec<u8> {
        self
    }
    fn spill(&mut self) -> bool {
        true
    }
}

/// One artifact's output.
pub(crate) struct ArtifactOut<'s, 'w> {
    buf: Vec<u8>,
    shared: &'s SharedOut<'w>,
    /// Owns the output from the first spill to the end of the artifact.
    streaming: bool,
    index: usize,
}

fn write_out(state: &mut State<'_>, failed: &AtomicBool, buf: &[u8]) {
    if state.error.is_none()
        && let Err(e) = state.out.write_all(buf)
    {
        state.error = Some(e);
        failed.store(true, Ordering::Relaxed);
    }
}

/// What [`ArtifactOut::drain`] does with the artifact's turn to write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// Keep it: more of this artifact follows (a full buffer spills).
    Keep,
    /// Pass it on: the artifact is finished.
    Release,
}

impl ArtifactOut<'_, '_> {
    /// Writes the buffer out, first waiting for this artifact's turn unless
    /// it already streams; [`Turn::Release`] ends the artifact: the next
    /// one's turn (and the parked ones after it go out).
    fn drain(&mut self, turn: Turn) {
        let release = turn == Turn::Release;
        let shared = self.shared;
        let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if !self.streaming {
            if release && state.next != self.index {
                // Finished before its turn: parked, no waiting.
                state
                    .parked
                    .insert(self.index, std::mem::take(&mut self.buf));
                return;
            }
            while state.busy || state.next != self.index {
                state = shared.free.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            state.busy = true;
            self.streaming = true;
        }
        write_out(&mut state, &shared.failed, &self.buf);
        self.buf.clear();
        if release {
            state.busy = false;
            self.streaming = false;
            state.next += 1;
            loop {
                let next = state.next;
                let Some(buf) = state.parked.remove(&next) else {
                    break;
                };
                write_out(&mut state, &shared.failed, &buf);
                state.next += 1;
            }
            shared.free.notify_all();
        }
    }

    /// Writes what is left and lets the next artifact stream.
    pub(crate) fn finish(self) {}
}

/// Also on unwinding, so that a panicking worker cannot block the others.
impl Drop for ArtifactOut<'_, '_> {
    fn drop(&mut self) {
        // Even with nothing to write: the turn passes on.
        self.drain(Turn::Release);
    }
}

impl Spill for ArtifactOut<'_, '_> {
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    fn spill(&mut self) -> bool {
        if self.buf.len() >= self.shared.cap {
            self.drain(Turn::Keep);
        }
        !self.shared.failed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifacts_stay_together_and_memory_is_capped() {
        let mut sink = Vec::new();
        let shared = SharedOut::new(&mut sink, 16);
        let mut a = shared.artifact(0);
        let mut b = shared.artifact(1);
        b.buf().extend_from_slice(b"b1\n");
        assert!(b.spill());
        for i in 0..10 {
            a.buf().extend_from_slice(format!("a{i}\n").as_bytes());
            assert!(a.spill());
            assert!(a.buf.len() < 16);
        }
        // `b` is under its cap: it waits for `a` to finish before writing.
        a.finish();
        b.finish();
        shared.finish(b"end\n").unwrap();
        let text = String::from_utf8(sink).unwrap();
        let expect: String = (0..10).map(|i| format!("a{i}\n")).collect::<String>() + "b1\nend\n";
        assert_eq!(text, expect);
    }

    #[test]
    fn output_follows_input_order_whatever_finishes_first() {
        let mut sink = Vec::new();
        let shared = SharedOut::new(&mut sink, 1 << 20);
        let mut c = shared.artifact(2);
        c.buf().extend_from_slice(b"c\n");
        c.finish();
        let b = shared.artifact(1);
        b.finish();
        let mut a = shared.artifact(0);
        a.buf().extend_from_slice(b"a\n");
        a.finish();
        shared.finish(b"end\n").unwrap();
        assert_eq!(String::from_utf8(sink).unwrap(), "a\nc\nend\n");
    }

    #[test]
    fn a_failed_write_stops_the_workers() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut closed = Closed;
        let shared = SharedOut::new(&mut closed, 4);
        let mut a = shared.artifact(0);
        a.buf().extend_from_slice(b"0123456789");
        assert!(!a.spill());
        a.finish();
        let e = shared.finish(b"").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}
