//! Matching lines: grep's user patterns, and pack rules into evidence.

pub mod grep;
