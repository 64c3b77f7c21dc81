//! What ran, under the verifier's rows (`check --format verdicts` and the
//! Markdown report): the image and its org, engine and version, model,
//! hardware, topology, spec mode, dates and points, each cited; then the
//! `Note:` lines a reviewer would otherwise dig for. And the sizes: the
//! block within 8 KB per run, Markdown within 32 KB per run folder.

use crate::harness::*;
use crate::verdict_support::*;

#[test]
fn sample_runs_fit_their_sizes() {
    for run in [
        "pass",
        "fail",
        "cut",
        "image-same",
        "image-other",
        "image-none",
    ] {
        let dir = format!("samples/verifier/runs/{run}");
        let r = check(&root(), "verdicts", &[&dir]);
        assert!(r.stdout.len() <= BLOCK_PER_RUN, "{run}: {}", r.stdout.len());
        no_mark_below_rows(&r.stdout);
        let md = check(&root(), "markdown", &[&dir]);
        assert!(
            md.stdout.len() <= MARKDOWN_PER_RUN,
            "{run}: {}",
            md.stdout.len()
        );
    }
}

/// A download holding a result artifact's zip and its extracted folder,
/// the extracted JSON edited by hand: the Note says the copy differs from
/// its zip; the point has no server log; the same copy unedited says
/// nothing about copies.
#[test]
fn an_edited_copy_and_points_without_a_server_log_are_noted() {
    let name = "bmk_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
    let file = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.json";
    for edited in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dl = tmp.path().join("dl");
        std::fs::create_dir_all(dl.join(name)).unwrap();
        std::fs::copy(
            root().join(format!("samples/verifier/zips/image-same/{name}.zip")),
            dl.join(format!("{name}.zip")),
        )
        .unwrap();
        let json = std::fs::read_to_string(
            root().join(format!("samples/verifier/runs/image-same/{name}/{file}")),
        )
        .unwrap();
        let json = if edited {
            json.replace("\"tput_per_gpu\": 1874.5", "\"tput_per_gpu\": 2874.5")
        } else {
            json
        };
        assert_eq!(json.contains("2874.5"), edited);
        std::fs::write(dl.join(name).join(file), json).unwrap();
        let r = check(tmp.path(), "verdicts", &["dl"]);
        let out = &r.stdout;
        assert!(
            out.contains(
                "image: `lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x-20260926` (org `lmsysorg`)"
            ),
            "{out}"
        );
        let note = format!(
            "Note: the extracted `{name}/{file}` differs from the copy in its zip (`dl/{name}/{file}:"
        );
        assert_eq!(out.contains(&note), edited, "{out}");
        assert!(
            out.contains("Note: 1 of 1 points have no server log in the download"),
            "{out}"
        );
        no_mark_below_rows(out);
    }
}
