//! grep's flags against the tools they come from, on the same plain input:
//! each flag as docs/grep.md's table says, byte for byte against rg 15
//! (`../shared/tools/rg`) or GNU grep. Both are given `-H` (artiscan always
//! names what it cites). The input is the SGLang sample log's lines without
//! `\r` or escape codes, which artiscan escapes or cleans and the others
//! print raw.

use crate::harness::{artiscan_in, root};
use crate::shared::missing_shared;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

fn rg() -> Option<PathBuf> {
    let rg = root().join("../shared/tools/rg");
    if !rg.is_file() {
        missing_shared(&rg);
    }
    Some(rg)
}

/// A folder with `server.log` (plain text, realistic lines), `notes.txt`
/// and `metrics.json`.
fn input() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let gz = std::fs::File::open(root().join("samples/artifacts/plain/server.log.gz")).unwrap();
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(gz)
        .read_to_string(&mut text)
        .unwrap();
    let clean: String = text
        .split_inclusive('\n')
        .filter(|l| !l.contains(['\r', '\x1b']))
        .collect();
    std::fs::write(dir.path().join("server.log"), clean).unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        "Capture cuda graph by hand\nnothing else\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("metrics.json"),
        "{\"note\": \"Capture cuda graph\"}\n",
    )
    .unwrap();
    dir
}

fn tool(program: &Path, dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn ours(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut all = vec!["grep"];
    all.extend_from_slice(args);
    let r = artiscan_in(dir, &all);
    (r.code, r.stdout)
}

/// Flags whose output is rg's (long flags, and rg's own short ones).
#[test]
fn flags_print_what_rg_prints() {
    let Some(rg) = rg() else { return };
    let dir = input();
    let cases: &[&[&str]] = &[
        &["-N", "Capture cuda graph", "server.log"],
        &["-N", "-C1", "Capture cuda graph", "server.log"],
        &["--column", "TP[0-9]", "server.log"],
        &["--vimgrep", "TP[0-9]", "server.log"],
        &["--count-matches", "TP[0-9]", "server.log"],
        &["--count", "zzz-nothing", "server.log", "notes.txt"],
        &["--count", "Capture", "server.log", "notes.txt"],
        &["-n", "-N", "KV Cache", "server.log"],
        &["-b", "--column", "KV Cache", "server.log"],
    ];
    for args in cases {
        // -j1: rg searches the files named in their order, as artiscan.
        let mut with_h = vec!["-H", "-j1"];
        with_h.extend_from_slice(args);
        let theirs = tool(&rg, dir.path(), &with_h);
        assert!(
            !theirs.1.is_empty() || theirs.0 == 1,
            "rg {args:?} printed nothing"
        );
        assert_eq!(
            ours(dir.path(), args),
            theirs,
            "artiscan grep {args:?} vs rg -H"
        );
    }
}

/// Short flags keep GNU grep's meaning where rg's differs: `-c` lists
/// zero counts; `-h` drops the name; `-I` skips binary files.
#[test]
fn short_flags_print_what_gnu_grep_prints() {
    let dir = input();
    std::fs::write(dir.path().join("core.bin"), b"Capture\0\x01\x02\n").unwrap();
    let grep = Path::new("grep");
    let cases: &[&[&str]] = &[
        &["-c", "zzz-nothing", "server.log", "notes.txt"],
        &["-c", "Capture", "server.log", "notes.txt"],
        &["-h", "-n", "Capture", "server.log"],
        &["-I", "-c", "Capture", "notes.txt", "core.bin"],
    ];
    for args in cases {
        let mut with_h = vec!["-H"];
        if !args.contains(&"-h") && !args.contains(&"-c") {
            with_h.push("-n");
        }
        with_h.extend_from_slice(args);
        let theirs = tool(grep, dir.path(), &with_h);
        assert_eq!(
            ours(dir.path(), args),
            theirs,
            "artiscan grep {args:?} vs grep -H"
        );
    }
}

/// `-t`/`--type-not`, `--exclude`/`--include` and `--files` pick the files rg and
/// grep pick.
#[test]
fn file_selection_follows_rg_and_grep() {
    let Some(rg) = rg() else { return };
    let dir = input();
    for args in [
        &["-t", "log", "Capture", "."][..],
        &["--type-not", "log", "Capture", "."],
        &["-t", "json", "-t", "txt", "Capture", "."],
    ] {
        let mut theirs_args = vec!["-H", "-n", "--sort", "path"];
        theirs_args.extend_from_slice(args);
        let (code, theirs) = tool(&rg, dir.path(), &theirs_args);
        // rg names `./x`, artiscan the path as walked: `./x` too.
        assert_eq!(ours(dir.path(), args), (code, theirs), "{args:?}");
    }
    let (_, theirs) = tool(&rg, dir.path(), &["--files", "--sort", "path", "."]);
    assert_eq!(ours(dir.path(), &["--files", "."]).1, theirs, "--files");
    let grep = Path::new("grep");
    for (ours_args, grep_args) in [
        (
            &["--exclude", "*.log", "Capture", "."][..],
            &["-rHn", "--exclude=*.log", "Capture", "."][..],
        ),
        (
            &["--include", "*.txt", "Capture", "."],
            &["-rHn", "--include=*.txt", "Capture", "."],
        ),
    ] {
        let (code, theirs) = tool(grep, dir.path(), grep_args);
        let mut theirs: Vec<&str> = theirs.lines().collect();
        theirs.sort();
        let (c, out) = ours(dir.path(), ours_args);
        let mut out: Vec<&str> = out.lines().collect();
        out.sort();
        assert_eq!((c, out), (code, theirs), "{ours_args:?}");
    }
}

/// Everything but the timings and the bytes printed (rg orders the keys
/// otherwise); with `-m`, rg stops reading at its own buffer's end, so the
/// bytes searched differ too.
fn comparable(out: &str, max_count: bool) -> Vec<Value> {
    out.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Some(d) = v["data"].as_object_mut() {
                d.remove("elapsed_total");
                d.remove("artiscan");
                if let Some(s) = d.get_mut("stats").and_then(Value::as_object_mut) {
                    s.remove("elapsed");
                    s.remove("bytes_printed");
                    if max_count {
                        s.remove("bytes_searched");
                    }
                }
            }
            v
        })
        .collect()
}

/// `--json` is rg's: the same messages and fields for a plain file;
/// inside an archive `path.text` is the member's citation, and the
/// summary carries artiscan's coverage.
#[test]
fn json_is_rgs_message_for_message() {
    let Some(rg) = rg() else { return };
    let dir = input();
    for args in [
        &["--json", "Capture cuda graph", "server.log"][..],
        &["--json", "-C1", "-m2", "KV Cache", "server.log"],
        &["--json", "-v", "INFO", "notes.txt"],
        &["--json", "zzz-nothing", "server.log"],
    ] {
        let (code, theirs) = tool(&rg, dir.path(), args);
        let (c, out) = ours(dir.path(), args);
        assert_eq!(c, code, "{args:?}");
        let m = args.contains(&"-m2");
        assert_eq!(comparable(&out, m), comparable(&theirs, m), "{args:?}");
    }
    let zip = root().join(
        "samples/artifacts/multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip",
    );
    let (code, out) = ours(
        dir.path(),
        &[
            "--json",
            "-m1",
            "SGLANG_SIMULATE_ACC_LEN=",
            zip.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0);
    let msgs: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first_match = msgs.iter().find(|m| m["type"] == "match").unwrap();
    let path = first_match["data"]["path"]["text"].as_str().unwrap();
    assert!(
        path.ends_with(".zip!multinode_server_logs.tar.gz!./sweep_8812345.log"),
        "{path}"
    );
    let cite = format!("{path}:{}", first_match["data"]["line_number"]);
    let r = artiscan_in(&root(), &["cite", &cite]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let summary = msgs.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["data"]["artiscan"]["complete"], true);
    assert_eq!(
        summary["data"]["artiscan"]["coverage"][0]["type"],
        "coverage"
    );
}

/// Flags that cannot apply inside archives say why, not clap's
/// "unexpected argument".
#[test]
fn refused_flags_say_why() {
    let dir = input();
    for (flag, why) in [("-P", "Rust regex syntax"), ("-U", "cannot span lines")] {
        let r = artiscan_in(dir.path(), &["grep", flag, "x", "server.log"]);
        assert_eq!(r.code, 2, "{flag}");
        assert!(r.stderr.contains(why), "{flag}: {}", r.stderr);
    }
    let r = artiscan_in(dir.path(), &["grep", "-t", "nosuch", "x", "server.log"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown file type"), "{}", r.stderr);
}

/// `--stats` adds the totals after the lines; `--hidden` changes nothing.
#[test]
fn stats_and_accepted_no_ops() {
    let dir = input();
    let plain = artiscan_in(dir.path(), &["grep", "Capture", "."]);
    let hidden = artiscan_in(dir.path(), &["grep", "--hidden", "Capture", "."]);
    assert_eq!(plain.stdout, hidden.stdout);
    let stats = artiscan_in(dir.path(), &["grep", "--stats", "Capture", "."]);
    let n = plain.stdout.lines().count();
    assert!(stats.stdout.starts_with(&plain.stdout));
    assert!(
        stats
            .stdout
            .contains(&format!("\n{n} matched lines\n3 members searched\n")),
        "{}",
        stats.stdout
    );
}
