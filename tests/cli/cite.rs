//! `artiscan cite`: every citation scan prints reopens to its line.

use crate::harness::*;

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn every_evidence_record_round_trips() {
    let run = artiscan(&["scan", "--every-match", "samples/artifacts"]);
    let ev = run.of_type("evidence");
    assert!(ev.len() > 200);
    // One artiscan process per record would be slow: check a spread of them.
    let step = (ev.len() / 60).max(1);
    for e in ev.iter().step_by(step) {
        let c = e["citation"].as_str().unwrap();
        let text = e["text"].as_str().unwrap();
        let quote: String = text.chars().take(60).collect();
        let r = artiscan(&["cite", "--json", c, "--expect", &quote]);
        assert_eq!(r.code, 0, "{c}: {}", r.stderr);
        let rec = &r.records()[0];
        match e["text_start"].as_u64() {
            // An excerpt of a long line: cite prints the whole line.
            Some(at) => {
                let line = rec["text"].as_str().unwrap();
                assert!(line.len() > 1024 && text.len() <= 1024, "{c}");
                assert!(
                    line.as_bytes()[at as usize..].starts_with(text.as_bytes()),
                    "{c}"
                );
            }
            None => assert_eq!(rec["text"], e["text"]),
        }
        assert_eq!(rec["location"]["byte_offset"], e["location"]["byte_offset"]);
    }
}

#[test]
fn wrong_quote_wrong_hash_and_bad_citations() {
    let c = "samples/artifacts/server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip!server.log:168";
    let ok = artiscan(&["cite", c, "-C", "2", "--expect", "target_verify"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("     166- ") && ok.stdout.contains("     170- "));
    assert!(ok.stdout.contains("sha256:"));
    assert_eq!(
        artiscan(&["cite", c, "--expect", "draft_extend serves"]).code,
        1
    );
    assert_eq!(artiscan(&["cite", c, "--sha256", &"0".repeat(64)]).code, 1);
    assert_eq!(artiscan(&["cite", &c.replace(":168", ":99999")]).code, 2);
    assert_eq!(
        artiscan(&["cite", &c.replace("server.log", "nope.log")]).code,
        2
    );
    assert_eq!(artiscan(&["cite", "not a citation"]).code, 2);
    let rel = c.trim_start_matches("samples/artifacts/");
    assert_eq!(
        artiscan(&[
            "cite",
            rel,
            "--root",
            "samples/artifacts",
            "--expect",
            "target_verify"
        ])
        .code,
        0
    );
}

/// Citations as artiscan's own output and docs write them: tar names with
/// `./` (as `tar -t` lists them) and an aggregate's `first..last` range.
#[test]
fn dot_slash_names_and_aggregate_ranges_resolve() {
    let zip = "samples/artifacts/multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip";
    // The range an aggregate record prints, taken from scan's own output.
    let scan = artiscan(&["scan", "--only", "spec.accept_len", zip]);
    let agg = scan
        .of_type("aggregate")
        .into_iter()
        .next()
        .expect("an accept_len aggregate");
    let first = agg["first"].as_str().expect("first citation");
    let last = agg["last"].as_str().expect("last citation");
    let (head, a) = first.rsplit_once(':').unwrap();
    let b = last.rsplit_once(':').unwrap().1;
    let range = format!("{head}:{a}..{b}");
    let run = artiscan(&["cite", "--json", &range]);
    assert_eq!(run.code, 0, "{range}: {}", run.stderr);
    let rec = &run.of_type("cite")[0];
    let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
    assert_eq!(rec["location"]["line"], a);
    let after = rec["after"].as_array().unwrap();
    assert_eq!(
        after.last().unwrap()[0].as_u64(),
        Some(b),
        "printed through the last line"
    );
    assert_eq!(after.len() as u64, b - a);
    // The same member written with `./`, as tar lists it.
    let dotted = first.replace(
        "!multinode_server_logs.tar.gz!",
        "!./multinode_server_logs.tar.gz!./",
    );
    assert_ne!(dotted, first);
    let run = artiscan(&["cite", "--expect", "accept len", &dotted]);
    assert_eq!(run.code, 0, "{dotted}: {}", run.stderr);
    // A range that ends before it starts is not a citation.
    let bad = format!("{head}:{b}..{a}");
    assert_eq!(artiscan(&["cite", &bad]).code, 2);
}

/// Two files in a folder whose names differ only in bytes that are not
/// UTF-8 (`a\xff.log`, `a\xfe.log`): each is cited by its own bytes
/// (`%FF`, `%FE`), never both as `a\u{FFFD}.log`, and `cite` reopens each.
#[cfg(unix)]
#[test]
fn folder_names_that_are_not_utf8_cite_apart_and_reopen() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    for (b, what) in [(0xffu8, "first"), (0xfe, "second")] {
        let name = [b'a', b, b'.', b'l', b'o', b'g'];
        let name = std::ffi::OsStr::from_bytes(&name);
        std::fs::write(runs.join(name), format!("Traceback {what}\n")).unwrap();
    }
    let r = artiscan_in(dir.path(), &["grep", "-n", "Traceback", "runs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("runs/a%FE.log:1:Traceback second"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("runs/a%FF.log:1:Traceback first"),
        "{}",
        r.stdout
    );
    for (citation, quote) in [
        ("runs/a%FF.log:1", "Traceback first"),
        ("runs/a%FE.log:1", "Traceback second"),
    ] {
        let c = artiscan_in(dir.path(), &["cite", citation]);
        assert_eq!(c.code, 0, "{citation}: {}", c.stderr);
        assert!(c.stdout.contains(quote), "{citation}: {}", c.stdout);
        let rooted = artiscan_in(dir.path(), &["cite", "--root", ".", citation]);
        assert_eq!(rooted.code, 0, "{citation} --root: {}", rooted.stderr);
    }
}

/// `scan /abs/run` then `cite --root /abs/run`: an absolute citation path
/// inside the root is accepted; absolute paths outside it (also through
/// `..` or a symlink that leads out) are still refused.
#[test]
fn absolute_citations_inside_root_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    std::fs::create_dir_all(run_dir.join("sub")).unwrap();
    std::fs::write(
        run_dir.join("sub/a.log"),
        "Traceback (most recent call last):\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("secret.log"), "SECRET\n").unwrap();
    std::os::unix::fs::symlink("../secret.log", run_dir.join("out.log")).unwrap();
    let root = run_dir.to_str().unwrap();
    let scan = artiscan(&["grep", "--format", "jsonl", "Traceback", root]);
    let ev = scan.of_type("evidence");
    assert_eq!(ev.len(), 1, "{}", scan.stdout);
    let c = ev[0]["citation"].as_str().unwrap();
    assert!(c.starts_with(root), "{c}");
    let r = artiscan(&["cite", "--root", root, c, "--expect", "Traceback"]);
    assert_eq!(r.code, 0, "{c}: {}", r.stderr);
    let outside = [
        format!("{}:1", dir.path().join("secret.log").display()),
        format!("{root}/../secret.log:1"),
        format!("{root}/sub/../../secret.log:1"),
        format!("{root}/out.log:1"),
        format!("{root}x/a.log:1"),
    ];
    for c in &outside {
        let r = artiscan(&["cite", "--root", root, c]);
        assert_eq!(r.code, 2, "{c}: {}{}", r.stdout, r.stderr);
        assert!(!r.stdout.contains("SECRET") && !r.stderr.contains("SECRET"));
    }
    let r = artiscan(&["cite", "--root", root, &outside[0]]);
    assert!(
        r.stderr.contains("absolute and not inside --root"),
        "{}",
        r.stderr
    );
}

/// A citation names a tar member as the archive spells it, `./` included,
/// so `tar -xzO ARCHIVE MEMBER` of a cited member prints the cited line
/// (with the `./` dropped, tar says "Not found in archive").
#[test]
fn tar_members_are_cited_as_tar_names_them() {
    let d = tempfile::tempdir().unwrap();
    let logs = d.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(logs.join("sweep.log"), "warmup\nAccept length: 3.42\n").unwrap();
    let made = std::process::Command::new("tar")
        .args(["-czf", "../run.tar.gz", "."])
        .current_dir(&logs)
        .status()
        .expect("tar runs");
    assert!(made.success());
    let run = artiscan_in(d.path(), &["grep", "-n", "Accept length", "run.tar.gz"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "run.tar.gz!./sweep.log:2:Accept length: 3.42\n");
    let member = run
        .stdout
        .split('!')
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    let out = std::process::Command::new("tar")
        .args(["-xzOf", "run.tar.gz", member])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().nth(1),
        Some("Accept length: 3.42")
    );
    // Both spellings reopen the member.
    for c in ["run.tar.gz!./sweep.log:2", "run.tar.gz!sweep.log:2"] {
        let r = artiscan_in(d.path(), &["cite", c, "--expect", "Accept length"]);
        assert_eq!(r.code, 0, "{c}: {}", r.stderr);
    }
}
