//! What the verdict-block tests share (the `cli` target's and the real
//! runs' in the `sweeps` target): the verifier's row shape and the sizes.

use crate::harness::*;
use regex::Regex;
use std::path::Path;

/// The verifier's row (`.github/codeowner-signoff-verify-prompt.md`).
pub const ROW: &str = r"^(✅|❌|➖|⚠️) Check (\d+) \(([^)]+)\): (PASS|FAIL|N/A|WARN) — (.+)$";

/// The rows of `md` as (number, word), after asserting their shape: the
/// mark matches the word, WARN only for 4, 14 and 15, one row per number,
/// ordered by number, no rule syntax, and no line that is not a row starts
/// with a status mark.
pub fn rows(md: &str) -> Vec<(u8, String)> {
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

pub fn word(rows: &[(u8, String)], n: u8) -> &str {
    rows.iter()
        .find(|(m, _)| *m == n)
        .map(|(_, w)| w.as_str())
        .unwrap_or_else(|| panic!("no row {n}"))
}

pub fn block(dir: &Path, extra: &[&str], inputs: &[&str]) -> Run {
    let mut args = vec!["check", "--set", "inferencex", "--format", "verdicts"];
    args.extend_from_slice(extra);
    args.extend_from_slice(inputs);
    artiscan_in(dir, &args)
}

pub const BLOCK_PER_RUN: usize = 8 << 10;
pub const MARKDOWN_PER_RUN: usize = 32 << 10;

pub fn check(dir: &Path, format: &str, inputs: &[&str]) -> Run {
    let mut args = vec!["check", "--set", "inferencex", "--format", format];
    args.extend_from_slice(inputs);
    artiscan_in(dir, &args)
}

/// No line under the rows starts with a status mark: notes and what ran
/// are never read as rows by the publisher.
pub fn no_mark_below_rows(md: &str) {
    let below = md.split("**What ran**").nth(1).unwrap_or("");
    for line in below.lines() {
        assert!(
            !["✅", "❌", "➖", "⚠️", "❔"]
                .iter()
                .any(|m| line.starts_with(m)),
            "{line}"
        );
    }
}
