//! The tests that read `../shared/` beside the clone (other people's
//! files, read in place): the archive corpus against libarchive's reading,
//! every truncation of its archives, the real InferenceX run folders judged
//! whole (goldens, the verifier's block, what ran, diff), and grep's flags
//! against rg 15 (`../shared/tools/rg`) and GNU grep. Not in `cargo test`'s default run (Cargo.toml: `test = false`);
//! `cargo test --release --test sweeps` runs them, and `.ci/run` does.
//! Asked for by name, they fail where the corpus is absent.

#[path = "../cli/harness.rs"]
#[allow(dead_code)]
mod harness;

#[path = "../cli/golden_support.rs"]
mod golden_support;
#[path = "../cli/verdict_support.rs"]
#[allow(dead_code)]
mod verdict_support;

mod corpus;
mod golden_real;
mod grep_flags;
mod real_run_views;
mod real_runs;
mod shared;
