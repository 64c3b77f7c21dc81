//! Matching lines: grep's user patterns, and pack rules into evidence.

pub mod evidence;
pub mod grep;
pub mod rank;

pub use evidence::{ArtifactScan, Record, ScanOptions, scan_all, scan_artifact};
