//! `artiscan scan`: typed, rank-aware evidence from the built-in packs.

use crate::harness::*;
use serde_json::{Value, json};

const MULTI: &str = "multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip";
const SINGLE: &str = "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip";

fn members(e: &Value) -> Vec<&str> {
    e["location"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect()
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn simulated_acceptance_from_every_env_style() {
    let art = sample(MULTI);
    let run = artiscan(&["scan", &art]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ev = run.of_type("evidence");
    let acc: Vec<&Value> = ev
        .iter()
        .filter(|e| e["rule"] == "spec.simulate_acc_len")
        .collect();
    let mut sources: Vec<&str> = acc
        .iter()
        .map(|e| e["captures"]["source"].as_str().unwrap())
        .collect();
    sources.sort();
    sources.dedup();
    for style in ["srt_env", "json", "export", "inline", "yaml"] {
        assert!(sources.contains(&style), "style {style} in {sources:?}");
    }
    for e in &acc {
        assert_eq!(e["captures"]["value"], json!(3.77), "{}", e["citation"]);
        assert!(e["captures"]["value"].is_f64());
        // The citation names the line that holds the variable.
        let data = extract(&art, &members(e));
        let line = e["location"]["line"].as_u64().unwrap() as usize;
        let text = data.split(|&b| b == b'\n').nth(line - 1).unwrap();
        assert!(
            String::from_utf8_lossy(text).contains("SIMULATE_ACC_LEN")
                || String::from_utf8_lossy(text).contains("3.77")
        );
    }
    let env: Vec<&Value> = ev
        .iter()
        .filter(|e| e["rule"] == "env.var" && e["captures"]["name"] == "SGLANG_SIMULATE_ACC_LEN")
        .collect();
    let mut styles: Vec<&str> = env
        .iter()
        .map(|e| e["captures"]["style"].as_str().unwrap())
        .collect();
    styles.sort();
    styles.dedup();
    // `+ export X=1` then the traced `+ X=1` (issue 27): both are read.
    assert_eq!(
        styles,
        ["export", "inline", "json", "srt_env", "trace", "yaml"]
    );
    // One Env: line gives one record per variable, each with its own column.
    let srt: Vec<&Value> = ev
        .iter()
        .filter(|e| e["rule"] == "env.var" && e["captures"]["style"] == "srt_env")
        .collect();
    assert!(srt.len() >= 10);
    let mut cols: Vec<u64> = srt
        .iter()
        .map(|e| e["location"]["column"].as_u64().unwrap())
        .collect();
    cols.dedup();
    assert_eq!(cols.len(), srt.len());
}

#[test]
fn routing_lines_on_every_rank_with_typed_captures() {
    let run = artiscan(&["scan", "--only", "sglang.*", &sample(SINGLE)]);
    let routing: Vec<Value> = run
        .of_type("evidence")
        .into_iter()
        .filter(|e| {
            e["rule"] == "sglang.monokernel_routing" && e["captures"]["phase"] == "target_verify"
        })
        .collect();
    let mut tps: Vec<u64> = routing
        .iter()
        .map(|e| e["rank"]["tp"].as_u64().unwrap())
        .collect();
    tps.sort();
    assert_eq!(tps, (0..8).collect::<Vec<_>>());
    let e = &routing[0];
    assert_eq!(e["captures"]["kernel"], "muse_spark_dflash2_draft_hip");
    assert_eq!(e["captures"]["arch"], "gfx950");
    assert_eq!(e["captures"]["bs"], json!([1, 2]));
    assert_eq!(
        (
            e["captures"]["tokens"].as_i64(),
            e["captures"]["routed"].as_i64(),
            e["captures"]["total"].as_i64()
        ),
        (Some(8), Some(2), Some(2))
    );
    assert_eq!(e["rank"]["ep"], e["rank"]["tp"]);
    assert_eq!(e["id"].as_str().unwrap().len(), 24);
    let data = extract(&sample(SINGLE), &["server.log"]);
    let want = grep_n(&data, "serves target_verify");
    let mut got: Vec<u64> = routing
        .iter()
        .map(|e| e["location"]["line"].as_u64().unwrap())
        .collect();
    got.sort();
    assert_eq!(got, want);
}

#[test]
fn accept_len_aggregates_unless_every_match() {
    let art = sample(SINGLE);
    let run = artiscan(&["scan", "--only", "spec.accept_len", &art]);
    let aggs = run.of_type("aggregate");
    assert_eq!(aggs.len(), 1, "one member, one rank");
    let a = &aggs[0];
    assert_eq!(a["group"], json!({"ep": 0, "tp": 0}));
    let data = extract(&art, &["server.log"]);
    let lines = grep_n(&data, "Decode batch");
    assert_eq!(a["count"].as_u64().unwrap() as usize, lines.len());
    assert!((a["stats"]["value"]["mean"].as_f64().unwrap() - 3.77).abs() < 0.01);
    assert_eq!(a["first"], format!("{art}!server.log:{}", lines[0]));
    assert_eq!(
        a["last"],
        format!("{art}!server.log:{}", lines[lines.len() - 1])
    );
    assert!(run.of_type("evidence").is_empty());
    let run = artiscan(&["scan", "--only", "spec.accept_len", "--every-match", &art]);
    assert_eq!(run.of_type("evidence").len(), lines.len());
    let summary = &run.of_type("summary")[0];
    assert_eq!(
        summary["rules"]["spec.accept_len"].as_u64().unwrap() as usize,
        lines.len()
    );
}

/// A group field a variant sets (2024 `Decode batch` lines have no graph
/// field; the variant sets `phase = "gen"`) groups like a captured one.
#[test]
fn aggregate_groups_take_fields_a_variant_sets() {
    let log = "[2024-10-29 04:30:00 TP0] Decode batch. #running-req: 13, gen throughput (token/s): 12.5, #queue-req: 0\n\
               [2024-10-29 04:30:01 TP0] Decode batch. #running-req: 13, gen throughput (token/s): 14.5, #queue-req: 0\n\
               [2026-10-29 04:30:02 TP0] Decode batch. #running-req: 13, cuda graph: True, gen throughput (token/s): 20, #queue-req: 0\n\
               [2026-10-29 04:30:03 TP0] Prefill batch. #new-seq: 1, cuda graph: False, input throughput (token/s): 30, #queue-req: 0\n";
    let run = artiscan_stdin(
        &["scan", "--only", "sglang.batch_throughput", "-"],
        log.as_bytes(),
    );
    let groups: Vec<(Value, u64)> = run
        .of_type("aggregate")
        .iter()
        .map(|a| (a["group"].clone(), a["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        groups,
        vec![
            (json!({"phase": "gen"}), 2),
            (json!({"phase": "gen", "cuda_graph": true}), 1),
            (json!({"phase": "input", "cuda_graph": false}), 1),
        ]
    );
}

/// An opt-in rule (it reads every line of the most frequent kind) runs
/// only when asked for: `--with`, `--only`, or a check on it; `packs list`
/// marks it, and `packs test` still runs its examples.
#[test]
fn opt_in_rules_run_only_when_asked_for() {
    let log = "[2026-10-29 04:30:02 TP0] Decode batch. #running-req: 13, cuda graph: True, gen throughput (token/s): 20, #queue-req: 0\n\
               [2026-10-29 04:30:03 TP0] Traceback (most recent call last):\n";
    let rules = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["scan"];
        all.extend_from_slice(args);
        all.push("-");
        let run = artiscan_stdin(&all, log.as_bytes());
        let summary = &run.of_type("summary")[0];
        summary["rules"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(rules(&[]), ["error.traceback"]);
    assert_eq!(
        rules(&["--with", "sglang.batch_*"]),
        ["error.traceback", "sglang.batch_throughput"]
    );
    assert_eq!(rules(&["--only", "sglang.*"]), ["sglang.batch_throughput"]);
    // `--skip` wins over `--with`.
    assert_eq!(
        rules(&["--with", "*", "--skip", "sglang.batch_throughput"]),
        ["error.traceback"]
    );
    let list = artiscan(&["packs", "list"]);
    let line = list
        .stdout
        .lines()
        .find(|l| l.starts_with("sglang.batch_throughput"))
        .unwrap();
    assert!(line.contains("(opt-in: --with)"), "{line}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("server.log"), log).unwrap();
    std::fs::write(
        dir.path().join("graphs.toml"),
        "[[check]]\nid = \"graphs\"\ndescription = \"decode ran as graphs\"\nrule = \"sglang.batch_throughput\"\nexpect = \"present\"\n",
    )
    .unwrap();
    let r = artiscan_in(
        dir.path(),
        &[
            "check",
            "--checks",
            "graphs.toml",
            "--format",
            "text",
            "server.log",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("PASS"), "{}", r.stdout);
}

#[test]
fn every_builtin_rule_family_finds_evidence_in_samples() {
    let run = artiscan(&["scan", "--every-match", "samples/artifacts"]);
    let summary = &run.of_type("summary")[0];
    for rule in [
        "sglang.monokernel_routing",
        "sglang.cuda_graph_capture",
        "sglang.server_args",
        "sglang.load_weight_end",
        "quant.dequant",
        "spec.accept_len",
        "spec.simulate_acc_len",
        "env.var",
        "eval.score",
        "version.framework",
        "error.traceback",
        "error.oom",
        "error.nccl",
        "error.child_failed",
    ] {
        assert!(
            summary["rules"][rule].as_u64().unwrap_or(0) > 0,
            "{rule}: {}",
            summary["rules"]
        );
    }
    let gsm: Vec<Value> = run
        .of_type("evidence")
        .into_iter()
        .filter(|e| {
            e["rule"] == "eval.score"
                && e["captures"]["task"] == "gsm8k"
                && e["captures"]["filter"] == "strict-match"
                && e["captures"]["metric"] == "exact_match"
        })
        .collect();
    assert_eq!(gsm[0]["captures"]["value"], json!(0.9773));
}

#[test]
fn json_document_and_user_packs() {
    let run = artiscan(&[
        "scan",
        "--format",
        "json",
        "--only",
        "quant.*",
        &sample(SINGLE),
    ]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    let recs = doc["records"].as_array().unwrap();
    assert_eq!(recs.last().unwrap()["type"], "summary");
    assert!(
        recs.iter()
            .all(|r| r["type"] != "evidence" || r["rule"] == "quant.dequant")
    );
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("mine.toml");
    std::fs::write(
        &pack,
        r#"name = "mine"
version = "1"
description = "user pack"
[[rule]]
id = "mine.segfault"
description = "segfaults"
regex = 'Fatal Python error: (?P<what>Segmentation fault)'
[[rule.example]]
line = 'Fatal Python error: Segmentation fault'
"#,
    )
    .unwrap();
    let run = artiscan(&[
        "scan",
        "--pack",
        pack.to_str().unwrap(),
        "--only",
        "mine.*",
        "samples/artifacts/damaged/core_dump_artifact.zip",
    ]);
    let ev = run.of_type("evidence");
    assert_eq!(ev.len(), 1, "{}", run.stderr);
    assert_eq!(ev[0]["pack"], "mine");
}

/// A big log gives the same records whatever the thread count: a plain file
/// is cut at line ends into one part per thread, a gzip is decoded on one
/// thread and matched on another. JSON env blocks sit across every cut.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn threads_do_not_change_records() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let size = 10 << 20;
    let mut blocks_at: Vec<usize> = [4, 3, 2]
        .iter()
        .map(|d| size / d - 2048)
        .chain([size * 2 / 3 - 2048, size * 3 / 4 - 2048])
        .collect();
    blocks_at.sort();
    let mut log = String::new();
    let mut i = 0u64;
    let mut blocks = 0;
    while log.len() < size {
        if blocks_at.first().is_some_and(|&at| log.len() >= at) {
            blocks_at.remove(0);
            blocks += 1;
            log.push_str("[2026-10-29 04:48:14] fingerprint:\n{\n  \"env\": {\n");
            for v in 0..100 {
                log.push_str(&format!("    \"SGLANG_VAR_{blocks}_{v}\": \"{v}\",\n"));
            }
            log.push_str("    \"SGLANG_SIMULATE_ACC_LEN\": \"3.77\"\n  },\n  \"ok\": 1\n}\n");
        }
        let r = i % 8;
        log.push_str(&format!(
            "[2026-10-29 04:48:14 TP{r} EP{r}] Decode batch, #running-req: 97, #token: 461630, \
             token usage: 0.99, accept len: {}.{:02}, accept rate: 0.{:02}, cuda graph: True, \
             gen throughput (token/s): 7276.78, #queue-req: 0\n",
            1 + i % 4,
            i % 97,
            i % 89
        ));
        i += 1;
    }
    assert_eq!(blocks, 5);
    std::fs::write(dir.path().join("server.log"), &log).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(log.as_bytes()).unwrap();
    std::fs::write(dir.path().join("server.log.gz"), gz.finish().unwrap()).unwrap();

    let records = |file: &str, j: &str| -> Vec<Value> {
        let run = artiscan_in(dir.path(), &["scan", "--format", "jsonl", j, file]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let text = run.stdout.replace("server.log.gz", "server.log");
        text.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["type"] == "evidence" || r["type"] == "aggregate")
            .map(|mut r| {
                // Ids hash the artifact's bytes: the gzip's differ.
                r.as_object_mut().unwrap().remove("id");
                r
            })
            .collect()
    };
    let one = records("server.log", "-j1");
    let env: Vec<_> = one.iter().filter(|r| r["rule"] == "env.var").collect();
    assert_eq!(env.len(), 5 * 101);
    let acc: Vec<_> = one
        .iter()
        .filter(|r| r["rule"] == "spec.accept_len")
        .collect();
    assert_eq!(acc.len(), 8);
    assert_eq!(
        acc.iter()
            .map(|a| a["count"].as_u64().unwrap())
            .sum::<u64>(),
        i
    );
    let same = |other: Vec<Value>, what: &str| {
        assert_eq!(other.len(), one.len(), "{what}: record count");
        if let Some((a, b)) = one.iter().zip(&other).find(|(a, b)| a != b) {
            panic!("{what} differs from plain -j1:\n{a}\n{b}");
        }
    };
    for j in ["-j2", "-j3", "-j4"] {
        same(records("server.log", j), &format!("plain {j}"));
    }
    same(records("server.log.gz", "-j1"), "gzip -j1");
    same(records("server.log.gz", "-j2"), "gzip -j2");

    // A tar.gz of small members (matched on other threads while the next is
    // decoded), a big one (matched as it streams), a binary one (a note) and
    // a cut-off end (an error): the same records, notes and errors.
    let mut tar = tar::Builder::new(Vec::new());
    let mut add = |name: &str, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, name, data).unwrap();
    };
    let cut = |n: usize| &log.as_bytes()[..log[..n].rfind('\n').unwrap() + 1];
    add("a/server.log", log.as_bytes());
    for k in 0..6 {
        add(&format!("b/part{k}.log"), cut(size / 4 + k * 1000));
    }
    add("c/blob.bin", &[0u8; 10000]);
    add("d/last.log", cut(size / 3));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    let mut tgz = gz.finish().unwrap();
    tgz.truncate(tgz.len() - 5000);
    std::fs::write(dir.path().join("logs.tar.gz"), &tgz).unwrap();
    let all = |j: &str| -> Vec<Value> {
        let run = artiscan_in(dir.path(), &["scan", "--format", "jsonl", j, "logs.tar.gz"]);
        // Found (0) although cut off: the error is on stderr and in coverage.
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stderr.contains("Truncated"), "{}", run.stderr);
        run.records()
            .into_iter()
            .filter(|r| r["type"] != "summary")
            .collect()
    };
    let one = all("-j1");
    let cov = one.iter().find(|r| r["type"] == "coverage").unwrap();
    assert!(!cov["errors"].as_array().unwrap().is_empty(), "{cov}");
    assert!(cov.to_string().contains("binary"), "{cov}");
    let env: Vec<_> = one.iter().filter(|r| r["rule"] == "env.var").collect();
    assert!(env.len() > 5 * 101, "{}", env.len());
    for j in ["-j2", "-j4"] {
        let other = all(j);
        assert_eq!(other.len(), one.len(), "tar.gz {j}: record count");
        if let Some((a, b)) = one.iter().zip(&other).find(|(a, b)| a != b) {
            panic!("tar.gz {j} differs from -j1:\n{a}\n{b}");
        }
    }
}

/// Each committed sample alone, on one thread and on two (its members then
/// matched on the second thread while the next is decoded): the same
/// records, coverage included.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn samples_scan_the_same_on_one_or_two_threads() {
    // Files one by one: several artifacts come out in order of completion.
    let mut names = Vec::new();
    let mut dirs = vec![String::new()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(root().join(sample(&d))).unwrap() {
            let e = e.unwrap();
            let name = format!("{d}{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                dirs.push(name + "/");
            } else {
                names.push(name);
            }
        }
    }
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let path = sample(&name);
        let scan = |j: &str| -> (i32, Vec<Value>) {
            let run = artiscan(&["scan", "--format", "jsonl", j, &path]);
            assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
            let records = run.records();
            let kept = records.into_iter().filter(|r| r["type"] != "summary");
            (run.code, kept.collect())
        };
        let one = scan("-j1");
        assert!(!one.1.is_empty(), "{name}");
        assert!(scan("-j2") == one, "{name}: -j2 differs from -j1");
    }
}

/// An `Env:` line of 300 variables gives 300 records, each quoting at most
/// 1 KiB of the line around its variable (with `text_start`), so the
/// output grows with the records, not records times the line's length.
#[test]
fn long_lines_are_quoted_by_an_excerpt_around_each_match() {
    let vars: String = (0..300)
        .map(|i| format!(" SGLANG_VAR_{i:03}=value_{i}_abcdefghijklmnop"))
        .collect();
    let log = format!("2026-10-29 04:01:05 [INFO] Env: A=1{vars}\n");
    assert!(log.len() > 10_000);
    let run = artiscan_stdin(
        &["scan", "--every-match", "--only", "env.var", "-"],
        log.as_bytes(),
    );
    let ev = run.of_type("evidence");
    assert_eq!(ev.len(), 301);
    let line = log.trim_end();
    for e in &ev {
        let text = e["text"].as_str().unwrap();
        let at = e["text_start"].as_u64().expect("an excerpt") as usize;
        assert!(text.len() <= 1024);
        assert_eq!(&line[at..at + text.len()], text);
        let name = e["captures"]["name"].as_str().unwrap();
        assert!(
            text.contains(&format!("{name}=")),
            "{name} not in its excerpt"
        );
    }
    assert!(run.stdout.len() < 301 * 2048, "{} bytes", run.stdout.len());
}

/// stderr shows at most 20 coverage errors of a kind per artifact, then how
/// many more; the coverage record keeps every one.
#[test]
fn stderr_shows_twenty_errors_of_a_kind_then_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = tar::Builder::new(Vec::new());
    for i in 0..30 {
        let data = b"\0core dump\n";
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, format!("core.{i}"), &data[..])
            .unwrap();
    }
    std::fs::write(dir.path().join("cores.tar"), b.into_inner().unwrap()).unwrap();
    let run = artiscan_in(dir.path(), &["scan", "cores.tar"]);
    let cov = &run.of_type("coverage")[0];
    assert_eq!(cov["errors"].as_array().unwrap().len(), 30);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.contains(": Skipped: ")).count(),
        20,
        "{}",
        run.stderr
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("cores.tar: 10 more Skipped error(s) not shown")),
        "{}",
        run.stderr
    );
}

/// A member that ends in damage still counts the bytes read before it: its
/// lines were searched (records come from them), so coverage says so.
#[test]
fn coverage_counts_the_bytes_read_before_damage() {
    for name in [
        "damaged/corrupt_server.log.gz",
        "damaged/truncated_multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.tar.gz",
    ] {
        for jobs in ["1", "2"] {
            let run = artiscan(&["scan", "-j", jobs, &sample(name)]);
            let cov = &run.of_type("coverage")[0];
            assert!(
                !cov["errors"].as_array().unwrap().is_empty(),
                "{name}: damaged"
            );
            // Per member: the bytes counted reach past every record's line.
            let mut read_to: std::collections::BTreeMap<String, u64> = Default::default();
            for e in run.of_type("evidence") {
                let end = e["location"]["byte_offset"].as_u64().unwrap() + 1;
                let m = e["location"]["members"].to_string();
                let v = read_to.entry(m).or_default();
                *v = (*v).max(end);
            }
            assert!(!read_to.is_empty(), "{name}: records before the damage");
            let bytes = cov["bytes"].as_u64().unwrap();
            assert!(
                bytes >= read_to.values().sum::<u64>(),
                "{name} -j{jobs}: {bytes} bytes counted, records reach {read_to:?}"
            );
        }
    }
}

/// An artifact none of whose members `-g` lets in backs no citation and no
/// claim: it is not read to its end for a hash (its coverage has none),
/// big (streamed) or small (read whole). One whose member is read keeps
/// the hash of its bytes.
#[test]
fn an_artifact_left_out_by_g_is_not_hashed() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let line = "[2026-06-04 10:00:00 TP0] Decode batch. #running-req: 64, accept len: 3.10\n";
    let big = dir.path().join("big_server.log");
    std::fs::write(&big, line.repeat((10 << 20) / line.len())).unwrap();
    let small = dir.path().join("small_server.log");
    std::fs::write(&small, line.repeat(100)).unwrap();
    for f in [&big, &small] {
        let path = f.to_str().unwrap();
        let left_out = artiscan(&["scan", "-g", "*.nomatch", path]);
        let cov = &left_out.of_type("coverage")[0];
        assert!(cov.get("sha256").is_none(), "{path}: {cov}");
        assert_eq!(cov["bytes"], 0, "{path}: {cov}");
        assert!(left_out.of_type("evidence").is_empty());
        let read = artiscan(&["scan", "-g", "*.log", path]);
        let cov = &read.of_type("coverage")[0];
        let want = sha2::Sha256::digest(std::fs::read(f).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        assert_eq!(cov["sha256"], want.as_str(), "{path}");
    }
}

/// A log bigger than the address space the process may use is read whole,
/// as a stream: files are never mapped (under `ulimit -v`, a 10 GiB log
/// could not be mapped and was not read at all: grep exit 2). Here a
/// 300 MiB log under a 195 MiB limit (`-j2`, so that thread stacks and
/// allocator arenas fit on any machine): grep counts both tracebacks, the
/// first and the last line, and scan reads every byte.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn a_log_bigger_than_the_address_space_limit_is_read_whole() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("server.log");
    let line = "[2026-10-29 04:41:02 DP0 TP0 EP0] Prefill batch, #new-seq: 1, #new-token: 8192, \
                #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0\n";
    let block = line.repeat((1 << 20) / line.len());
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"Traceback (most recent call last):\n")
        .unwrap();
    let blocks = 310;
    for _ in 0..blocks {
        f.write_all(block.as_bytes()).unwrap();
    }
    f.write_all(b"Traceback (most recent call last):\n")
        .unwrap();
    f.into_inner().unwrap().sync_all().unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 300 << 20);
    let limited =
        |args: &[&str]| artiscan_after_sh(dir.path(), "ulimit -v 200000 || exit 99", args);
    let grep = limited(&["grep", "-c", "-h", "-j2", "Traceback", "server.log"]);
    assert_eq!(grep.code, 0, "{}", grep.stderr);
    assert_eq!(grep.stdout.trim(), "2", "{}", grep.stdout);
    let scan = limited(&["scan", "-j2", "--format", "jsonl", "server.log"]);
    assert_eq!(scan.code, 0, "{}", scan.stderr);
    let records: Vec<Value> = scan
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let coverage = records
        .iter()
        .find(|r| r["type"] == "coverage")
        .expect("coverage");
    assert_eq!(coverage["complete"], true, "{coverage}");
    assert_eq!(coverage["bytes"], size, "{coverage}");
    let lines: Vec<u64> = records
        .iter()
        .filter(|r| r["rule"] == "error.traceback")
        .map(|r| r["location"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0], 1);
    let per_block = (block.len() / line.len()) as u64;
    assert_eq!(lines[1], blocks * per_block + 2, "{lines:?}");
}
