//! `artiscan packs`: the built-in packs pass their own examples; bad packs
//! get clear errors.

use crate::harness::*;

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
