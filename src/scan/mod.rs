//! Matching lines: grep's user patterns, and pack rules into evidence.

mod aggregate;
pub mod evidence;
pub mod grep;
pub mod rank;
mod schedule;

pub use evidence::{ArtifactScan, Record, ScanOptions};
pub use schedule::{scan_all, scan_artifact};
