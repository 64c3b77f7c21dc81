//! Hostile artifacts against output, `cite` and record memory (issue 13):
//! escape sequences, `\r`, bidi overrides and Markdown in member names and
//! log lines never reach a terminal or a PR comment raw; `cite --root`
//! opens nothing outside ROOT; absurd `-j`/`-C` are clamped; floods of
//! evidence (one long `Env:` line, millions of tracebacks, a 64 KB member
//! name on 100k lines) stay under a memory bound. Inputs are generated in
//! temporary folders; peak memory (VmHWM) is polled from `/proc`.

use super::harness::{Run, artiscan_in, measure_within};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Runs `artiscan ARGS` in `dir` (see [`measure_within`]); returns the run
/// and its peak memory in KiB.
fn measure(case: &str, dir: &Path, args: &[&str]) -> (Run, u64) {
    let m = measure_within(case, dir, args);
    (m.run, m.peak_kib)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zip of stored entries (names are raw bytes: anything goes).
pub(super) fn zip(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let crc = crc32fast::hash(data);
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&[0, 8, 0, 0]); // flags: UTF-8 names; method: stored
            h.extend_from_slice(&[0; 4]); // time, date
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&[0; 2]);
            if central {
                h.extend_from_slice(&[0; 10]); // comment, disk, attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name);
            h
        };
        out.extend_from_slice(&header(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend_from_slice(&header(0x0201_4b50, true));
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let n = entries.len() as u16;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0; 2]);
    out
}

/// Nothing a terminal would act on: no C0 control but tab and newline, no
/// DEL, no C1, no bidi override or isolate, no line separator.
pub(super) fn assert_inert(what: &str, s: &str) {
    for c in s.chars() {
        let bad = (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}');
        assert!(!bad, "{what}: raw {:?} in output:\n{s}", c);
    }
}

/// A member name and a log line built to forge terminal output: clear the
/// screen and print a green "ALL CHECKS PASSED", set the title, write the
/// clipboard (OSC 52), redraw with `\r` and backspace, reorder with U+202E,
/// 8-bit CSI, and a newline that forges a verdict line.
const EVIL_NAME: &str = "server\x1b[2J\x1b[H\x1b[32mALL CHECKS PASSED\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u{202e}gol.\u{9b}31m\nPASS    no-traceback  x\r\x08.log";
const EVIL_LINE: &[u8] = b"[2026-10-29 04:30:17] Scheduler hit an exception: Traceback (most recent call last):\r[2026-10-29 04:30:17] all good\x08\x08\x1b[2K\xe2\x80\xae\xc2\x9b\x9b";

#[test]
fn text_outputs_escape_terminal_controls() {
    let dir = tempfile::tempdir().unwrap();
    let log = [EVIL_LINE, b"\n", b"ok line\n"].concat();
    let z = zip(&[(EVIL_NAME.as_bytes(), &log)]);
    std::fs::write(dir.path().join("server_logs_evil.zip"), &z).unwrap();
    let a = "server_logs_evil.zip";

    // grep: one line per hit, the citation first, nothing raw.
    let (g, _) = measure("grep text", dir.path(), &["grep", "Traceback", a]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert_inert("grep", &g.stdout);
    assert_eq!(g.stdout.lines().count(), 1, "{}", g.stdout);
    assert!(
        g.stdout.starts_with("server_logs_evil.zip!server%1B[2J"),
        "{}",
        g.stdout
    );
    // ANSI sequences are stripped from lines (as for matching); the rest shows.
    assert!(
        g.stdout
            .contains("\\r[2026-10-29 04:30:17] all good\\x08\\x08\\u{202e}\\x9b\\x9b"),
        "{}",
        g.stdout
    );

    // The JSON citation reopens the member; cite's text output is escaped.
    let (j, _) = measure(
        "grep json",
        dir.path(),
        &["grep", "--format", "jsonl", "Traceback", a],
    );
    let cite = j.of_type("evidence")[0]["citation"]
        .as_str()
        .unwrap()
        .to_string();
    assert_inert("citation", &cite);
    assert!(cite.contains("%E2%80%AE") && cite.contains("%C2%9B") && cite.contains("%0A"));
    let (c, _) = measure("cite text", dir.path(), &["cite", &cite, "-C", "1"]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert_inert("cite", &c.stdout);
    assert_eq!(c.stdout.lines().count(), 6, "{}", c.stdout);
    let (c, _) = measure(
        "cite --expect",
        dir.path(),
        &["cite", &cite, "--expect", "all good"],
    );
    assert_eq!(c.code, 0, "the quote matches the real text: {}", c.stderr);

    // scan and check text: no forged verdict line.
    let (s, _) = measure("scan text", dir.path(), &["scan", "--format", "text", a]);
    assert_inert("scan", &s.stdout);
    assert!(
        s.stdout.lines().all(|l| !l.starts_with("PASS")),
        "{}",
        s.stdout
    );
    let (k, _) = measure(
        "check text",
        dir.path(),
        &["check", "--set", "inferencex", "--format", "text", a],
    );
    assert_eq!(k.code, 1, "a traceback fails: {}{}", k.stdout, k.stderr);
    assert_inert("check", &k.stdout);
    assert!(
        k.stdout
            .lines()
            .all(|l| !l.starts_with("PASS    no-traceback")),
        "{}",
        k.stdout
    );

    // stderr: a damaged member with the same name (coverage error).
    let mut cut = gzip(&log);
    cut.truncate(cut.len() - 12);
    let z = zip(&[(EVIL_NAME.as_bytes(), &cut)]);
    std::fs::write(dir.path().join("cut.zip"), &z).unwrap();
    let (e, _) = measure("stderr", dir.path(), &["grep", "nothing-here", "cut.zip"]);
    assert!(e.stderr.contains("cut.zip!server%1B"), "{}", e.stderr);
    assert_inert("stderr", &e.stderr);
}

/// Rows of a Markdown table: no image, link, HTML, mention or code span
/// from an artifact, and every row has its own cells.
#[test]
fn markdown_cells_cannot_inject() {
    let dir = tempfile::tempdir().unwrap();
    let name = "x ![t](https://evil.example/t.png) [login](http://evil.example) <img src=x> @admin `a|b` www.evil.example :white_check_mark:\r| pass |.log";
    let log = b"Traceback (most recent call last):\n";
    let z = zip(&[(name.as_bytes(), log)]);
    std::fs::write(dir.path().join("server_logs_md.zip"), &z).unwrap();
    let (k, _) = measure(
        "check markdown",
        dir.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "--format",
            "markdown",
            "server_logs_md.zip",
        ],
    );
    assert_eq!(k.code, 1, "{}", k.stderr);
    let md = &k.stdout;
    assert_inert("markdown", md);
    let row = md
        .lines()
        .find(|l| l.starts_with("| `no-traceback` | ❌"))
        .unwrap_or_else(|| panic!("no row:\n{md}"));
    // Artifact text sits in code spans (inert: no markup inside) or in
    // escaped prose; what is left outside the spans must hold no markup.
    let row = &outside_code_spans(row);
    for bad in [
        "![t](",
        "[login](",
        "<img",
        "@admin",
        "://",
        "www.evil",
        ":white_check_mark:",
    ] {
        assert!(!row.contains(bad), "{bad:?} in {row}");
    }
    // Six cell borders (five columns): no `|` from the name splits the row.
    let borders = row.replace("\\|", "").matches('|').count();
    assert_eq!(borders, 6, "{row}");
    // Backticks outside the spans are escaped: no other code span opens.
    assert!(!row.replace("\\`", "").contains('`'), "{row}");
}

/// `row` with every CommonMark code span (a run of N backticks up to the
/// next run of exactly N) replaced by `CODE`; a backslash-escaped backtick
/// opens nothing.
pub(super) fn outside_code_spans(row: &str) -> String {
    let b = row.as_bytes();
    let (mut out, mut i) = (String::new(), 0);
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            out.push_str(&row[i..i + 2]);
            i += 2;
            continue;
        }
        if b[i] != b'`' {
            let c = row[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let n = b[i..].iter().take_while(|&&c| c == b'`').count();
        let mut j = i + n;
        let mut close = None;
        while j < b.len() {
            let m = b[j..].iter().take_while(|&&c| c == b'`').count();
            if m == n {
                close = Some(j + m);
                break;
            }
            j += m.max(1);
        }
        match close {
            Some(end) => {
                out.push_str("CODE");
                i = end;
            }
            None => {
                out.push_str(&row[i..i + n]);
                i += n;
            }
        }
    }
    out
}

#[test]
fn cite_root_confines() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let cwd = dir.path().join("cwd");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "SECRET-LINE\n").unwrap();
    std::fs::write(root.join("sub/a.log"), "quoted line\n").unwrap();
    std::fs::write(cwd.join("decoy.log"), "forged quote\n").unwrap();
    std::os::unix::fs::symlink("../secret.txt", root.join("out.log")).unwrap();
    std::os::unix::fs::symlink("sub/a.log", root.join("in.log")).unwrap();
    let secret = dir.path().join("secret.txt");
    let secret = secret.to_str().unwrap();
    let root_s = root.to_str().unwrap();
    let cite = |c: &str, extra: &[&str]| {
        let mut args = vec!["cite", "--root", root_s, c, "-C", "5"];
        args.extend_from_slice(extra);
        artiscan_in(&cwd, &args)
    };
    let escapes = [
        format!("{secret}:1"),
        "../secret.txt:1".to_string(),
        "sub/../../secret.txt:1".to_string(),
        "%2E%2E/secret.txt:1".to_string(),
        format!("{}:1", secret.replace('/', "%2F")),
        "out.log:1".to_string(),
        "decoy.log:1".to_string(),
        "./decoy.log:1".to_string(),
    ];
    for c in &escapes {
        for json in [false, true] {
            let r = cite(c, if json { &["--json"] } else { &[] });
            assert_eq!(r.code, 2, "{c}: {}{}", r.stdout, r.stderr);
            assert!(r.stdout.is_empty(), "{c}: {}", r.stdout);
            assert!(!r.stderr.contains("SECRET") && !r.stderr.contains("forged"));
        }
    }
    // Inside ROOT, also through a symlink that stays inside.
    for c in ["sub/a.log:1", "in.log:1", "./sub/a.log:1"] {
        let r = cite(c, &["--expect", "quoted line"]);
        assert_eq!(r.code, 0, "{c}: {}", r.stderr);
    }
    // Without --root the path is opened as given (documented).
    let r = artiscan_in(&cwd, &["cite", "decoy.log:1", "--expect", "forged"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn absurd_numbers_clamped() {
    let dir = tempfile::tempdir().unwrap();
    let log: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("a.log"), &log).unwrap();
    let (g, _) = measure(
        "-j 1000000",
        dir.path(),
        &["grep", "-j", "1000000", "line 7", "a.log"],
    );
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert!(
        g.stderr.contains("-j 1000000 is more than 256"),
        "{}",
        g.stderr
    );
    assert_eq!(g.stdout, "a.log:7:line 7\n");
    let (c, _) = measure(
        "cite -C 2^64-1",
        dir.path(),
        &["cite", "a.log:20", "-C", "18446744073709551615"],
    );
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert!(
        c.stderr.contains("is more than 10000 lines"),
        "{}",
        c.stderr
    );
    // All 50 lines (context clamped, not wrapped to nothing).
    assert_eq!(
        c.stdout.lines().filter(|l| l.contains("line ")).count(),
        50,
        "{}",
        c.stdout
    );
    let (g, _) = measure(
        "grep -C 2^64-1",
        dir.path(),
        &["grep", "-C", "18446744073709551615", "line 7$", "a.log"],
    );
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert!(
        g.stderr
            .contains("-B 18446744073709551615 is more than 10000"),
        "{}",
        g.stderr
    );
    assert_eq!(g.stdout.lines().count(), 50);
}

/// A check file that judges `rule` absent: its verdict shows whether every
/// record was seen.
pub(super) fn absent_check(dir: &Path, rule: &str, filter: &str) -> String {
    let p = dir.join("absent.toml");
    std::fs::write(
        &p,
        format!("[[check]]\nid = \"absent\"\nrule = \"{rule}\"\n{filter}\nexpect = \"absent\"\n"),
    )
    .unwrap();
    p.to_str().unwrap().to_string()
}

pub(super) fn verdict(run: &Run) -> Value {
    run.of_type("verdict")
        .into_iter()
        .next()
        .expect("a verdict")
}

/// One long `Env:` line: every record shares the line's text, so memory is
/// linear in the line (each record once copied it: 7.9 GB at 256 KiB).
#[test]
fn long_env_line_records_share_text() {
    let dir = tempfile::tempdir().unwrap();
    let vars: String = (0..30_000).map(|i| format!(" V{i:05}=1")).collect();
    let line = format!("2026-10-29 04:01:05 [INFO] Env: A=1{vars}\n");
    assert!(line.len() >= 256 << 10);
    std::fs::write(dir.path().join("env.log.gz"), gzip(line.as_bytes())).unwrap();
    let checks = absent_check(dir.path(), "env.var", "where = { name = \"NOT_SET\" }");
    let (r, _) = measure(
        "256 KiB Env line",
        dir.path(),
        &[
            "check",
            "--checks",
            &checks,
            "--format",
            "jsonl",
            "env.log.gz",
        ],
    );
    let v = verdict(&r);
    assert_eq!(v["status"], "pass", "every variable read: {v}");
    // The records are all there, each with the whole line.
    let (s, _) = measure(
        "256 KiB Env line, count",
        dir.path(),
        &[
            "scan",
            "--format",
            "text",
            "--only",
            "env.var",
            "env.log.gz",
        ],
    );
    let last = s.stdout.lines().last().unwrap_or("");
    assert!(last.contains(", 30001 evidence line(s)"), "{last}");
}

/// Past the record cap: an absent variable beyond it is `unknown`, never
/// `pass`, and coverage names the cap.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn record_cap_makes_absence_unknown() {
    let dir = tempfile::tempdir().unwrap();
    // 130k variables on 16 lines, the one asked about last.
    let mut data = String::new();
    for l in 0..16 {
        let vars: String = (0..8_125).map(|i| format!(" V{l}_{i}=1")).collect();
        data.push_str(&format!("2026-10-29 04:01:05 [INFO] Env: A=1{vars}\n"));
    }
    data.push_str("2026-10-29 04:01:05 [INFO] Env: LATE_VAR=1\n");
    std::fs::write(dir.path().join("env.log.gz"), gzip(data.as_bytes())).unwrap();
    let checks = absent_check(dir.path(), "env.var", "where = { name = \"LATE_VAR\" }");
    for j in ["1", "2"] {
        let (r, _) = measure(
            "130k env records",
            dir.path(),
            &[
                "check",
                "-j",
                j,
                "--checks",
                &checks,
                "--format",
                "jsonl",
                "env.log.gz",
            ],
        );
        let v = verdict(&r);
        assert_eq!(v["status"], "unknown", "-j {j}: {v}");
        let cov = &r.of_type("coverage")[0];
        assert_eq!(cov["complete"], false);
        let msg = cov["errors"][0]["message"].as_str().unwrap();
        assert!(
            msg.contains("cap of 100000 evidence records (64 MiB)"),
            "{msg}"
        );
        assert_eq!(cov["errors"][0]["kind"], "limit");
    }
    // scan: at most 100,000 evidence records, the rest in overflow
    // aggregates, the same on one thread and two.
    let scan = |j: &str| {
        let (r, _) = measure(
            "130k env records, scan",
            dir.path(),
            &[
                "scan",
                "-j",
                j,
                "--format",
                "text",
                "--only",
                "env.var",
                "env.log.gz",
            ],
        );
        r
    };
    let one = scan("1");
    let ev = one
        .stdout
        .lines()
        .filter(|l| l.contains("  env.var  "))
        .count();
    assert!(ev > 50_000 && ev <= 100_000, "{ev}");
    let over: u64 = one
        .stdout
        .lines()
        .filter(|l| l.contains("\"overflow\":true"))
        .map(|l| {
            l.split(" x")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(ev as u64 + over, 16 * 8_126 + 1);
    let strip = |r: &Run| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| !l.contains(" evidence line(s), "))
            .map(String::from)
            .collect()
    };
    assert!(strip(&one) == strip(&scan("2")), "output depends on -j");
}

/// Floods of tracebacks from a tiny `.gz` (past the cap), and a 64 KB
/// member name on 100,000 matching lines: memory stays bounded (7 GB and
/// 5.5 GB before).
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn record_floods_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let data = "Traceback (most recent call last):\n".repeat(300_000);
    let gz = gzip(data.as_bytes());
    assert!(gz.len() < 1 << 20);
    std::fs::write(dir.path().join("tb.log.gz"), gz).unwrap();
    let checks = absent_check(dir.path(), "error.traceback", "");
    let (r, peak) = measure(
        "300,000 tracebacks",
        dir.path(),
        &[
            "check",
            "--checks",
            &checks,
            "--format",
            "jsonl",
            "tb.log.gz",
        ],
    );
    assert_eq!(verdict(&r)["status"], "fail");
    assert!(peak < 200 << 10, "peak {} MiB", peak >> 10);

    let name: String = "n".repeat(65_000) + ".log";
    let data = "Traceback (most recent call last):\n".repeat(100_000);
    let z = zip(&[(name.as_bytes(), data.as_bytes())]);
    std::fs::write(dir.path().join("names.zip"), z).unwrap();
    let (r, peak) = measure(
        "64 KB name x 100,000 lines",
        dir.path(),
        &[
            "check",
            "--checks",
            &checks,
            "--format",
            "jsonl",
            "names.zip",
        ],
    );
    assert_eq!(verdict(&r)["status"], "fail");
    assert!(peak < 200 << 10, "peak {} MiB", peak >> 10);
}

/// The 64 KB member name on many matching lines through `audit` (issue
/// 13): the store holds the member chain once (layout 3), not once per
/// row, so memory stays under the suite's bound and the store small; the
/// report on it too. Before layout 3 each row cost the name twice (about
/// 130 KB): 20,000 lines were 2.6 GB of rows, in memory and on disk.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn long_member_name_on_many_lines_audits_into_a_small_store() {
    const LINES: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let name: String = "n".repeat(65_000) + ".log";
    let data = "Traceback (most recent call last):\n".repeat(LINES);
    let z = zip(&[(name.as_bytes(), data.as_bytes())]);
    std::fs::write(dir.path().join("names.zip"), z).unwrap();
    let (r, _) = measure(
        "audit: 64 KB name x 20,000 lines",
        dir.path(),
        &["audit", "names.zip", "--db", "s.db", "--no-progress"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let store_bytes: u64 = ["s.db", "s.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.path().join(f)).ok())
        .map(|m| m.len())
        .sum();
    eprintln!("store: {} KiB", store_bytes >> 10);
    assert!(store_bytes < 64 << 20, "store {} MiB", store_bytes >> 20);
    // Every line is in the store, each citing the member by its name as
    // cut to 4 KiB (a `limit` error; 8 KiB per row before layout 3).
    let c = rusqlite::Connection::open(dir.path().join("s.db")).unwrap();
    let one = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
    let lines = one("SELECT count(*) FROM evidence WHERE rule = 'error.traceback'")
        + one("SELECT coalesce(sum(count), 0) FROM aggregates WHERE rule = 'error.traceback'");
    assert_eq!(lines, LINES as i64);
    assert_eq!(one("SELECT count(*) FROM member_chains"), 1);
    let last: String = c
        .query_row(
            "SELECT citation FROM evidence WHERE rule = 'error.traceback' ORDER BY seq DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        last.starts_with("names.zip!nnnn") && last.ends_with(&format!("nnn:{LINES}")),
        "{}",
        &last[last.len() - 20..]
    );
    assert_eq!(last.len(), "names.zip!".len() + 4096 + 1 + 5);
    drop(c);
    let (r, _) = measure(
        "audit report: 64 KB name x 20,000 lines",
        dir.path(),
        &["audit", "report", "--db", "s.db", "--format", "jsonl"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The no-traceback check fails on the one artifact.
    let summary: Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(summary["type"], "audit_summary");
    assert_eq!(
        (summary["fail"].as_u64(), summary["artifacts"].as_u64()),
        (Some(1), Some(1))
    );
}
