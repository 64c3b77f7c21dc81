//! Reaching users: shell completions, the man page, the GitHub Action.

use crate::harness::*;
use std::process::Command;

#[test]
fn completions_are_valid_shell_and_know_the_commands() {
    let bash = artiscan(&["completions", "bash"]);
    assert_eq!(bash.code, 0, "{}", bash.stderr);
    for word in ["grep", "scan", "check", "cite", "ls", "--max-depth"] {
        assert!(bash.stdout.contains(word), "bash completion lacks {word}");
    }
    let syntax = Command::new("bash")
        .args(["-n", "-c", &bash.stdout])
        .status()
        .expect("run bash -n");
    assert!(syntax.success(), "bash completion script does not parse");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let run = artiscan(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("artiscan"), "{shell}");
    }
    assert_eq!(
        artiscan(&["completions", "tcsh"]).code,
        2,
        "unknown shell is a usage error"
    );
}

#[test]
fn man_page_is_roff_with_every_command() {
    let run = artiscan(&["man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".TH artiscan 1"), "roff title line");
    assert!(run.stdout.contains(".SH NAME"));
    for cmd in ["grep", "scan", "check", "cite", "audit", "ls"] {
        assert!(
            run.stdout.contains(&format!("artiscan\\-{cmd}(1)")),
            "man page lacks {cmd}"
        );
        // Each command's own page documents its options.
        let page = artiscan(&["man", cmd]);
        assert_eq!(page.code, 0, "{cmd}: {}", page.stderr);
        assert!(
            page.stdout.contains(&format!(".TH artiscan-{cmd} 1")),
            "{cmd}"
        );
    }
    let grep = artiscan(&["man", "grep"]).stdout;
    assert!(
        grep.contains("\\-\\-fixed\\-strings"),
        "grep page lists its flags"
    );
    assert_eq!(artiscan(&["man", "nosuch"]).code, 2);
}

/// Runs the Action's check step as GitHub would, with its files in a temp dir.
fn action(inputs: &[(&str, &str)]) -> (i32, String, String, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let output = dir.path().join("output.txt");
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("action/run.sh"))
        .current_dir(root())
        .env("ARTISCAN", env!("CARGO_BIN_EXE_artiscan"))
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .env("RUNNER_TEMP", dir.path());
    for (k, v) in inputs {
        cmd.env(format!("INPUT_{k}"), v);
    }
    let out = cmd.output().expect("run action/run.sh");
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        read(&summary),
        read(&output),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
    )
}

fn output_value<'a>(outputs: &'a str, key: &str) -> &'a str {
    outputs
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no output {key} in {outputs}"))
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn github_action_step_writes_summary_outputs_and_fails_per_input() {
    let artifacts = "samples/artifacts";
    let (code, summary, outputs, stderr, _dir) = action(&[
        ("PATHS", artifacts),
        ("SET", "inferencex"),
        ("FAIL_ON", "never"),
    ]);
    assert_eq!(code, 0, "fail-on never: {stderr}");
    assert!(
        summary.contains('|'),
        "Markdown verdict table in the summary: {summary}"
    );
    let json = output_value(&outputs, "json");
    let verdicts = std::fs::read_to_string(json).expect("JSON Lines file");
    let n = |status: &str| {
        verdicts
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|r| r["type"] == "verdict" && r["status"] == status)
            .count()
    };
    for (key, status) in [
        ("pass", "pass"),
        ("fail", "fail"),
        ("unknown", "unknown"),
        ("not-applicable", "not_applicable"),
    ] {
        assert_eq!(
            output_value(&outputs, key),
            n(status).to_string(),
            "{key} count"
        );
    }
    let exit: i32 = output_value(&outputs, "exit-code").parse().unwrap();
    assert!(n("fail") > 0, "the samples hold failing claims");
    assert_eq!(exit, 1);
    // The same artifacts with the default fail-on: the step fails.
    let (code, ..) = action(&[("PATHS", artifacts)]);
    assert_eq!(code, 1);
    // Bad input is an error, whatever fail-on says.
    let (code, _, _, stderr, _) = action(&[("PATHS", artifacts), ("FAIL_ON", "sometimes")]);
    assert_eq!(code, 2, "{stderr}");
    let (code, ..) = action(&[("PATHS", "samples/artifacts/plain"), ("PARAMS", "al")]);
    assert_eq!(code, 2, "a parameter without '=' is an error");
}

/// The `artiscan ...` lines of the skill's `sh` blocks.
fn skill_commands() -> Vec<String> {
    let skill = std::fs::read_to_string(root().join(".agents/skills/artiscan/SKILL.md")).unwrap();
    let mut in_sh = false;
    let mut cmds = Vec::new();
    for line in skill.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = t == "```sh";
            continue;
        }
        if in_sh && t.starts_with("artiscan ") {
            cmds.push(t.to_string());
        }
    }
    cmds
}

#[test]
fn every_command_of_the_agent_skill_runs_on_the_samples() {
    let cmds = skill_commands();
    assert!(cmds.len() >= 8, "the skill shows its commands: {cmds:?}");
    // The skill's run folder is a copy of the samples, laid out as downloaded.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("samples/artifacts/downloaded"),
        &dir.path().join("run-1234"),
    );
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_artiscan"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for cmd in &cmds {
        let out = Command::new("bash")
            .args(["-c", cmd])
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // `ls` exits 2 when a member could not be read (the damaged samples).
        let damaged_listing = cmd.starts_with("artiscan ls") && code == 2;
        assert!(
            matches!(code, 0 | 1 | 3) || damaged_listing,
            "skill command failed ({code}): {cmd}\n{stderr}"
        );
        if cmd.starts_with("artiscan cite") {
            assert_eq!(
                code, 0,
                "the skill's citation is confirmed: {cmd}\n{stderr}"
            );
        }
        assert!(!out.stdout.is_empty(), "no output: {cmd}");
    }
}

#[test]
fn one_output_spelling_and_no_progress_everywhere() {
    let s = sample("plain/server.log.gz");
    for args in [
        vec!["scan", "--no-progress", "--format", "text", &s],
        vec![
            "check",
            "--no-progress",
            "--set",
            "inferencex",
            "--format",
            "text",
            &s,
        ],
        vec![
            "grep",
            "--no-progress",
            "--format",
            "text",
            "Load weight",
            &s,
        ],
        vec!["ls", "--no-progress", &s],
    ] {
        let run = artiscan(&args);
        assert_ne!(run.code, 2, "{args:?}: {}", run.stderr);
    }
    // grep's --format jsonl is artiscan's records, --json rg's messages,
    // the same lines in both.
    let a = artiscan(&["grep", "--format", "jsonl", "Load weight", &s]);
    let b = artiscan(&["grep", "--json", "Load weight", &s]);
    let texts = |r: &Run, kind: &str, text: fn(&serde_json::Value) -> String| {
        r.records()
            .into_iter()
            .filter(|v| v["type"] == kind)
            .map(|v| text(&v))
            .collect::<Vec<_>>()
    };
    let ours = texts(&a, "evidence", |v| {
        format!("{}\n", v["text"].as_str().unwrap())
    });
    let rgs = texts(&b, "match", |v| {
        v["data"]["lines"]["text"].as_str().unwrap().to_string()
    });
    assert!(!ours.is_empty());
    assert_eq!(ours, rgs);
    // Markdown is for check only: scan says so instead of printing text.
    let md = artiscan(&["scan", "--format", "markdown", &s]);
    assert_eq!(md.code, 2);
    assert!(md.stderr.contains("Markdown"), "{}", md.stderr);
}

#[test]
fn check_set_completes_the_built_in_sets_and_checks_files() {
    let sets = artiscan(&["check", "--list"]);
    assert!(sets.stdout.contains("inferencex"), "{}", sets.stdout);
    let bash = artiscan(&["completions", "bash"]).stdout;
    // bash, in check's part: the words offered after `--set`, and file
    // names after `--checks`.
    let check = bash
        .split("artiscan__subcmd__check)")
        .nth(1)
        .expect("check's options in the bash script");
    let case = check
        .split("--set)")
        .nth(1)
        .and_then(|s| s.split(";;").next())
        .expect("a --set case in the bash script");
    assert!(case.contains("inferencex"), "{case}");
    assert!(!case.contains("compgen -f"), "not file names: {case}");
    let checks = check
        .split("--checks)")
        .nth(1)
        .and_then(|s| s.split(";;").next())
        .expect("a --checks case");
    assert!(checks.contains("compgen -f"), "{checks}");
    let zsh = artiscan(&["completions", "zsh"]).stdout;
    assert!(
        zsh.contains("--set=[A built-in check set"),
        "zsh names --set"
    );
    assert!(zsh.contains(":SET:(inferencex)"), "zsh offers the sets");
    // A set that does not exist is a usage error naming those that do.
    let bad = artiscan(&["check", "--set", "nope", "samples/artifacts"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("inferencex"), "{}", bad.stderr);
}

#[test]
fn help_and_man_pages_state_the_exit_status_and_examples() {
    for cmd in ["grep", "scan", "check", "cite", "ls", "show", "audit"] {
        let help = artiscan(&[cmd, "--help"]);
        assert_eq!(help.code, 0, "{cmd}");
        assert!(
            help.stdout.contains("Exit status:\n  0  "),
            "{cmd}: {}",
            help.stdout
        );
        assert!(help.stdout.contains("Examples:\n  artiscan "), "{cmd}");
        let page = artiscan(&["man", cmd]).stdout;
        assert!(
            page.contains(".SH \"EXIT STATUS\"\n.nf\n0  "),
            "{cmd}: {page}"
        );
        assert!(page.contains(".SH \"EXAMPLES\""), "{cmd}");
        assert!(page.contains("\nartiscan "), "{cmd}: an example");
        assert!(page.contains(".SH OPTIONS"), "{cmd}: options still there");
        assert!(!page.contains(".SH EXTRA"), "{cmd}");
    }
    let check = artiscan(&["check", "--help"]).stdout;
    assert!(check.contains("3  some verdict is unknown"), "{check}");
    let top = artiscan(&["man"]).stdout;
    assert!(top.contains(".SH \"EXIT STATUS\""), "{top}");
    assert!(artiscan(&["--help"]).stdout.contains("Exit status:"));
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn check_exits_2_with_a_message_for_an_input_it_cannot_read() {
    let art = "samples/artifacts/server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip";
    let alone = artiscan(&["check", "--set", "inferencex", "--format", "jsonl", art]);
    assert_ne!(alone.code, 2, "{}", alone.stderr);
    let missing = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "jsonl",
        "missing.zip",
        art,
    ]);
    assert_eq!(missing.code, 2, "{}", missing.stdout);
    assert!(missing.stderr.contains("missing.zip"), "{}", missing.stderr);
    // The rest is still judged; the missing path's claims are unknown,
    // named in the output itself (issue 45).
    let of = |r: &Run, scope: &str| -> Vec<serde_json::Value> {
        r.of_type("verdict")
            .into_iter()
            .filter(|v| v["scope"] == scope)
            .collect()
    };
    assert_eq!(of(&missing, art), of(&alone, art));
    let gone = of(&missing, "missing.zip");
    assert!(!gone.is_empty());
    assert!(gone.iter().all(|v| v["status"] == "unknown"), "{gone:?}");
    // A path that exists but cannot be read (a FIFO nobody writes to):
    // before, unknown verdicts (exit 3) and nothing on stderr.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("silent");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo = fifo.to_str().unwrap();
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "jsonl",
        fifo,
        art,
    ]);
    assert_eq!(run.code, 2, "{} {}", run.stdout, run.stderr);
    assert!(run.stderr.contains("silent"), "{}", run.stderr);
    assert!(run.stderr.contains("Io"), "{}", run.stderr);
}

/// The JSON keys `--help` names for `--format json` are the keys the
/// document has: scan's and check's.
#[test]
fn help_names_the_json_documents_keys() {
    let help = artiscan(&["check", "--help"]).stdout;
    // The `- json:` item, however clap wraps it.
    let from = help.find("- json:").expect("a json item in check --help");
    let line: String = help[from..]
        .split("- text:")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let named = |after: &str| -> Vec<String> {
        let doc = &line[line.find(after).expect(after)..];
        let doc = &doc[doc.find('{').unwrap()..=doc.find('}').unwrap()];
        doc.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let keys = |args: &[&str]| -> Vec<String> {
        let r = artiscan(args);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    };
    let mut scan_help = named("scan's");
    scan_help.sort();
    let log = sample("plain/vllm_server.log");
    assert_eq!(scan_help, keys(&["scan", "--format", "json", &log]));
    let mut check_help = named("check's");
    check_help.sort();
    let check = keys(&["check", "--set", "inferencex", "--format", "json", &log]);
    assert_eq!(check_help, check);
}

/// Every command and subcommand (audit's and packs' included) has a man
/// page and a help text, and every option it shows has a help line.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn every_subcommand_has_help_and_a_man_page() {
    let top = artiscan(&["--help"]).stdout;
    let names = |help: &str| -> Vec<String> {
        help.split("Commands:")
            .nth(1)
            .map(|list| {
                list.lines()
                    .skip(1)
                    .take_while(|l| l.starts_with("  "))
                    .filter_map(|l| l.split_whitespace().next())
                    .filter(|n| *n != "help")
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut paths: Vec<Vec<String>> = names(&top).into_iter().map(|n| vec![n]).collect();
    let mut i = 0;
    let mut missing = Vec::new();
    while i < paths.len() {
        let path = paths[i].clone();
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = artiscan(&args);
        assert_eq!(help.code, 0, "{path:?}: {}", help.stderr);
        // An option line followed by nothing but another option is an
        // option without help.
        let lines: Vec<&str> = help.stdout.lines().collect();
        for (k, l) in lines.iter().enumerate() {
            let opt = l.trim_start();
            let indent = l.len() - opt.len();
            let short = opt.len() > 2
                && opt.starts_with('-')
                && opt.as_bytes()[1].is_ascii_alphanumeric()
                && matches!(opt.as_bytes()[2], b',' | b' ');
            // Option lines are indented 2 to 6; possible values deeper.
            if (2..=6).contains(&indent) && (opt.starts_with("--") || short) {
                let next = lines.get(k + 1).map_or("", |n| n.trim());
                let inline = opt.split("  ").filter(|s| !s.is_empty()).count() > 1;
                if !inline && next.is_empty() {
                    missing.push(format!("{path:?}: {opt}"));
                }
            }
        }
        let mut man: Vec<&str> = vec!["man"];
        man.extend(path.iter().map(String::as_str));
        let page = artiscan(&man);
        assert_eq!(page.code, 0, "man {path:?}: {}", page.stderr);
        assert!(
            page.stdout
                .contains(&format!(".TH artiscan-{} 1", path.join("-"))),
            "man {path:?}"
        );
        for sub in names(&help.stdout) {
            let mut p = path.clone();
            p.push(sub);
            paths.push(p);
        }
        i += 1;
    }
    assert!(paths.iter().any(|p| p == &["audit", "report"]), "{paths:?}");
    assert!(missing.is_empty(), "options without help: {missing:#?}");
}
