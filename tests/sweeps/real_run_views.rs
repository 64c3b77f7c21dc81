//! What the verifier sees on the real run folders of
//! `../shared/corpus/real-runs`: the block's rows and sizes, what ran,
//! `diff` of the two runs, and grep's counts on coloured real logs.

use crate::harness::*;
use crate::shared::{unpack_real_run, unpack_real_runs};
use crate::verdict_support::*;

#[test]
fn real_runs_block_fits_and_has_no_na_where_checks_apply() {
    let tmp = tempfile::tempdir().unwrap();
    if unpack_real_run(
        "0604-glm5.1-fp4-mi355x-sglang-agentic-hicache.tar.zst",
        tmp.path(),
    )
    .is_none()
    {
        return;
    }
    let run = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    let r = block(tmp.path(), &[], &[run.to_str().unwrap()]);
    let rs = rows(&r.stdout);
    assert_eq!(rs.len(), 7, "{}", r.stdout);
    for n in [2, 8, 10, 14] {
        assert_ne!(word(&rs, n), "N/A", "{n}: {}", r.stdout);
    }
    // GLM-5.1 here runs without speculative decoding (`spec-none`).
    for n in [9, 11, 13] {
        assert_eq!(word(&rs, n), "N/A", "{n}: {}", r.stdout);
    }
    // Fewer than five frontier points is a warning: it alone is not a fail.
    assert_eq!(word(&rs, 14), "WARN");
    assert!(r.stdout.len() <= BLOCK_PER_RUN, "{}", r.stdout.len());
    assert_ne!(r.code, 1, "{}", r.stdout);
}

#[test]
fn real_runs_say_what_ran_within_their_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    unpack_real_runs(tmp.path());
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
fn two_real_runs_name_their_differences() {
    let tmp = tempfile::tempdir().unwrap();
    unpack_real_runs(tmp.path());
    let r = artiscan_in(
        tmp.path(),
        &[
            "diff",
            "glm5.1-fp4-mi355x-sglang-agentic-hicache",
            "minimaxm2.5-fp8-mi355x-vllm-agentic-lmcache",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    for want in [
        "run model\n  A: amd/GLM-5.1-MXFP4  (glm5.1-fp4-mi355x-sglang-agentic-hicache/",
        "  B: MiniMaxAI/MiniMax-M2.5  (minimaxm2.5-fp8-mi355x-vllm-agentic-lmcache/",
        "run image\n  A: lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260529",
        "  B: vllm/vllm-openai-rocm:v0.22.0",
        "engine sglang\n",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
    // Two configs differ in every launch argument of every point: long,
    // but bounded by their keys.
    assert!(r.stdout.len() < 512 << 10, "{}", r.stdout.len());
}

/// The real vLLM + LMCache run folder (colour codes on every LMCache line),
/// read from the shared corpus beside the repository; skipped without it.
/// `-c` (raw search, only joinable coloured lines cleaned) plus `-c -v`
/// (every line cleaned and matched) is every line of each log, and `-c` of
/// a split needle in a coloured copy finds each split.
#[test]
fn coloured_real_logs_count_the_same_as_cleaning_every_line() {
    let tar = root().join(
        "../shared/corpus/real-runs/0604-minimaxm2.5-fp8-mi355x-vllm-agentic-lmcache.tar.zst",
    );
    if !tar.exists() {
        panic!("no {}", tar.display());
    }
    let dir = tempfile::tempdir().unwrap();
    let ok = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "zstd -dc '{}' | tar -x -C '{}' --wildcards '*lmcache_server.log' '*conc8*/server.log'",
            tar.display(),
            dir.path().display()
        ))
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "zstd or tar failed on {}", tar.display());
    let d = dir.path().to_str().unwrap();
    for needle in [
        "accept len",
        "LMCache INFO",
        "Storing KV cache",
        "(APIServer",
    ] {
        let hit = artiscan(&["grep", "-c", "-F", needle, d]);
        let miss = artiscan(&["grep", "-c", "-v", "-F", needle, d]);
        let counts = |s: &str| -> Vec<(String, u64)> {
            s.lines()
                .map(|l| {
                    let (p, n) = l.rsplit_once(':').unwrap();
                    (p.to_string(), n.parse().unwrap())
                })
                .collect()
        };
        let (hit, miss) = (counts(&hit.stdout), counts(&miss.stdout));
        assert!(hit.len() >= 2, "{needle}: {hit:?}");
        for ((p, h), (q, m)) in hit.iter().zip(&miss) {
            assert_eq!(p, q);
            let lines = std::fs::read(p).unwrap().split(|&b| b == b'\n').count() as u64 - 1;
            assert_eq!(h + m, lines, "{needle} in {p}");
        }
    }
    // A log with every `LMCache INFO` split by a colour code.
    let run = artiscan(&["grep", "-l", "-F", "LMCache INFO", d]);
    let log = run.stdout.lines().next().unwrap().to_string();
    let data = std::fs::read(&log).unwrap();
    let want = data
        .split(|&b| b == b'\n')
        .filter(|l| l.windows(12).any(|w| w == b"LMCache INFO"))
        .count();
    let split = String::from_utf8_lossy(&data).replace("LMCache INFO", "LMCache IN\x1b[1mFO");
    let f = dir.path().join("split.log");
    std::fs::write(&f, split).unwrap();
    let run = artiscan(&["grep", "-c", "-F", "LMCache INFO", f.to_str().unwrap()]);
    assert_eq!(
        run.stdout.trim().rsplit(':').next().unwrap(),
        want.to_string()
    );
}
