//! Golden outputs on the committed samples (the real runs' are in the
//! `sweeps` target); how they are compared and blessed: `golden_support`.

use crate::golden_support::{compare, run_cases};
use crate::harness::root;

#[test]
fn golden_outputs_on_the_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let a = "samples/artifacts";
    let downloaded = "samples/artifacts/downloaded";
    let plain = "samples/artifacts/plain";
    let server = "samples/artifacts/server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip";
    let set = ["check", "--set", "inferencex"];
    let with = |head: &[&'static str], tail: &[&'static str]| -> Vec<&'static str> {
        head.iter().chain(tail).copied().collect()
    };
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("grep-n", vec!["grep", "-n", "Traceback|error", a]),
        ("grep-c", vec!["grep", "-c", "Capture cuda graph", a]),
        (
            "grep-json",
            vec!["grep", "--format", "jsonl", "accept len", a],
        ),
        (
            "grep-missing",
            vec!["grep", "-c", "Traceback", "missing.zip", plain],
        ),
        ("grep-l-glob", vec!["grep", "-l", "-g", "*.log", "TP", a]),
        ("scan-jsonl", vec!["scan", a]),
        ("scan-json", vec!["scan", "--format", "json", a]),
        ("scan-text", vec!["scan", "--format", "text", a]),
        ("scan-markdown", vec!["scan", "--format", "markdown", a]),
        ("scan-twice", vec!["scan", server, server]),
        ("check-jsonl", with(&set, &[a])),
        ("check-json", with(&set, &["--format", "json", a])),
        ("check-markdown", with(&set, &["--format", "markdown", a])),
        ("check-text", with(&set, &["--format", "text", a])),
        (
            "check-downloaded",
            with(&set, &["--format", "text", downloaded]),
        ),
        (
            "check-twice",
            with(&set, &["--format", "text", server, server]),
        ),
        (
            "check-verdicts-clean",
            with(
                &set,
                &[
                    "--param",
                    "al=3.39",
                    "--format",
                    "verdicts",
                    "--grouped",
                    "samples/verifier/runs/pass",
                ],
            ),
        ),
        (
            "check-verdicts-failing",
            with(
                &set,
                &[
                    "--param",
                    "al=3.5",
                    "--format",
                    "verdicts",
                    "samples/verifier/runs/fail",
                ],
            ),
        ),
        ("ls-text", vec!["ls", a]),
        ("ls-json", vec!["ls", "--json", a]),
    ];
    let outputs = run_cases(&root(), tmp.path(), &cases, &[a]);
    compare("samples", &outputs, true);
}
