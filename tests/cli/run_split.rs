//! A folder holding several runs (downloads carry no run id): split by the
//! evidence that differs, the model or log dates days apart, with a Note
//! saying on what; the rows name each run; a chart beside the artifacts
//! forms no run. Fixtures: the verifier samples (real SGLang line shapes).

use crate::harness::*;
use crate::verdict_support::*;
use std::path::Path;

const GLM: &str = "agentic_glm5.1_tp8_conc16_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";
const DSV4: &str = "bmk_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

fn put(from: &str, to: &Path) {
    copy_dir(&root().join(from), to);
}

/// One model's artifacts naming two model paths in one folder: two
/// runs, each judged and described on its own, the Note naming the model
/// that tells them apart. Beside another model's artifact (one run sweeps
/// several models) which run each belongs to cannot be told: said, not
/// split.
#[test]
fn two_runs_in_one_folder_are_split_on_the_model() {
    for beside in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dl = tmp.path().join("dl");
        put(&format!("samples/verifier/runs/pass/{GLM}"), &dl.join(GLM));
        let other = GLM
            .replace("conc16", "conc32")
            .replace("amds_02", "amds_05");
        put(
            &format!("samples/verifier/runs/pass/{GLM}"),
            &dl.join(&other),
        );
        let log = dl.join(&other).join("server.log");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains("model_path='/models/GLM-5.1-FP8'"));
        std::fs::write(
            &log,
            text.replace("/models/GLM-5.1-FP8", "/models/GLM-5.1-MXFP4"),
        )
        .unwrap();
        if beside {
            put(
                &format!("samples/verifier/runs/image-same/{DSV4}"),
                &dl.join(DSV4),
            );
        }
        // A chart beside the artifacts is no run of its own.
        std::fs::write(dl.join("combined_pareto_tokens.png"), b"\x89PNG\r\n\x1a\n").unwrap();
        let r = check(tmp.path(), "verdicts", &["dl"]);
        let out = &r.stdout;
        rows(out);
        no_mark_below_rows(out);
        assert!(!out.contains("png"), "{out}");
        if beside {
            assert!(
                out.contains("Note: artifacts of one model name different model paths (/models/GLM-5.1-FP8 and /models/GLM-5.1-MXFP4) beside other models' artifacts: one run or several, the download does not say; judged as one run"),
                "{out}"
            );
            assert!(!out.contains("#2"), "{out}");
            continue;
        }
        assert!(
            out.contains("Note: folder `dl` holds 2 runs, told apart by the model: #1 `/models/GLM-5.1-FP8` (`dl/agentic_glm5.1_"),
            "{out}"
        );
        assert!(
            out.contains(", #2 `/models/GLM-5.1-MXFP4` (`dl/agentic_glm5.1_"),
            "{out}"
        );
        assert!(out.contains("**What ran** in run `dl` #1:"), "{out}");
        assert!(out.contains("**What ran** in run `dl` #2:"), "{out}");
        // Each run's what ran has its own model only.
        let two = out.split("**What ran** in run `dl` #2:").nth(1).unwrap();
        let two = two.split("**What ran**").next().unwrap();
        assert!(
            two.contains("GLM-5.1-MXFP4") && !two.contains("GLM-5.1-FP8"),
            "{two}"
        );
        assert!(!out.contains("runs mixed in one folder"), "{out}");
        assert!(out.len() <= 2 * BLOCK_PER_RUN, "{}", out.len());
    }
}

/// The same configuration run twice, days apart, in one folder: split on
/// the dates; the same run's logs a day apart stay one run.
#[test]
fn runs_days_apart_are_split_on_the_dates() {
    for (later, split) in [("2026-11-20", true), ("2026-10-30", false)] {
        let tmp = tempfile::tempdir().unwrap();
        let dl = tmp.path().join("dl");
        put(&format!("samples/verifier/runs/pass/{GLM}"), &dl.join(GLM));
        let other = GLM
            .replace("conc16", "conc32")
            .replace("amds_02", "amds_05");
        put(
            &format!("samples/verifier/runs/pass/{GLM}"),
            &dl.join(&other),
        );
        let log = dl.join(&other).join("server.log");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains("[2026-10-29 "));
        std::fs::write(&log, text.replace("[2026-10-29 ", &format!("[{later} "))).unwrap();
        let r = check(tmp.path(), "verdicts", &["dl"]);
        let out = &r.stdout;
        rows(out);
        let note = "Note: folder `dl` holds 2 runs, told apart by the dates: #1 `2026-10-29` (";
        assert_eq!(out.contains(note), split, "{out}");
        assert_eq!(out.contains(&format!("#2 `{later}` (")), split, "{out}");
        assert_eq!(out.contains("**What ran** in run `dl` #2:"), split, "{out}");
        no_mark_below_rows(out);
    }
}
