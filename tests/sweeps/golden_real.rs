//! Golden outputs on the real run folders of `../shared/corpus/` (only
//! their hashes are committed: other people's files); how they are
//! compared and blessed: `tests/cli/golden_support.rs`.

use crate::golden_support::{compare, run_cases};
use crate::shared::unpack_real_runs;

#[test]
fn golden_outputs_on_the_real_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    unpack_real_runs(&runs);
    let mut folders: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let f: Vec<&str> = folders.iter().map(String::as_str).collect();
    let with =
        |head: &[&'static str]| -> Vec<&str> { head.iter().copied().chain(f.clone()).collect() };
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("grep-c", with(&["grep", "-c", "Traceback"])),
        ("scan-jsonl", with(&["scan"])),
        ("scan-text", with(&["scan", "--format", "text"])),
        ("check-jsonl", with(&["check", "--set", "inferencex"])),
        (
            "check-markdown",
            with(&["check", "--set", "inferencex", "--format", "markdown"]),
        ),
        (
            "check-text",
            with(&["check", "--set", "inferencex", "--format", "text"]),
        ),
        ("ls-json", with(&["ls", "--json"])),
    ];
    let outputs = run_cases(&runs, tmp.path(), &cases, &f);
    compare("real-runs", &outputs, false);
}
