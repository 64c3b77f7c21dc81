//! Tests of `artiscan audit` (see the issue): a folder of a few dozen
//! artifacts is generated in a temp dir from the committed samples, laid out
//! as runs (`runs/<run id>/<artifact>_<n>_<id>.zip`, the storage backup
//! naming), then audited, re-audited, changed, killed, sharded and reported.

use crate::harness::{Run, artiscan_in, root};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RF1: &str =
    "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
const RF2: &str =
    "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01";
const RF3: &str =
    "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc256_gb200-nv_02";

/// The run whose conc256 artifact sets SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1.
const NEXTN_RUN: u64 = 18_000_003;
/// The run holding the damaged samples.
const DAMAGED_RUN: u64 = 18_000_005;

fn run_id(i: usize) -> u64 {
    18_000_000 + i as u64
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(root().join("samples/artifacts").join(from), to)
        .unwrap_or_else(|e| panic!("{from}: {e}"));
}

/// `runs/<id>/...` for `runs` runs: every run has server logs, a conc128
/// multinode artifact, an eval and its job logs; run 3 adds the conc256
/// artifact (sets the NEXTN MOE variable), run 5 the damaged samples, even
/// runs a TensorRT-LLM tarball and a plain vLLM log. Returns the artifact count.
fn make_runs(dir: &Path, runs: usize) -> usize {
    let mut n = 0;
    for i in 1..=runs {
        let run = dir.join(format!("runs/{}", run_id(i)));
        let backup = |name: &str, k: usize| format!("{name}_1_{}.zip", 9_000_000 + i * 10 + k);
        copy(
            &format!("server_logs_{RF1}.zip"),
            &run.join(backup(&format!("server_logs_{RF1}"), 1)),
        );
        copy(
            &format!("multinode_server_logs_{RF2}.zip"),
            &run.join(backup(&format!("multinode_server_logs_{RF2}"), 2)),
        );
        copy(
            &format!("eval_gsm8k_{RF1}.zip"),
            &run.join(backup(&format!("eval_gsm8k_{RF1}"), 3)),
        );
        copy(
            "logs_12345678.zip",
            &run.join(format!("logs_{}.zip", run_id(i))),
        );
        n += 4;
        if run_id(i) == NEXTN_RUN {
            copy(
                &format!("multinode_server_logs_{RF3}.zip"),
                &run.join(backup(&format!("multinode_server_logs_{RF3}"), 4)),
            );
            n += 1;
        }
        if run_id(i) == DAMAGED_RUN {
            for f in std::fs::read_dir(root().join("samples/artifacts/damaged")).unwrap() {
                let name = f.unwrap().file_name().to_string_lossy().into_owned();
                copy(&format!("damaged/{name}"), &run.join(&name));
                n += 1;
            }
        }
        if i % 2 == 0 {
            copy("trtllm_logs.tar.zst", &run.join("trtllm_logs.tar.zst"));
            copy("plain/vllm_server.log", &run.join("vllm_server.log"));
            n += 2;
        }
    }
    n
}

fn audit(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    let run = artiscan_in(dir, &all);
    assert_eq!(
        run.code, 0,
        "artiscan {all:?}\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    run
}

/// `(scanned, unchanged)` from the summary line.
fn counts(run: &Run) -> (u64, u64) {
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("audit: "))
        .unwrap_or_else(|| panic!("no summary line in {}", run.stderr));
    let num = |label: &str| -> u64 {
        let i = line
            .find(label)
            .unwrap_or_else(|| panic!("{label:?} not in {line}"));
        line[..i]
            .trim_end()
            .rsplit([' ', ':'])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (num(" scanned"), num(" unchanged"))
}

fn db(path: &Path) -> Connection {
    Connection::open(path).unwrap()
}

fn one<T: rusqlite::types::FromSql>(c: &Connection, sql: &str) -> T {
    c.query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn cell(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => format!("{f:?}"),
        ValueRef::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
        ValueRef::Blob(b) => format!("blob{b:?}"),
    }
}

/// The tables `dump` compares.
const RESULT_TABLES: &[&str] = &[
    "artifacts",
    "coverage",
    "member_chains",
    "coverage_errors",
    "evidence",
    "aggregates",
    "aggregate_stats",
    "verdicts",
    "checks",
    "dirty_runs",
];

/// The rows of `table` as `col=value ...`, without the columns that record
/// when or how fast something ran, each with the artifact path it belongs to
/// (`None` for rows of no artifact: checks, run-scope verdicts, dirty runs).
fn table_rows(c: &Connection, table: &str) -> Vec<(Option<String>, String)> {
    let skip = ["scanned_at", "scanned_ns", "hashed_ns", "scan_ms"];
    let mut stmt = c.prepare(&format!("SELECT * FROM {table}")).unwrap();
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let path_col = names.iter().position(|n| n == "path");
    let mut rows = stmt.query([]).unwrap();
    let mut out = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        let cells: Vec<String> = (0..names.len())
            .filter(|i| !skip.contains(&names[*i].as_str()))
            .map(|i| format!("{}={}", names[i], cell(r.get_ref(i).unwrap())))
            .collect();
        let path = path_col.and_then(|i| r.get::<_, Option<String>>(i).unwrap());
        out.push((path, format!("{table}: {}", cells.join(" "))));
    }
    out
}

/// Every row of the result tables, sorted, without the columns that record
/// when or how fast something ran.
fn dump(path: &Path) -> Vec<String> {
    let c = db(path);
    let mut out: Vec<String> = RESULT_TABLES
        .iter()
        .flat_map(|t| table_rows(&c, t))
        .map(|(_, row)| row)
        .collect();
    out.sort();
    out
}

fn count_rows(c: &Connection, table: &str) -> i64 {
    one(c, &format!("SELECT count(*) FROM {table}"))
}

#[test]
fn first_audit_stores_every_artifact_with_parsed_names() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 6);
    assert!(n >= 30, "{n}");
    let run = audit(dir.path(), &["runs", "--db", "audit.sqlite", "-j", "2"]);
    assert_eq!(counts(&run), (n as u64, 0), "{}", run.stderr);
    let c = db(&dir.path().join("audit.sqlite"));
    assert_eq!(one::<i64>(&c, "PRAGMA user_version"), 5);
    assert_eq!(count_rows(&c, "artifacts"), n as i64);
    assert_eq!(count_rows(&c, "coverage"), n as i64);
    assert_eq!(count_rows(&c, "dirty_runs"), 0);
    assert_eq!(
        one::<i64>(&c, "SELECT count(DISTINCT run_id) FROM artifacts"),
        6
    );

    // Parsed name fields of a storage backup name.
    let fields: Vec<String> = c
        .query_row(
            "SELECT kind, exp, precision, framework, tp, pp, dcp, pcp, ep, dpa, disagg, spec, conc, runner,
                    backup_n, artifact_id, run_id, eval_task
             FROM artifacts WHERE path = ?1",
            [format!("runs/{NEXTN_RUN}/multinode_server_logs_{RF3}_1_9000034.zip")],
            |r| Ok((0..18).map(|i| cell(r.get_ref(i).unwrap())).collect()),
        )
        .unwrap();
    let want = [
        "\"multinode_server_logs\"",
        "\"dsv4\"",
        "\"fp4\"",
        "\"sglang\"",
        "8",
        "1",
        "1",
        "1",
        "8",
        "1",
        "1",
        "\"mtp\"",
        "256",
        "\"gb200-nv_02\"",
        "1",
        "9000034",
        "\"18000003\"",
        "NULL",
    ];
    assert_eq!(fields, want);
    let eval: (String, String) = c
        .query_row(
            "SELECT kind, eval_task FROM artifacts WHERE artifact LIKE 'eval_%' LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(eval, ("eval".into(), "gsm8k".into()));
    assert_eq!(
        one::<String>(
            &c,
            "SELECT DISTINCT kind FROM artifacts WHERE artifact LIKE 'logs_%'"
        ),
        "logs"
    );

    // Unparseable names still audit, with null fields; damaged artifacts are
    // recorded with their coverage errors.
    let damaged = format!("runs/{DAMAGED_RUN}/cut_server_logs_{RF1}.zip");
    let (kind, complete, err_kind): (Option<String>, bool, String) = c
        .query_row(
            "SELECT a.kind, a.complete, e.kind FROM artifacts a JOIN coverage_errors e USING (path) WHERE path = ?1",
            [&damaged],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (kind, complete, err_kind.as_str()),
        (None, false, "truncated")
    );
    assert_eq!(
        one::<i64>(&c, "SELECT count(*) FROM artifacts WHERE NOT complete"),
        // Three damaged (the core dump holds no log lines: complete).
        3
    );
    assert!(run.stderr.contains("3 incomplete"), "{}", run.stderr);

    // Evidence, aggregates and verdicts are there.
    assert!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM evidence WHERE rule = 'sglang.monokernel_routing'"
        ) > 0
    );
    assert!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM aggregates WHERE rule = 'spec.accept_len'"
        ) > 0
    );
    assert_eq!(
        one::<String>(
            &c,
            &format!(
                "SELECT status FROM verdicts WHERE check_id = 'nextn-fp8-moe-unset' AND artifact = 'multinode_server_logs_{RF3}_1_9000034.zip'"
            )
        ),
        "fail"
    );
    assert_eq!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM verdicts WHERE check_id = 'nextn-fp8-moe-unset' AND status = 'fail'"
        ),
        1
    );
}

#[test]
fn unchanged_reaudit_skips_everything() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 4) as u64;
    audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    let c = db(&dir.path().join("a.sqlite"));
    let times = |c: &Connection| -> Vec<(String, i64)> {
        c.prepare("SELECT path, scanned_ns FROM artifacts ORDER BY path")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let before = times(&c);
    let dump_before = dump(&dir.path().join("a.sqlite"));
    let again = audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    assert_eq!(counts(&again), (0, n), "{}", again.stderr);
    assert_eq!(times(&c), before);
    assert_eq!(dump(&dir.path().join("a.sqlite")), dump_before);
    // --rehash hashes every file, and still finds nothing to scan.
    let rehash = audit(dir.path(), &["runs", "--db", "a.sqlite", "--rehash"]);
    assert_eq!(counts(&rehash), (0, n));
}

#[test]
fn store_inside_the_audited_folder_and_dot_paths() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 2) as u64;
    let run = audit(dir.path(), &["runs", "--db", "runs/audit.sqlite"]);
    assert_eq!(counts(&run), (n, 0), "{}", run.stderr);
    let c = db(&dir.path().join("runs/audit.sqlite"));
    assert_eq!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM artifacts WHERE artifact LIKE 'audit.sqlite%'"
        ),
        0
    );
    // `./runs/` walks the same artifacts under the same keys.
    let run = audit(dir.path(), &["./runs/", "--db", "runs/audit.sqlite"]);
    assert_eq!(counts(&run), (0, n), "{}", run.stderr);
    assert_eq!(count_rows(&c, "artifacts"), n as i64);
}

#[test]
fn changed_artifact_is_rescanned_and_its_old_rows_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 4) as u64;
    audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    let c = db(&dir.path().join("a.sqlite"));
    let target = format!(
        "runs/{}/multinode_server_logs_{RF2}_1_9000012.zip",
        run_id(1)
    );
    let reference = format!("runs/{NEXTN_RUN}/multinode_server_logs_{RF3}_1_9000034.zip");
    let status = |c: &Connection| -> String {
        c.query_row(
            "SELECT status FROM verdicts WHERE check_id = 'nextn-fp8-moe-unset' AND path = ?1",
            [&target],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(status(&c), "pass");
    let old_sha: String = c
        .query_row(
            "SELECT sha256 FROM artifacts WHERE path = ?1",
            [&target],
            |r| r.get(0),
        )
        .unwrap();
    // The artifact is replaced by another upload (here: the conc256 bytes).
    std::fs::copy(dir.path().join(&reference), dir.path().join(&target)).unwrap();
    let run = audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    assert_eq!(counts(&run), (1, n - 1), "{}", run.stderr);
    assert_eq!(status(&c), "fail");
    let new_sha: String = c
        .query_row(
            "SELECT sha256 FROM artifacts WHERE path = ?1",
            [&target],
            |r| r.get(0),
        )
        .unwrap();
    assert_ne!(new_sha, old_sha);
    // Old rows are gone, not duplicated: the artifact now has exactly the rows
    // of the artifact it was copied from.
    for table in ["evidence", "aggregates", "verdicts", "coverage"] {
        let rows = |p: &str| -> i64 {
            c.query_row(
                &format!("SELECT count(*) FROM {table} WHERE path = ?1"),
                [p],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(rows(&target), rows(&reference), "{table}");
    }
    let ids = |p: &str| -> Vec<String> {
        c.prepare("SELECT id FROM evidence WHERE path = ?1 ORDER BY seq")
            .unwrap()
            .query_map([p], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(ids(&target), ids(&reference));
}

#[test]
fn pack_or_check_change_rescans_everything() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 3) as u64;
    audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    let c = db(&dir.path().join("a.sqlite"));
    let fp0: String = one(&c, "SELECT value FROM meta WHERE key = 'fingerprint'");

    // A check file added: new fingerprint, everything scanned again, its verdicts stored.
    std::fs::write(
        dir.path().join("extra.toml"),
        r#"[[check]]
id = "acc-len-set"
description = "SGLANG_SIMULATE_ACC_LEN is set somewhere"
rule = "env.var"
where = { name = "SGLANG_SIMULATE_ACC_LEN" }
expect = "present"
"#,
    )
    .unwrap();
    let run = audit(
        dir.path(),
        &["runs", "--db", "a.sqlite", "--checks", "extra.toml"],
    );
    assert_eq!(counts(&run), (n, 0), "{}", run.stderr);
    let fp1: String = one(&c, "SELECT value FROM meta WHERE key = 'fingerprint'");
    assert_ne!(fp0, fp1);
    assert_eq!(
        one::<i64>(
            &c,
            &format!("SELECT count(*) FROM artifacts WHERE fingerprint != '{fp1}'")
        ),
        0
    );
    assert_eq!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM verdicts WHERE check_id = 'acc-len-set'"
        ),
        n as i64
    );
    let again = audit(
        dir.path(),
        &["runs", "--db", "a.sqlite", "--checks", "extra.toml"],
    );
    assert_eq!(counts(&again), (0, n));

    // A pack added: everything again, and its rule's evidence is stored.
    std::fs::write(
        dir.path().join("mine.toml"),
        r#"name = "mine"
version = "1"
description = "user pack"
[[rule]]
id = "mine.capture_end"
description = "CUDA graph capture end"
regex = 'Capture cuda graph end\. Time elapsed: (?P<secs>[0-9.]+) s'
[rule.captures]
secs = "float"
[[rule.example]]
line = 'Capture cuda graph end. Time elapsed: 6.50 s. mem usage=2.39 GB. avail mem=20.38 GB.'
captures = { secs = 6.5 }
"#,
    )
    .unwrap();
    let run = audit(
        dir.path(),
        &[
            "runs",
            "--db",
            "a.sqlite",
            "--checks",
            "extra.toml",
            "--pack",
            "mine.toml",
        ],
    );
    assert_eq!(counts(&run), (n, 0), "{}", run.stderr);
    assert!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM evidence WHERE rule = 'mine.capture_end'"
        ) > 0
    );
    // Dropping the extra check: its verdicts go with the re-scan.
    let run = audit(
        dir.path(),
        &["runs", "--db", "a.sqlite", "--pack", "mine.toml"],
    );
    assert_eq!(counts(&run), (n, 0));
    assert_eq!(
        one::<i64>(
            &c,
            "SELECT count(*) FROM verdicts WHERE check_id = 'acc-len-set'"
        ),
        0
    );
}

const RUN_CHECK: &str = r#"[[check]]
id = "run-nextn-unset"
description = "No artifact of the run sets SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"
rule = "env.var"
where = { name = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" }
expect = "absent"
scope = "run"
"#;

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn two_shards_merged_equal_one_full_run() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 6) as i64;
    std::fs::write(dir.path().join("run.toml"), RUN_CHECK).unwrap();
    let common = ["--checks", "run.toml"];
    let with = |mut a: Vec<&'static str>| {
        a.extend(common);
        a
    };
    audit(dir.path(), &with(vec!["runs", "--db", "full.sqlite"]));
    audit(
        dir.path(),
        &with(vec!["runs", "--db", "s1.sqlite", "--shard", "1/2"]),
    );
    audit(
        dir.path(),
        &with(vec!["runs", "--db", "s2.sqlite", "--shard", "2/2"]),
    );
    let rows = |f: &str| count_rows(&db(&dir.path().join(f)), "artifacts");
    let (a, b) = (rows("s1.sqlite"), rows("s2.sqlite"));
    assert!(a > 0 && b > 0 && a + b == n, "{a} + {b} != {n}");
    // Run-scope verdicts: one per run, failing for the run with the variable.
    let full = db(&dir.path().join("full.sqlite"));
    assert_eq!(
        one::<i64>(
            &full,
            "SELECT count(*) FROM verdicts WHERE scope = 'run' AND check_id = 'run-nextn-unset'"
        ),
        6
    );
    assert_eq!(
        one::<String>(
            &full,
            "SELECT run_id FROM verdicts WHERE check_id = 'run-nextn-unset' AND status = 'fail'"
        ),
        NEXTN_RUN.to_string()
    );

    let merged = artiscan_in(
        dir.path(),
        &["audit", "merge", "merged.sqlite", "s1.sqlite", "s2.sqlite"],
    );
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let want = dump(&dir.path().join("full.sqlite"));
    assert!(
        dump(&dir.path().join("merged.sqlite")) == want,
        "merged shards differ from the full run"
    );
    // Idempotent: merging again changes nothing.
    let again = artiscan_in(
        dir.path(),
        &["audit", "merge", "merged.sqlite", "s2.sqlite", "s1.sqlite"],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains(" 0 artifacts taken"),
        "{}",
        again.stderr
    );
    assert!(dump(&dir.path().join("merged.sqlite")) == want);
    // A later audit over the merged store finds nothing to do.
    let run = audit(dir.path(), &with(vec!["runs", "--db", "merged.sqlite"]));
    assert_eq!(counts(&run), (0, n as u64));
}

/// Shards audited on two hosts, where the runs sit under different
/// absolute roots and each argument is spelled its own way, merge into the
/// store one audit of the whole gives (a file's key is its path relative to
/// the argument). A file whose copies differ between two hosts is still one
/// file: the merge keeps the later audit's content and says which, naming
/// both hashes.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn shards_from_hosts_with_other_roots_merge_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (host_a, host_b) = (d.join("host-a/mnt/ci"), d.join("host-b/data"));
    let n = make_runs(&host_a, 4) as i64;
    assert_eq!(make_runs(&host_b, 4) as i64, n);
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let store = |f: &str| d.join(f).display().to_string();
    let abs_a = host_a.join("runs").display().to_string();
    audit(&host_b, &["runs", "--db", &store("full.sqlite")]);
    audit(
        &elsewhere,
        &[&abs_a, "--db", &store("s1.sqlite"), "--shard", "1/2"],
    );
    audit(
        &host_b,
        &["./runs/", "--db", &store("s2.sqlite"), "--shard", "2/2"],
    );
    let rows = |f: &str| count_rows(&db(&d.join(f)), "artifacts");
    let (s1, s2) = (rows("s1.sqlite"), rows("s2.sqlite"));
    assert!(s1 > 0 && s2 > 0 && s1 + s2 == n, "{s1} + {s2} != {n}");
    let merged = artiscan_in(
        d,
        &["audit", "merge", "merged.sqlite", "s1.sqlite", "s2.sqlite"],
    );
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    assert!(!merged.stderr.contains("two contents"), "{}", merged.stderr);
    // Each host's copy has its own modification time: all else is equal.
    let dump = |f: &str| -> Vec<String> {
        dump(&d.join(f))
            .into_iter()
            .map(|r| {
                r.split(' ')
                    .filter(|c| !c.starts_with("mtime_ns="))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let (got, want) = (dump("merged.sqlite"), dump("full.sqlite"));
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter()
            .filter(|r| !y.contains(r))
            .take(6)
            .cloned()
            .collect()
    };
    assert!(
        got == want,
        "shards from two roots differ from one audit of the whole:\nmerged only: {:#?}\nwhole only: {:#?}",
        only(&got, &want),
        only(&want, &got)
    );

    // Host b's copy of one log differs (appended to): one path, two
    // contents. The merge keeps the later audit's and names both.
    let log = format!("runs/{}/vllm_server.log", run_id(2));
    let mut text = std::fs::read(host_b.join(&log)).unwrap();
    text.extend_from_slice(b"INFO 06-03 10:00:00 [api_server.py:1] one more line\n");
    std::fs::write(host_b.join(&log), text).unwrap();
    audit(&elsewhere, &[&abs_a, "--db", &store("a.sqlite")]);
    audit(&host_b, &["runs", "--db", &store("b.sqlite")]);
    let sha = |f: &str| -> String {
        one(
            &db(&d.join(f)),
            &format!("SELECT sha256 FROM artifacts WHERE path = '{log}'"),
        )
    };
    let (sha_a, sha_b) = (sha("a.sqlite"), sha("b.sqlite"));
    assert_ne!(sha_a, sha_b);
    let both = artiscan_in(
        d,
        &["audit", "merge", "both.sqlite", "a.sqlite", "b.sqlite"],
    );
    assert_eq!(both.code, 0, "{}", both.stderr);
    let said: Vec<&str> = both
        .stderr
        .lines()
        .filter(|l| l.contains("two contents under one path"))
        .collect();
    assert_eq!(said.len(), 1, "{}", both.stderr);
    assert!(
        said[0].contains(&log)
            && said[0].contains(&sha_a[..12])
            && said[0].contains(&sha_b[..12])
            && said[0].ends_with("kept theirs, the later audit"),
        "{}",
        said[0]
    );
    assert_eq!(sha("both.sqlite"), sha_b);
    assert_eq!(rows("both.sqlite"), n);
}

/// A code block of docs/audit.md, found by the text of its first line.
fn doc_sql(marker: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/audit.md")).unwrap();
    let mut blocks = doc.split("```sql\n").skip(1);
    let block = blocks
        .find(|b| b.lines().next().is_some_and(|l| l.contains(marker)))
        .unwrap_or_else(|| panic!("no ```sql block starting with {marker:?} in docs/audit.md"));
    block.split("```").next().unwrap().to_string()
}

#[test]
fn readme_sql_finds_the_runs_that_set_nextn_moe_with_citations() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 6);
    audit(dir.path(), &["runs", "--db", "audit.sqlite"]);
    let c = db(&dir.path().join("audit.sqlite"));

    let sql = doc_sql("Which runs had SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE set");
    let mut stmt = c.prepare(&sql).unwrap();
    let cols: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let (ri, ci, vi) = (
        cols.iter()
            .position(|c| c == "run_id")
            .expect("run_id column"),
        cols.iter()
            .position(|c| c == "citation")
            .expect("citation column"),
        cols.iter()
            .position(|c| c == "value")
            .expect("value column"),
    );
    let rows: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(ri)?, r.get(ci)?, r.get(vi)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (run, citation, value) = &rows[0];
    assert_eq!(run, &NEXTN_RUN.to_string());
    assert_eq!(value, "1");
    assert_eq!(
        citation,
        &format!(
            "runs/{NEXTN_RUN}/multinode_server_logs_{RF3}_1_9000034.zip!multinode_server_logs.tar.gz!./config.yaml:30"
        )
    );
    // The citation reopens.
    let cite = artiscan_in(
        dir.path(),
        &[
            "cite",
            citation,
            "--expect",
            "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
        ],
    );
    assert_eq!(cite.code, 0, "{}{}", cite.stdout, cite.stderr);

    // The issue's query: artifacts where the check does not pass.
    let sql = doc_sql("Artifacts where nextn-fp8-moe-unset does not pass");
    let rows: Vec<(String, String, String)> = c
        .prepare(&sql)
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let fails: Vec<_> = rows.iter().filter(|r| r.2 == "fail").collect();
    assert_eq!(fails.len(), 1, "{rows:?}");
    assert_eq!(fails[0].0, NEXTN_RUN.to_string());
    assert!(fails[0].1.contains("conc256"));
    // Unknowns are the artifacts without any env dump (or unreadable ones),
    // never a pass; artifacts with neither a server log nor an env dump are
    // not_applicable.
    assert!(
        rows.iter()
            .all(|r| r.2 == "fail" || r.2 == "unknown" || r.2 == "not_applicable")
    );
    assert!(
        rows.iter()
            .any(|r| r.1 == format!("server_logs_{RF1}_1_9000011.zip") && r.2 == "unknown")
    );

    // Monokernel: the conc256 artifact's TP7 never routed.
    let sql = doc_sql("Runs where the monokernel never routed on some rank");
    let rows: Vec<(String, String)> = c
        .prepare(&sql)
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].0, NEXTN_RUN.to_string());
}

#[test]
fn report_formats_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 6);
    audit(dir.path(), &["runs", "--db", "audit.sqlite"]);
    let report = |args: &[&str]| -> Run {
        let mut all = vec!["audit", "report", "--db", "audit.sqlite"];
        all.extend_from_slice(args);
        let run = artiscan_in(dir.path(), &all);
        assert_eq!(run.code, 0, "{all:?}: {}", run.stderr);
        run
    };

    let md = report(&["--format", "markdown"]).stdout;
    assert!(md.starts_with("# artiscan audit report\n"), "{md}");
    assert!(
        md.contains("| run | artifacts | incomplete | pass | fail | unknown |"),
        "{md}"
    );
    assert!(
        md.contains("| check | pass | fail | unknown | description |"),
        "{md}"
    );
    assert!(
        md.contains("| check | run | artifact | reason | first citation |"),
        "{md}"
    );
    let fail_row = format!(
        "| nextn-fp8-moe-unset | {NEXTN_RUN} | multinode_server_logs_{RF3}_1_9000034.zip | 7 matching record(s); value = \"1\" | `runs/{NEXTN_RUN}/multinode_server_logs_{RF3}_1_9000034.zip!multinode_server_logs.tar.gz!./config.yaml:30` |"
    );
    assert!(md.lines().any(|l| l == fail_row), "no row {fail_row}\n{md}");
    // Runs in numeric order, the damaged run with its 4 incomplete artifacts
    // (a core dump not searched counts).
    let runs_part = &md[md.find("## Runs").unwrap()..md.find("## Checks").unwrap()];
    let run_rows: Vec<&str> = runs_part
        .lines()
        .filter(|l| l.starts_with("| 18000"))
        .collect();
    assert_eq!(run_rows.len(), 6, "{md}");
    assert!(
        run_rows[0].starts_with("| 18000001 | 4 | 0 |"),
        "{}",
        run_rows[0]
    );
    assert!(
        run_rows[4].starts_with(&format!("| {DAMAGED_RUN} | 8 | 3 |")),
        "{}",
        run_rows[4]
    );
    assert!(md.contains("## Incomplete artifacts"));
    assert!(
        md.contains(&format!(
            "| {DAMAGED_RUN} | cut_server_logs_{RF1}.zip | 1 | truncated: "
        )),
        "{md}"
    );

    // JSON Lines: the same numbers as the store.
    let jl = report(&["--format", "jsonl"]);
    let recs = jl.records();
    assert_eq!(recs[0]["type"], "audit_summary");
    assert_eq!(recs[0]["runs"], 6);
    assert_eq!(recs[0]["incomplete"], 3);
    let c = db(&dir.path().join("audit.sqlite"));
    for status in ["pass", "fail", "unknown"] {
        let n: i64 = one(
            &c,
            &format!("SELECT count(*) FROM verdicts WHERE status = '{status}'"),
        );
        assert_eq!(recs[0][status], n, "{status}");
    }
    let nextn = recs
        .iter()
        .find(|r| r["type"] == "check" && r["check"] == "nextn-fp8-moe-unset")
        .unwrap();
    assert_eq!(nextn["fail"], 1);
    assert_eq!(
        jl.of_type("fail").len() as i64,
        one::<i64>(&c, "SELECT count(*) FROM verdicts WHERE status = 'fail'")
    );
    assert_eq!(jl.of_type("incomplete").len(), 3);

    // CSV: a header and one row per part.
    let csv = report(&["--format", "csv"]).stdout;
    assert!(csv.starts_with(
        "record,run,check,artifact,artifacts,incomplete,pass,fail,unknown,reason,citation\n"
    ));
    assert_eq!(csv.lines().filter(|l| l.starts_with("run,")).count(), 6);
    assert!(
        csv.lines()
            .any(|l| l.starts_with(&format!("fail,{NEXTN_RUN},nextn-fp8-moe-unset,"))),
        "{csv}"
    );

    // Text: the terminal table.
    let text = report(&["--format", "text"]).stdout;
    assert!(text.contains("RUNS\nrun "), "{text}");
    assert!(text.contains(&format!(
        "FAIL  nextn-fp8-moe-unset  run {NEXTN_RUN}  multinode_server_logs_{RF3}_1_9000034.zip"
    )));

    // Filters on the parsed name fields.
    let conc256 = report(&["--format", "jsonl", "--where", "conc=256"]).records();
    assert_eq!(conc256[0]["artifacts"], 1);
    assert_eq!(conc256[0]["runs"], 1);
    let fp4 = report(&[
        "--format",
        "jsonl",
        "--where",
        "precision=fp4",
        "--where",
        "disagg=true",
    ])
    .records();
    assert_eq!(fp4[0]["artifacts"], 7);
    let globbed = report(&["--format", "jsonl", "--where", "runner=gb200*"]).records();
    assert_eq!(globbed[0]["artifacts"], 7);
    let unparsed = report(&["--format", "jsonl", "--where", "kind="]).records();
    assert_eq!(unparsed[0]["artifacts"], 4 + 3 * 2);
    let since = report(&["--format", "jsonl", "--since", "18000005"]).records();
    assert_eq!(since[0]["runs"], 2);
    let dated = report(&["--format", "jsonl", "--since", "2000-01-01"]).records();
    assert_eq!(dated[0]["runs"], 6);
    let bad = artiscan_in(
        dir.path(),
        &[
            "audit",
            "report",
            "--db",
            "audit.sqlite",
            "--where",
            "nope=1",
        ],
    );
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown field"), "{}", bad.stderr);
}

#[test]
fn export_is_the_scan_and_check_output() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 3);
    audit(dir.path(), &["runs", "--db", "audit.sqlite"]);
    let sorted = |s: &str, keep: &dyn Fn(&str) -> bool| -> Vec<String> {
        let mut v: Vec<String> = s.lines().filter(|l| keep(l)).map(str::to_string).collect();
        v.sort();
        v
    };
    let export = artiscan_in(
        dir.path(),
        &[
            "audit",
            "export",
            "--db",
            "audit.sqlite",
            "--format",
            "jsonl",
            "--verdicts",
        ],
    );
    assert_eq!(export.code, 0, "{}", export.stderr);
    let scan = artiscan_in(dir.path(), &["scan", "runs", "--format", "jsonl"]);
    let not_verdict = |l: &str| !l.contains(r#""type":"verdict""#);
    let scanned = sorted(&scan.stdout, &|l| !l.starts_with(r#"{"type":"summary""#));
    assert!(scanned.len() > 100);
    assert!(
        sorted(&export.stdout, &not_verdict) == scanned,
        "export differs from scan output"
    );
    let check = artiscan_in(
        dir.path(),
        &["check", "--set", "inferencex", "runs", "--format", "jsonl"],
    );
    let is_verdict = |l: &str| l.contains(r#""type":"verdict""#);
    // The store keeps a verdict's status, reason, evidence and missing parts;
    // observed, expected, examined and per-server ranks are check's only.
    let stored = |l: &str| {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        for k in ["observed", "expected", "examined", "servers"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v.to_string()
    };
    let kept = |out: &str| {
        let mut v: Vec<String> = sorted(out, &is_verdict).iter().map(|l| stored(l)).collect();
        v.sort();
        v
    };
    let verdicts = kept(&check.stdout);
    assert!(!verdicts.is_empty());
    assert!(
        kept(&export.stdout) == verdicts,
        "exported verdicts differ from check's"
    );
    // Filtered export: one run only.
    let one_run = artiscan_in(
        dir.path(),
        &[
            "audit",
            "export",
            "--db",
            "audit.sqlite",
            "--where",
            "run_id=18000002",
        ],
    );
    let recs = one_run.records();
    assert!(!recs.is_empty());
    assert!(recs.iter().all(|r| {
        let p = r["path"]
            .as_str()
            .or(r["location"]["path"].as_str())
            .unwrap();
        p.starts_with("runs/18000002/")
    }));
}

#[test]
fn errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let run = artiscan_in(dir.path(), &["audit", "report", "--db", "missing.sqlite"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no such audit database"),
        "{}",
        run.stderr
    );
    std::fs::write(
        dir.path().join("not.sqlite"),
        b"this is not a database, just text ........",
    )
    .unwrap();
    let run = artiscan_in(
        dir.path(),
        &["audit", "missing_folder", "--db", "not.sqlite"],
    );
    assert_eq!(run.code, 2);
    // A missing input is reported; the rest is audited, and the exit code says so.
    std::fs::create_dir_all(dir.path().join("runs/1")).unwrap();
    copy("logs_12345678.zip", &dir.path().join("runs/1/logs_1.zip"));
    let run = artiscan_in(
        dir.path(),
        &["audit", "runs", "missing_folder", "--db", "ok.sqlite"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("missing_folder"));
    assert_eq!(
        count_rows(&db(&dir.path().join("ok.sqlite")), "artifacts"),
        1
    );
    let run = artiscan_in(
        dir.path(),
        &["audit", "runs", "--db", "ok.sqlite", "--shard", "3/2"],
    );
    assert_eq!(run.code, 2);
}

// Faults: kill -9 at random moments, a full disk, a read-only store.

/// What a clean audit stored, to compare a faulted store with.
struct Clean {
    dump: Vec<String>,
    /// Every row that belongs to an artifact, by its path.
    by_artifact: BTreeMap<String, Vec<String>>,
    /// Names of the schema's tables and indexes.
    schema: Vec<String>,
}

impl Clean {
    fn of(path: &Path) -> Clean {
        let c = db(path);
        Clean {
            dump: dump(path),
            by_artifact: rows_by_artifact(&c),
            schema: schema_names(&c),
        }
    }
}

fn rows_by_artifact(c: &Connection) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in RESULT_TABLES {
        for (path, row) in table_rows(c, t) {
            if let Some(p) = path {
                out.entry(p).or_default().push(row);
            }
        }
    }
    for rows in out.values_mut() {
        rows.sort();
    }
    out
}

fn schema_names(c: &Connection) -> Vec<String> {
    c.prepare("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Checks that a store left by a killed or failed audit holds whole
/// artifacts only: it opens (SQLite recovers its WAL) and passes SQLite's
/// integrity check; it has the whole schema or none (never half migrated);
/// and every artifact in it has exactly the rows a clean run stored for it
/// (none missing, none doubled, none left of an artifact not stored).
/// Returns how many artifacts it holds, `None` when it has no schema yet (or
/// no file).
fn assert_whole_artifacts(path: &Path, clean: &Clean) -> Option<usize> {
    if !path.exists() {
        return None;
    }
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
        .unwrap_or_else(|e| panic!("{}: cannot open after the fault: {e}", path.display()));
    let check: String = one(&c, "PRAGMA integrity_check");
    assert_eq!(check, "ok", "{}", path.display());
    let version: i64 = one(&c, "PRAGMA user_version");
    let schema = schema_names(&c);
    if version == 0 {
        assert!(schema.is_empty(), "half-migrated schema: {schema:?}");
        return None;
    }
    assert_eq!(version, 5);
    assert_eq!(schema, clean.schema, "{}", path.display());
    let stored: BTreeSet<String> = c
        .prepare("SELECT path FROM artifacts")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let rows = rows_by_artifact(&c);
    for (artifact, rows) in &rows {
        assert!(
            stored.contains(artifact),
            "rows of {artifact}, which has no artifacts row: {rows:?}"
        );
        assert!(
            Some(rows) == clean.by_artifact.get(artifact),
            "{artifact}: its rows differ from a clean run's"
        );
    }
    Some(stored.len())
}

/// SplitMix64: a small deterministic generator of kill moments.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A fraction in [0, 1), in thousandths.
    fn fraction(&mut self) -> f64 {
        (self.next() % 1000) as f64 / 1000.0
    }
}

#[derive(Debug, Clone, Copy)]
enum KillAt {
    /// As soon as the database file appears: while SQLite creates it and
    /// the schema is written.
    DbCreated,
    /// This long after the start.
    After(Duration),
    /// Once the store holds at least this many artifacts (polled with a
    /// read-only connection, as a reader of a running audit would).
    Stored(i64),
}

/// How many artifacts the store holds now; 0 before it has any, or a schema.
fn stored_now(path: &Path) -> i64 {
    // Read-only: never create the file before the audit does.
    Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM artifacts", [], |r| r.get(0)))
        .unwrap_or(0)
}

/// Starts `artiscan audit runs --db DB -j JOBS` and SIGKILLs it at `at`.
/// True when the kill landed; false when the audit had finished (exit 0).
fn audit_killed_at(dir: &Path, db: &str, jobs: &str, at: KillAt) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_artiscan"))
        .args(["audit", "runs", "--db", db, "-j", jobs])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        let due = match at {
            KillAt::DbCreated => dir.join(db).exists(),
            KillAt::After(d) => start.elapsed() >= d,
            KillAt::Stored(k) => dir.join(db).exists() && stored_now(&dir.join(db)) >= k,
        };
        if due {
            child.kill().unwrap(); // SIGKILL
            break;
        }
        assert!(start.elapsed() < crate::harness::HANG_LIMIT, "audit hangs");
        match at {
            KillAt::DbCreated => std::thread::yield_now(),
            KillAt::After(_) => std::thread::sleep(Duration::from_micros(200)),
            KillAt::Stored(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(9) => true,
        _ => {
            assert!(status.success(), "audit failed: {status:?}");
            false
        }
    }
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn killed_at_random_moments_and_resumed_equals_a_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 24);
    let start = Instant::now();
    audit(dir.path(), &["runs", "--db", "clean.sqlite", "-j", "1"]);
    let clean_time = start.elapsed();
    let clean = Clean::of(&dir.path().join("clean.sqlite"));
    let (mut early, mut mid) = (0, 0);
    // ARTISCAN_KILL_SEEDS=200 tries more seeds (a soak run).
    let seeds: u64 = std::env::var("ARTISCAN_KILL_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    for seed in 1..=seeds {
        let mut rng = Rng(seed);
        let db = format!("killed{seed}.sqlite");
        let jobs = if seed % 2 == 0 { "2" } else { "1" };
        let mut log = Vec::new();
        let mut stored = 0;
        // Up to three kills, each in the resumed run of the one before, at
        // a random time or number of artifacts stored. The first kills are
        // chosen to cover the store's creation (seed 1) and the middle of a
        // run (seeds 2 and 4), whatever the machine's speed.
        for k in 0..3 {
            let at = match (seed, k) {
                (1, 0) => KillAt::DbCreated,
                (2 | 4, 0) => KillAt::Stored(1 + (rng.next() % (n as u64 / 2)) as i64),
                _ if rng.next() % 2 == 0 => {
                    KillAt::Stored(1 + (rng.next() % (n as u64 - 1)) as i64)
                }
                _ => KillAt::After(clean_time.mul_f64(rng.fraction())),
            };
            if !audit_killed_at(dir.path(), &db, jobs, at) {
                log.push(format!("{at:?}: finished first"));
                stored = n;
                break;
            }
            let whole = assert_whole_artifacts(&dir.path().join(&db), &clean);
            stored = whole.unwrap_or(0);
            match whole {
                None => log.push(format!("{at:?}: no schema yet")),
                Some(s) => log.push(format!("{at:?}: {s} of {n} stored")),
            }
            match stored {
                0 => early += 1,
                s if s < n => mid += 1,
                _ => {}
            }
        }
        eprintln!("seed {seed} (-j {jobs}): {}", log.join("; "));
        let resumed = audit(dir.path(), &["runs", "--db", &db, "-j", jobs]);
        let (scanned, unchanged) = counts(&resumed);
        assert_eq!(
            unchanged as usize, stored,
            "seed {seed}: {}",
            resumed.stderr
        );
        assert_eq!((scanned + unchanged) as usize, n);
        assert!(
            dump(&dir.path().join(&db)) == clean.dump,
            "seed {seed}: the resumed store differs from a clean run ({log:?})"
        );
    }
    eprintln!(
        "{n} artifacts, clean run {clean_time:?}; kills before any artifact: {early}, mid-run: {mid}"
    );
    assert!(
        early >= 1 && mid >= 1,
        "too few kills landed: {early} early, {mid} mid-run"
    );
}

/// `artiscan audit ARGS` with every write past `limit` bytes of a file
/// failing, as on a full disk: the shell's `ulimit -f` (RLIMIT_FSIZE, in
/// 512-byte blocks) with SIGXFSZ ignored, so a write past the limit fails
/// with EFBIG instead of killing the process. Needs no root and no small
/// file system.
fn audit_with_file_limit(dir: &Path, limit: u64, args: &[&str]) -> Run {
    let setup = format!("trap '' XFSZ; ulimit -f {} || exit 99", limit / 512);
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    crate::harness::artiscan_after_sh(dir, &setup, &all)
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn full_disk_fails_clearly_and_keeps_whole_artifacts_only() {
    let dir = tempfile::tempdir().unwrap();
    let n = make_runs(dir.path(), 24);
    audit(dir.path(), &["runs", "--db", "clean.sqlite", "-j", "1"]);
    let clean = Clean::of(&dir.path().join("clean.sqlite"));
    let size = std::fs::metadata(dir.path().join("clean.sqlite"))
        .unwrap()
        .len();
    // Every commit goes to the WAL file, which grows past the final size of
    // the store: these limits are hit while creating the schema, after the
    // first commits, and late.
    let limits = [48 << 10, size * 3 / 10, size * 3 / 5, size * 9 / 10];
    let (mut log, mut results) = (Vec::new(), Vec::new());
    for (i, limit) in limits.into_iter().enumerate() {
        let db = format!("full{i}.sqlite");
        let run = audit_with_file_limit(
            dir.path(),
            limit,
            &["runs", "--db", &db, "-j", "1", "--no-progress"],
        );
        assert_eq!(run.code, 2, "limit {limit}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        let msg = format!("artiscan: cannot write audit store {db}: ");
        let line = run
            .stderr
            .lines()
            .find(|l| l.starts_with(&msg))
            .unwrap_or_else(|| panic!("no {msg:?} in {}", run.stderr));
        assert!(line.contains("disk full"), "{line}");
        let whole = assert_whole_artifacts(&dir.path().join(&db), &clean);
        let stored = whole.unwrap_or(0);
        assert!(stored < n, "limit {limit}: all {n} artifacts stored");
        log.push(format!("limit {limit}: {whole:?} of {n} stored: {line}"));
        results.push(whole);
        // Room again: the audit resumes and ends as a clean run.
        let resumed = audit(dir.path(), &["runs", "--db", &db, "-j", "1"]);
        assert_eq!(counts(&resumed), ((n - stored) as u64, stored as u64));
        assert!(
            dump(&dir.path().join(&db)) == clean.dump,
            "limit {limit}: the resumed store differs from a clean run"
        );
    }
    eprintln!("store of {size} bytes\n{}", log.join("\n"));
    // The first limit fails the schema's creation, which is then not there
    // at all; at least one later one fails after whole artifacts were committed.
    assert_eq!(results[0], None, "{log:?}");
    assert!(
        results.iter().any(|r| r.is_some_and(|s| s > 0)),
        "no limit was hit after a commit: {log:?}"
    );
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The store's files other than itself (-wal, -shm, -journal) in its folder.
fn sidecars(folder: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".sqlite-"))
        .collect();
    v.sort();
    v
}

#[test]
fn read_only_store_fails_clearly_unchanged_and_still_reports() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 2);
    std::fs::create_dir(dir.path().join("store")).unwrap();
    let db_path = dir.path().join("store/ro.sqlite");
    audit(dir.path(), &["runs", "--db", "store/ro.sqlite"]);
    // Something for the next audit to write.
    copy(
        "logs_12345678.zip",
        &dir.path().join("runs/18000001/logs_2.zip"),
    );
    let report = |run: &dyn Fn(&[&str]) -> Run| -> (Run, Run) {
        (
            run(&[
                "audit",
                "report",
                "--db",
                "store/ro.sqlite",
                "--format",
                "jsonl",
            ]),
            run(&["audit", "export", "--db", "store/ro.sqlite", "--verdicts"]),
        )
    };
    let in_dir = |args: &[&str]| artiscan_in(dir.path(), args);
    let (want_report, want_export) = report(&in_dir);
    assert_eq!(want_report.code, 0, "{}", want_report.stderr);
    assert_eq!(want_export.code, 0, "{}", want_export.stderr);
    let before = std::fs::read(&db_path).unwrap();
    let want_dump = dump(&db_path);
    assert!(sidecars(&dir.path().join("store")).is_empty());
    // The store's bytes as they were, and no -wal/-shm beside it.
    let untouched = |what: &str| {
        assert!(
            std::fs::read(&db_path).unwrap() == before,
            "read-only {what}: the store changed"
        );
        assert_eq!(
            sidecars(&dir.path().join("store")),
            Vec::<String>::new(),
            "read-only {what}"
        );
    };

    // A read-only file, then a read-only folder (SQLite cannot create the
    // -wal and -shm files beside the store).
    let cases: [(&str, u32, u32, &str); 2] = [
        (
            "file",
            0o444,
            0o755,
            "cannot write audit store store/ro.sqlite: read-only (",
        ),
        (
            "folder",
            0o644,
            0o555,
            "cannot write audit store store/ro.sqlite: its folder is read-only",
        ),
    ];
    for (what, file_mode, dir_mode, want) in cases {
        set_mode(&db_path, file_mode);
        set_mode(&dir.path().join("store"), dir_mode);
        // Root (and CAP_DAC_OVERRIDE) writes through permissions: nothing
        // here would be read-only.
        let privileged = std::fs::OpenOptions::new()
            .append(true)
            .open(&db_path)
            .is_ok()
            && std::fs::File::create(dir.path().join("store/probe")).is_ok();
        if privileged {
            eprintln!(
                "note: file permissions do not bind this user (root?): read-only {what} not tested"
            );
            let _ = std::fs::remove_file(dir.path().join("store/probe"));
            continue;
        }
        let run = in_dir(&["audit", "runs", "--db", "store/ro.sqlite"]);
        assert_eq!(run.code, 2, "read-only {what}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(
            run.stderr
                .lines()
                .any(|l| l.starts_with(&format!("artiscan: {want}"))),
            "read-only {what}: no {want:?} in {}",
            run.stderr
        );
        untouched(what);
        // Reading needs no write: report and export work, write nothing.
        let (got_report, got_export) = report(&in_dir);
        assert_eq!(
            got_report.code, 0,
            "read-only {what}: {}",
            got_report.stderr
        );
        assert_eq!(got_report.stdout, want_report.stdout, "read-only {what}");
        assert_eq!(
            got_export.code, 0,
            "read-only {what}: {}",
            got_export.stderr
        );
        assert!(
            got_export.stdout == want_export.stdout,
            "read-only {what}: export differs"
        );
        // A read-only shard merges.
        let merged = format!("merged-{what}.sqlite");
        let run = in_dir(&["audit", "merge", &merged, "store/ro.sqlite"]);
        assert_eq!(run.code, 0, "read-only {what}: {}", run.stderr);
        assert!(
            dump(&dir.path().join(&merged)) == want_dump,
            "read-only {what}: the merged store differs"
        );
        untouched(what);
    }
    set_mode(&dir.path().join("store"), 0o755);
    set_mode(&db_path, 0o644);
    // Writable again: the audit goes on.
    let run = audit(dir.path(), &["runs", "--db", "store/ro.sqlite"]);
    assert_eq!(counts(&run).0, 1, "{}", run.stderr);
}

// ---- Sharding at scale (issue 18) and a store that trusts no input (issue 13) ----

/// The variables `--shard auto` reads, cleared so that a test run inside a
/// scheduler sees only what the test sets.
const SCHEDULER_VARS: &[&str] = &[
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_JOB_ID",
    "JOB_COMPLETION_INDEX",
    "ARTISCAN_SHARD_COUNT",
    "BATCH_TASK_INDEX",
    "BATCH_TASK_COUNT",
    "CLOUD_RUN_TASK_INDEX",
    "CLOUD_RUN_TASK_COUNT",
];

/// A command in `dir` with no scheduler variables but `env`.
fn scheduled(program: &str, dir: &Path, args: &[&str], env: &[(&str, String)]) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(dir).env("NO_COLOR", "1");
    for v in SCHEDULER_VARS {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// Starts every command at once (separate processes, as a scheduler runs
/// array tasks), waits for all, and asserts each succeeded.
fn run_all(cmds: Vec<Command>) -> Vec<String> {
    let children: Vec<_> = cmds
        .into_iter()
        .map(|mut c| c.spawn().expect("spawn"))
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(out.status.success(), "{:?}\n{err}", out.status);
            err
        })
        .collect()
}

/// `run_id -> shard stores holding artifacts of it`, and every store's
/// declared slice.
fn runs_per_shard(stores: &[std::path::PathBuf]) -> BTreeMap<String, BTreeSet<usize>> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, s) in stores.iter().enumerate() {
        let c = db(s);
        let mut stmt = c.prepare("SELECT DISTINCT run_id FROM artifacts").unwrap();
        for r in stmt.query_map([], |r| r.get::<_, String>(0)).unwrap() {
            out.entry(r.unwrap()).or_default().insert(i);
        }
    }
    out
}

fn merge_all(dir: &Path, out: &str, stores: &[std::path::PathBuf]) -> Run {
    let mut args = vec!["audit".to_string(), "merge".to_string(), out.to_string()];
    args.extend(stores.iter().map(|s| s.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    artiscan_in(dir, &args)
}

/// N = 3 shards through the Slurm recipe itself (docs/recipes/audit-slurm.sbatch
/// run by bash with the variables Slurm sets, array 0-2) and N = 7 as a
/// Kubernetes Indexed Job would run them (JOB_COMPLETION_INDEX, count in
/// ARTISCAN_SHARD_COUNT), each task a separate process, all at once; merged,
/// each equals an unsharded audit row for row, and every run lies whole in
/// one shard, the runs spread over several.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn scheduler_shards_as_processes_merge_to_the_unsharded_audit() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 9);
    std::fs::write(dir.path().join("run.toml"), RUN_CHECK).unwrap();
    let bin = env!("CARGO_BIN_EXE_artiscan");
    audit(
        dir.path(),
        &["runs", "--db", "full.sqlite", "--no-progress"],
    );
    audit(
        dir.path(),
        &[
            "runs",
            "--db",
            "full-run.sqlite",
            "--checks",
            "run.toml",
            "--no-progress",
        ],
    );

    // Slurm, through the recipe.
    let script = root().join("docs/recipes/audit-slurm.sbatch");
    let slurm: Vec<Command> = (0..3)
        .map(|id| {
            let env = [
                ("SLURM_ARRAY_TASK_ID", id.to_string()),
                ("SLURM_ARRAY_TASK_MIN", "0".into()),
                ("SLURM_ARRAY_TASK_MAX", "2".into()),
                ("SLURM_ARRAY_TASK_COUNT", "3".into()),
                ("SLURM_CPUS_PER_TASK", "1".into()),
                ("AUDIT_DIR", dir.path().display().to_string()),
                ("ARTISCAN", bin.to_string()),
            ];
            scheduled("bash", dir.path(), &[script.to_str().unwrap()], &env)
        })
        .collect();
    let said = run_all(slurm);
    assert!(
        said.iter()
            .any(|e| e.contains("shard 1/3 by run from Slurm job array")),
        "{said:?}"
    );
    let slurm_stores: Vec<_> = (0..3)
        .map(|i| dir.path().join(format!("shards/shard-{i}.sqlite")))
        .collect();
    let merged = merge_all(dir.path(), "slurm.sqlite", &slurm_stores);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    assert!(
        dump(&dir.path().join("slurm.sqlite")) == dump(&dir.path().join("full.sqlite")),
        "3 Slurm shards merged differ from the unsharded audit"
    );
    let runs = runs_per_shard(&slurm_stores);
    assert_eq!(runs.len(), 9);
    assert!(runs.values().all(|s| s.len() == 1), "a run split: {runs:?}");
    let used: BTreeSet<usize> = runs.values().flatten().copied().collect();
    assert!(used.len() >= 2, "all runs in one shard: {runs:?}");
    for (i, s) in slurm_stores.iter().enumerate() {
        assert_eq!(
            one::<String>(&db(s), "SELECT value FROM meta WHERE key = 'shard'"),
            format!("{}/3 run", i + 1)
        );
    }

    // Kubernetes Indexed Job, with a run-scope check judged per shard.
    let k8s: Vec<Command> = (0..7)
        .map(|i| {
            let store = format!("k8s-{i}.sqlite");
            let args = [
                "audit",
                "runs",
                "--db",
                &store,
                "--checks",
                "run.toml",
                "--shard",
                "auto",
                "--shard-by",
                "run",
                "--no-progress",
            ];
            let env = [
                ("JOB_COMPLETION_INDEX", i.to_string()),
                ("ARTISCAN_SHARD_COUNT", "7".into()),
            ];
            scheduled(bin, dir.path(), &args, &env)
        })
        .collect();
    let said = run_all(k8s);
    assert!(
        said[6].contains("shard 7/7 by run from Kubernetes Indexed Job (JOB_COMPLETION_INDEX=6, ARTISCAN_SHARD_COUNT=7)"),
        "{}",
        said[6]
    );
    let k8s_stores: Vec<_> = (0..7)
        .map(|i| dir.path().join(format!("k8s-{i}.sqlite")))
        .collect();
    let runs = runs_per_shard(&k8s_stores);
    assert!(runs.values().all(|s| s.len() == 1), "a run split: {runs:?}");
    assert!(runs.values().flatten().collect::<BTreeSet<_>>().len() >= 3);
    // Whole runs per shard: each shard's own run verdicts are already final.
    let per_shard_run_verdicts: i64 = k8s_stores
        .iter()
        .map(|s| {
            one::<i64>(
                &db(s),
                "SELECT count(*) FROM verdicts WHERE scope = 'run' AND check_id = 'run-nextn-unset'",
            )
        })
        .sum();
    assert_eq!(per_shard_run_verdicts, 9);
    let merged = merge_all(dir.path(), "k8s.sqlite", &k8s_stores);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let want = dump(&dir.path().join("full-run.sqlite"));
    assert!(
        dump(&dir.path().join("k8s.sqlite")) == want,
        "7 shards merged differ from the unsharded audit"
    );
    // Idempotent, in any order.
    let mut reversed = k8s_stores.clone();
    reversed.reverse();
    let again = merge_all(dir.path(), "k8s.sqlite", &reversed);
    assert!(
        again.stderr.contains(" 0 artifacts taken"),
        "{}",
        again.stderr
    );
    assert!(dump(&dir.path().join("k8s.sqlite")) == want);
}

/// `audit plan` splits a bucket listing into disjoint shards that cover it,
/// keeps every run whole, keeps entries where they were when runs are added,
/// and `audit --listing` of each shard's part (downloaded to its path in the
/// bucket) merges to the unsharded audit.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn plan_splits_a_listing_and_audit_reads_its_part() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 6);
    let mut files = Vec::new();
    let mut stack = vec![dir.path().join("runs")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir.path()).unwrap();
                files.push(format!("gs://bucket/{}", rel.display()));
            }
        }
    }
    files.sort();
    let listing = format!("gs://bucket/runs/:\n{}\n\n", files.join("\r\n"));
    std::fs::write(dir.path().join("listing.txt"), &listing).unwrap();
    let plan = |shard: &str, file: &str| -> Vec<String> {
        let r = artiscan_in(
            dir.path(),
            &["audit", "plan", "--shard", shard, "--shard-by", "run", file],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout.lines().map(str::to_string).collect()
    };
    let parts: Vec<Vec<String>> = (1..=3)
        .map(|i| plan(&format!("{i}/3"), "listing.txt"))
        .collect();
    let mut all: Vec<String> = parts.concat();
    all.sort();
    assert_eq!(all, files, "the shards do not partition the listing");
    let run_of = |e: &str| e.split('/').nth(4).unwrap().to_string();
    for (i, p) in parts.iter().enumerate() {
        for q in &parts[i + 1..] {
            let (a, b): (BTreeSet<_>, BTreeSet<_>) = (
                p.iter().map(|e| run_of(e)).collect(),
                q.iter().map(|e| run_of(e)).collect(),
            );
            assert!(a.is_disjoint(&b), "a run in two shards");
        }
    }
    assert!(parts.iter().filter(|p| !p.is_empty()).count() >= 2);
    // New runs do not move old entries.
    let more =
        format!("{listing}gs://bucket/runs/19000001/a.zip\ngs://bucket/runs/19000002/b.zip\n");
    std::fs::write(dir.path().join("more.txt"), more).unwrap();
    for (i, p) in parts.iter().enumerate() {
        let now = plan(&format!("{}/3", i + 1), "more.txt");
        assert!(
            p.iter().all(|e| now.contains(e)),
            "shard {} lost entries",
            i + 1
        );
    }
    // Each shard audits its part (here already at its path in the bucket).
    audit(
        dir.path(),
        &["runs", "--db", "full.sqlite", "--no-progress"],
    );
    let mut stores = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let mine = format!("mine-{}.txt", i + 1);
        std::fs::write(dir.path().join(&mine), p.join("\n")).unwrap();
        let store = format!("p{}.sqlite", i + 1);
        let shard = format!("{}/3", i + 1);
        audit(
            dir.path(),
            &[
                "--listing",
                &mine,
                "--db",
                &store,
                "--shard",
                &shard,
                "--shard-by",
                "run",
                "--no-progress",
            ],
        );
        assert_eq!(
            count_rows(&db(&dir.path().join(&store)), "artifacts"),
            p.len() as i64
        );
        stores.push(dir.path().join(store));
    }
    let merged = merge_all(dir.path(), "merged.sqlite", &stores);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    assert!(dump(&dir.path().join("merged.sqlite")) == dump(&dir.path().join("full.sqlite")));
    // A listed file that is not there is an error, not an empty pass.
    std::fs::write(
        dir.path().join("gone.txt"),
        "gs://bucket/runs/1/missing.zip\n",
    )
    .unwrap();
    let r = artiscan_in(
        dir.path(),
        &["audit", "--listing", "gone.txt", "--db", "g.sqlite"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("runs/1/missing.zip"), "{}", r.stderr);
    // A name with control characters (an escape sequence) is not passed on.
    std::fs::write(
        dir.path().join("esc.txt"),
        "gs://bucket/runs/1/a.zip\ngs://bucket/runs/1/\x1b]52;c;b3duZWQ=\x07.zip\n",
    )
    .unwrap();
    let r = artiscan_in(dir.path(), &["audit", "plan", "--shard", "1/1", "esc.txt"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stdout, "gs://bucket/runs/1/a.zip\n");
    assert!(
        !r.stderr.contains('\x1b') && r.stderr.contains("1 refused"),
        "{}",
        r.stderr
    );
    // Nor one with a bidi override (shown reversed on a terminal), nor one
    // that is not UTF-8 (read lossily, it would name another object).
    let mut listing = b"gs://bucket/runs/1/a.zip\ngs://bucket/runs/2/b\xe2\x80\xaeb.zip\n".to_vec();
    listing.extend_from_slice(b"gs://bucket/runs/3/c\x9b.zip\n");
    std::fs::write(dir.path().join("bidi.txt"), listing).unwrap();
    let r = artiscan_in(dir.path(), &["audit", "plan", "--shard", "1/1", "bidi.txt"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stdout, "gs://bucket/runs/1/a.zip\n");
    assert!(
        !r.stderr.contains('\u{202e}') && r.stderr.contains("2 refused"),
        "{}",
        r.stderr
    );
    // --shard auto outside a scheduler is an error, not shard 1/1.
    let out = scheduled(
        env!("CARGO_BIN_EXE_artiscan"),
        dir.path(),
        &["audit", "plan", "--shard", "auto", "listing.txt"],
        &[],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no scheduler index"));
    assert!(out.stdout.is_empty());
}

/// Two artifacts whose names differ only in invalid UTF-8 keep two keys: the
/// failing one's verdict is not overwritten by the passing one's.
#[test]
fn paths_differing_in_invalid_utf8_keep_their_own_rows() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs/1");
    std::fs::create_dir_all(&runs).unwrap();
    let bad = runs.join(std::ffi::OsStr::from_bytes(b"server\xff.log"));
    let good = runs.join(std::ffi::OsStr::from_bytes(b"server\xfe.log"));
    std::fs::write(
        &bad,
        "+ export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\nstarted\n",
    )
    .unwrap();
    std::fs::write(&good, "+ export OTHER=1\nstarted\n").unwrap();
    let check = RUN_CHECK.replace("scope = \"run\"\n", "");
    std::fs::write(dir.path().join("c.toml"), check).unwrap();
    // Each log its own artifact (by structure, the folder `1` holding them
    // would be one).
    audit(
        dir.path(),
        &[
            "runs",
            "--db",
            "a.sqlite",
            "--layout",
            "files",
            "--no-builtin-checks",
            "--checks",
            "c.toml",
        ],
    );
    let c = db(&dir.path().join("a.sqlite"));
    assert_eq!(count_rows(&c, "artifacts"), 2);
    let statuses: BTreeSet<String> = c
        .prepare("SELECT status FROM verdicts")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(statuses, BTreeSet::from(["fail".into(), "pass".into()]));
    assert_eq!(
        one::<String>(&c, "SELECT path FROM verdicts WHERE status = 'fail'"),
        "runs/1/server\u{FFFD}xFF.log"
    );
    // And a re-audit finds both unchanged.
    let run = audit(
        dir.path(),
        &[
            "runs",
            "--db",
            "a.sqlite",
            "--layout",
            "files",
            "--no-builtin-checks",
            "--checks",
            "c.toml",
        ],
    );
    assert_eq!(counts(&run), (0, 2));
}

/// A forged shard is refused whole, quickly, and leaves the merged store as
/// it was and usable: a recursive view in place of a table, a trigger, text
/// in an integer column, invalid JSON, an unknown status, check text that
/// does not parse, a scan time in the future, and rows outside the shard's
/// declared slice (a shard flipping another shard's verdict); forged rows
/// are made newer than the store's, as an attacker would, so that a merge
/// would take them. A merge that overruns its time budget is stopped.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn merge_refuses_forged_shards() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 4);
    let d = dir.path();
    audit(
        d,
        &[
            "runs",
            "--db",
            "s1.sqlite",
            "--shard",
            "1/2",
            "--no-progress",
        ],
    );
    audit(
        d,
        &[
            "runs",
            "--db",
            "s2.sqlite",
            "--shard",
            "2/2",
            "--no-progress",
        ],
    );
    let m = artiscan_in(
        d,
        &["audit", "merge", "good.sqlite", "s1.sqlite", "s2.sqlite"],
    );
    assert_eq!(m.code, 0, "{}", m.stderr);
    let want = dump(&d.join("good.sqlite"));
    let attacks: &[(&str, &str, &str)] = &[
        (
            "recursive view",
            "DROP TABLE artifacts; CREATE VIEW artifacts AS WITH RECURSIVE r(path) AS \
             (SELECT 'x' UNION ALL SELECT path || 'x' FROM r) SELECT path, '' AS artifact, '' AS run_dir, \
             0 AS scanned_ns FROM r;",
            "unexpected view",
        ),
        (
            "trigger",
            "CREATE TRIGGER t AFTER INSERT ON meta BEGIN DELETE FROM artifacts; END;",
            "unexpected trigger",
        ),
        (
            "text in an integer column",
            "UPDATE artifacts SET size = 'huge' WHERE rowid = (SELECT min(rowid) FROM artifacts);",
            "column size holds text",
        ),
        (
            "invalid JSON",
            "UPDATE evidence_rows SET rank = '{oops' WHERE rowid = (SELECT min(rowid) FROM evidence_rows); UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "column rank is not JSON",
        ),
        // Layout 3: rows refer to their member chain by id; a row without
        // one would vanish from the views (its evidence unseen).
        (
            "evidence without its member chain",
            "DELETE FROM member_chains WHERE (path, chain) IN (SELECT path, chain FROM evidence_rows LIMIT 1); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "not: a member chain of its own artifact",
        ),
        (
            "evidence citing another artifact's chain",
            "INSERT INTO member_chains SELECT a.path, 1000000, '[\"x.log\"]', a.path || '!x.log' FROM artifacts a \
               WHERE a.path <> (SELECT path FROM evidence_rows LIMIT 1) LIMIT 1; \
             UPDATE evidence_rows SET chain = 1000000 WHERE rowid = (SELECT min(rowid) FROM evidence_rows); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "not: a member chain of its own artifact",
        ),
        (
            "aggregate without its member chain",
            "UPDATE aggregate_rows SET chain = -1 WHERE rowid = (SELECT min(rowid) FROM aggregate_rows); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "not: a member chain of its own artifact",
        ),
        (
            "a view in place of member_chains",
            "DROP TABLE member_chains; CREATE VIEW member_chains AS SELECT path, 0 AS chain, '[]' AS members, \
             path AS citation FROM artifacts;",
            "unexpected view",
        ),
        (
            "a chain citing another artifact",
            "UPDATE member_chains SET citation = 'elsewhere.zip!a.log' WHERE rowid = (SELECT min(rowid) FROM member_chains); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "its citation is not its members' citation",
        ),
        (
            "members not strings",
            "UPDATE member_chains SET members = '[1]', citation = path WHERE rowid = (SELECT min(rowid) FROM member_chains); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "members are not a JSON array of strings",
        ),
        (
            "members not an array",
            "UPDATE member_chains SET members = '{}' WHERE rowid = (SELECT min(rowid) FROM member_chains); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "members a JSON array",
        ),
        (
            "unknown status",
            "UPDATE verdicts SET status = 'PASS' WHERE rowid = (SELECT min(rowid) FROM verdicts); UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "a known verdict status",
        ),
        (
            "unparsable check text",
            "UPDATE fingerprints SET checks = '[{\"file\": \"x.toml\", \"source\": \"[[check]] id = \\u001b[2J\"}]';",
            "do not parse",
        ),
        (
            "scanned in the future",
            "UPDATE artifacts SET scanned_ns = 9000000000000000000 WHERE rowid = (SELECT min(rowid) FROM artifacts);",
            "scanned in the future",
        ),
        (
            "another shard's artifact",
            "ATTACH 's2.sqlite' AS o; \
             INSERT INTO artifacts SELECT * FROM o.artifacts WHERE rowid = (SELECT min(rowid) FROM o.artifacts); \
             INSERT INTO coverage SELECT * FROM o.coverage WHERE path IN (SELECT path FROM artifacts); \
             UPDATE artifacts SET scanned_ns = scanned_ns + 1000;",
            "outside its declared shard 1/2",
        ),
    ];
    for (name, sql, said) in attacks {
        let forged = d.join("forged.sqlite");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", forged.display()));
        }
        std::fs::copy(d.join("s1.sqlite"), &forged).unwrap();
        let c = Connection::open_with_flags(&forged, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
            .unwrap();
        c.execute_batch("PRAGMA journal_mode = DELETE").unwrap();
        c.execute_batch(&sql.replace(
            "'s2.sqlite'",
            &format!("'{}'", d.join("s2.sqlite").display()),
        ))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        drop(c);
        let r = artiscan_in(
            d,
            &[
                "audit",
                "merge",
                "good.sqlite",
                "forged.sqlite",
                "s2.sqlite",
            ],
        );
        assert_eq!(r.code, 2, "{name}: {}", r.stderr);
        assert!(
            r.stderr.contains("forged.sqlite: refused") && r.stderr.contains(said),
            "{name}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("1 refused"), "{name}: {}", r.stderr);
        assert!(
            !r.stderr.contains('\x1b'),
            "{name}: raw escape: {}",
            r.stderr
        );
        assert!(
            dump(&d.join("good.sqlite")) == want,
            "{name}: the store changed"
        );
        // The store still reports, exports, and takes good shards.
        for args in [
            vec!["audit", "report", "--db", "good.sqlite", "--format", "csv"],
            vec!["audit", "export", "--db", "good.sqlite", "--verdicts"],
            vec!["audit", "merge", "good.sqlite", "s1.sqlite"],
        ] {
            let r = artiscan_in(d, &args);
            assert_eq!(r.code, 0, "{name}: {args:?}: {}", r.stderr);
        }
    }
    // A file that is no store is refused; the other inputs are merged.
    std::fs::write(d.join("junk.sqlite"), "not a database\n".repeat(100)).unwrap();
    let r = artiscan_in(
        d,
        &["audit", "merge", "j.sqlite", "junk.sqlite", "s1.sqlite"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("junk.sqlite: refused"), "{}", r.stderr);
    assert_eq!(
        count_rows(&db(&d.join("j.sqlite")), "artifacts"),
        count_rows(&db(&d.join("s1.sqlite")), "artifacts")
    );
    // --shards N: every input declares a slice of N, and none is missing.
    audit(d, &["runs", "--db", "whole.sqlite", "--no-progress"]);
    let r = artiscan_in(
        d,
        &["audit", "merge", "n.sqlite", "--shards", "2", "s1.sqlite"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no input holds shard 2/2"),
        "{}",
        r.stderr
    );
    let r = artiscan_in(
        d,
        &[
            "audit",
            "merge",
            "n.sqlite",
            "--shards",
            "3",
            "s2.sqlite",
            "whole.sqlite",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("declares shard 2/2, not one of 3"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("declares no shard"), "{}", r.stderr);
    let r = artiscan_in(
        d,
        &[
            "audit",
            "merge",
            "n2.sqlite",
            "--shards",
            "2",
            "s2.sqlite",
            "s1.sqlite",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(dump(&d.join("n2.sqlite")) == want);
    // The time budget: a merge past it is stopped, nothing of it taken.
    let out = Command::new(env!("CARGO_BIN_EXE_artiscan"))
        .args(["audit", "merge", "slow.sqlite", "s1.sqlite"])
        .current_dir(d)
        .env("ARTISCAN_MERGE_BUDGET_MS", "0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("took longer than"), "{err}");
    assert_eq!(count_rows(&db(&d.join("slow.sqlite")), "artifacts"), 0);
}

/// The summary line's bytes and MB/s count what `scan` counts: the bytes
/// read (decompressed), on the same inputs.
#[test]
fn audit_summary_counts_the_bytes_scan_reads() {
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 3);
    let run = audit(dir.path(), &["runs", "--db", "a.sqlite", "--no-progress"]);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("audit: "))
        .unwrap();
    let read: u64 = line
        .split(" bytes read from ")
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let scan = artiscan_in(dir.path(), &["scan", "runs"]);
    let summary = scan.of_type("summary");
    assert_eq!(summary[0]["bytes"].as_u64(), Some(read), "{line}");
    assert!(read > 0 && line.contains(" MB/s;"), "{line}");
}

/// The Kubernetes recipe's command, run as its Indexed Job would run it: one
/// process per completion index, JOB_COMPLETION_INDEX set, the count from
/// the manifest's ARTISCAN_SHARD_COUNT (which must equal `completions`), the
/// volume a temp folder; merged, it equals an unsharded audit.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn kubernetes_recipe_shards_merge_to_the_unsharded_audit() {
    let yaml =
        std::fs::read_to_string(root().join("docs/recipes/audit-kubernetes-job.yaml")).unwrap();
    let lines: Vec<&str> = yaml.lines().collect();
    let value_after = |key: &str| -> String {
        let i = lines.iter().position(|l| l.contains(key)).unwrap();
        let l = lines[i..]
            .iter()
            .find(|l| l.trim_start().starts_with("value:") || l.contains("completions:"))
            .unwrap();
        l.rsplit(':')
            .next()
            .unwrap()
            .trim()
            .trim_matches('"')
            .to_string()
    };
    let completions = value_after("completions:");
    assert_eq!(value_after("name: ARTISCAN_SHARD_COUNT"), completions);
    let n: usize = completions.parse().unwrap();
    // The folded (`>-`) shell command under `args:`.
    let start = lines.iter().position(|l| l.trim() == "- >-").unwrap();
    let indent = lines[start].len() - lines[start].trim_start().len();
    let command: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| l.len() - l.trim_start().len() > indent)
        .map(|l| l.trim())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    make_runs(dir.path(), 6);
    let volume = dir.path().display().to_string();
    let command = command.join(" ").replace("/audit", &volume);
    assert!(command.contains("--shard auto"), "{command}");
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_artiscan"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let pods: Vec<Command> = (0..n)
        .map(|i| {
            let env = [
                ("JOB_COMPLETION_INDEX", i.to_string()),
                ("ARTISCAN_SHARD_COUNT", completions.clone()),
                ("PATH", path.clone()),
            ];
            scheduled("/bin/sh", dir.path(), &["-c", &command], &env)
        })
        .collect();
    run_all(pods);
    let stores: Vec<_> = (0..n)
        .map(|i| dir.path().join(format!("shards/shard-{i}.sqlite")))
        .collect();
    let merged = merge_all(dir.path(), "merged.sqlite", &stores);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let runs = format!("{volume}/runs");
    audit(dir.path(), &[&runs, "--db", "full.sqlite", "--no-progress"]);
    assert!(dump(&dir.path().join("merged.sqlite")) == dump(&dir.path().join("full.sqlite")));
    assert!(runs_per_shard(&stores).values().all(|s| s.len() == 1));
}

/// `(check, status)` of the artifact-scope verdicts stored for `scope`.
fn stored_verdicts(c: &Connection, scope: &str) -> Vec<(String, String)> {
    c.prepare(
        "SELECT check_id, status FROM verdicts WHERE scope = 'artifact' AND scope_name = ?1 ORDER BY check_id",
    )
    .unwrap()
    .query_map([scope], |r| Ok((r.get(0)?, r.get(1)?)))
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// An extracted artifact folder is one artifact in `audit` as in `check`:
/// its files are judged together (not file by file), with the verdicts of
/// the same artifact as a zip; its run is the folder holding it; a change
/// to one of its files judges the folder again, and only it.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn an_artifact_folder_is_judged_whole_as_check_and_its_zip_judge_it() {
    let dir = tempfile::tempdir().unwrap();
    let dl = root().join("samples/artifacts/downloaded");
    let mut names: Vec<String> = std::fs::read_dir(&dl)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    let folders = dir.path().join("runs/1");
    for name in &names {
        let to = folders.join(name);
        for f in walk_files(&dl.join(name)) {
            let rel = f.strip_prefix(dl.join(name)).unwrap();
            std::fs::create_dir_all(to.join(rel).parent().unwrap()).unwrap();
            std::fs::copy(&f, to.join(rel)).unwrap();
        }
        let zip = if name == "core_dump_artifact" {
            format!("damaged/{name}.zip")
        } else {
            format!("{name}.zip")
        };
        copy(&zip, &dir.path().join(format!("runs/2/{name}.zip")));
    }
    let args = ["runs", "--db", "a.sqlite", "--param", "al=3.77"];
    audit(dir.path(), &args);
    let c = db(&dir.path().join("a.sqlite"));
    // No file of a folder has verdicts of its own; each folder has one per check.
    let per_file: i64 = one(
        &c,
        "SELECT count(*) FROM verdicts WHERE path LIKE 'runs/1/%'",
    );
    assert_eq!(per_file, 0);
    let checks =
        crate::harness::inferencex_checks() - crate::harness::inferencex_run_checks().len();
    for name in &names {
        let folder = stored_verdicts(&c, &format!("runs/1/{name}"));
        assert_eq!(folder.len(), checks, "{name}: one verdict per check");
        assert_eq!(
            folder,
            stored_verdicts(&c, &format!("runs/2/{name}.zip")),
            "{name}: the folder and its zip"
        );
    }
    // The same verdicts `check` gives the run folder.
    let checked = crate::harness::artiscan_in(
        dir.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "--param",
            "al=3.77",
            "runs/1",
        ],
    );
    let from_check = crate::harness::checked_verdicts(&checked);
    let from_audit = crate::harness::stored_verdict_rows(&c, "WHERE run_dir = 'runs/1'");
    assert_eq!(from_audit, from_check);
    assert!(
        from_audit.iter().any(|(s, _, _)| s == "runs/1"),
        "run verdicts"
    );
    // Sharded, an artifact's files stay in one slice; merged, the folders
    // are judged again over the merged store: the verdicts of one audit.
    for i in ["1/2", "2/2"] {
        let db = format!("s{}.sqlite", &i[..1]);
        audit(
            dir.path(),
            &["runs", "--db", &db, "--param", "al=3.77", "--shard", i],
        );
    }
    audit(dir.path(), &["merge", "m.sqlite", "s1.sqlite", "s2.sqlite"]);
    let all = |c: &Connection| crate::harness::stored_verdict_rows(c, "");
    assert_eq!(all(&db(&dir.path().join("m.sqlite"))), all(&c));
    let units = |f: &str| -> BTreeSet<String> {
        db(&dir.path().join(f))
            .prepare("SELECT DISTINCT unit FROM artifacts")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let (u1, u2) = (units("s1.sqlite"), units("s2.sqlite"));
    assert!(
        !u1.is_empty() && !u2.is_empty() && u1.is_disjoint(&u2),
        "{u1:?} {u2:?}"
    );
    drop(c);

    // A crash appended to one server log: that folder alone is judged again.
    let server = format!("server_logs_{RF1}");
    let log = walk_files(&folders.join(&server))
        .into_iter()
        .find(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("server_args=ServerArgs(")))
        .expect("the server log");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(
        "Traceback (most recent call last):\n  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2968, in run_scheduler_process\n    scheduler.event_loop_overlap()\nRuntimeError: CUDA error: an illegal memory access was encountered\n",
    );
    std::fs::write(&log, text).unwrap();
    let again = audit(dir.path(), &args);
    let files = one::<i64>(
        &db(&dir.path().join("a.sqlite")),
        "SELECT count(*) FROM artifacts",
    ) as u64;
    assert_eq!(counts(&again), (1, files - 1), "{}", again.stderr);
    let c = db(&dir.path().join("a.sqlite"));
    let status = |scope: &str| -> String {
        stored_verdicts(&c, scope)
            .into_iter()
            .find(|(id, _)| id == "no-traceback")
            .unwrap()
            .1
    };
    assert_eq!(status(&format!("runs/1/{server}")), "fail");
    assert_eq!(status(&format!("runs/2/{server}.zip")), "pass");
    let per_file: i64 = one(
        &c,
        "SELECT count(*) FROM verdicts WHERE path LIKE 'runs/1/%'",
    );
    assert_eq!(per_file, 0);
}

/// Every file under `dir`, sorted.
fn walk_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A file of an artifact folder that cannot be read (a FIFO) makes the
/// folder's claims unknown in `audit` as in `check`, never a PASS from the
/// files beside it; the audit exits 2 and names it.
#[test]
fn an_unreadable_file_of_an_artifact_folder_makes_its_claims_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("server_logs_{RF1}");
    let from = root().join("samples/artifacts/downloaded").join(&name);
    let to = dir.path().join("runs/1").join(&name);
    for f in walk_files(&from) {
        let rel = f.strip_prefix(&from).unwrap();
        std::fs::create_dir_all(to.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(&f, to.join(rel)).unwrap();
    }
    let fifo = to.join("zz_server.log");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let run = artiscan_in(dir.path(), &["audit", "runs", "--db", "a.sqlite"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("zz_server.log"), "{}", run.stderr);
    let c = db(&dir.path().join("a.sqlite"));
    let stored = stored_verdicts(&c, &format!("runs/1/{name}"));
    let checked = artiscan_in(dir.path(), &["check", "--set", "inferencex", "runs/1"]);
    let mut want: Vec<(String, String)> = checked
        .of_type("verdict")
        .iter()
        .filter(|v| v["scope"].as_str().unwrap().ends_with(&name))
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            (s("check"), s("status"))
        })
        .collect();
    want.sort();
    assert_eq!(stored, want);
    let status = |id: &str| stored.iter().find(|(c, _)| c == id).unwrap().1.clone();
    // Without the FIFO these pass (the golden outputs hold that).
    assert_eq!(status("no-traceback"), "unknown");
    assert_eq!(status("no-oom"), "unknown");
}

/// An aggregated rule's lines make a claim apply in `audit` as in `check`:
/// a server log whose only sign of speculative decoding is its
/// `accept len:` lines (aggregated in the store) is judged on the
/// speculative checks. A folder artifact is judged from what the store
/// holds, so the store's aggregates must be read back with its evidence.
#[test]
fn aggregated_lines_make_claims_apply_in_audit_as_in_check() {
    let dir = tempfile::tempdir().unwrap();
    let log = "2026-10-29 04:01:05 [INFO] Env: NCCL_IB_DISABLE=0 SGLANG_SIMULATE_ACC_LEN=3.77\n\
        [2026-10-29 04:41:02 DP0 TP0 EP0] Decode batch, #running-req: 13, #token: 81234, \
        token usage: 0.41, accept len: 3.77, accept rate: 0.55, cuda graph: True, \
        gen throughput (token/s): 1012.55, #queue-req: 0\n";
    let folder = dir.path().join("runs/1/server_logs_spec");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("server.log"), log).unwrap();
    audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    let c = db(&dir.path().join("a.sqlite"));
    let from_audit = crate::harness::stored_verdict_rows(&c, "");
    let checked =
        crate::harness::artiscan_in(dir.path(), &["check", "--set", "inferencex", "runs/1"]);
    assert_eq!(from_audit, crate::harness::checked_verdicts(&checked));
    // The claim applies: it is judged, not set aside (the server log, a
    // twin, does not vote; the run's claim that a client was read does).
    let chat = from_audit
        .iter()
        .find(|(_, c, _)| c == "spec-decode-client-in-run")
        .expect("judged");
    assert_ne!(chat.2, "not_applicable", "{chat:?}");
}

/// Judging a run again from the store reads back only the rules its checks
/// read: an env dump's `env.var` rows, which no run check reads, are not
/// loaded (a run full of env dumps held them all: 435 MiB on one of 186,000
/// rows). Shown by damaging those rows: the run is judged again, unchanged.
#[test]
fn judging_a_run_from_the_store_reads_only_the_rules_its_checks_read() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("runs/1");
    std::fs::create_dir_all(&run).unwrap();
    let mut log = String::new();
    for i in 0..50 {
        log.push_str(&format!(
            "2026-10-29 04:01:05 [INFO] Env: NCCL_IB_DISABLE=0 SGLANG_VAR_{i}=1\n"
        ));
    }
    std::fs::write(run.join("server.log"), log).unwrap();
    let eval = "eval_gsm8k_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip";
    copy(eval, &run.join(eval));
    audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    let c = db(&dir.path().join("a.sqlite"));
    let before = crate::harness::stored_verdict_rows(&c, "");
    assert!(
        before
            .iter()
            .any(|(s, c, _)| s == "runs/1" && c == "eval-same-image"),
        "run checks judged: {before:?}"
    );
    let env_rows: i64 = one(
        &c,
        "SELECT count(*) FROM evidence_rows WHERE rule = 'env.var'",
    );
    assert!(env_rows >= 50, "{env_rows}");
    // Rows no run check reads, unreadable if they were read back (captures
    // are an object).
    c.execute(
        "UPDATE evidence_rows SET captures = '[1]' WHERE rule = 'env.var'",
        [],
    )
    .unwrap();
    c.execute(
        "INSERT INTO dirty_runs SELECT DISTINCT run_dir FROM artifacts",
        [],
    )
    .unwrap();
    drop(c);
    let again = audit(dir.path(), &["runs", "--db", "a.sqlite"]);
    assert_eq!(counts(&again), (0, 2), "{}", again.stderr);
    let c = db(&dir.path().join("a.sqlite"));
    assert_eq!(count_rows(&c, "dirty_runs"), 0);
    assert_eq!(crate::harness::stored_verdict_rows(&c, ""), before);
}
