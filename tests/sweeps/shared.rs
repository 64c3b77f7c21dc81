//! The shared inputs the sweeps read in place (`../shared/` beside the
//! clone: other people's files, never copied into the project).

use crate::harness::root;
use std::path::{Path, PathBuf};

/// A sweep whose shared input is absent fails: the sweeps are asked for
/// by name, so a missing input is never a silent pass.
pub fn missing_shared(what: &Path) -> ! {
    panic!("no {} (lay shared/ beside the clone)", what.display());
}

/// The shared corpus (`shared/corpus/` laid beside the clone), failing where it
/// is absent.
pub fn shared_corpus() -> Option<PathBuf> {
    let dir = root().join("../shared/corpus");
    if !dir.join("libarchive").is_dir() {
        missing_shared(&dir);
    }
    Some(dir)
}

/// The real run `name` (a `.tar.zst` of `../shared/corpus/real-runs`)
/// unpacked under `into`; fails where `shared/` is absent.
pub fn unpack_real_run(name: &str, into: &Path) -> Option<PathBuf> {
    let archive = root().join("../shared/corpus/real-runs").join(name);
    if !archive.is_file() {
        missing_shared(&archive);
    }
    let file = std::fs::File::open(&archive).unwrap();
    let dec = zstd::stream::read::Decoder::new(file).unwrap();
    tar::Archive::new(dec).unpack(into).unwrap();
    Some(into.to_path_buf())
}

/// The real run folders of `../shared/corpus/real-runs`.
pub const REAL_RUNS: &[&str] = &[
    "0604-glm5.1-fp4-mi355x-sglang-agentic-hicache.tar.zst",
    "0604-minimaxm2.5-fp8-mi355x-vllm-agentic-lmcache.tar.zst",
];

/// Every real run unpacked under `into`; fails where `shared/` is absent.
pub fn unpack_real_runs(into: &Path) {
    for name in REAL_RUNS {
        unpack_real_run(name, into);
    }
}
