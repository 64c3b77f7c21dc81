//! What ran, under the verifier's rows (`check --format verdicts` and the
//! Markdown report): the image and its org, engine and version, model,
//! hardware, topology, spec mode, dates and points, each cited; then the
//! `Note:` lines a reviewer would otherwise dig for. And the sizes: the
//! block within 8 KB per run, Markdown within 32 KB per run folder.

use crate::harness::*;
use std::path::Path;

const BLOCK_PER_RUN: usize = 8 << 10;
const MARKDOWN_PER_RUN: usize = 32 << 10;

fn check(dir: &Path, format: &str, inputs: &[&str]) -> Run {
    let mut args = vec!["check", "--set", "inferencex", "--format", format];
    args.extend_from_slice(inputs);
    artiscan_in(dir, &args)
}

/// No line under the rows starts with a status mark: notes and what ran
/// are never read as rows by the publisher.
fn no_mark_below_rows(md: &str) {
    let below = md.split("**What ran**").nth(1).unwrap_or("");
    for line in below.lines() {
        assert!(
            !["✅", "❌", "➖", "⚠️", "❔"]
                .iter()
                .any(|m| line.starts_with(m)),
            "{line}"
        );
    }
}

#[test]
fn real_runs_say_what_ran_within_their_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "0604-glm5.1-fp4-mi355x-sglang-agentic-hicache.tar.zst",
        "0604-minimaxm2.5-fp8-mi355x-vllm-agentic-lmcache.tar.zst",
    ] {
        if unpack_real_run(name, tmp.path()).is_none() {
            return;
        }
    }
    let folders = [
        (
            "glm5.1-fp4-mi355x-sglang-agentic-hicache",
            "engine: `sglang 0.5.12.post1`",
            "image: `lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260529` (org `lmsysorg`) (`glm5.1-fp4-mi355x-sglang-agentic-hicache/bmk_agentic_",
            "dates: `2026-06-03`",
            "points: 12 result file(s), 12 aggregated row(s)",
        ),
        (
            "minimaxm2.5-fp8-mi355x-vllm-agentic-lmcache",
            "engine: `vllm 0.22.0`",
            "image: `vllm/vllm-openai-rocm:v0.22.0` (org `vllm`)",
            // vLLM's log lines carry no year.
            "dates: `06-0",
            "points: 16 result file(s), 16 aggregated row(s)",
        ),
    ];
    for (folder, engine, image, dates, points) in folders {
        let r = check(tmp.path(), "verdicts", &[folder]);
        let out = &r.stdout;
        for want in [
            &format!("**What ran** in run `{folder}`:"),
            engine,
            image,
            dates,
            points,
            "hardware `mi355x`, topology `TP2 EP1 aggregated`, spec mode `none` (`",
        ] {
            assert!(out.contains(want), "{folder}: {want}\n{out}");
        }
        // Every point of these runs has its server log; their images are set.
        assert!(!out.contains("no server log"), "{out}");
        assert!(!out.contains("empty image"), "{out}");
        no_mark_below_rows(out);
        assert!(out.len() <= BLOCK_PER_RUN, "{folder}: {} bytes", out.len());
        let md = check(tmp.path(), "markdown", &[folder]);
        assert!(md.stdout.contains(engine), "{}", md.stdout);
        assert!(
            md.stdout.len() <= MARKDOWN_PER_RUN,
            "{folder}: {} bytes",
            md.stdout.len()
        );
    }
    // Both runs in one invocation: one block, each run's what ran, within
    // its size.
    let r = check(tmp.path(), "verdicts", &[folders[0].0, folders[1].0]);
    assert_eq!(r.stdout.matches("**What ran**").count(), 2, "{}", r.stdout);
    assert!(r.stdout.len() <= 2 * BLOCK_PER_RUN);
    let md = check(tmp.path(), "markdown", &[folders[0].0, folders[1].0]);
    assert!(md.stdout.len() <= 2 * MARKDOWN_PER_RUN);
}

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
