//! Download junk is set aside by its bytes, never by its name alone (issue
//! 45): a crashed server's Traceback in `server.log:Zone.Identifier` of an
//! extracted artifact folder is read and judged as it is inside the
//! artifact's zip; a real `.DS_Store`, `Thumbs.db` or Zone.Identifier stream
//! is set aside, with a note saying what and why.

use crate::harness::{artiscan_in, checked_verdicts, copy_dir, root, zip_folder};

const RF1: &str =
    "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

/// The end of an SGLang scheduler crash, as its log prints it.
const CRASH: &str = "[2026-10-29 04:52:11 TP3] Scheduler hit an exception: Traceback (most recent call last):\n  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2968, in run_scheduler_process\n    scheduler.event_loop_overlap()\nRuntimeError: CUDA error: an illegal memory access was encountered\n";

fn status(v: &[(String, String, String)], scope_end: &str, check: &str) -> String {
    v.iter()
        .find(|(s, c, _)| s.ends_with(scope_end) && c == check)
        .unwrap_or_else(|| panic!("no {check} verdict of {scope_end}: {v:?}"))
        .2
        .clone()
}

#[test]
fn junk_names_are_set_aside_only_when_their_bytes_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = format!("server_logs_{RF1}");
    let folder = d.join("runs/1").join(&name);
    copy_dir(
        &root().join("samples/artifacts/downloaded").join(&name),
        &folder,
    );
    std::fs::write(folder.join("server.log:Zone.Identifier"), CRASH).unwrap();
    // Real junk: a .DS_Store and a Thumbs.db by their magic bytes, a
    // Zone.Identifier stream as Windows writes it.
    let mut ds = b"\0\0\0\x01Bud1\0\0\x10\0\0\0\x08\0".to_vec();
    ds.resize(6148, 0);
    std::fs::write(folder.join(".DS_Store"), ds).unwrap();
    let mut thumbs = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    thumbs.resize(1024, 0);
    std::fs::write(folder.join("Thumbs.db"), thumbs).unwrap();
    std::fs::write(
        folder.join("server.log.gz:Zone.Identifier"),
        "[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://github.com/SemiAnalysisAI/InferenceX/actions/runs/18012345678\r\nHostUrl=https://productionresultssa1.blob.core.windows.net/actions-results/x.zip\r\n",
    )
    .unwrap();
    let zip = d.join("runs/2").join(format!("{name}.zip"));
    std::fs::create_dir_all(zip.parent().unwrap()).unwrap();
    zip_folder(&folder, &zip);

    let checked = artiscan_in(d, &["check", "--set", "inferencex", "runs"]);
    let v = checked_verdicts(&checked);
    // The folder and its zip: the crash fails no-traceback in both.
    assert_eq!(
        status(&v, &format!("runs/1/{name}"), "no-traceback"),
        "fail"
    );
    assert_eq!(
        status(&v, &format!("runs/2/{name}.zip"), "no-traceback"),
        "fail"
    );
    // The note names what was set aside and why; the crash is not junk.
    let err = &checked.stderr;
    for (file, why) in [
        (".DS_Store", "Bud1"),
        ("Thumbs.db", "OLE"),
        ("server.log.gz:Zone.Identifier", "[ZoneTransfer]"),
    ] {
        assert!(
            err.lines()
                .any(|l| l.contains(file) && l.contains(why) && l.contains("set aside")),
            "{file}: {err}"
        );
    }
    assert!(
        !err.lines()
            .any(|l| l.contains("server.log:Zone.Identifier") && l.contains("set aside")),
        "{err}"
    );
    // The audit judges as check does.
    let audited = artiscan_in(d, &["audit", "runs", "--db", "a.sqlite"]);
    assert_eq!(audited.code, 0, "{}", audited.stderr);
    let exported = artiscan_in(d, &["audit", "export", "--db", "a.sqlite", "--verdicts"]);
    assert_eq!(checked_verdicts(&exported), v);
}
