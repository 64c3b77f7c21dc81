//! Silence becomes a message (issue 45): a check file's mistakes are load
//! errors that say where, readable as printed.

use crate::harness::{artiscan_in, sample};

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
