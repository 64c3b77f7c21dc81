//! Differential test against libarchive (issue 11): every archive of
//! libarchive's own test suite, read in place from the shared corpus
//! (`../shared/corpus/libarchive/` beside the clone, provenance in its
//! README and `tests/corpus/README.md`; the project keeps no copy of other
//! people's files), read by artiscan and compared with what
//! libarchive read (`tests/corpus/golden.json`, made by
//! `tests/corpus/make_golden.py` with bsdtar; no tool needed here).
//!
//! Per archive: when artiscan says complete, libarchive must have read it
//! without error and both must give the same members, line counts and line
//! text. When artiscan says incomplete, it must not show more lines of a
//! member than libarchive has, nor a member libarchive does not know
//! (unless libarchive failed too). Archives where artiscan legitimately
//! differs are listed with the reason in `tests/corpus/differences.txt`.
//! A truncation sweep cuts archives at many points: never `complete` when
//! something was lost, never a line the whole archive does not have.

use crate::harness::{artiscan, root};
use crate::shared::shared_corpus;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// What artiscan read of one archive: member chain joined by `!` ->
/// (lines, sha256 of the lines joined by `\n`), and completeness.
struct Read {
    members: BTreeMap<String, (u64, String)>,
    complete: bool,
    texts: BTreeMap<String, Vec<String>>,
}

fn read(path: &str) -> Read {
    let run = artiscan(&["grep", "--format", "jsonl", "--binary", "-j", "1", "", path]);
    assert!(!run.stderr.contains("panicked"), "{path}: {}", run.stderr);
    let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut complete = None;
    for r in run.records() {
        match r["type"].as_str() {
            Some("evidence") => {
                let m: Vec<&str> = r["location"]["members"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                texts
                    .entry(m.join("!"))
                    .or_default()
                    .push(r["text"].as_str().unwrap().to_string());
            }
            Some("coverage") => complete = r["complete"].as_bool(),
            _ => {}
        }
    }
    let members = texts
        .iter()
        .map(|(k, v)| {
            let digest = Sha256::digest(v.join("\n").as_bytes());
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            (k.clone(), (v.len() as u64, hex))
        })
        .collect();
    Read {
        members,
        complete: complete.unwrap_or_else(|| panic!("{path}: no coverage: {}", run.stdout)),
        texts,
    }
}

/// libarchive's members with lines, named as the archive spells them (as
/// artiscan cites them, a leading `./` kept).
fn golden_members(g: &Value) -> BTreeMap<String, (u64, String)> {
    let mut out = BTreeMap::new();
    for m in g["members"].as_array().unwrap() {
        let Some(lines) = m["lines"].as_u64() else {
            continue;
        };
        if lines == 0 {
            continue;
        }
        let name = m["name"].as_str().unwrap();
        out.insert(
            name.to_string(),
            (lines, m["lines_sha256"].as_str().unwrap().to_string()),
        );
    }
    out
}

fn differences() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join("tests/corpus/differences.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (p, why) = l.split_once('\t').unwrap_or((l, ""));
            assert!(!why.trim().is_empty(), "no reason given for {p}");
            (p.trim().to_string(), why.trim().to_string())
        })
        .collect()
}

#[test]
fn corpus_agrees_with_libarchive() {
    let Some(corpus) = shared_corpus() else {
        return;
    };
    let golden: BTreeMap<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/corpus/golden.json")).unwrap(),
    )
    .unwrap();
    assert!(golden.len() >= 190, "{} archives", golden.len());
    let listed = differences();
    for p in listed.keys() {
        assert!(
            golden.contains_key(p),
            "differences.txt names {p}, not in the corpus"
        );
    }
    let mut failures = Vec::new();
    let mut agreed = 0;
    for (rel, g) in &golden {
        let path = corpus.join(rel);
        let ours = read(path.to_str().unwrap());
        if listed.contains_key(rel) {
            continue;
        }
        let theirs = golden_members(g);
        let failed = g.get("error").is_some();
        if ours.complete {
            if failed {
                failures.push(format!(
                    "{rel}: complete, but libarchive failed: {}",
                    g["error"]
                ));
            } else if ours.members != theirs {
                failures.push(format!(
                    "{rel}: complete but differs\n  artiscan:   {:?}\n  libarchive: {:?}",
                    ours.members, theirs
                ));
            } else {
                agreed += 1;
            }
            continue;
        }
        for (name, (lines, _)) in &ours.members {
            match theirs.get(name) {
                Some((theirs_lines, _)) if lines <= theirs_lines => {}
                None if failed => {}
                other => failures.push(format!(
                    "{rel}: incomplete, and member {name:?} shows {lines} lines, libarchive {other:?}"
                )),
            }
        }
    }
    println!(
        "{agreed} archives agree exactly, {} listed as differing",
        listed.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Cuts archives at many points. A cut is never complete unless it lost
/// nothing, and every line shown is a line of that member in the whole
/// archive.
#[test]
fn truncation_sweep_never_claims_complete() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<PathBuf> = [
        "samples/artifacts/eval_gsm8k_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip",
        "samples/artifacts/trtllm_logs.tar.zst",
        "samples/artifacts/multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip",
    ]
    .iter()
    .map(|c| root().join(c))
    .collect();
    // The shared corpus's cases, where it is laid out (else the samples alone).
    if let Some(corpus) = shared_corpus() {
        cases.extend(
            [
                "tar/test_extract.tar.gz",
                "tar/test_extract.tar.xz",
                "tar/test_extract.tar.bz2",
                "tar/test_extract.tar.lz4",
                "tar/test_extract.tar.zst",
                "libarchive/test_compat_zip_1.zip",
                "libarchive/test_read_format_zip_nested.zip",
                "unzip/test_basic.zip",
            ]
            .iter()
            .map(|c| corpus.join("libarchive").join(c)),
        );
    }
    let mut cuts = 0;
    for full_path in &cases {
        let case = full_path.to_str().unwrap();
        let data = std::fs::read(full_path).unwrap();
        let whole = read(case);
        assert!(whole.complete, "{case} whole is not complete");
        let all: BTreeMap<&String, BTreeSet<&String>> = whole
            .texts
            .iter()
            .map(|(k, v)| (k, v.iter().collect()))
            .collect();
        let n = data.len();
        let mut points: BTreeSet<usize> = (1..40).map(|i| n * i / 40).collect();
        points.extend([1, 2, 10, 30, 100, 512, 1024, n - 1, n - 8, n - 22]);
        // Below 8 bytes not even the format's magic is there: such a
        // stub is searched as the text it is.
        for cut in points.into_iter().filter(|&c| c >= 8 && c < n) {
            let p = dir.path().join("cut");
            std::fs::write(&p, &data[..cut]).unwrap();
            let got = read(p.to_str().unwrap());
            cuts += 1;
            if got.complete {
                assert_eq!(
                    got.members, whole.members,
                    "{case} cut at {cut} of {n}: complete but lost something"
                );
            }
            for (m, lines) in &got.texts {
                for l in lines {
                    let known = all.get(m).is_some_and(|s| s.contains(l));
                    assert!(
                        known,
                        "{case} cut at {cut}: line {l:?} of {m:?} is not in the whole archive"
                    );
                }
            }
        }
    }
    println!("{cuts} cuts");
}

/// libarchive's lz4 frame sample is read whole (the lz4 reader's case on
/// real input; its synthetic cases are in the `cli` target's archives.rs).
#[test]
fn libarchive_lz4_frame_is_read_whole() {
    let Some(corpus) = shared_corpus() else {
        return;
    };
    let lz4 = corpus.join("libarchive/cat/test_expand.lz4");
    let run = artiscan(&["grep", "--format", "jsonl", "-c", "", lz4.to_str().unwrap()]);
    assert_eq!(run.of_type("count")[0]["count"], 1, "{}", run.stdout);
    let cov = &run.of_type("coverage")[0];
    assert_eq!(cov["complete"], true, "{cov}");
}
