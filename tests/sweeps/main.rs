//! The slow sweeps over the shared corpus (`../shared/corpus/` beside the
//! clone): the archive corpus against libarchive's reading, every
//! truncation of its archives, and the real InferenceX run folders judged
//! whole. Not in `cargo test`'s default run (Cargo.toml: `test = false`);
//! `cargo test --release --test sweeps` runs them, and `.ci/run` does.
//! Asked for by name, they fail where the corpus is absent.

#[path = "../cli/harness.rs"]
#[allow(dead_code)]
mod harness;

mod corpus;
mod real_runs;
