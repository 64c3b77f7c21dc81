//! `artiscan packs`: the built-in packs pass their own examples; bad packs
//! get clear errors.

use crate::harness::*;
use serde_json::Value;

#[test]
fn builtin_packs_pass_their_examples_and_lint() {
    let run = artiscan(&["packs", "test"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains(" 0 failed"));
    assert_eq!(artiscan(&["packs", "lint"]).code, 0);
    let list = artiscan(&["packs", "list"]);
    for id in [
        "sglang.monokernel_routing",
        "env.var",
        "spec.simulate_acc_len",
        "eval.score",
    ] {
        assert!(list.stdout.contains(id));
    }
    let show = artiscan(&["packs", "show", "spec.accept_len"]);
    assert!(show.stdout.contains("aggregate: rank"));
}

fn pack_file(body: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.toml");
    std::fs::write(&f, body).unwrap();
    let s = f.to_str().unwrap().to_string();
    (dir, s)
}

#[test]
fn broken_examples_and_prefilters_are_caught() {
    let (_d, f) = pack_file(
        r#"name = "t"
version = "1"
[[rule]]
id = "t.bad_prefilter"
description = "prefilter that rejects a matching line"
prefilter = ["never there"]
regex = 'hello (?P<n>\d+)'
captures = { n = "int" }
[[rule.example]]
line = "hello 3"
captures = { n = 3 }
[[rule]]
id = "t.wrong_capture"
description = "wrong expected value"
regex = 'world (?P<n>\d+)'
captures = { n = "int" }
[[rule.example]]
line = "world 4"
captures = { n = 5 }
"#,
    );
    let run = artiscan(&["packs", "test", &f]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("t.bad_prefilter") && run.stdout.contains("prefilter"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("t.wrong_capture") && run.stdout.contains("expected 5"));
}

#[test]
fn bad_pack_files_name_file_rule_and_line() {
    let (_d, f) = pack_file(
        r#"name = "t"
version = "1"

[[rule]]
id = "t.ok"
regex = 'a(?P<x>b)'

[[rule]]
id = "t.broken"
regex = 'unclosed (group'
"#,
    );
    let run = artiscan(&["scan", "--pack", &f, "samples/artifacts/plain"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("p.toml:9: rule t.broken"),
        "{}",
        run.stderr
    );
    let (_d, f) = pack_file(
        "name = \"t\"\nversion = \"1\"\n[[rule]]\nid = \"t.x\"\nregex = 'x(?P<a>y)'\ncaptures = { b = \"int\" }\n",
    );
    let run = artiscan(&["packs", "lint", &f]);
    assert!(run.stderr.contains("capture b"), "{}", run.stderr);
    let (_d, f) = pack_file(
        "name = \"t\"\nversion = \"1\"\n[[rule]]\nid = \"sglang.server_args\"\nregex = 'x'\n",
    );
    let run = artiscan(&["scan", "--pack", &f, "samples/artifacts/plain"]);
    assert!(run.stderr.contains("duplicate rule id"), "{}", run.stderr);
}

/// A UTF-16 log (PowerShell 5 writes them, with a BOM) is decoded and read,
/// not skipped as binary; bytes that cannot be decoded make coverage
/// incomplete. A Docker json-file log is matched on its `log` message and
/// cited by the file's own line numbers.
#[test]
fn utf16_and_json_file_logs_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[2026-10-29 04:20:00 TP0] Load weight begin. avail mem=111.47 GB\r\n\
                [2026-10-29 04:21:00 TP1] Scheduler hit an exception: Traceback (most recent call last):\r\n";
    let mut utf16 = vec![0xff, 0xfe];
    for u in text.encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(dir.path().join("ps5.log"), &utf16).unwrap();
    let mut bad = utf16.clone();
    bad.extend_from_slice(&0xd800u16.to_le_bytes());
    std::fs::write(dir.path().join("ps5_bad.log"), &bad).unwrap();
    let json = concat!(
        r#"{"log":"starting\n","stream":"stdout","time":"2026-10-29T04:19:00.1Z"}"#,
        "\n",
        r#"{"log":"\u001b[32m[2026-10-29 04:20:00 TP3]\u001b[0m Load weight begin. avail mem=\"99.50\" GB\n","stream":"stderr","time":"2026-10-29T04:20:00.2Z"}"#,
        "\n",
        r#"{"log":"[2026-10-29 04:20:05 TP3] Memory pool end. avail mem=9.81 GB\n","stream":"stderr","time":"2026-10-29T04:20:05.2Z"}"#,
        "\n"
    );
    std::fs::write(dir.path().join("container-json.log"), json).unwrap();
    let run = artiscan_in(dir.path(), &["scan", "--format", "jsonl", "."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ev = run.of_type("evidence");
    let at = |rule: &str, file: &str| -> Vec<&Value> {
        ev.iter()
            .filter(|r| r["rule"] == rule && r["citation"].as_str().unwrap().contains(file))
            .collect()
    };
    let lw = at("sglang.load_weight_begin", "ps5.log");
    assert_eq!(lw.len(), 1, "{}", run.stdout);
    assert_eq!(lw[0]["captures"]["avail_mem_gb"], 111.47);
    assert_eq!(lw[0]["location"]["line"], 1);
    let tb = at("error.traceback", "ps5.log");
    assert_eq!((tb.len(), &tb[0]["location"]["line"]), (1, &Value::from(2)));
    assert_eq!(tb[0]["rank"]["tp"], 1);
    let covs = run.of_type("coverage");
    let cov = |file: &str| {
        covs.iter()
            .find(|c| c["path"].as_str().unwrap().ends_with(file))
            .unwrap()
    };
    assert_eq!(cov("ps5.log")["complete"], true, "{}", cov("ps5.log"));
    assert_eq!(cov("ps5.log")["notes"].as_array().unwrap().len(), 0);
    // Decoded, but one unit could not be: read, and said incomplete.
    assert_eq!(at("error.traceback", "ps5_bad.log").len(), 1);
    assert_eq!(cov("ps5_bad.log")["complete"], false);
    assert!(cov("ps5_bad.log").to_string().contains("UTF-16"));
    // json-file: the message is matched (quotes unescaped, colours gone),
    // the rank read from it, the file's line cited.
    let jl = at("sglang.load_weight_begin", "container-json.log");
    assert_eq!(jl.len(), 0, "a quoted number is not a number: {jl:?}");
    let mp = at("sglang.memory_pool_end", "container-json.log");
    assert_eq!(mp.len(), 1, "{}", run.stdout);
    assert_eq!(mp[0]["location"]["line"], 3);
    assert_eq!(mp[0]["rank"]["tp"], 3);
    assert_eq!(
        mp[0]["text"],
        "[2026-10-29 04:20:05 TP3] Memory pool end. avail mem=9.81 GB"
    );
    // `cite` shows the cited line of the file and confirms the message.
    let c = mp[0]["citation"].as_str().unwrap();
    let cite = artiscan_in(
        dir.path(),
        &["cite", c, "--expect", "Memory pool end. avail mem=9.81 GB"],
    );
    assert_eq!(cite.code, 0, "{}{}", cite.stdout, cite.stderr);
    let cite = artiscan_in(
        dir.path(),
        &[
            "cite",
            lw[0]["citation"].as_str().unwrap(),
            "--expect",
            "avail mem=111.47 GB",
        ],
    );
    assert_eq!(cite.code, 0, "{}{}", cite.stdout, cite.stderr);
}

/// `packs lint` requires a source on every rule and `packs show` prints it;
/// a dump rule reads fields by name in any order, keeping only `keys`.
#[test]
fn sources_are_required_and_dumps_read_by_name() {
    let show = artiscan(&["packs", "show", "sglang.server_args"]);
    assert!(show.stdout.contains("source: SGLang"), "{}", show.stdout);
    assert!(show.stdout.contains("dump: group args"), "{}", show.stdout);
    let show = artiscan(&["packs", "show", "error.nccl"]);
    assert!(show.stdout.contains("exclude: "), "{}", show.stdout);
    let (_d, f) = pack_file(
        r#"name = "t"
version = "1"
[[rule]]
id = "t.args"
description = "a dump"
regex = 'args=(?P<d>\{.*)'
dump = "d"
keys = ["tp", "name"]
captures = { tp = "int" }
[[rule.example]]
line = "args={'name': 'x', 'other': 1, 'tp': 8}"
captures = { tp = 8, name = "x" }
[[rule.example]]
line = "args={'tp': 4, 'name': None}"
captures = { tp = 4 }
[[rule.example]]
line = "no args"
matches = false
"#,
    );
    let run = artiscan(&["packs", "test", &f]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let run = artiscan(&["packs", "lint", &f]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("t.args: no source"), "{}", run.stdout);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.log"),
        "args={'other': [1, 2], 'tp': 2, 'name': 'y'}\n",
    )
    .unwrap();
    let run = artiscan(&[
        "scan",
        "--format",
        "jsonl",
        "--pack",
        &f,
        "--only",
        "t.*",
        dir.path().to_str().unwrap(),
    ]);
    let ev = run.of_type("evidence");
    assert_eq!(ev.len(), 1, "{}", run.stdout);
    assert_eq!(ev[0]["captures"], serde_json::json!({"tp": 2, "name": "y"}));
}
