//! A progress bar on stderr for long runs: input bytes consumed out of the
//! artifacts' total file size, and artifacts done. Inside one big artifact
//! the bar follows the compressed bytes read so far (a [`Meter`] on the
//! artifact's top layer), so a single 200 MiB tarball moves too. Drawn only
//! when stderr is a terminal, and only once a run has lasted a second
//! (short runs print nothing extra). `ARTISCAN_PROGRESS=lines` prints plain
//! `artiscan: progress ...` lines instead, terminal or not (for logs and
//! tests); `--no-progress` turns both off.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// `--no-progress`: set once by the binary, read by every bar.
static DISABLED: AtomicBool = AtomicBool::new(false);
/// Bytes of the artifacts finished (their whole file size).
static DONE: AtomicU64 = AtomicU64::new(0);
/// Bytes consumed of the artifacts being read now.
static IN_FLIGHT: AtomicU64 = AtomicU64::new(0);
/// The bar's total, for `lines` mode.
static TOTAL: AtomicU64 = AtomicU64::new(0);
/// `lines` mode: the position at which the next line is printed.
static NEXT_LINE: AtomicU64 = AtomicU64::new(u64::MAX);
/// `lines` mode is on (set by [`bar`]).
static LINES: AtomicBool = AtomicBool::new(false);

/// `lines` mode prints one line per this fraction of the total.
const LINE_STEPS: u64 = 20;

/// No progress bar for the rest of the process, even on a terminal.
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

fn lines_mode() -> bool {
    std::env::var_os("ARTISCAN_PROGRESS").is_some_and(|v| v == "lines")
}

/// The position the bar shows: finished artifacts plus what is read of the
/// ones in flight.
pub(crate) fn position() -> u64 {
    DONE.load(Ordering::Relaxed) + IN_FLIGHT.load(Ordering::Relaxed)
}

/// A bar over `total_bytes` for `artifacts` artifacts; hidden unless
/// `enabled` and stderr is a terminal (or `ARTISCAN_PROGRESS=lines`).
pub(crate) fn bar(enabled: bool, total_bytes: u64, artifacts: usize) -> ProgressBar {
    DONE.store(0, Ordering::Relaxed);
    TOTAL.store(total_bytes, Ordering::Relaxed);
    let off = !enabled || DISABLED.load(Ordering::Relaxed);
    if !off && lines_mode() {
        LINES.store(true, Ordering::Relaxed);
        NEXT_LINE.store(step(total_bytes), Ordering::Relaxed);
        return ProgressBar::hidden();
    }
    if off || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} {elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} ETA {eta}",
    ) {
        pb.set_style(style);
    }
    pb.set_message(format!("0/{artifacts} artifacts"));
    pb.enable_steady_tick(Duration::from_millis(200));
    let later = pb.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        if !later.is_finished() {
            later.set_draw_target(ProgressDrawTarget::stderr());
        }
        // Follows the meters inside artifacts between completions.
        while !later.is_finished() {
            let at = position().min(total_bytes);
            if at > later.position() {
                later.set_position(at);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    pb
}

fn step(total: u64) -> u64 {
    (total / LINE_STEPS).max(1)
}

/// One more artifact of `size` bytes done, `done` of `artifacts`.
pub(crate) fn advance(pb: &ProgressBar, size: u64, done: usize, artifacts: usize) {
    DONE.fetch_add(size, Ordering::Relaxed);
    let at = position().min(pb.length().unwrap_or(u64::MAX));
    if at > pb.position() {
        pb.set_position(at);
    }
    pb.set_message(format!("{done}/{artifacts} artifacts"));
    if LINES.load(Ordering::Relaxed) {
        let total = TOTAL.load(Ordering::Relaxed);
        let _ = writeln!(
            io::stderr(),
            "artiscan: progress {}/{total} bytes, {done}/{artifacts} artifacts",
            at.min(total)
        );
    }
}

/// What one artifact's top layer has consumed: added to the bar while the
/// artifact is read, taken back by [`Meter::finish`] when it is done (the
/// bar then counts the whole file through [`advance`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Meter(Arc<AtomicU64>);

impl Meter {
    pub(crate) fn new() -> Meter {
        Meter::default()
    }

    /// `n` more bytes of the artifact's file consumed.
    pub(crate) fn add(&self, n: u64) {
        if n == 0 {
            return;
        }
        self.0.fetch_add(n, Ordering::Relaxed);
        IN_FLIGHT.fetch_add(n, Ordering::Relaxed);
        if LINES.load(Ordering::Relaxed) {
            let at = position();
            let next = NEXT_LINE.load(Ordering::Relaxed);
            let total = TOTAL.load(Ordering::Relaxed);
            if at >= next
                && NEXT_LINE
                    .compare_exchange(next, at + step(total), Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                let _ = writeln!(
                    io::stderr(),
                    "artiscan: progress {}/{total} bytes",
                    at.min(total)
                );
            }
        }
    }

    /// Bytes consumed so far.
    #[cfg(test)]
    pub(crate) fn consumed(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// The artifact is done: its bytes leave the in-flight count.
    pub(crate) fn finish(&self) {
        let n = self.0.swap(0, Ordering::Relaxed);
        IN_FLIGHT.fetch_sub(n.min(IN_FLIGHT.load(Ordering::Relaxed)), Ordering::Relaxed);
    }

    /// `inner`, counted into this meter when its bytes are the artifact
    /// file's own (nested layers are not file bytes).
    pub(crate) fn reader<R>(&self, inner: R, level: Level) -> Metered<R> {
        Metered {
            inner,
            meter: (level == Level::File).then(|| self.clone()),
        }
    }
}

/// Whose bytes a reader passes on, for [`Meter::reader`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// The artifact file's own bytes: the bar follows them.
    File,
    /// Bytes of a member or layer inside the artifact.
    Nested,
}

impl Level {
    /// The level of a reader `members` deep in the artifact.
    pub(crate) fn at(members: usize) -> Level {
        if members == 0 {
            Level::File
        } else {
            Level::Nested
        }
    }
}

/// A reader whose consumption moves a [`Meter`].
pub(crate) struct Metered<R> {
    inner: R,
    meter: Option<Meter>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(m) = &self.meter {
            m.add(n as u64);
        }
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Metered<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Some(m) = &self.meter {
            m.add(amt as u64);
        }
        self.inner.consume(amt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metered_reader_counts_what_is_consumed() {
        let data = vec![b'x'; 100_000];
        let m = Meter::new();
        let mut r = m.reader(&data[..], Level::File);
        let mut buf = [0u8; 30_000];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(m.consumed(), 30_000);
        r.consume(5);
        assert_eq!(m.consumed(), 30_005);
        io::copy(&mut r, &mut io::sink()).unwrap();
        assert_eq!(m.consumed(), 100_000);
        m.finish();
        assert_eq!(m.consumed(), 0);
        // Off: nothing counted.
        let off = Meter::new();
        io::copy(&mut off.reader(&data[..], Level::Nested), &mut io::sink()).unwrap();
        assert_eq!(off.consumed(), 0);
    }
}
