//! `audit` reflects the files as they are now (issue 45): a file deleted,
//! moved or changed since the last audit judges the artifacts it belonged
//! to and belongs to again, as `check` judges them on the same files; an
//! input `check` cannot read is an error of the audit too; one run is one
//! run however its folder is spelled.

use crate::harness::{Run, artiscan_in, checked_verdicts, copy_dir, root};
use std::path::Path;

const RF1: &str =
    "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

/// An environment dump as `env > server_env.txt` writes it (a plain
/// `NAME=value` per line): the source the env claims need.
const ENV_DUMP: &str = "HOSTNAME=mi355x-amds-03\nSGLANG_ENABLE_JIT_DEEPGEMM=0\nNCCL_IB_DISABLE=0\nSGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=0\n";

fn run_ok(dir: &Path, args: &[&str]) -> Run {
    let r = artiscan_in(dir, args);
    assert_eq!(r.code, 0, "artiscan {args:?}\n{}", r.stderr);
    r
}

/// `check` on `input` and the audit's export of `db` give the same
/// verdicts (scope, check, status), and returns them.
fn agree(dir: &Path, input: &str, db: &str) -> Vec<(String, String, String)> {
    let checked = artiscan_in(dir, &["check", "--set", "inferencex", input]);
    let exported = run_ok(dir, &["audit", "export", "--db", db, "--verdicts"]);
    let (c, a) = (checked_verdicts(&checked), checked_verdicts(&exported));
    assert_eq!(a, c, "audit (left) and check (right) on the same files");
    assert!(!c.is_empty());
    c
}

fn status(v: &[(String, String, String)], scope_end: &str, check: &str) -> String {
    v.iter()
        .find(|(s, c, _)| s.ends_with(scope_end) && c == check)
        .unwrap_or_else(|| panic!("no {check} verdict of {scope_end}: {v:?}"))
        .2
        .clone()
}

/// The case, in the folder layout: an artifact folder audited
/// (its env claim passes), then its env dump moved to another artifact
/// folder and its server log appended to, then the dump deleted there: at
/// each step the re-audit gives `check`'s verdicts, where it kept the gone
/// file's rows and said PASS. As zips: a zip deleted since leaves the
/// report and export, and `--history` still shows it.
#[test]
fn gone_and_moved_files_are_judged_as_check_judges_the_files_now() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = format!("server_logs_{RF1}");
    let b = format!("server_logs_{}", RF1.replace("conc64", "conc128"));
    let from = root().join("samples/artifacts/downloaded").join(&a);
    copy_dir(&from, &d.join("runs/1").join(&a));
    copy_dir(&from, &d.join("runs/1").join(&b));
    std::fs::write(d.join("runs/1").join(&a).join("server_env.txt"), ENV_DUMP).unwrap();
    let args = ["audit", "runs", "--db", "a.sqlite"];
    run_ok(d, &args);
    let v = agree(d, "runs", "a.sqlite");
    assert_eq!(status(&v, &a, "nextn-fp8-moe-unset"), "pass");
    assert_eq!(status(&v, &b, "nextn-fp8-moe-unset"), "unknown");

    std::fs::rename(
        d.join("runs/1").join(&a).join("server_env.txt"),
        d.join("runs/1").join(&b).join("server_env.txt"),
    )
    .unwrap();
    let log = d.join("runs/1").join(&a).join("server.log");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(
        "[2026-10-29 05:12:40] INFO:     127.0.0.1:51234 - \"GET /health HTTP/1.1\" 200 OK\n",
    );
    std::fs::write(&log, text).unwrap();
    let again = run_ok(d, &args);
    let v = agree(d, "runs", "a.sqlite");
    assert!(
        again.stderr.contains("1 files stored earlier are gone"),
        "{}",
        again.stderr
    );
    assert_eq!(status(&v, &a, "nextn-fp8-moe-unset"), "unknown");
    assert_eq!(status(&v, &b, "nextn-fp8-moe-unset"), "pass");

    std::fs::remove_file(d.join("runs/1").join(&b).join("server_env.txt")).unwrap();
    run_ok(d, &args);
    let v = agree(d, "runs", "a.sqlite");
    assert_eq!(status(&v, &b, "nextn-fp8-moe-unset"), "unknown");

    // Zips: one deleted leaves the verdicts and the report.
    let zips = d.join("zips/2");
    std::fs::create_dir_all(&zips).unwrap();
    for z in [format!("server_logs_{RF1}.zip"), "logs_12345678.zip".into()] {
        std::fs::copy(root().join("samples/artifacts").join(&z), zips.join(&z)).unwrap();
    }
    let args = ["audit", "zips", "--db", "z.sqlite"];
    run_ok(d, &args);
    agree(d, "zips", "z.sqlite");
    std::fs::remove_file(zips.join("logs_12345678.zip")).unwrap();
    run_ok(d, &args);
    let v = agree(d, "zips", "z.sqlite");
    assert!(
        v.iter().all(|(s, _, _)| !s.contains("logs_12345678")),
        "{v:?}"
    );
    let report = run_ok(
        d,
        &["audit", "report", "--db", "z.sqlite", "--format", "csv"],
    );
    assert!(
        !report.stdout.contains("logs_12345678"),
        "{}",
        report.stdout
    );
    let history = run_ok(
        d,
        &[
            "audit",
            "export",
            "--db",
            "z.sqlite",
            "--verdicts",
            "--history",
        ],
    );
    assert!(
        checked_verdicts(&history)
            .iter()
            .any(|(s, _, _)| s.ends_with("logs_12345678.zip")),
        "{}",
        history.stdout
    );
}

/// One run is one run however its folder is spelled: audited by its
/// absolute path from elsewhere, then by a relative path, the store holds
/// each file once (it held every one twice), keyed as the relative audit
/// walks it, and the second audit scans nothing.
#[test]
fn absolute_then_relative_paths_store_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let runs = d.join("data/runs/18012345678");
    std::fs::create_dir_all(&runs).unwrap();
    for z in [format!("server_logs_{RF1}.zip"), "logs_12345678.zip".into()] {
        std::fs::copy(root().join("samples/artifacts").join(&z), runs.join(&z)).unwrap();
    }
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let abs = d.join("data/runs").display().to_string();
    let db = d.join("a.sqlite").display().to_string();
    run_ok(&elsewhere, &["audit", &abs, "--db", &db]);
    let again = run_ok(&d.join("data"), &["audit", "./runs/", "--db", &db]);
    assert!(
        again.stderr.contains(": 0 scanned, 2 unchanged"),
        "{}",
        again.stderr
    );
    let c = rusqlite::Connection::open(&db).unwrap();
    let paths: Vec<String> = c
        .prepare("SELECT path FROM artifacts ORDER BY path")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        paths,
        [
            "runs/18012345678/logs_12345678.zip".to_string(),
            format!("runs/18012345678/server_logs_{RF1}.zip")
        ]
    );
    // The run id still comes from its folder.
    let ids: i64 = c
        .query_row(
            "SELECT count(*) FROM artifacts WHERE run_id = '18012345678'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(ids, 2);
}

/// An input `check` cannot read (exit 2) is an error of the audit too
/// (exit 2, counted in its summary), in an artifact folder and as a file
/// of its own: a download saved as a page in place of the zip, and (when
/// not run as root, whom permissions do not bind) a file without read
/// permission.
#[test]
fn inputs_check_cannot_read_are_audit_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let page = "<!DOCTYPE html>\n<html><head><title>Sign in to GitHub</title></head>\n<body>Not Found</body></html>\n";
    let folder = d.join("runs/1").join(format!("server_logs_{RF1}"));
    copy_dir(
        &root()
            .join("samples/artifacts/downloaded")
            .join(format!("server_logs_{RF1}")),
        &folder,
    );
    std::fs::write(folder.join("server_logs.zip"), page).unwrap();
    std::fs::create_dir_all(d.join("runs/2")).unwrap();
    std::fs::write(d.join(format!("runs/2/server_logs_{RF1}.zip")), page).unwrap();
    for input in ["runs/1", "runs/2"] {
        let checked = artiscan_in(d, &["check", "--set", "inferencex", input]);
        assert_eq!(checked.code, 2, "{}", checked.stderr);
        let db = format!("{}.sqlite", input.replace('/', "_"));
        let audited = artiscan_in(d, &["audit", input, "--db", &db]);
        assert_eq!(audited.code, 2, "{input}: {}", audited.stderr);
        assert!(audited.stderr.contains(", 1 errors;"), "{}", audited.stderr);
        assert!(audited.stderr.contains("server_logs"), "{}", audited.stderr);
    }
    if running_as_root() {
        println!("skipped the permission case: run as root, whom file permissions do not bind");
        return;
    }
    let locked = d.join("runs/3/server.log");
    std::fs::create_dir_all(locked.parent().unwrap()).unwrap();
    std::fs::write(&locked, "[2026-10-29 04:01:05] INFO: start\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let checked = artiscan_in(d, &["check", "--set", "inferencex", "runs/3"]);
    assert_eq!(checked.code, 2, "{}", checked.stderr);
    let audited = artiscan_in(d, &["audit", "runs/3", "--db", "3.sqlite"]);
    assert_eq!(audited.code, 2, "{}", audited.stderr);
}

/// Whether this process runs as root (`id -u` is 0).
fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `check` and `audit` agree on every input of the tests: the samples'
/// artifacts (zips, extracted folders, damaged archives, plain logs), the
/// verifier's run folders and the regression archives, each copied into one
/// folder and given as it is to both. Same verdicts (scope, check, status),
/// and an input `check` cannot read completely is an error of both (exit 2).
#[test]
fn check_and_audit_agree_on_every_input_of_the_tests() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (from, to) in [
        ("samples/artifacts", "inputs/artifacts"),
        ("samples/verifier/runs", "inputs/verifier"),
        ("tests/regressions", "inputs/regressions"),
    ] {
        copy_dir(&root().join(from), &d.join(to));
    }
    for input in ["inputs/artifacts", "inputs/verifier", "inputs/regressions"] {
        let checked = artiscan_in(d, &["check", "--set", "inferencex", input]);
        let db = format!("{}.sqlite", input.replace('/', "_"));
        let audited = artiscan_in(d, &["audit", input, "--db", &db, "--no-progress"]);
        assert_eq!(
            audited.code == 2,
            checked.code == 2,
            "{input}: audit exit {} ({}), check exit {} ({})",
            audited.code,
            audited.stderr,
            checked.code,
            checked.stderr
        );
        let exported = run_ok(d, &["audit", "export", "--db", &db, "--verdicts"]);
        let (c, a) = (checked_verdicts(&checked), checked_verdicts(&exported));
        assert!(!c.is_empty(), "{input}: {}", checked.stderr);
        assert_eq!(a, c, "{input}: audit (left) and check (right)");
    }
}

/// The bytes an audit says it read count a damaged artifact's bytes up to
/// the damage, as `scan` counts them: a gzip log cut mid-stream and a
/// tarball cut mid-member (they counted 0 though the lines before the cut
/// were searched and gave records).
#[test]
fn audit_counts_the_bytes_read_before_damage() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("runs/1")).unwrap();
    for f in [
        "corrupt_server.log.gz",
        "truncated_multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.tar.gz",
    ] {
        std::fs::copy(
            root().join("samples/artifacts/damaged").join(f),
            d.join("runs/1").join(f),
        )
        .unwrap();
    }
    let audited = artiscan_in(d, &["audit", "runs", "--db", "a.sqlite", "--no-progress"]);
    let line = audited
        .stderr
        .lines()
        .find(|l| l.starts_with("audit: "))
        .unwrap_or_else(|| panic!("{}", audited.stderr));
    let read: u64 = line
        .split(" bytes read from ")
        .next()
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(line.contains(" 2 incomplete,"), "{line}");
    let scanned = artiscan_in(d, &["scan", "runs"]);
    let cov = scanned.of_type("coverage");
    assert_eq!(cov.len(), 2, "{}", scanned.stdout);
    for c in &cov {
        assert_eq!(c["complete"], false, "{c}");
        assert!(c["bytes"].as_u64().unwrap() > 0, "{c}");
    }
    let total: u64 = cov.iter().map(|c| c["bytes"].as_u64().unwrap()).sum();
    assert_eq!(read, total, "{line}");
}
