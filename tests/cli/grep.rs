//! `artiscan grep`: citations and line numbers against an independent
//! extraction, formats, damaged inputs, flags and exit codes.

use crate::harness::*;

const MULTI: &str = "multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip";

fn hits(stdout: &str, prefix: &str) -> Vec<u64> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .map(|rest| rest.split(':').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn zip_in_tar_gz_citations_match_grep_n() {
    let art = sample(MULTI);
    let run = artiscan(&["grep", "target_verify", &art]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for member in [
        "./gb200-node01_decode_w0.out",
        "./gb200-node01_decode_w0.err.gz",
    ] {
        let data = extract(&art, &["multinode_server_logs.tar.gz", member]);
        let want = grep_n(&data, "target_verify");
        assert!(!want.is_empty(), "{member} has target_verify lines");
        let prefix = format!("{art}!multinode_server_logs.tar.gz!{member}:");
        assert_eq!(hits(&run.stdout, &prefix), want, "{member}");
    }
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn json_offsets_point_at_the_line_start() {
    let art = sample(MULTI);
    let run = artiscan(&["grep", "--format", "jsonl", "-e", r"SGLANG_\w+=", &art]);
    assert_eq!(run.code, 0);
    let ev = run.of_type("evidence");
    assert!(ev.len() >= 3);
    for e in &ev {
        let members: Vec<&str> = e["location"]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let data = extract(&art, &members);
        let off = e["location"]["byte_offset"].as_u64().unwrap() as usize;
        let line = e["location"]["line"].as_u64().unwrap() as usize;
        let text = e["text"].as_str().unwrap();
        assert!(
            data[off..].starts_with(text.as_bytes()),
            "offset of {}",
            e["citation"]
        );
        let nth = data.split(|&b| b == b'\n').nth(line - 1).unwrap();
        assert_eq!(nth, text.as_bytes());
        assert_eq!(
            e["citation"],
            format!(
                "{}:{line}",
                [vec![art.as_str()], members].concat().join("!")
            )
        );
    }
    let cov = run.of_type("coverage");
    assert_eq!(cov.len(), 1);
    assert_eq!(cov[0]["complete"], true);
    assert_eq!(cov[0]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(run.of_type("summary")[0]["schema_version"], "6");
}

#[test]
fn context_lines_and_separators() {
    let art = sample(
        "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip",
    );
    let run = artiscan(&["grep", "-F", "Finished streaming dequant", "-C", "2", &art]);
    assert_eq!(run.code, 0);
    let data = extract(&art, &["server.log"]);
    let want = grep_n(&data, "Finished streaming dequant");
    let matched = run.stdout.lines().filter(|l| {
        l.contains("!server.log:")
            && l.split_once("!server.log:")
                .unwrap()
                .1
                .split_once(':')
                .is_some_and(|(n, _)| n.parse::<u64>().is_ok())
    });
    let got: Vec<u64> = matched
        .filter_map(|l| {
            l.split("!server.log:")
                .nth(1)?
                .split(':')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(got, want);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.contains(&format!("!server.log:{}-", want[0] - 1))),
        "before-context line"
    );
}

#[test]
fn stdin_gzip_and_multi_member_numbering() {
    let gz = std::fs::read(root().join(sample("plain/server.log.gz"))).unwrap();
    let run = artiscan_stdin(&["grep", "routing check", "-"], &gz);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let data = extract(&sample("plain/server.log.gz"), &[]);
    let want = grep_n(&data, "routing check");
    assert_eq!(hits(&run.stdout, "-:"), want);
    assert!(
        want.iter().any(|&n| n > 47),
        "a hit in the second gzip member"
    );
}

#[test]
fn crlf_ansi_and_invalid_utf8() {
    let art = sample("plain/vllm_server.log");
    let run = artiscan(&["grep", "--format", "jsonl", "Mean acceptance length", &art]);
    let ev = run.of_type("evidence");
    let data = std::fs::read(root().join(&art)).unwrap();
    assert_eq!(
        ev.iter()
            .map(|e| e["location"]["line"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        grep_n(&data, "Mean acceptance length")
    );
    for e in &ev {
        let t = e["text"].as_str().unwrap();
        assert!(!t.contains('\x1b') && !t.ends_with('\r'), "cleaned: {t:?}");
    }
    // A match split by colour codes in the raw bytes is still found.
    let run = artiscan(&["grep", "-F", "-c", "(Worker_TP1 pid=", &art]);
    let raw_hits = grep_n(&data, "(Worker_TP1 pid=").len();
    let count: usize = run
        .stdout
        .trim()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(count >= raw_hits && count > 0, "{count} vs {raw_hits}");
    // Invalid UTF-8 on the lines around a match hides nothing.
    let run = artiscan(&[
        "grep",
        "--format",
        "jsonl",
        "-e",
        "Received request cmpl-9f1c20aa|garbled bytes|Mean acceptance length: 2.69",
        &art,
    ]);
    let ev = run.of_type("evidence");
    assert_eq!(
        ev.iter()
            .map(|e| e["location"]["line"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![59, 60, 61]
    );
    assert_eq!(
        ev.iter().map(|e| e["lossy"] == true).collect::<Vec<_>>(),
        vec![true, false, true]
    );
}

#[test]
fn bom_is_ignored_on_the_first_line() {
    let art = sample("logs_12345678.zip");
    let run = artiscan(&["grep", "--format", "jsonl", "^2026-10-29T", &art]);
    let firsts: Vec<_> = run
        .of_type("evidence")
        .into_iter()
        .filter(|e| e["location"]["line"] == 1)
        .collect();
    assert_eq!(
        firsts.len(),
        3,
        "line 1 of each job log matches ^ once the BOM is dropped"
    );
}

#[test]
fn damaged_artifacts_keep_what_is_readable() {
    let trunc = sample(
        "damaged/truncated_multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.tar.gz",
    );
    let run = artiscan(&[
        "grep",
        "--format",
        "jsonl",
        "SGLANG_SIMULATE_ACC_LEN|routing check",
        &trunc,
    ]);
    assert_eq!(run.code, 0, "matches despite the error");
    let ev = run.of_type("evidence");
    assert!(
        ev.iter()
            .any(|e| e["location"]["members"][0] == "./sweep_8812345.log")
    );
    assert!(
        ev.iter()
            .any(|e| e["location"]["members"][0] == "./gb200-node01_decode_w0.out"),
        "complete lines of the cut member"
    );
    let cov = &run.of_type("coverage")[0];
    assert_eq!(cov["complete"], false);
    assert_eq!(cov["errors"][0]["kind"], "truncated");
    assert_eq!(
        cov["errors"][0]["members"][0],
        "./gb200-node01_decode_w0.out"
    );
    assert!(run.stderr.contains("gb200-node01_decode_w0.out"));

    let cut = sample(
        "damaged/cut_server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip",
    );
    let run = artiscan(&["grep", "--format", "jsonl", "routing check", &cut]);
    assert_eq!(
        run.of_type("evidence").len(),
        8,
        "every routing line of the cut zip's server.log"
    );
    let cov = &run.of_type("coverage")[0];
    assert_eq!(
        (cov["complete"].as_bool(), cov["members"].as_u64()),
        (Some(false), Some(3))
    );

    let corrupt = sample("damaged/corrupt_server.log.gz");
    let run = artiscan(&["grep", "--format", "jsonl", "routing check", &corrupt]);
    assert_eq!(
        run.of_type("evidence").len(),
        16,
        "lines before the bad block"
    );
    assert_eq!(run.of_type("coverage")[0]["errors"][0]["kind"], "corrupt");

    let core = sample("damaged/core_dump_artifact.zip");
    let run = artiscan(&["grep", "--format", "jsonl", "target_verify", &core]);
    assert_eq!(run.of_type("evidence").len(), 1);
    let cov = &run.of_type("coverage")[0];
    // The core dump holds no log lines: passed over with a note, the
    // artifact complete (issue 45; it was a skipped member, issue 13).
    assert_eq!(cov["complete"], true);
    assert_eq!(cov["notes"][0]["kind"], "core_dump");
    assert_eq!(cov["notes"][0]["members"][0], "core.12345");
    let run = artiscan(&["grep", "-c", "--binary", "ELF", &core]);
    assert!(run.stdout.contains("core.12345:1"), "{}", run.stdout);
}

#[test]
fn bad_artifact_does_not_stop_the_others() {
    let run = artiscan(&[
        "grep",
        "-c",
        "routing check",
        "samples/artifacts/damaged",
        "no-such-file.zip",
    ]);
    // Found, but an input could not be read: 2, as grep and rg.
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no-such-file.zip"));
    assert!(run.stdout.contains("core_dump_artifact.zip!server.log:1"));
    assert!(run.stdout.contains("corrupt_server.log.gz:16"));
}

#[test]
fn flags_and_exit_codes() {
    let art = sample(
        "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip",
    );
    let data = extract(&art, &["server.log"]);
    let total = data.split(|&b| b == b'\n').count() as u64 - u64::from(data.ends_with(b"\n"));
    let n = grep_n(&data, "Decode batch").len() as u64;
    let count = |args: &[&str]| -> u64 {
        let run = artiscan(&[&["grep", "-c"], args, &[art.as_str()]].concat());
        run.stdout
            .lines()
            .find(|l| l.contains("!server.log:"))
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(count(&["Decode batch"]), n);
    assert_eq!(count(&["-v", "Decode batch"]), total - n);
    assert_eq!(count(&["-i", "decode BATCH"]), n);
    assert_eq!(count(&["-w", "Decode"]), n);
    assert_eq!(count(&["-w", "Decod"]), 0);
    let run = artiscan(&["grep", "-l", "Decode batch", &art]);
    assert_eq!(run.stdout.trim(), format!("{art}!server.log"));
    assert_eq!(artiscan(&["grep", "no such text anywhere", &art]).code, 1);
    assert_eq!(artiscan(&["grep", "x", "missing.zip"]).code, 2);
    assert_eq!(artiscan(&["grep", "(unclosed", &art]).code, 2);
}

#[test]
fn one_thread_output_is_in_walk_order() {
    let artifact = |l: &str| l.split('!').next().unwrap().to_string();
    let run = artiscan(&["grep", "-j1", "-l", "routing check", "samples/artifacts"]);
    let order: Vec<String> = run.stdout.lines().map(artifact).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    let run2 = artiscan(&["grep", "-j2", "-l", "routing check", "samples/artifacts"]);
    let mut l1: Vec<&str> = run.stdout.lines().collect();
    let mut l2: Vec<&str> = run2.stdout.lines().collect();
    l1.sort();
    l2.sort();
    assert_eq!(l1, l2);
}

/// grep and rg habits, each flag against what it must print.
mod habits {
    use crate::harness::*;

    const ZIP: &str = "samples/artifacts/multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip";

    fn lines(r: &Run) -> Vec<&str> {
        r.stdout.lines().collect()
    }

    #[test]
    fn pattern_starting_with_dash_and_patterns_from_a_file() {
        let r = artiscan(&["grep", "-e", "--tp-size", ZIP]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(lines(&r).iter().all(|l| l.contains("--tp-size")));
        let dir = tempfile::tempdir().unwrap();
        let pats = dir.path().join("p.txt");
        std::fs::write(&pats, "--tp-size\nmonokernel routing check\n").unwrap();
        let f = artiscan(&["grep", "-c", "-f", pats.to_str().unwrap(), ZIP]);
        let e = artiscan(&[
            "grep",
            "-c",
            "-e",
            "--tp-size",
            "-e",
            "monokernel routing check",
            ZIP,
        ]);
        assert_eq!(f.code, 0, "{}", f.stderr);
        assert_eq!(f.stdout, e.stdout, "-f FILE is -e per line");
    }

    #[test]
    fn only_matching_line_regexp_and_max_count() {
        let o = artiscan(&["grep", "-o", "accept len: [0-9.]+", ZIP]);
        assert!(!o.stdout.is_empty());
        for l in lines(&o) {
            let text = l.rsplit_once(':').map(|(a, _)| a).unwrap();
            assert!(text.ends_with("accept len"), "{l}");
            assert!(
                l.rsplit(':').next().unwrap().trim().parse::<f64>().is_ok(),
                "{l}"
            );
        }
        // -x: the whole line must match.
        let part = artiscan(&["grep", "-x", "Decode batch", ZIP]);
        assert_eq!(part.code, 1, "a part of a line is not a whole line");
        let whole = artiscan(&["grep", "-x", r".*Decode batch.*", ZIP]);
        assert_eq!(whole.code, 0);
        // -m 2: at most two matching lines per member.
        let m = artiscan(&["grep", "-c", "-m", "2", "Decode batch", ZIP]);
        let counts: Vec<u64> = lines(&m)
            .iter()
            .map(|l| l.rsplit(':').next().unwrap().parse().unwrap())
            .collect();
        assert!(
            counts.iter().all(|&c| c <= 2) && counts.contains(&2),
            "{counts:?}"
        );
        let all = artiscan(&["grep", "-m", "1", "Decode batch", ZIP]);
        let n_members = lines(&m).iter().filter(|l| !l.ends_with(":0")).count();
        assert_eq!(
            lines(&all).len(),
            n_members,
            "one line per member with -m 1"
        );
    }

    #[test]
    fn quiet_files_without_match_and_no_filename() {
        let q = artiscan(&["grep", "-q", "Decode batch", ZIP]);
        assert_eq!((q.code, q.stdout.as_str()), (0, ""));
        let q = artiscan(&["grep", "-q", "no such text anywhere", ZIP]);
        assert_eq!((q.code, q.stdout.as_str()), (1, ""));
        // -L lists exactly the members -c counts 0 for.
        let l = artiscan(&["grep", "-L", "Decode batch", ZIP]);
        let c = artiscan(&["grep", "-c", "Decode batch", ZIP]);
        let zero: Vec<&str> = lines(&c)
            .iter()
            .filter_map(|l| l.strip_suffix(":0"))
            .collect();
        assert_eq!(lines(&l), zero);
        assert!(!zero.is_empty());
        // -h: citations without the artifact path; -H is the default.
        let h = artiscan(&["grep", "-h", "monokernel routing check", ZIP]);
        let big_h = artiscan(&["grep", "-H", "monokernel routing check", ZIP]);
        assert_eq!(lines(&h).len(), lines(&big_h).len());
        for (a, b) in lines(&h).iter().zip(lines(&big_h)) {
            assert!(a.starts_with("multinode_server_logs.tar.gz!"), "{a}");
            assert_eq!(b, format!("{ZIP}!{a}"));
        }
        // On a plain file -h leaves no member: -c prints the count alone
        // (as grep -c -h), -l still names the file (as grep -l does).
        let log = "samples/artifacts/plain/vllm_server.log";
        let n = std::fs::read(root().join(log))
            .unwrap()
            .split(|&b| b == b'\n')
            .filter(|l| l.windows(4).any(|w| w == b"INFO"))
            .count();
        assert!(n > 0);
        let c = artiscan(&["grep", "-c", "-h", "INFO", log]);
        assert_eq!(c.stdout, format!("{n}\n"));
        let l = artiscan(&["grep", "-l", "-h", "INFO", log]);
        assert_eq!(l.stdout, format!("{log}\n"));
        // -n, -r and -E are what grep already does.
        let plain = artiscan(&["grep", "monokernel", "samples/artifacts"]);
        let habits = artiscan(&["grep", "-n", "-r", "-E", "monokernel", "samples/artifacts"]);
        assert_eq!(plain.stdout, habits.stdout);
    }

    #[test]
    fn messages_patterns_and_help() {
        // -s silences messages about damaged artifacts, not the exit code.
        let loud = artiscan(&["grep", "zzz-no-match", "samples/artifacts/damaged"]);
        let quiet = artiscan(&["grep", "-s", "zzz-no-match", "samples/artifacts/damaged"]);
        assert!(!loud.stderr.is_empty());
        assert_eq!(quiet.stderr, "");
        assert_eq!(quiet.code, loud.code);
        // A bad pattern is quoted as written, not as artiscan wraps it.
        let bad = artiscan(&["grep", "-e", "ok", "-e", "foo(", ZIP]);
        assert_eq!(bad.code, 2);
        assert!(bad.stderr.contains("\"foo(\""), "{}", bad.stderr);
        assert!(!bad.stderr.contains("(?m"), "{}", bad.stderr);
        // -a searches binary members, as --binary.
        let core = "samples/artifacts/damaged/core_dump_artifact.zip";
        let a = artiscan(&["grep", "-a", "-c", "", core]);
        let b = artiscan(&["grep", "--binary", "-c", "", core]);
        assert_eq!(a.stdout, b.stdout);
        // Sizes take suffixes, as in rg.
        let sized = artiscan(&[
            "grep",
            "-c",
            "--max-bytes",
            "64G",
            "--max-line",
            "1M",
            "Decode",
            ZIP,
        ]);
        assert_eq!(sized.code, 0, "{}", sized.stderr);
        // Every flag has help text.
        let help = artiscan(&["grep", "--help"]);
        let help_lines: Vec<&str> = help.stdout.lines().collect();
        for flag in [
            "-i,", "-A,", "-B,", "-C,", "-o,", "-q,", "-m,", "-L,", "-x,", "-f,", "-h,",
        ] {
            let at = help_lines
                .iter()
                .position(|l| l.trim_start().starts_with(flag))
                .unwrap_or_else(|| panic!("{flag} not in help"));
            // Its description: words after the flag spec, on its line and
            // the lines up to the next flag.
            let described: Vec<&str> = help_lines[at + 1..]
                .iter()
                .take_while(|l| !l.trim_start().starts_with('-'))
                .chain(std::iter::once(&help_lines[at]))
                .flat_map(|l| l.split_whitespace())
                .filter(|w| !w.starts_with('-') && !w.starts_with('<'))
                .collect();
            assert!(described.len() >= 2, "{flag} has no help: {described:?}");
        }
    }
}

/// A folder with `a.log` (51 lines `foo N`) and `b.log` (`bar`, `Foo x`).
fn rg_habits_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a: String = (1..=51).map(|i| format!("foo {i}\n")).collect();
    std::fs::write(dir.path().join("a.log"), a).unwrap();
    std::fs::write(dir.path().join("b.log"), "bar\nFoo x\n").unwrap();
    dir
}

#[test]
fn search_zip_flag_is_accepted_and_changes_nothing() {
    let art = sample(MULTI);
    let plain = artiscan(&["grep", "-c", "target_verify", &art]);
    for flag in ["-z", "--search-zip"] {
        let z = artiscan(&["grep", flag, "-c", "target_verify", &art]);
        assert_eq!(z.code, 0, "{flag}: {}", z.stderr);
        assert_eq!(z.stdout, plain.stdout, "{flag}");
    }
}

#[test]
fn smart_case_is_insensitive_only_for_lower_case_patterns() {
    let dir = rg_habits_dir();
    let run = |args: &[&str]| artiscan_in(dir.path(), args);
    // Lower case: `foo` finds `Foo x` too.
    let lower = run(&["grep", "-S", "foo", "b.log"]);
    assert_eq!((lower.code, lower.stdout.as_str()), (0, "b.log:2:Foo x\n"));
    let lower = run(&["grep", "--smart-case", "-F", "foo x", "b.log"]);
    assert_eq!(lower.stdout, "b.log:2:Foo x\n");
    // An upper-case literal makes it case-sensitive; `\W` is not one.
    let upper = run(&["grep", "-S", "FOO", "a.log", "b.log"]);
    assert_eq!((upper.code, upper.stdout.as_str()), (1, ""));
    let class = run(&["grep", "-S", r"foo\Wx", "b.log"]);
    assert_eq!(class.stdout, "b.log:2:Foo x\n");
    // Without -S, case counts.
    assert_eq!(run(&["grep", "foo", "b.log"]).code, 1);
}

#[test]
fn byte_offset_is_the_line_start_or_the_match_as_in_rg() {
    let dir = rg_habits_dir();
    let run = artiscan_in(dir.path(), &["grep", "-b", "-m", "2", "foo", "a.log"]);
    assert_eq!(run.stdout, "a.log:1:0:foo 1\na.log:2:6:foo 2\n");
    let json = artiscan_in(
        dir.path(),
        &["grep", "--format", "jsonl", "-m", "2", "foo", "a.log"],
    );
    let offsets: Vec<_> = json
        .of_type("evidence")
        .iter()
        .map(|e| e["location"]["byte_offset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets, [0, 6], "the same offsets as the JSON records");
    let only = artiscan_in(dir.path(), &["grep", "-bo", "-m", "2", "[0-9]+", "a.log"]);
    assert_eq!(only.stdout, "a.log:1:4:1\na.log:2:10:2\n");
    // Context lines take `-`, as in rg.
    let ctx = artiscan_in(dir.path(), &["grep", "-b", "-A1", "^foo 1$", "a.log"]);
    assert_eq!(ctx.stdout, "a.log:1:0:foo 1\na.log:2-6-foo 2\n");
}

#[test]
fn null_ends_citations_with_nul_as_rg() {
    let dir = rg_habits_dir();
    let run = |args: &[&str]| artiscan_in(dir.path(), args);
    assert_eq!(
        run(&["grep", "--null", "-l", "foo", "a.log", "b.log"]).stdout,
        "a.log\0"
    );
    assert_eq!(
        run(&["grep", "-0", "-L", "foo", "a.log", "b.log"]).stdout,
        "b.log\0"
    );
    assert_eq!(
        run(&["grep", "-0", "-c", "bar", "b.log"]).stdout,
        "b.log\u{0}1\n"
    );
    assert_eq!(
        run(&["grep", "-0", "^bar", "b.log"]).stdout,
        "b.log\u{0}1:bar\n"
    );
    // Without it, nothing changes.
    assert_eq!(
        run(&["grep", "-l", "foo", "a.log", "b.log"]).stdout,
        "a.log\n"
    );
}

#[test]
fn count_and_files_with_matches_last_wins_as_rg() {
    let dir = rg_habits_dir();
    let run = |args: &[&str]| artiscan_in(dir.path(), args);
    // `-lc`: counts (51, every matching line), not names and a count of 1.
    let lc = run(&["grep", "-lc", "foo", "a.log"]);
    assert_eq!((lc.code, lc.stdout.as_str()), (0, "a.log:51\n"));
    assert_eq!(
        run(&["grep", "-l", "-c", "foo", "a.log"]).stdout,
        "a.log:51\n"
    );
    // `-cl`: names.
    let cl = run(&["grep", "-cl", "foo", "a.log", "b.log"]);
    assert_eq!((cl.code, cl.stdout.as_str()), (0, "a.log\n"));
}

#[test]
fn an_unreadable_input_is_exit_2_after_the_others_are_searched() {
    let art = sample(MULTI);
    let run = artiscan(&["grep", "-c", "target_verify", "missing.zip", &art]);
    assert_eq!(run.code, 2, "grep and rg: 2 ({})", run.stdout);
    assert!(run.stderr.contains("missing.zip"), "{}", run.stderr);
    // The present artifact was still searched and counted.
    let counted = artiscan(&["grep", "-c", "target_verify", &art]);
    assert_eq!(counted.code, 0);
    assert_eq!(run.stdout, counted.stdout);
    // Nothing found anywhere: still 2, not 1.
    assert_eq!(
        artiscan(&["grep", "no-such-line-xyz", "missing.zip", &art]).code,
        2
    );
    // With -q a match is 0, as grep and rg.
    assert_eq!(
        artiscan(&["grep", "-q", "target_verify", "missing.zip", &art]).code,
        0
    );
    // scan, the same.
    let scan = artiscan(&["scan", "--format", "jsonl", "missing.zip", &art]);
    assert_eq!(scan.code, 2, "{}", scan.stderr);
    assert!(!scan.of_type("evidence").is_empty(), "the rest is scanned");
}

/// A literal split by a colour code is found on every line, the last one
/// too when no `\n` ends it (it was missed there: the lines looked at for
/// joins stopped at the last `\n`), by grep's literal and regex paths and
/// by scan's rules.
#[test]
fn a_colour_split_match_on_an_unterminated_last_line_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let line = "[2026-06-04 10:00:00 TP0] Decode batch. #running-req: 64, #token: 9000, acc\x1b[1mept len: 3.10, gen throughput (token/s): 900.00";
    for (name, text) in [
        ("cut.log", format!("x\n{line}")),
        ("ended.log", format!("x\n{line}\n")),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
        for args in [&["-c", "-F", "accept len"][..], &["-c", "-e", "accept.len"]] {
            let run = artiscan_in(dir.path(), &[&["grep"][..], args, &[name]].concat());
            assert_eq!(
                (run.code, run.stdout.clone()),
                (0, format!("{name}:1\n")),
                "{name} {args:?}: {}",
                run.stderr
            );
        }
        let scan = artiscan_in(dir.path(), &["scan", "--format", "jsonl", name]);
        let found = scan
            .of_type("aggregate")
            .iter()
            .chain(scan.of_type("evidence").iter())
            .any(|r| r["rule"] == "spec.accept_len");
        assert!(found, "{name}: {}", scan.stdout);
    }
}

/// `grep --format jsonl`'s coverage hash is the file's, as `scan` gives it (read in
/// the same pass as the search), and an artifact of which `-g` reads no
/// member has none, as in `scan`: nothing in it was read.
#[test]
fn grep_json_hash_is_the_files_and_absent_when_nothing_is_read() {
    use serde_json::Value;
    use sha2::Digest;
    let art = sample(MULTI);
    let want = format!("{:x}", sha2::Sha256::digest(std::fs::read(&art).unwrap()));
    let cov = |run: &Run| -> Value { run.of_type("coverage")[0].clone() };
    let grep = artiscan(&["grep", "--format", "jsonl", "-F", "target_verify", &art]);
    assert_eq!(
        cov(&grep)["sha256"],
        Value::from(want.clone()),
        "{}",
        grep.stdout
    );
    let scan = artiscan(&["scan", "--format", "jsonl", &art]);
    assert_eq!(cov(&scan)["sha256"], Value::from(want));
    let none = artiscan(&[
        "grep",
        "--format",
        "jsonl",
        "-g",
        "*.nomatch",
        "-F",
        "x",
        &art,
    ]);
    let c = cov(&none);
    assert!(c.get("sha256").is_none_or(Value::is_null), "{c}");
    assert_eq!(c["members"], 0, "{c}");
}
