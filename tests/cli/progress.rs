//! Progress that moves inside one big artifact, the same for every command,
//! silent on a pipe unless asked (`ARTISCAN_PROGRESS=lines`).

use crate::harness::*;
use std::io::Write;
use std::path::Path;
use std::process::Command;

/// One srt-slurm style artifact: a zip holding a tar.gz holding a long
/// SGLang decode log (about 10 MB of text, 1 MB compressed).
fn big_artifact(dir: &Path) -> String {
    let mut log = Vec::new();
    for i in 0..60_000u64 {
        // Varying numbers, so the log compresses like a real one.
        let x = i.wrapping_mul(2654435761) % 100_000;
        writeln!(
            log,
            "[2026-10-29 04:21:{:02} TP{} EP{}] Decode batch, #running-req: {}, #token: {}, token usage: 0.{:02}, accept len: 3.{:02}, gen throughput (token/s): {}.{:02}, #queue-req: 0",
            i % 60, i % 8, i % 8, x % 64, x, x % 100, (x / 7) % 100, x % 3000, (x / 3) % 100
        )
        .unwrap();
    }
    let mut tar = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(log.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tar.append_data(&mut h, "logs/n1_agg_w0.out", &log[..])
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    let tgz = dir.join("srt-single-node-logs.tar.gz");
    std::fs::write(&tgz, gz.finish().unwrap()).unwrap();
    let zip = dir.join("eval_server_logs_big.zip");
    let status = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; zipfile.ZipFile(sys.argv[2], 'w').write(sys.argv[1], 'srt-single-node-logs.tar.gz')",
        ])
        .arg(&tgz)
        .arg(&zip)
        .status()
        .expect("python3");
    assert!(status.success());
    zip.to_str().unwrap().to_string()
}

fn run_with_env(args: &[&str], progress: Option<&str>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_artiscan"));
    cmd.args(args)
        .current_dir(root())
        .env_remove("ARTISCAN_PROGRESS");
    if let Some(p) = progress {
        cmd.env("ARTISCAN_PROGRESS", p);
    }
    let out = cmd.output().expect("run artiscan");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `(position, total)` of each progress line, and whether it ends an artifact.
fn progress_lines(stderr: &str) -> Vec<(u64, u64, bool)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("artiscan: progress "))
        .map(|l| {
            let (pos, rest) = l.split_once('/').unwrap();
            let total: String = rest.chars().take_while(char::is_ascii_digit).collect();
            (
                pos.parse().unwrap(),
                total.parse().unwrap(),
                rest.contains("artifacts"),
            )
        })
        .collect()
}

#[test]
fn the_bar_moves_inside_one_big_artifact_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let zip = big_artifact(dir.path());
    let size = std::fs::metadata(&zip).unwrap().len();
    for args in [
        vec!["grep", "-c", "accept len: 3.99", zip.as_str()],
        vec!["scan", "--only", "spec.*", "-j", "1", zip.as_str()],
        vec!["scan", "--only", "spec.*", "-j", "4", zip.as_str()],
        vec![
            "check",
            "--set",
            "inferencex",
            "--format",
            "jsonl",
            zip.as_str(),
        ],
        vec!["ls", zip.as_str()],
    ] {
        let run = run_with_env(&args, Some("lines"));
        let p = progress_lines(&run.stderr);
        // Before the artifact is done, the position already moved several
        // times, each time forward and below the file size.
        let inside: Vec<_> = p.iter().filter(|(_, _, end)| !end).collect();
        assert!(inside.len() >= 5, "{args:?}: {}", run.stderr);
        assert!(
            inside.windows(2).all(|w| w[0].0 < w[1].0),
            "{args:?}: {p:?}"
        );
        assert!(
            inside
                .iter()
                .all(|(pos, total, _)| *pos <= *total && *total == size)
        );
        // Then the artifact completes the bar.
        assert_eq!(p.last(), Some(&(size, size, true)), "{args:?}: {p:?}");
    }
}

#[test]
fn no_progress_output_on_a_pipe_or_with_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let zip = big_artifact(dir.path());
    // stderr is a pipe here: nothing but what the command has to say.
    let quiet = run_with_env(&["grep", "-c", "accept len: 3.99", &zip], None);
    assert_eq!(quiet.code, 0);
    assert!(quiet.stderr.is_empty(), "{}", quiet.stderr);
    let off = run_with_env(
        &["--no-progress", "scan", "--only", "spec.*", &zip],
        Some("lines"),
    );
    assert!(!off.stderr.contains("progress"), "{}", off.stderr);
    let off = run_with_env(&["ls", "--no-progress", &zip], Some("lines"));
    assert!(!off.stderr.contains("progress"), "{}", off.stderr);
}
