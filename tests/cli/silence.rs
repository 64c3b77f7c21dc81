//! Silence becomes a message (issue 45): a check file's mistakes are load
//! errors that say where, readable as printed.

use crate::harness::{artiscan_in, sample, zip_folder};

/// A check file naming a capture `sglang.server_args` never records (its
/// dump keeps a known list of keys) is a load error naming the capture,
/// as a mistyped capture of a fixed rule is; it was accepted and FAILed
/// every artifact.
#[test]
fn a_mistyped_capture_of_a_dump_rule_is_a_load_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let checks = "[[check]]\nid = \"tp-is-two\"\ndescription = \"every server ran with tp 2\"\nrule = \"sglang.server_args\"\nexpect = \"absent\"\nwhere = { tp_szie = 2 }\n";
    std::fs::write(d.join("typo.toml"), checks).unwrap();
    let input = crate::harness::root().join(sample("plain/server.log.gz"));
    let input = input.to_str().unwrap();
    let r = artiscan_in(d, &["check", "--checks", "typo.toml", input]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(r.stderr.contains("tp_szie"), "{}", r.stderr);
    assert!(
        r.stderr.contains("tp_size"),
        "the captures it has: {}",
        r.stderr
    );
    // Spelled right, it loads and judges.
    std::fs::write(d.join("ok.toml"), checks.replace("tp_szie", "tp_size")).unwrap();
    let r = artiscan_in(d, &["check", "--checks", "ok.toml", input]);
    assert_ne!(r.code, 2, "{}", r.stderr);
}

/// A TOML error in a check file prints the parser's snippet on lines of
/// its own (it printed a literal `\n` between them).
#[test]
fn toml_errors_print_real_line_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("bad.toml"),
        "[[check]]\nid = \"x\"\nrule = \"env.var\"\nexpect = \"absent\"\nwhere = { name = \"A\" \n",
    )
    .unwrap();
    let input = crate::harness::root().join(sample("plain/server.log.gz"));
    let r = artiscan_in(
        d,
        &["check", "--checks", "bad.toml", input.to_str().unwrap()],
    );
    assert_eq!(r.code, 2);
    assert!(!r.stderr.contains("\\n"), "{}", r.stderr);
    assert!(
        r.stderr.lines().any(|l| l.starts_with("5 | where")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.starts_with("artiscan: bad.toml: "), "{}", r.stderr);
}

/// A path that does not exist is named in the Markdown report itself, its
/// claims unknown (it printed a clean table, the error on stderr only),
/// with exit code 2 and the error on stderr once.
#[test]
fn a_missing_path_is_in_the_markdown_report() {
    let dir = tempfile::tempdir().unwrap();
    let r = artiscan_in(
        dir.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "--format",
            "markdown",
            "server_logs_missing.zip",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap_or_default();
    assert!(!first.contains(" 0 unknown"), "{first}");
    assert!(
        r.stdout
            .lines()
            .any(|l| l.contains("unknown") && l.contains("server_logs_missing.zip")),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stderr.matches("server_logs_missing.zip").count(),
        1,
        "{}",
        r.stderr
    );
}

/// A 0-byte `server.log` is a finding: "server.log is empty: the server
/// logged nothing", and the claims about the artifact are unknown (they
/// were all not applicable, exit 0), in an extracted folder and in a zip
/// alike, in `check` and `audit` alike (no twin here: see
/// [`an_empty_server_log_is_judged_on_its_twins_complete_copy`]).
#[test]
fn an_empty_server_log_makes_its_claims_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
    let folder = d.join("runs/1").join(name);
    std::fs::create_dir_all(folder.join("results")).unwrap();
    let from = crate::harness::root()
        .join("samples/artifacts/downloaded")
        .join(name);
    for f in [
        "results/bench_conc64.log",
        "results/bench_conc64_config.json",
    ] {
        std::fs::copy(from.join(f), folder.join(f)).unwrap();
    }
    std::fs::write(folder.join("server.log"), "").unwrap();
    std::fs::create_dir_all(d.join("runs/2")).unwrap();
    let zipped = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import os, sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:\n\
             \x20   for d, _, fs in os.walk(sys.argv[1]):\n\
             \x20       for f in sorted(fs):\n\
             \x20           p = os.path.join(d, f)\n\
             \x20           z.write(p, os.path.relpath(p, sys.argv[1]))\n",
        )
        .arg(&folder)
        .arg(d.join(format!("runs/2/{name}.zip")))
        .status()
        .unwrap();
    assert!(zipped.success());
    let r = artiscan_in(d, &["check", "--set", "inferencex", "runs"]);
    // Named in the reasons, and in the coverage record with why.
    assert!(r.stdout.contains("server.log (empty)"), "{}", r.stdout);
    assert!(
        r.of_type("coverage").iter().any(|c| c["errors"]
            .to_string()
            .contains("server.log is empty: the server logged nothing")),
        "{}",
        r.stdout
    );
    let verdicts = crate::harness::checked_verdicts(&r);
    for scope in [format!("runs/1/{name}"), format!("runs/2/{name}.zip")] {
        let status = |check: &str| {
            verdicts
                .iter()
                .find(|(s, c, _)| *s == scope && c == check)
                .unwrap_or_else(|| panic!("{scope} {check}: {verdicts:?}"))
                .2
                .clone()
        };
        for check in ["no-traceback", "no-oom", "nextn-fp8-moe-unset"] {
            assert_eq!(status(check), "unknown", "{scope} {check}");
        }
    }
    let audited = artiscan_in(d, &["audit", "runs", "--db", "a.sqlite"]);
    assert_eq!(audited.code, 0, "{}", audited.stderr);
    let exported = artiscan_in(d, &["audit", "export", "--db", "a.sqlite", "--verdicts"]);
    assert_eq!(crate::harness::checked_verdicts(&exported), verdicts);
}

/// An `agentic_` artifact whose `server.log` is empty is judged on its
/// `server_logs_` twin's complete copy of the log, in the same run: the
/// twin clean, no-traceback passes; the twin holding sglang's scheduler
/// Traceback, it fails; the reason names the copy that decided. With no
/// twin in its run (run 1's twin is of another run), it stays unknown.
/// Extracted folders and zips alike, `check` and `audit` alike.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn an_empty_server_log_is_judged_on_its_twins_complete_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rf = "glm5.1_tp8_conc16_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";
    let from = crate::harness::root()
        .join("samples/verifier/runs/pass")
        .join(format!("agentic_{rf}"));
    let clean = std::fs::read_to_string(from.join("server.log")).unwrap();
    let crashed = format!(
        "{clean}[2026-10-29 04:20:03 TP0] Scheduler hit an exception: Traceback (most recent call last):\n\
         \x20 File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2581, in run_scheduler_process\n\
         \x20   scheduler.event_loop_overlap()\n\
         RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled cuda error\n"
    );
    // Run N holds the agentic artifact (empty log) and, if any, its twin.
    let make = |run: &str, twin: Option<&str>| {
        let agentic = d.join("tmp").join(run).join(format!("agentic_{rf}"));
        std::fs::create_dir_all(&agentic).unwrap();
        for f in ["benchmark_command.txt", "srt-setup.log"] {
            std::fs::copy(from.join(f), agentic.join(f)).unwrap();
        }
        std::fs::write(agentic.join("server.log"), "").unwrap();
        let mut made = vec![agentic];
        if let Some(log) = twin {
            let t = d.join("tmp").join(run).join(format!("server_logs_{rf}"));
            std::fs::create_dir_all(&t).unwrap();
            std::fs::write(t.join("server.log"), log).unwrap();
            made.push(t);
        }
        made
    };
    let cases = [
        ("1", Some(clean.as_str()), "pass"),
        ("2", Some(crashed.as_str()), "fail"),
        ("3", None, "unknown"),
    ];
    for (run, twin, _) in cases {
        let made = make(run, twin);
        let folders = d.join("folders").join(run);
        let zips = d.join("zips").join(run);
        std::fs::create_dir_all(&folders).unwrap();
        std::fs::create_dir_all(&zips).unwrap();
        for m in made {
            let name = m.file_name().unwrap().to_owned();
            zip_folder(&m, &zips.join(format!("{}.zip", name.to_string_lossy())));
            std::fs::rename(&m, folders.join(&name)).unwrap();
        }
    }
    let r = artiscan_in(d, &["check", "--set", "inferencex", "folders", "zips"]);
    let verdicts = crate::harness::checked_verdicts(&r);
    for (run, _, want) in cases {
        for scope in [
            format!("folders/{run}/agentic_{rf}"),
            format!("zips/{run}/agentic_{rf}.zip"),
        ] {
            let v = verdicts
                .iter()
                .find(|(s, c, _)| *s == scope && c == "no-traceback")
                .unwrap_or_else(|| panic!("{scope}: {verdicts:?}"));
            assert_eq!(v.2, want, "{scope}");
        }
    }
    let reasons: Vec<String> = r
        .of_type("verdict")
        .iter()
        .filter(|v| v["check"] == "no-traceback")
        .map(|v| format!("{} {}", v["scope"], v["reason"]))
        .collect();
    for (twin, ext) in [("folders/1", ""), ("zips/2", ".zip")] {
        let decided = format!(
            "server.log is empty here: judged on its complete copy in {twin}/server_logs_{rf}{ext}"
        );
        assert!(
            reasons.iter().any(|l| l.contains(&decided)),
            "{decided}: {reasons:#?}"
        );
    }
    let audited = artiscan_in(d, &["audit", "folders", "zips", "--db", "a.sqlite"]);
    assert_ne!(audited.code, 2, "{}", audited.stderr);
    let exported = artiscan_in(d, &["audit", "export", "--db", "a.sqlite", "--verdicts"]);
    assert_eq!(crate::harness::checked_verdicts(&exported), verdicts);
    // The twins gone, a re-audit judges the empty logs again (unknown), as
    // check does, rather than keep the twins' verdicts.
    std::fs::remove_dir_all(d.join(format!("folders/1/server_logs_{rf}"))).unwrap();
    std::fs::remove_file(d.join(format!("zips/1/server_logs_{rf}.zip"))).unwrap();
    let r = artiscan_in(d, &["check", "--set", "inferencex", "folders", "zips"]);
    let verdicts = crate::harness::checked_verdicts(&r);
    for scope in [
        format!("folders/1/agentic_{rf}"),
        format!("zips/1/agentic_{rf}.zip"),
    ] {
        assert!(
            verdicts
                .iter()
                .any(|(s, c, st)| *s == scope && c == "no-traceback" && st == "unknown"),
            "{scope}: {verdicts:?}"
        );
    }
    let audited = artiscan_in(d, &["audit", "folders", "zips", "--db", "a.sqlite"]);
    assert_ne!(audited.code, 2, "{}", audited.stderr);
    let exported = artiscan_in(d, &["audit", "export", "--db", "a.sqlite", "--verdicts"]);
    assert_eq!(crate::harness::checked_verdicts(&exported), verdicts);
}
