//! `check --format verdicts`: the block the InferenceX verifier merges
//! into its verdict, on the verifier-shaped samples and on the real run
//! folders. Every row matches the prompt's row shape, one per checklist
//! number per invocation, no `➖` where the check applies, the block within
//! its size.

use crate::harness::*;
use crate::verdict_support::*;

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
    assert!(r.stdout.len() <= 4 * BLOCK_PER_RUN, "{}", r.stdout.len());
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

/// `--status fail,unknown` lists only those verdicts of the text view (the
/// same ones, in the same order, as the full listing); the totals and the
/// exit code still count all.
#[test]
fn the_text_views_status_filter_lists_only_those_verdicts() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "--set",
            "inferencex",
            "--param",
            "al=3.39",
            "--format",
            "text",
        ];
        args.extend_from_slice(extra);
        args.push("samples/verifier/runs/fail");
        artiscan(&args)
    };
    let all = run(&[]);
    let some = run(&["--status", "fail,unknown"]);
    assert_eq!((all.code, some.code), (1, 1), "{}", some.stderr);
    let listed = |out: &str, words: &[&str]| -> Vec<String> {
        out.lines()
            .filter(|l| words.iter().any(|w| l.starts_with(&format!("  {w} "))))
            .map(str::to_string)
            .collect()
    };
    let bad = listed(&all.stdout, &["FAIL", "UNKNOWN"]);
    assert!(bad.len() >= 2, "{}", all.stdout);
    assert!(!listed(&all.stdout, &["PASS"]).is_empty(), "{}", all.stdout);
    assert_eq!(
        listed(&some.stdout, &["FAIL", "UNKNOWN", "PASS", "N/A"]),
        bad
    );
    assert_eq!(all.stdout.lines().last(), some.stdout.lines().last());
    assert!(
        some.stdout.lines().last().unwrap().contains(" pass"),
        "{}",
        some.stdout
    );
}
