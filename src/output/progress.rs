//! A progress bar on stderr for long runs: input bytes of finished artifacts
//! out of the total, and artifacts done. Drawn only when stderr is a
//! terminal, and only once a run has lasted a second (short runs print
//! nothing extra).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// `--no-progress`: set once by the binary, read by every bar.
static DISABLED: AtomicBool = AtomicBool::new(false);

/// No progress bar for the rest of the process, even on a terminal.
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// A bar over `total_bytes` for `artifacts` artifacts; hidden unless
/// `enabled` and stderr is a terminal.
pub fn bar(enabled: bool, total_bytes: u64, artifacts: usize) -> ProgressBar {
    if !enabled || DISABLED.load(Ordering::Relaxed) || !std::io::stderr().is_terminal() {
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
    });
    pb
}

/// One more artifact of `size` bytes done, `done` of `artifacts`.
pub fn advance(pb: &ProgressBar, size: u64, done: usize, artifacts: usize) {
    pb.inc(size);
    pb.set_message(format!("{done}/{artifacts} artifacts"));
}
