//! Golden outputs: every command's output (stdout, stderr, exit code) on
//! the committed samples (the `cli` target's `golden`) and on the real run
//! folders of `../shared/corpus/` (the `sweeps` target's `golden_real`),
//! compared with what was blessed. It is the proof that a restructuring
//! left behaviour unchanged, byte for byte.
//!
//! Expected values live in `tests/golden/`: `samples.sha256` and
//! `real-runs.sha256` hold the sha256 of each case's normalised output;
//! sample outputs under [`TEXT_LIMIT`] are also committed as text
//! (`tests/golden/samples/<case>.out`) so that a change reads as a diff. The
//! real runs are other people's files: only their hashes are committed.
//!
//! `ARTISCAN_BLESS=1 cargo test --release --test cli golden` (and
//! `--test sweeps golden_real` for the real runs) rewrites them
//! (after a change meant to alter output; say so in the commit). On a
//! mismatch the actual outputs are written to `target/golden-actual/`.
//!
//! Normalised (so that outputs are deterministic): the temporary folder's
//! path becomes `$TMP`; wall times (`"elapsed_s":` in JSON, the seconds of
//! `scan --format text`'s summary line, the time and rate of `audit`'s
//! summary line) become `*`; the audit store is dumped table by table, rows
//! sorted, without its time columns (`*_at`, `*_ns`, `scan_ms`).

use crate::harness::{artiscan_in, root};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Sample outputs up to this size are committed as text too.
pub const TEXT_LIMIT: usize = 64 << 10;

/// One command's output as compared: the command, exit code, stdout, stderr.
fn render(args: &[&str], dir: &Path, tmp: &Path) -> String {
    let r = artiscan_in(dir, args);
    let text = format!(
        "$ artiscan {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        r.code,
        r.stdout,
        r.stderr
    );
    normalise(&text, tmp)
}

fn normalise(text: &str, tmp: &Path) -> String {
    let text = text.replace(tmp.to_str().unwrap(), "$TMP");
    let text = mask_json_number(&text, "\"elapsed_s\":");
    text.split_inclusive('\n')
        .map(|line| {
            if line.starts_with("audit: ") {
                mask_between(line, " of files in ", "; fingerprint ")
            } else if line.contains(" artifact(s), ") && line.contains(" evidence line(s), ") {
                match line.rfind(", ") {
                    Some(at) => format!("{}, *s\n", &line[..at]),
                    None => line.to_string(),
                }
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// `key` followed by a JSON number: the number becomes `"*"`.
fn mask_json_number(text: &str, key: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        let after = at + key.len();
        out.push_str(&rest[..after]);
        let tail = &rest[after..];
        let n = tail
            .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
            .unwrap_or(tail.len());
        out.push_str("\"*\"");
        rest = &tail[n..];
    }
    out.push_str(rest);
    out
}

fn mask_between(line: &str, start: &str, end: &str) -> String {
    match (line.find(start), line.find(end)) {
        (Some(s), Some(e)) if s + start.len() <= e => {
            format!("{}*{}", &line[..s + start.len()], &line[e..])
        }
        _ => line.to_string(),
    }
}

/// The audit store at `db`, table by table: columns by name, rows sorted,
/// time columns left out (they differ on every run).
fn dump_store(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let mut out = format!("user_version {version}\n");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let timed = |c: &str| c.ends_with("_at") || c.ends_with("_ns") || c == "scan_ms";
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let cols: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let mut cells = Vec::new();
                for (i, c) in cols.iter().enumerate() {
                    if timed(c) {
                        continue;
                    }
                    let v = match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Null => "NULL".to_string(),
                        rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                        rusqlite::types::ValueRef::Real(x) => format!("{x:?}"),
                        rusqlite::types::ValueRef::Text(s) => {
                            format!("{:?}", String::from_utf8_lossy(s))
                        }
                        rusqlite::types::ValueRef::Blob(b) => format!("blob {}", b.len()),
                    };
                    cells.push(format!("{c}={v}"));
                }
                Ok(cells.join(" "))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // `meta` holds a creation time as a value, not in a column.
        if t == "meta" {
            rows.retain(|r| !r.starts_with("key=\"created_at\""));
        }
        rows.sort();
        out.push_str(&format!("table {t} ({} rows)\n", rows.len()));
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    out
}

/// Runs `cases` in `dir`, then an audit of `audit_paths` into a store under
/// `tmp` (store dump, a second audit that finds nothing to do, report in
/// every format, export): each case's name and normalised output.
pub fn run_cases(
    dir: &Path,
    tmp: &Path,
    cases: &[(&str, Vec<&str>)],
    audit_paths: &[&str],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, args) in cases {
        out.push((name.to_string(), render(args, dir, tmp)));
    }
    let db = tmp.join("store.sqlite");
    let db = db.to_str().unwrap();
    let mut audit = vec!["audit", "--db", db];
    audit.extend_from_slice(audit_paths);
    out.push(("audit".into(), render(&audit, dir, tmp)));
    out.push(("audit-store".into(), dump_store(Path::new(db))));
    out.push(("audit-again".into(), render(&audit, dir, tmp)));
    for f in ["text", "markdown", "csv", "jsonl"] {
        out.push((
            format!("audit-report-{f}"),
            render(&["audit", "report", "--db", db, "--format", f], dir, tmp),
        ));
    }
    out.push((
        "audit-export".into(),
        render(&["audit", "export", "--db", db, "--verdicts"], dir, tmp),
    ));
    out
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_manifest(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(h, n)| (n.to_string(), h.to_string()))
        .collect()
}

/// Compares `outputs` with the manifest `set.sha256` (and, where `text`,
/// with the committed text of small outputs), or rewrites them when
/// `ARTISCAN_BLESS` is set.
pub fn compare(set: &str, outputs: &[(String, String)], text: bool) {
    let golden = root().join("tests/golden");
    let manifest = golden.join(format!("{set}.sha256"));
    let text_dir = golden.join(set);
    if std::env::var_os("ARTISCAN_BLESS").is_some() {
        std::fs::create_dir_all(&golden).unwrap();
        let lines: String = outputs
            .iter()
            .map(|(n, o)| format!("{}  {n}\n", sha256(o)))
            .collect();
        std::fs::write(&manifest, lines).unwrap();
        if text {
            let _ = std::fs::remove_dir_all(&text_dir);
            std::fs::create_dir_all(&text_dir).unwrap();
            for (n, o) in outputs.iter().filter(|(_, o)| o.len() <= TEXT_LIMIT) {
                std::fs::write(text_dir.join(format!("{n}.out")), o).unwrap();
            }
        }
        println!("blessed {}", manifest.display());
        return;
    }
    let expected = read_manifest(&manifest);
    let actual_dir = root().join("target/golden-actual").join(set);
    let _ = std::fs::remove_dir_all(&actual_dir);
    let mut bad = Vec::new();
    for (n, o) in outputs {
        if expected.get(n) == Some(&sha256(o)) {
            continue;
        }
        std::fs::create_dir_all(&actual_dir).unwrap();
        std::fs::write(actual_dir.join(format!("{n}.out")), o).unwrap();
        let committed = std::fs::read_to_string(text_dir.join(format!("{n}.out"))).ok();
        let first = committed.and_then(|c| {
            c.lines()
                .zip(o.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("line {}:\n  expected {a}\n  actual   {b}", i + 1))
        });
        bad.push(format!(
            "{n}{}",
            first.map(|f| format!(": {f}")).unwrap_or_default()
        ));
    }
    let names: Vec<&String> = outputs.iter().map(|(n, _)| n).collect();
    let stale: Vec<&String> = expected.keys().filter(|k| !names.contains(k)).collect();
    assert!(
        bad.is_empty() && stale.is_empty(),
        "golden {set}: outputs differ from tests/golden (actual in {}; \
         ARTISCAN_BLESS=1 rewrites them if the change is meant):\n{}\nno longer produced: {stale:?}",
        actual_dir.display(),
        bad.join("\n")
    );
}
