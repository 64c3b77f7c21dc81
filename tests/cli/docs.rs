//! The README and docs' examples run (see [`crate::doc_blocks`]), and
//! what the docs promise about themselves.

use crate::doc_blocks::{Part, blocks, run_docs};
use crate::harness::root;
use std::process::{Command, Stdio};

#[test]
fn every_sh_block_of_the_readme_and_docs_runs() {
    let (ran, failures) = run_docs(&root(), Part::WithoutTools);
    assert!(ran >= 8, "only {ran} blocks found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README stays one screen's worth: the rest lives in docs/.
#[test]
fn readme_is_at_most_10_kb() {
    let len = std::fs::metadata(root().join("README.md")).unwrap().len();
    assert!(len <= 10 * 1024, "README.md is {len} bytes");
}

#[test]
fn doc_block_comments_are_parsed() {
    let doc = "x\n```sh\n# not run: needs the network\ncurl x\n```\n\n```sh\na 'b # c' # exit 3: why\nd \\\n  e # not run: huge\n```\n```text output\nold\n```\n";
    let b = blocks(doc);
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].skip.as_deref(), Some("needs the network"));
    assert_eq!(b[1].cmds[0].text, "a 'b # c'");
    assert_eq!(b[1].cmds[0].expect, 3);
    assert_eq!(b[1].cmds[1].skip.as_deref(), Some("huge"));
    let (a, z) = b[1].output.unwrap();
    assert_eq!(&doc[a..z], "old\n");
}

/// docs/audit.md's first SQL example answers what its comment says: the
/// verdicts that failed or could not be judged, never `not_applicable`
/// or `pass` rows.
#[test]
fn audit_docs_first_query_returns_fail_and_unknown_only() {
    let doc = std::fs::read_to_string(root().join("docs/audit.md")).unwrap();
    let line = doc
        .lines()
        .find(|l| l.starts_with("sqlite3 audit.sqlite \""))
        .expect("an sqlite3 example");
    let sql = line.split('"').nth(1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("python3")
        .arg(root().join("samples/make_audit_runs.py"))
        .arg(dir.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    let r = crate::harness::artiscan_in(
        dir.path(),
        &["audit", "runs", "--db", "audit.sqlite", "--no-progress"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = rusqlite::Connection::open(dir.path().join("audit.sqlite")).unwrap();
    let mut stmt = c.prepare(sql).unwrap();
    let status = stmt
        .column_names()
        .iter()
        .position(|n| *n == "status")
        .expect("a status column");
    let statuses: Vec<String> = stmt
        .query_map([], |row| row.get(status))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!statuses.is_empty(), "the samples have such verdicts");
    assert!(
        statuses.iter().all(|s| s == "fail" || s == "unknown"),
        "{statuses:?}"
    );
    let all: i64 = c
        .query_row(
            "select count(*) from verdicts where check_id = 'nextn-fp8-moe-unset' and status = 'not_applicable'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        all > 0,
        "the store has not_applicable rows the query leaves out"
    );
}
