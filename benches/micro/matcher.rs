//! Micro-benchmarks: the prefilter + rule matcher on a line corpus, and each
//! decoder path of the source layer:
//! `cargo bench --manifest-path benches/micro/Cargo.toml`.
//! Whole-tool comparisons against gzip/zstd/ugrep/rg live in compare.sh.

use artiscan::{
    Artifact, ArtifactKind, Coverage, Limits, LineLimits, LineReader, MemberScan, RuleSet,
    ScanOptions, Selection, builtin_packs, for_each_member,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::io::Write;

/// A realistic SGLang log: mostly Decode batch lines from 8 ranks, with the
/// rare lines the packs look for.
fn corpus(lines: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..lines {
        let tp = i % 8;
        let line = match i % 500 {
            0 => format!("[2026-10-29 04:21:13 TP{tp} EP{tp}] monokernel routing check: muse_spark_dflash2_draft_hip (gfx950) serves target_verify bs=[1, 2] x 8 tokens, 2/2 captured decode graphs routed\n"),
            1 => format!("[2026-10-29 04:21:13 TP{tp} EP{tp}] Finished streaming dequant fp8 wo_a\n"),
            2 => "2026-10-29 04:01:05 [INFO] Env: A=1 B=x SGLANG_SIMULATE_ACC_LEN=3.77 SGLANG_SIMULATE_ACC_METHOD=match-expected\n".to_string(),
            n if n % 7 == 0 => format!("[2026-10-29 04:41:02 TP{tp} EP{tp}] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.01, #running-req: 12, #queue-req: 0\n"),
            _ => format!("[2026-10-29 04:41:02 TP{tp} EP{tp}] Decode batch, #running-req: 13, #token: 81234, token usage: 0.41, accept len: 3.{:02}, accept rate: 0.55, cuda graph: True, gen throughput (token/s): 1012.55, #queue-req: 0\n", i % 100),
        };
        out.extend_from_slice(line.as_bytes());
    }
    out
}

fn rules() -> RuleSet {
    RuleSet::compile(&builtin_packs().unwrap(), &Selection::default()).unwrap()
}

fn matcher(c: &mut Criterion) {
    let data = corpus(50_000);
    let set = rules();
    let mut g = c.benchmark_group("matcher");
    g.throughput(Throughput::Bytes(data.len() as u64));
    for (name, every_match) in [("aggregate", false), ("every_match", true)] {
        g.bench_function(name, |b| {
            let members = vec!["server.log".to_string()];
            let mut reader = LineReader::new(LineLimits::default());
            b.iter(|| {
                let opts = ScanOptions {
                    every_match,
                    skip_prefilter: false,
                };
                let mut sink = MemberScan::new(&set, "bench", &members, "server.log", opts);
                let mut r = &data[..];
                reader.scan(&mut r, &mut sink).unwrap();
                let (mut recs, mut counts) = (Vec::new(), Default::default());
                sink.finish(&mut recs, &mut counts);
                recs.len()
            })
        });
    }
    // What an opt-in rule that reads the line a log repeats most costs:
    // the default rules plus it, against `aggregate`.
    let with = RuleSet::compile(
        &builtin_packs().unwrap(),
        &Selection {
            with: vec!["sglang.batch_throughput".into()],
            ..Selection::default()
        },
    )
    .unwrap();
    g.bench_function("aggregate_with_batch_throughput", |b| {
        let members = vec!["server.log".to_string()];
        let mut reader = LineReader::new(LineLimits::default());
        b.iter(|| {
            let mut sink =
                MemberScan::new(&with, "bench", &members, "server.log", Default::default());
            let mut r = &data[..];
            reader.scan(&mut r, &mut sink).unwrap();
            let (mut recs, mut counts) = (Vec::new(), Default::default());
            sink.finish(&mut recs, &mut counts);
            recs.len()
        })
    });
    g.finish();
}

fn decoders(c: &mut Criterion) {
    let data = corpus(50_000);
    let dir = tempfile::tempdir().unwrap();
    let mut tar = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tar.append_data(&mut h, "server.log", &data[..]).unwrap();
    let tar = tar.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    gz.write_all(&tar).unwrap();
    let files = [
        ("plain", data.clone()),
        ("tar.gz", gz.finish().unwrap()),
        ("tar.zst", zstd::encode_all(&tar[..], 3).unwrap()),
    ];
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Bytes(data.len() as u64));
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let artifact = Artifact {
            path: name.into(),
            kind: ArtifactKind::File(path),
        };
        let limits = Limits::default();
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut cov = Coverage::default();
                let mut n = 0u64;
                for_each_member(&artifact, &limits, &mut cov, |leaf| {
                    n += std::io::copy(leaf.reader, &mut std::io::sink())?;
                    Ok(())
                });
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, matcher, decoders);
criterion_main!(benches);
