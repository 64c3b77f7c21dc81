//! Archives as their own tools write them (issue 45): a `pixz` tarball (xz
//! blocks, then the file index pixz appends in the same stream) is read
//! whole, as `xz -d | tar` reads it.

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
