//! `check --format verdicts`: the block the InferenceX verifier merges
//! into its verdict, on the verifier-shaped samples and on the real run
//! folders. Every row matches the prompt's row shape, one per checklist
//! number per invocation, no `➖` where the check applies, the block within
//! its size.

use crate::harness::*;
use regex::Regex;
use std::path::Path;

/// The verifier's row (`.github/codeowner-signoff-verify-prompt.md`).
const ROW: &str = r"^(✅|❌|➖|⚠️) Check (\d+) \(([^)]+)\): (PASS|FAIL|N/A|WARN) — (.+)$";

/// The most bytes of a block per run.
const PER_RUN: usize = 8 << 10;

/// The rows of `md` as (number, word), after asserting their shape: the
/// mark matches the word, WARN only for 4, 14 and 15, one row per number,
/// ordered by number, no rule syntax, and no line that is not a row starts
/// with a status mark.
fn rows(md: &str) -> Vec<(u8, String)> {
    let re = Regex::new(ROW).unwrap();
    let mut seen: Vec<(u8, String)> = Vec::new();
    for line in md.lines() {
        if !["✅", "❌", "➖", "⚠️"].iter().any(|m| line.starts_with(m)) {
            continue;
        }
        let c = re
            .captures(line)
            .unwrap_or_else(|| panic!("malformed row: {line}"));
        let n: u8 = c[2].parse().unwrap();
        assert!(
            matches!(
                (&c[1], &c[4]),
                ("✅", "PASS") | ("❌", "FAIL") | ("➖", "N/A") | ("⚠️", "WARN")
            ),
            "{line}"
        );
        assert!(&c[4] != "WARN" || [4, 14, 15].contains(&n), "{line}");
        assert!(!seen.iter().any(|(m, _)| *m == n), "two rows {n}: {md}");
        assert!(
            !c[5].contains(" { ") && !c[5].contains("no matching"),
            "{line}"
        );
        // The reason before its citations is short.
        let reason = c[5].split(" (`").next().unwrap();
        assert!(reason.chars().count() <= 330, "{line}");
        seen.push((n, c[4].to_string()));
    }
    // Ordered by number within each group (expanded, then collapsed).
    let (expanded, collapsed) = md.split_once("<details>").unwrap_or((md, ""));
    for part in [expanded, collapsed] {
        let numbers: Vec<u8> = part
            .lines()
            .filter_map(|l| re.captures(l).map(|c| c[2].parse().unwrap()))
            .collect();
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        assert_eq!(numbers, sorted, "{md}");
    }
    seen
}

fn word(rows: &[(u8, String)], n: u8) -> &str {
    rows.iter()
        .find(|(m, _)| *m == n)
        .map(|(_, w)| w.as_str())
        .unwrap_or_else(|| panic!("no row {n}"))
}

fn block(dir: &Path, extra: &[&str], inputs: &[&str]) -> Run {
    let mut args = vec!["check", "--set", "inferencex", "--format", "verdicts"];
    args.extend_from_slice(extra);
    args.extend_from_slice(inputs);
    artiscan_in(dir, &args)
}

#[test]
fn one_block_for_several_runs_one_row_per_number() {
    let r = block(
        &root(),
        &["--param", "al=3.39"],
        &[
            "samples/verifier/runs/pass",
            "samples/verifier/runs/fail",
            "samples/verifier/runs/cut",
            "samples/verifier/runs/image-same",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let rs = rows(&r.stdout);
    assert_eq!(
        rs.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [2, 8, 9, 10, 11, 13, 14],
        "{}",
        r.stdout
    );
    // The worst run is named where the runs differ.
    assert!(
        r.stdout
            .contains("❌ Check 10 (No engine patches): FAIL — in run `fail` (other runs: "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.len() <= 4 * PER_RUN, "{}", r.stdout.len());
}

#[test]
fn evals_present_or_missing() {
    // image-same holds the eval's meta_env.json and agg_eval row.
    let r = block(&root(), &[], &["samples/verifier/runs/image-same"]);
    let rs = rows(&r.stdout);
    assert_ne!(word(&rs, 2), "N/A", "{}", r.stdout);
    assert!(
        !r.stdout.contains("evals not in the download"),
        "{}",
        r.stdout
    );
    // The pass run has no eval artifact: not N/A, and how to get them.
    let r = block(
        &root(),
        &["--param", "al=3.39"],
        &["samples/verifier/runs/pass"],
    );
    let rs = rows(&r.stdout);
    assert!(
        r.stdout.contains(
            "❌ Check 2 (Evals pass): FAIL — could not be verified: evals not in the download: fetch with `gh run download RUN -p 'eval_*'`"
        ),
        "{}",
        r.stdout
    );
    for n in [2, 8, 10, 14] {
        assert_ne!(word(&rs, n), "N/A", "{n}: {}", r.stdout);
    }
    // Undecided, nothing fails: 3.
    assert_eq!(r.code, 3, "{}", r.stdout);
}

#[test]
fn grouped_is_the_prompts_layout() {
    let r = block(
        &root(),
        &["--param", "al=3.39", "--grouped"],
        &["samples/verifier/zips/pass"],
    );
    let md = &r.stdout;
    rows(md);
    let open = md
        .find("<details>\n<summary>Passed and not applicable checks</summary>\n\n")
        .unwrap_or_else(|| panic!("{md}"));
    let close = md.find("\n\n</details>\n").unwrap();
    assert!(!md.contains("<details open"));
    for line in md
        .lines()
        .filter(|l| l.starts_with("✅") || l.starts_with("➖"))
    {
        let at = md.find(line).unwrap();
        assert!(open < at && at < close, "{line}");
    }
    for line in md
        .lines()
        .filter(|l| l.starts_with("❌") || l.starts_with("⚠️"))
    {
        assert!(md.find(line).unwrap() < open, "{line}");
    }
    // Rows are separated by blank lines.
    assert!(
        !md.contains("\n✅ Check 8 (No architecture hacks): PASS")
            || md.contains("\n\n✅ Check 8 (No architecture hacks): PASS")
    );
}

#[test]
fn exit_codes_mean_the_same_in_every_format() {
    let runs = [
        ("samples/verifier/runs/fail", 1),
        ("samples/verifier/runs/pass", 3),
    ];
    for (run, code) in runs {
        for format in ["jsonl", "json", "text", "markdown", "verdicts"] {
            let r = artiscan(&[
                "check",
                "--set",
                "inferencex",
                "--param",
                "al=3.39",
                "--format",
                format,
                run,
            ]);
            assert_eq!(r.code, code, "{run} {format}: {}", r.stderr);
        }
    }
}

#[test]
fn real_runs_block_fits_and_has_no_na_where_checks_apply() {
    let tmp = tempfile::tempdir().unwrap();
    if unpack_real_run(
        "0604-glm5.1-fp4-mi355x-sglang-agentic-hicache.tar.zst",
        tmp.path(),
    )
    .is_none()
    {
        return;
    }
    let run = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    let r = block(tmp.path(), &[], &[run.to_str().unwrap()]);
    let rs = rows(&r.stdout);
    assert_eq!(rs.len(), 7, "{}", r.stdout);
    for n in [2, 8, 10, 14] {
        assert_ne!(word(&rs, n), "N/A", "{n}: {}", r.stdout);
    }
    // GLM-5.1 here runs without speculative decoding (`spec-none`).
    for n in [9, 11, 13] {
        assert_eq!(word(&rs, n), "N/A", "{n}: {}", r.stdout);
    }
    // Fewer than five frontier points is a warning: it alone is not a fail.
    assert_eq!(word(&rs, 14), "WARN");
    assert!(r.stdout.len() <= PER_RUN, "{}", r.stdout.len());
    assert_ne!(r.code, 1, "{}", r.stdout);
}
