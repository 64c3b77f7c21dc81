//! Real output validates against schema/output.schema.json.

use crate::harness::*;
use serde_json::Value;

pub(crate) fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/output.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("valid schema")
}

pub(crate) fn check_all(records: &[Value], v: &jsonschema::Validator) {
    for r in records {
        let errors: Vec<String> = v.iter_errors(r).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{r}\n{errors:?}");
    }
}

#[test]
fn every_record_type_validates() {
    let v = validator();
    let mut kinds = std::collections::BTreeSet::new();
    for args in [
        vec![
            "grep",
            "--format",
            "jsonl",
            "-C",
            "1",
            "routing check",
            "samples/artifacts",
        ],
        vec!["scan", "samples/artifacts"],
        vec![
            "grep",
            "--format",
            "jsonl",
            "-c",
            "routing check",
            "samples/artifacts",
        ],
        vec![
            "grep",
            "--format",
            "jsonl",
            "-l",
            "routing check",
            "samples/artifacts",
        ],
        vec![
            "check",
            "--set",
            "inferencex",
            "--format",
            "jsonl",
            "samples/artifacts",
        ],
        vec![
            "cite",
            "--json",
            "-C",
            "1",
            "samples/artifacts/logs_12345678.zip!benchmark (dsv4, fp8)/3_Run benchmark.txt:18",
        ],
        vec!["ls", "--json", "samples/artifacts"],
        vec![
            "show",
            "--format",
            "jsonl",
            "samples/artifacts/logs_12345678.zip!benchmark (dsv4, fp8)/3_Run benchmark.txt:17..19",
        ],
    ] {
        let run = artiscan(&args);
        let recs = run.records();
        assert!(!recs.is_empty(), "{args:?}");
        check_all(&recs, &v);
        kinds.extend(recs.iter().map(|r| r["type"].as_str().unwrap().to_string()));
    }
    for k in [
        "evidence",
        "context",
        "aggregate",
        "coverage",
        "summary",
        "verdict",
        "cite",
        "member",
        "count",
        "show",
    ] {
        assert!(kinds.contains(k), "no {k} record was produced");
    }
}

#[test]
fn schema_rejects_a_broken_record() {
    let v = validator();
    let bad = serde_json::json!({"type": "coverage", "path": "x", "complete": "yes"});
    assert!(!v.is_valid(&bad));
}
