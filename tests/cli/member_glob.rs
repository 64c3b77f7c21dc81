//! `-g/--member GLOB` on grep, scan and check: rg's rules, and a member left
//! out is never read as "nothing there".

use crate::harness::*;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

const SERVER_LOGS: &str = "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

/// The real traceback shape (context.md §3): the scheduler line, then
/// unprefixed `File` lines.
const TRACEBACK: &str = "[2026-10-29 04:31:02 TP3 EP3] Scheduler hit an exception: Traceback (most recent call last):\n  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2721, in run_scheduler_process\n    scheduler.event_loop_overlap()\ntorch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB\n";

/// A tar.gz artifact like srt-slurm's: the real server log of the sample
/// as `logs/n1_agg_w0.out`, plus `logs/n1_agg_w0.err` holding `err`.
fn artifact(dir: &Path, err: &str) -> String {
    let log = extract(&sample(&format!("{SERVER_LOGS}.zip")), &["server.log"]);
    let mut tar = tar::Builder::new(Vec::new());
    for (name, data) in [
        ("logs/n1_agg_w0.out", &log[..]),
        ("logs/n1_agg_w0.err", err.as_bytes()),
    ] {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, name, data).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    let path = dir.join(format!("{SERVER_LOGS}.tar.gz"));
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

fn verdict(run: &Run, check: &str) -> Value {
    run.of_type("verdict")
        .into_iter()
        .find(|v| v["check"] == check)
        .unwrap_or_else(|| panic!("no {check} verdict: {}\n{}", run.stdout, run.stderr))
}

fn check(path: &str, globs: &[&str]) -> Run {
    let mut args = vec!["check", "--set", "inferencex", "--format", "jsonl"];
    for g in globs {
        args.extend(["-g", g]);
    }
    args.push(path);
    artiscan(&args)
}

#[test]
fn a_traceback_in_a_left_out_member_makes_no_traceback_unknown_not_pass() {
    let dir = tempfile::tempdir().unwrap();
    let path = artifact(dir.path(), TRACEBACK);
    // Read whole, the traceback fails the check: it is there to be found.
    assert_eq!(
        verdict(&check(&path, &[]), "no-traceback")["status"],
        "fail"
    );
    for globs in [
        &["*.out"][..],
        &["!*.err"],
        &["logs/*.out"],
        &["*", "!n1_agg_w0.err"],
    ] {
        let run = check(&path, globs);
        let v = verdict(&run, "no-traceback");
        assert_eq!(v["status"], "unknown", "-g {globs:?}: {v}");
        assert_eq!(verdict(&run, "no-oom")["status"], "unknown", "-g {globs:?}");
        // Coverage says which member was left out and why.
        let cov = &run.of_type("coverage")[0];
        assert_eq!(cov["complete"], false);
        let excluded: Vec<&Value> = cov["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "excluded")
            .collect();
        assert_eq!(excluded.len(), 1, "{cov}");
        assert_eq!(excluded[0]["members"][0], "logs/n1_agg_w0.err");
        assert!(excluded[0]["message"].as_str().unwrap().contains("-g"));
    }
    // Globs that leave nothing out change nothing.
    for globs in [&["*"][..], &["logs/*"], &["!*.json"]] {
        let run = check(&path, globs);
        assert_eq!(
            verdict(&run, "no-traceback")["status"],
            "fail",
            "-g {globs:?}"
        );
        assert_eq!(run.of_type("coverage")[0]["complete"], true);
    }
}

#[test]
fn a_clean_artifact_passes_only_when_nothing_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = artifact(
        dir.path(),
        "[2026-10-29 04:10:05] Warning: NUMA binding not available\n",
    );
    assert_eq!(
        verdict(&check(&path, &[]), "no-traceback")["status"],
        "pass"
    );
    assert_eq!(
        verdict(&check(&path, &["*"]), "no-traceback")["status"],
        "pass"
    );
    let left_out = check(&path, &["*.out"]);
    assert_eq!(verdict(&left_out, "no-traceback")["status"], "unknown");
    // Evidence from the members read is still cited; the verdict waits
    // for the member left out.
    let mono = verdict(&left_out, "monokernel-every-rank");
    assert_eq!(mono["status"], "unknown");
    assert!(
        mono["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .contains("!logs/n1_agg_w0.out:"),
        "{mono}"
    );
}

#[test]
fn grep_searches_only_the_chosen_members_like_rg() {
    let dir = tempfile::tempdir().unwrap();
    let path = artifact(dir.path(), TRACEBACK);
    let all = artiscan(&["grep", "-c", "", &path]);
    assert_eq!(all.stdout.lines().count(), 2, "{}", all.stdout);
    let out = artiscan(&["grep", "-c", "-g", "*.out", "", &path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    assert!(lines[0].contains("!logs/n1_agg_w0.out:"));
    // Leaving members out on purpose is no error: no message, grep's exit codes.
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let none = artiscan(&["grep", "-g", "*.out", "Traceback", &path]);
    assert_eq!(none.code, 1, "{}", none.stderr);
    assert!(none.stdout.is_empty());
    let found = artiscan(&["grep", "-g", "*.err", "Traceback", &path]);
    assert_eq!(found.code, 0);
    assert!(
        found.stdout.contains("logs/n1_agg_w0.err:1:"),
        "{}",
        found.stdout
    );
    // The last matching glob decides.
    let last = artiscan(&["grep", "-c", "-g", "!*.err", "-g", "*", "", &path]);
    assert_eq!(last.stdout.lines().count(), 2);
    // The JSON coverage record shows what was left out.
    let json = artiscan(&[
        "grep",
        "--format",
        "jsonl",
        "-g",
        "*.out",
        "Traceback",
        &path,
    ]);
    let cov = &json.of_type("coverage")[0];
    assert_eq!(cov["complete"], false);
    assert_eq!(cov["errors"][0]["kind"], "excluded");
    assert_eq!(json.of_type("summary")[0]["incomplete"], 1);
}

#[test]
fn scan_leaves_members_out_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = artifact(dir.path(), TRACEBACK);
    let all = artiscan(&["scan", "--only", "error.*", &path]);
    assert!(
        all.of_type("evidence")
            .iter()
            .any(|e| e["rule"] == "error.traceback"),
        "{}",
        all.stdout
    );
    let run = artiscan(&["scan", "--only", "error.*", "-g", "*.out", &path]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.of_type("evidence").is_empty(), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let cov = &run.of_type("coverage")[0];
    assert_eq!(cov["errors"][0]["kind"], "excluded");
    assert_eq!(cov["errors"][0]["members"][0], "logs/n1_agg_w0.err");
}

#[test]
fn a_bad_glob_is_an_error_that_quotes_it() {
    let run = artiscan(&["grep", "-g", "logs/[", "x", &sample("trtllm_logs.tar.zst")]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("-g \"logs/[\""), "{}", run.stderr);
}
