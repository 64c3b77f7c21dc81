//! `artiscan cite`: every citation scan prints reopens to its line.

use crate::harness::*;

#[test]
fn every_evidence_record_round_trips() {
    let run = artiscan(&["scan", "--every-match", "samples/artifacts"]);
    let ev = run.of_type("evidence");
    assert!(ev.len() > 200);
    // One artiscan process per record would be slow: check a spread of them.
    let step = (ev.len() / 60).max(1);
    for e in ev.iter().step_by(step) {
        let c = e["citation"].as_str().unwrap();
        let text = e["text"].as_str().unwrap();
        let quote: String = text.chars().take(60).collect();
        let r = artiscan(&["cite", "--json", c, "--expect", &quote]);
        assert_eq!(r.code, 0, "{c}: {}", r.stderr);
        let rec = &r.records()[0];
        assert_eq!(rec["text"], e["text"]);
        assert_eq!(rec["location"]["byte_offset"], e["location"]["byte_offset"]);
    }
}

#[test]
fn wrong_quote_wrong_hash_and_bad_citations() {
    let c = "samples/artifacts/server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip!server.log:168";
    let ok = artiscan(&["cite", c, "-C", "2", "--expect", "target_verify"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("     166- ") && ok.stdout.contains("     170- "));
    assert!(ok.stdout.contains("sha256:"));
    assert_eq!(
        artiscan(&["cite", c, "--expect", "draft_extend serves"]).code,
        1
    );
    assert_eq!(artiscan(&["cite", c, "--sha256", &"0".repeat(64)]).code, 1);
    assert_eq!(artiscan(&["cite", &c.replace(":168", ":99999")]).code, 2);
    assert_eq!(
        artiscan(&["cite", &c.replace("server.log", "nope.log")]).code,
        2
    );
    assert_eq!(artiscan(&["cite", "not a citation"]).code, 2);
    let rel = c.trim_start_matches("samples/artifacts/");
    assert_eq!(
        artiscan(&[
            "cite",
            rel,
            "--root",
            "samples/artifacts",
            "--expect",
            "target_verify"
        ])
        .code,
        0
    );
}
