//! Runs the fuzz targets on stable Rust, without libFuzzer: inputs are the
//! seeds mutated at random (bit flips, inserted and deleted runs, repeated
//! runs, rule literals and magic numbers, splices of two inputs), for a
//! fixed time per target. No coverage feedback: weaker than `cargo fuzz`,
//! but it needs nothing beyond stable Rust, so CI and any machine can run
//! it. A panic is a crash: its input is saved in
//! `fuzz/artifacts/TARGET/crash-HASH` and the driver exits 1 at the end. An
//! input slower than ARTISCAN_FUZZ_SLOW_MS (default 5000) is saved as
//! `slow-HASH` (a hint of a quadratic path) and reported.
//!
//!   cargo run --manifest-path fuzz/Cargo.toml --no-default-features \
//!       --example drive -- [SECONDS_PER_TARGET] [TARGET...]
//!
//! SECONDS_PER_TARGET defaults to ARTISCAN_FUZZ_SECS or 60; the seed of
//! the random choices to ARTISCAN_FUZZ_SEED or the clock (printed, so a
//! run can be repeated).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn files(dir: &Path, max: u64, out: &mut Vec<Vec<u8>>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        match std::fs::metadata(&p) {
            Ok(m) if m.is_dir() => files(&p, max, out),
            Ok(m) if m.is_file() && m.len() <= max => {
                if let Ok(d) = std::fs::read(&p) {
                    out.push(d);
                }
            }
            _ => {}
        }
    }
}

/// The quoted strings of `prefilter = [...]` lines in the built-in packs.
fn rule_literals() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut packs = Vec::new();
    files(&root().join("../patterns"), 1 << 20, &mut packs);
    for p in packs {
        for line in String::from_utf8_lossy(&p).lines() {
            let line = line.trim_start();
            if !line.starts_with("prefilter") {
                continue;
            }
            for (i, part) in line.split('"').enumerate() {
                if i % 2 == 1 && !part.is_empty() {
                    out.push(part.as_bytes().to_vec());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let r = root();
    let mut out = Vec::new();
    match target {
        "source" => {
            files(&r.join("seeds/source"), 1 << 20, &mut out);
            files(&r.join("../tests/regressions"), 1 << 20, &mut out);
            files(&r.join("../samples/artifacts"), 200 << 10, &mut out);
        }
        "pack" => files(&r.join("../patterns"), 1 << 20, &mut out),
        _ => {
            // Lines of the sample logs, a few KB at a time, behind a
            // control byte (see `artiscan_fuzz::rules`).
            let mut logs = Vec::new();
            files(&r.join("../samples/artifacts"), 1 << 20, &mut logs);
            for (i, l) in logs.iter().enumerate() {
                if l.contains(&0) {
                    continue;
                }
                for (j, chunk) in l.chunks(4 << 10).take(8).enumerate() {
                    let ctl = (i * 16 + j * 5) as u8;
                    out.push([&[ctl][..], chunk].concat());
                }
            }
            for (i, lit) in rule_literals().into_iter().enumerate() {
                out.push([&[(i as u8) | 4][..], &lit, b"1.5, x"].concat());
            }
        }
    }
    if out.is_empty() {
        out.push(Vec::new());
    }
    out
}

const MAGIC: &[&[u8]] = &[
    b"\x1f\x8b\x08\x00",
    b"PK\x03\x04",
    b"PK\x01\x02",
    b"PK\x05\x06",
    b"PK\x06\x06",
    b"\x28\xb5\x2f\xfd",
    b"\xfd7zXZ\x00",
    b"BZh9",
    b"ustar\x0000",
    b"ustar  \x00",
    b"././@LongLink",
    b"\x04\x22\x4d\x18",
    b"\r\n",
    b"\x1b[31m",
    b"\xef\xbb\xbf",
    b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x00",
    b"\n",
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, corpus: &[Vec<u8>], dict: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(8) {
        let len = input.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                input.splice(at..at, bytes);
            }
            3 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64.min(len - a))).min(len);
                input.drain(a..b);
            }
            4 if len > 0 => {
                // Repeat a run: long lines, many members, deep nesting.
                let a = rng.below(len);
                let b = (a + 1 + rng.below(256.min(len - a))).min(len);
                let run = input[a..b].to_vec();
                let most = if rng.below(8) == 0 { 4096 } else { 16 };
                let times = 1 + rng.below(most);
                let rep = run.repeat(times);
                input.splice(b..b, rep);
            }
            5 => {
                let tok: &[u8] = if !dict.is_empty() && rng.below(2) == 0 {
                    &dict[rng.below(dict.len())]
                } else {
                    MAGIC[rng.below(MAGIC.len())]
                };
                let at = rng.below(len + 1);
                input.splice(at..at, tok.iter().copied());
            }
            6 => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let a = rng.below(other.len());
                    let b = (a + 1 + rng.below(other.len() - a)).min(other.len());
                    let at = rng.below(len + 1);
                    input.splice(at..at, other[a..b].iter().copied());
                }
            }
            7 if len > 0 => input.truncate(rng.below(len)),
            _ if len >= 4 => {
                // An interesting number over 4 bytes (sizes, counts, offsets).
                let i = rng.below(len - 3);
                let v: u32 = [0, 1, 0x7fff_ffff, 0xffff_ffff, 0x8000_0000, 0xffff][rng.below(6)];
                input[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            _ => {}
        }
    }
    // Keep inputs in the range libFuzzer's -max_len allows in run.sh.
    input.truncate(1 << 20);
}

fn hash(data: &[u8]) -> String {
    // FNV-1a: a name for the saved input, not a security property.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

fn save(target: &str, kind: &str, data: &[u8]) -> PathBuf {
    let dir = root().join("artifacts").join(target);
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join(format!("{kind}-{}", hash(data)));
    let _ = std::fs::write(&p, data);
    p
}

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: u64 = args
        .next()
        .or_else(|| std::env::var("ARTISCAN_FUZZ_SECS").ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut names: Vec<String> = args.collect();
    if names.is_empty() {
        names = artiscan_fuzz::TARGETS
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
    }
    let seed = std::env::var("ARTISCAN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        })
        | 1;
    let slow = Duration::from_millis(
        std::env::var("ARTISCAN_FUZZ_SLOW_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5000),
    );
    std::panic::set_hook(Box::new(|info| {
        *LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()) = info.to_string();
    }));
    let dict = rule_literals();
    let mut failed = false;
    for name in &names {
        let Some(&(_, target)) = artiscan_fuzz::TARGETS.iter().find(|(n, _)| n == name) else {
            eprintln!("unknown target {name}");
            std::process::exit(2);
        };
        let mut rng = Rng(seed);
        let mut corpus = seeds(name);
        let n_seeds = corpus.len();
        let (mut execs, mut crashes, mut slows) = (0u64, 0u32, 0u32);
        let mut slowest = Duration::ZERO;
        let start = Instant::now();
        let deadline = Duration::from_secs(secs);
        // Every seed once, as it is; then mutants.
        let mut i = 0;
        while start.elapsed() < deadline {
            let input = if i < n_seeds {
                corpus[i].clone()
            } else {
                let mut m = corpus[rng.below(corpus.len())].clone();
                mutate(&mut rng, &mut m, &corpus, &dict);
                m
            };
            i += 1;
            let t = Instant::now();
            let r = std::panic::catch_unwind(|| target(&input));
            let took = t.elapsed();
            execs += 1;
            slowest = slowest.max(took);
            if r.is_err() {
                crashes += 1;
                failed = true;
                let msg = LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let p = save(name, "crash", &input);
                eprintln!(
                    "{name}: CRASH ({} bytes) saved to {}: {msg}",
                    input.len(),
                    p.display()
                );
                if crashes >= 5 {
                    break;
                }
            } else if took > slow {
                slows += 1;
                let p = save(name, "slow", &input);
                eprintln!(
                    "{name}: slow input ({:.1} s, {} bytes) saved to {}",
                    took.as_secs_f64(),
                    input.len(),
                    p.display()
                );
            } else if i > n_seeds && rng.below(64) == 0 && corpus.len() < 4096 {
                // Let mutations compound now and then.
                corpus.push(input);
            }
        }
        let el = start.elapsed().as_secs_f64();
        println!(
            "{name}: {execs} executions in {el:.0} s ({:.0}/s), {n_seeds} seeds, seed {seed}, slowest {:.2} s, {crashes} crash(es), {slows} slow input(s)",
            execs as f64 / el,
            slowest.as_secs_f64()
        );
    }
    if failed {
        std::process::exit(1);
    }
}
