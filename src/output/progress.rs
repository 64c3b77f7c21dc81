//! A progress bar on stderr for long runs: input bytes consumed out of the
//! artifacts' total file size, and artifacts done. Inside one big artifact
//! the bar follows the compressed bytes read so far (the source layer's
//! meter on the artifact's top layer tells [`InFlight`]), so a single
//! 200 MiB tarball moves too. Drawn only when stderr is a terminal, and only once a run has lasted a second
//! (short runs print nothing extra). `ARTISCAN_PROGRESS=lines` prints plain
//! `artiscan: progress ...` lines instead, terminal or not (for logs and
//! tests); `--no-progress` turns both off.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal, Write};
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

/// Whether [`bar`] would draw anything (its bar, or `lines`).
pub(crate) fn shown(enabled: bool) -> bool {
    enabled
        && !DISABLED.load(Ordering::Relaxed)
        && (lines_mode() || std::io::stderr().is_terminal())
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

/// Where `source`'s meters report the artifact file bytes read, so that the
/// bar moves inside a big artifact (see `crate::source::meter`).
#[derive(Debug)]
pub(crate) struct InFlight;

impl crate::source::meter::ReadObserver for InFlight {
    fn consumed(&self, n: u64) {
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

    fn returned(&self, n: u64) {
        IN_FLIGHT.fetch_sub(n.min(IN_FLIGHT.load(Ordering::Relaxed)), Ordering::Relaxed);
    }
}

/// The observer to put in `source::Limits::observer` for a run with a bar.
pub(crate) fn observer() -> Arc<dyn crate::source::meter::ReadObserver> {
    Arc::new(InFlight)
}
