//! Archives as their own tools write them (issue 45): a `pixz` tarball (xz
//! blocks, then the file index pixz appends in the same stream) is read
//! whole, as `xz -d | tar` reads it; a core dump or another binary member
//! costs only the claims that could have been read from it.

use crate::harness::artiscan_in;
use std::path::Path;
use std::process::Command;

/// A vLLM server's crash, as its log prints it.
const LOG: &str = "INFO 10-29 04:01:05 [api_server.py:1090] vLLM API server version 0.11.0\nERROR 10-29 04:52:11 [core.py:708] EngineCore encountered a fatal error.\nERROR 10-29 04:52:11 [core.py:708] Traceback (most recent call last):\nERROR 10-29 04:52:11 [core.py:708]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 699, in run_engine_core\nERROR 10-29 04:52:11 [core.py:708] RuntimeError: CUDA error: an illegal memory access was encountered\n";

fn sh(dir: &Path, script: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success())
}

/// The pixz file index of a tar holding `names` at `offsets`, ending at
/// `end`: its magic (`PIXZ_INDEX_MAGIC`, little-endian), then each name,
/// NUL, its 8-byte offset, and an empty name with the end offset (pixz's
/// `write_file_index`).
fn pixz_index(entries: &[(&str, u64)], end: u64) -> Vec<u8> {
    let mut b = 0xDBAE_14D6_2E32_4CA6u64.to_le_bytes().to_vec();
    for (name, at) in entries {
        b.extend_from_slice(name.as_bytes());
        b.push(0);
        b.extend_from_slice(&at.to_le_bytes());
    }
    b.push(0);
    b.extend_from_slice(&end.to_le_bytes());
    b
}

fn coverage(dir: &Path, file: &str) -> serde_json::Value {
    let run = artiscan_in(dir, &["scan", file]);
    run.of_type("coverage").pop().expect("a coverage record")
}

#[test]
fn a_pixz_tarball_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("server.log"), LOG).unwrap();
    assert!(sh(d, "tar -cf plain.tar server.log"));
    let tar = std::fs::read(d.join("plain.tar")).unwrap();
    // Built here as pixz lays it out: the tar, then its index, in one xz
    // stream (pixz puts the index in a block of its own; a reader sees the
    // same bytes).
    let mut bytes = tar.clone();
    bytes.extend(pixz_index(&[("server.log", 0)], tar.len() as u64));
    std::fs::write(d.join("built.tar"), &bytes).unwrap();
    assert!(sh(d, "xz -k built.tar"));
    let mut files = vec!["built.tar.xz"];
    if sh(d, "command -v pixz >/dev/null && pixz plain.tar made.tpxz") {
        files.push("made.tpxz");
    } else {
        println!("pixz not installed: checked the built pixz layout only");
    }
    for f in files {
        let c = coverage(d, f);
        assert_eq!(c["complete"], true, "{f}: {c}");
        assert_eq!(c["errors"], serde_json::json!([]), "{f}: {c}");
        let r = artiscan_in(d, &["check", "--set", "inferencex", f]);
        let tb = r
            .of_type("verdict")
            .into_iter()
            .find(|v| v["check"] == "no-traceback")
            .expect("no-traceback verdict");
        assert_eq!(tb["status"], "fail", "{f}: {tb}");
    }
    // Bytes after the tar that only start like an index are still reported.
    let mut bad = tar;
    let mut index = pixz_index(&[("server.log", 0)], 0);
    index.extend_from_slice(b"Traceback (most recent call last):\n");
    bad.extend(index);
    std::fs::write(d.join("bad.tar"), &bad).unwrap();
    let c = coverage(d, "bad.tar");
    assert_eq!(c["complete"], false, "{c}");
}

/// A clean SGLang server log: it starts, serves and shuts down.
fn clean_server_log() -> String {
    std::fs::read_to_string(crate::harness::root().join(format!(
        "samples/artifacts/downloaded/server_logs_{}/server.log",
        "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03"
    )))
    .unwrap()
}

/// A core dump beside a server's logs costs no claim about the logs: in a
/// tar.zst and in an extracted artifact folder, the core (an ELF core file
/// by its header, the committed sample's `core.12345`) is passed over with
/// a note, coverage stays complete, and no-traceback passes on the clean
/// log (it was UNKNOWN: the whole artifact counted as unread).
#[test]
fn a_core_dump_does_not_make_the_logs_claims_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let core = crate::harness::extract(
        "samples/artifacts/damaged/core_dump_artifact.zip",
        &["core.12345"],
    );
    assert!(core.starts_with(b"\x7fELF"));
    let folder = d.join("runs/1/server_logs_crashed");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("server.log"), clean_server_log()).unwrap();
    std::fs::write(folder.join("core.12345"), &core).unwrap();
    assert!(sh(
        d,
        "mkdir -p runs/2 && tar -C runs/1/server_logs_crashed -cf - server.log core.12345 | zstd -q -o runs/2/server_logs_crashed.tar.zst"
    ));
    let c = coverage(d, "runs/2/server_logs_crashed.tar.zst");
    assert_eq!(c["complete"], true, "{c}");
    assert_eq!(c["notes"][0]["kind"], "core_dump", "{c}");
    let r = artiscan_in(d, &["check", "--set", "inferencex", "runs"]);
    let tb: Vec<(String, String)> = r
        .of_type("verdict")
        .into_iter()
        .filter(|v| v["check"] == "no-traceback")
        .map(|v| {
            (
                v["scope"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // The folder and the tarball (judged as the folder holding it).
    assert_eq!(tb.len(), 2, "{}", r.stdout);
    assert!(
        tb.iter().all(|(_, status)| status == "pass"),
        "{tb:?}\n{}",
        r.stdout
    );
}

/// An unreadable binary member costs only the claims whose rules could
/// read it by its name. Beside an lm-eval artifact's files, an Nsight
/// Systems export (`profile.sqlite`, SQLite by its bytes, NUL in its first
/// block: not searched) cannot hold an `agg_eval_*.json` row or a
/// `meta_env.json`: the eval-row claims stay not applicable, in the folder
/// and in its zip (they were all UNKNOWN). Rules that read every member
/// (the server-log claims) could find their lines in it, so those stay
/// unknown; and the same bytes named `results_profile.json`, a name the
/// eval rules read, keep the eval claims unknown. `audit` judges the same.
#[test]
fn a_binary_member_costs_only_the_claims_that_could_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = "eval_gsm8k_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
    let sample = crate::harness::root()
        .join("samples/artifacts/downloaded")
        .join(name);
    let mut sqlite = b"SQLite format 3\0\x10\0\x01\x01\0\x40\x20\x20\0\0\0\x02".to_vec();
    sqlite.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    for (run, member) in [("1", "profile.sqlite"), ("2", "results_profile.json")] {
        let folder = d.join("runs").join(run).join(name);
        crate::harness::copy_dir(&sample, &folder);
        std::fs::write(folder.join(member), &sqlite).unwrap();
    }
    assert!(sh(
        d,
        &format!("mkdir -p runs/3 && cd runs/1/{name} && zip -qr ../../3/{name}.zip .")
    ));
    let c = coverage(d, &format!("runs/3/{name}.zip"));
    assert_eq!(c["complete"], false, "{c}");
    assert!(c["errors"].to_string().contains("binary member"), "{c}");
    let r = artiscan_in(d, &["check", "--set", "inferencex", "runs"]);
    let verdicts = crate::harness::checked_verdicts(&r);
    let status = |scope: &str, check: &str| {
        verdicts
            .iter()
            .find(|(s, c, _)| s == scope && c == check)
            .unwrap_or_else(|| panic!("{scope} {check}: {verdicts:?}"))
            .2
            .clone()
    };
    let eval_claims = ["eval-infrastructure-ok", "eval-batch-completed"];
    for scope in [format!("runs/1/{name}"), format!("runs/3/{name}.zip")] {
        for check in eval_claims {
            assert_eq!(status(&scope, check), "not_applicable", "{scope} {check}");
        }
        for check in ["no-traceback", "eval-effective-samples"] {
            assert_eq!(status(&scope, check), "unknown", "{scope} {check}");
        }
    }
    for check in eval_claims {
        assert_eq!(
            status(&format!("runs/2/{name}"), check),
            "unknown",
            "{check}"
        );
    }
    artiscan_in(d, &["audit", "runs", "--db", "a.sqlite"]);
    let exported = artiscan_in(d, &["audit", "export", "--db", "a.sqlite", "--verdicts"]);
    assert_eq!(crate::harness::checked_verdicts(&exported), verdicts);
    // Shards merged: the merge judges the runs again as the shards did.
    for shard in ["1/2", "2/2"] {
        let db = format!("s{}.sqlite", &shard[..1]);
        artiscan_in(d, &["audit", "runs", "--db", &db, "--shard", shard]);
    }
    let merged = artiscan_in(d, &["audit", "merge", "m.sqlite", "s1.sqlite", "s2.sqlite"]);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let exported = artiscan_in(d, &["audit", "export", "--db", "m.sqlite", "--verdicts"]);
    assert_eq!(crate::harness::checked_verdicts(&exported), verdicts);
}
