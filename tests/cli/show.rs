//! `artiscan show ARTIFACT!member[:A..B]`: a member or a line range of it,
//! escaped and bounded, checked against an independent extraction.

use crate::harness::*;
use std::io::Write;

const MULTINODE: &str = "multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01";
const TARBALL: &str = "multinode_server_logs.tar.gz";
const DECODE: &str = "./gb200-node01_decode_w0.out";

fn zip_path() -> String {
    sample(&format!("{MULTINODE}.zip"))
}

fn spec(range: &str) -> String {
    format!("{}!{TARBALL}!{DECODE}{range}", zip_path())
}

/// Lines `first..=last` (1-based) of `data` as Python extracted it.
fn lines_of(data: &[u8], first: usize, last: usize) -> Vec<String> {
    String::from_utf8_lossy(data)
        .lines()
        .skip(first - 1)
        .take(last + 1 - first)
        .map(str::to_string)
        .collect()
}

#[test]
fn a_range_prints_exactly_those_lines_of_the_member() {
    let data = extract(&zip_path(), &[TARBALL, DECODE]);
    // The range a grep citation points into: the first Decode batch line.
    let at = grep_n(&data, "Decode batch")[0] as usize;
    let run = artiscan(&["show", &spec(&format!(":{at}..{}", at + 3))]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(got, lines_of(&data, at, at + 3));
    assert!(got[0].contains("Decode batch"));
    // `:N` is one line; `-n` numbers it as grep -n does.
    let one = artiscan(&["show", "-n", &spec(&format!(":{at}"))]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, format!("{at}:{}\n", lines_of(&data, at, at)[0]));
    // A tar name written with its `./` works too.
    let dot = artiscan(&["show", &format!("{}!{TARBALL}!./{DECODE}:{at}", zip_path())]);
    assert_eq!(dot.stdout, lines_of(&data, at, at)[0].clone() + "\n");
}

#[test]
fn a_whole_member_matches_the_extracted_bytes() {
    let data = extract(&zip_path(), &[TARBALL, "./config.yaml"]);
    let run = artiscan(&["show", &format!("{}!{TARBALL}!./config.yaml", zip_path())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.as_bytes(), &data[..]);
}

#[test]
fn jsonl_lines_cite_back_and_end_with_a_show_record() {
    let data = extract(&zip_path(), &[TARBALL, DECODE]);
    let run = artiscan(&["show", "--format", "jsonl", &spec(":10..12")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.of_type("context");
    assert_eq!(lines.len(), 3);
    for (l, want) in lines.iter().zip(lines_of(&data, 10, 12)) {
        assert_eq!(l["text"], want.as_str());
        // Each line's citation reopens with cite to the same text.
        let cite = artiscan(&["cite", "--json", l["citation"].as_str().unwrap()]);
        assert_eq!(cite.records()[0]["text"], want.as_str());
    }
    let end = run.of_type("show");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["lines"], 3);
    assert_eq!(end[0]["complete"], true);
    assert_eq!(end[0]["members"][1], DECODE);
    assert_eq!(end[0]["sha256"].as_str().map(str::len), Some(64));
}

#[test]
fn output_past_the_bounds_is_cut_with_a_message_and_exit_1() {
    let run = artiscan(&["show", "--max-lines", "5", &spec("")]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.lines().count(), 5);
    assert!(run.stderr.contains("cut after line 5"), "{}", run.stderr);
    assert!(run.stderr.contains("--max-lines 5"), "{}", run.stderr);
    assert!(run.stderr.contains(DECODE), "{}", run.stderr);
    // A byte cap: the server_args line (over 10 KB) does not fit in 1K.
    let bytes = artiscan(&["show", "--max-output", "1K", "--format", "jsonl", &spec("")]);
    assert_eq!(bytes.code, 1);
    let end = &bytes.of_type("show")[0];
    assert_eq!(end["complete"], false);
    assert!(
        end["reason"].as_str().unwrap().contains("--max-output"),
        "{end}"
    );
    let printed: usize = bytes
        .of_type("context")
        .iter()
        .map(|c| c["text"].as_str().unwrap().len())
        .sum();
    assert!(printed <= 1024, "{printed}");
    // A range past the member's end prints what there is and says so.
    let data = extract(&zip_path(), &[TARBALL, DECODE]);
    let n = String::from_utf8_lossy(&data).lines().count();
    let past = artiscan(&["show", &spec(&format!(":{}..{}", n - 1, n + 5))]);
    assert_eq!(past.code, 1);
    assert_eq!(past.stdout.lines().count(), 2);
    assert!(
        past.stderr.contains(&format!("has {n} line(s)")),
        "{}",
        past.stderr
    );
}

#[test]
fn errors_name_the_artifact_and_member_and_exit_2() {
    let zip = zip_path();
    let missing = artiscan(&["show", &format!("{zip}!{TARBALL}!nope.log")]);
    assert_eq!(missing.code, 2);
    assert!(missing.stdout.is_empty());
    assert!(
        missing.stderr.contains(&format!(
            "{zip}!{TARBALL}!nope.log: member is not in the artifact"
        )),
        "{}",
        missing.stderr
    );
    let container = artiscan(&["show", &format!("{zip}!{TARBALL}")]);
    assert_eq!(container.code, 2);
    assert!(
        container.stderr.contains("artiscan ls"),
        "{}",
        container.stderr
    );
    let no_file = artiscan(&["show", "samples/artifacts/none.zip!x.log"]);
    assert_eq!(no_file.code, 2);
    assert!(no_file.stderr.contains("none.zip: no such artifact"));
    let core = artiscan(&[
        "show",
        &format!("{}!core.12345", sample("damaged/core_dump_artifact.zip")),
    ]);
    assert_eq!(core.code, 2, "{}", core.stdout);
    assert!(core.stdout.is_empty());
    assert!(core.stderr.contains("binary member"), "{}", core.stderr);
    // A member cut mid-stream: what was read is printed, then exit 2.
    let cut = artiscan(&[
        "show",
        &format!(
            "{}!{DECODE}",
            sample(&format!("damaged/truncated_{MULTINODE}.tar.gz"))
        ),
    ]);
    assert_eq!(cut.code, 2, "{}", cut.stderr);
    assert!(cut.stderr.contains("truncated"), "{}", cut.stderr);
}

#[test]
fn hostile_text_and_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let log = b"[2026-10-29 04:21:13 TP0] ok\r\n\x1b]0;owned\x07\x1b[31mERROR\x1b[0m bad \xff byte\r\nCapturing batches (bs=2):  50%|\rnext line\n";
    let mut tar = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(log.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tar.append_data(&mut h, "logs/n1_agg_w0.out", &log[..])
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    let path = dir.path().join("a.tar.gz");
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let run = artiscan(&["show", &format!("{p}!logs/n1_agg_w0.out")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains('\x1b') && !run.stdout.contains('\x07'));
    let lines: Vec<&str> = run.stdout.lines().collect();
    // CRLF ends are line ends; every other control is shown, escaped.
    assert_eq!(lines[0], "[2026-10-29 04:21:13 TP0] ok");
    assert!(lines[1].contains("\\e[31mERROR"), "{}", lines[1]);
    assert!(lines[1].contains("\\xff"), "{}", lines[1]);
    assert!(lines[2].contains("50%|\\rnext line"), "{}", lines[2]);
    assert_eq!(lines.len(), 3);
}

#[test]
fn a_compressed_plain_file_is_its_own_member() {
    let path = sample("plain/server.log.gz");
    let data = extract(&path, &[]);
    let run = artiscan(&["show", &format!("{path}:2..3")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().collect::<Vec<_>>(),
        lines_of(&data, 2, 3)
    );
    // A member of something that is no container is not there.
    let run = artiscan(&["show", &format!("{path}!x.log")]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("member is not in the artifact"),
        "{}",
        run.stderr
    );
}
