//! One `gh run download` folder is one run whatever its artifacts' inner
//! layout, and a zip of a whole run folder is that run, named by the zip:
//! run-scope verdicts, the rows and "what ran" speak of one run each.

use crate::harness::*;
use std::collections::BTreeMap;

/// How many run-scope and artifact-scope verdicts each scope got.
fn scopes(run: &Run) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for v in run.of_type("verdict") {
        *out.entry(v["scope"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    out
}

#[test]
fn a_multinode_artifact_with_a_folder_per_concurrency_is_one_run() {
    // A truncated multinode download: the one artifact holds a folder per
    // concurrency (it was split into a run per folder before).
    let tmp = tempfile::tempdir().unwrap();
    let mn = "multinode_server_logs_dsr1_fp4_dynamo-trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-mtp_conc64_gb200-nv_01";
    for conc in [64, 128] {
        let logs = tmp.path().join(format!("dl/{mn}/conc{conc}/logs"));
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(
            logs.join("decode_w0.out"),
            "[2026-10-29 04:01:00] INFO worker started\n",
        )
        .unwrap();
    }
    let run = artiscan_in(
        tmp.path(),
        &["check", "--set", "inferencex", "--format", "jsonl", "dl"],
    );
    assert_ne!(run.code, 2, "{}", run.stderr);
    let got = scopes(&run);
    assert_eq!(
        got.keys().cloned().collect::<Vec<_>>(),
        ["dl".to_string(), format!("dl/{mn}")],
        "{got:?}"
    );
    assert_eq!(got["dl"], inferencex_run_checks().len(), "{got:?}");
}

#[test]
fn a_zip_of_a_whole_run_folder_is_that_run_named_by_the_zip() {
    let tmp = tempfile::tempdir().unwrap();
    let zip = tmp.path().join("run-1234.zip");
    zip_folder(&root().join("samples/verifier/runs/pass"), &zip);
    let args = ["check", "--set", "inferencex", "--param", "al=3.39"];
    let jsonl = artiscan_in(
        tmp.path(),
        &[&args[..], &["--format", "jsonl", "run-1234.zip"]].concat(),
    );
    assert_ne!(jsonl.code, 2, "{}", jsonl.stderr);
    let got = scopes(&jsonl);
    assert_eq!(
        got.keys().cloned().collect::<Vec<_>>(),
        ["run-1234.zip"],
        "{got:?}"
    );
    let rows = artiscan_in(
        tmp.path(),
        &[&args[..], &["--format", "verdicts", "run-1234.zip"]].concat(),
    );
    assert!(
        rows.stdout.contains("**What ran** in run `run-1234.zip`"),
        "{}",
        rows.stdout
    );
    assert!(!rows.stdout.contains("run `.`"), "{}", rows.stdout);
    // Its rows are the extracted folder's, but for the citations' prefix.
    let folder = artiscan(
        &[
            &args[..],
            &["--format", "verdicts", "samples/verifier/runs/pass"],
        ]
        .concat(),
    );
    let marks = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains(" Check "))
            .map(|l| l.split(" — ").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(marks(&rows.stdout), marks(&folder.stdout));
    assert_eq!(marks(&rows.stdout).len(), 7, "{}", rows.stdout);
}
