//! Matching lines: grep's user patterns, and pack rules into evidence.

mod aggregate;
pub(crate) mod evidence;
pub(crate) mod grep;
pub(crate) mod rank;
pub(crate) mod schedule;
pub mod selftest;
mod window;

pub(crate) use evidence::{ArtifactScan, Record, ScanOptions};
pub(crate) use schedule::{scan_all, scan_artifact};
