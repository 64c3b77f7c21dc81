//! The fuzz targets as plain functions: `fuzz_targets/*.rs` hand them to
//! libFuzzer (`cargo +nightly fuzz run TARGET`), and `examples/drive.rs`
//! runs them on stable Rust with its own mutator for a fixed time. Each
//! panics on a broken promise (a panic inside artiscan, or an assertion
//! here); returning is success.

use artiscan::{
    Artifact, ArtifactKind, Coverage, Limits, Line, LineLimits, LineReader, LineSink, Location,
    ReadLimits, RuleSet, ScanOptions, Selection, for_each_member, parse_pack, scan_artifact,
    selftest,
};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The targets by name, for the stable driver.
pub const TARGETS: &[(&str, fn(&[u8]))] = &[("source", source), ("pack", pack), ("rules", rules)];

/// A per-process scratch file: the source layer reads artifacts from disk.
fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "artiscan-fuzz-{tag}-{}-{:?}.bin",
        std::process::id(),
        std::thread::current().id()
    ))
}

/// Small limits so one input stays fast; the logic is the same.
fn small_limits() -> ReadLimits {
    ReadLimits {
        source: Limits {
            max_depth: 8,
            max_bytes: 32 << 20,
            max_member_bytes: 16 << 20,
            max_ratio: 1000.0,
            ratio_grace: 1 << 20,
            spool_cap: 1 << 20,
            members: None,
            observer: None,
        },
        lines: LineLimits {
            max_line: 4 << 10,
            binary: false,
        },
    }
}

struct Count {
    lines: u64,
    last: u64,
    max_line: usize,
}

impl LineSink for Count {
    fn line(&mut self, l: &Line<'_>) -> bool {
        assert!(l.number > self.last, "line numbers go up");
        // The reader's buffer bounds a line (lines under it are whole).
        assert!(
            l.raw.len() <= self.max_line.max(256 << 10) + (64 << 10),
            "line past the buffer"
        );
        self.last = l.number;
        self.lines += 1;
        true
    }
}

/// The source layer: bytes in (as an artifact file), members and lines
/// out. Nothing panics, limits hold, every member chain survives a
/// citation round trip.
pub fn source(data: &[u8]) {
    let p = scratch("source");
    std::fs::write(&p, data).unwrap();
    let artifact = Artifact {
        path: "fuzz.bin".into(),
        kind: ArtifactKind::File(p.clone()),
    };
    let last = data.last().copied().unwrap_or(0);
    let mut limits = small_limits();
    // The input's last byte picks the settings, so the fuzzer reaches them.
    limits.lines.binary = last & 1 == 1;
    if last & 2 != 0 {
        // A zero spool sends every nested zip through the local-header reader.
        limits.source.spool_cap = 0;
    }
    let mut coverage = Coverage::default();
    let mut reader = LineReader::new(limits.lines);
    let mut bytes = 0u64;
    for_each_member(&artifact, &limits.source, &mut coverage, |leaf| {
        let loc = Location {
            path: "fuzz.bin".into(),
            members: leaf.members.into(),
            line: 1,
            ..Location::default()
        };
        let back = Location::parse(&loc.to_string()).expect("citation parses");
        assert_eq!(
            (&*back.path, &back.members[..], back.line),
            ("fuzz.bin", leaf.members, 1)
        );
        let mut sink = Count {
            lines: 0,
            last: 0,
            max_line: limits.lines.max_line,
        };
        let out = reader.scan(leaf.reader, &mut sink)?;
        bytes += out.bytes;
        Ok(())
    });
    let _ = std::fs::remove_file(&p);
    assert!(
        bytes <= limits.source.max_bytes + (1 << 20),
        "read {bytes} bytes past --max-bytes"
    );
    for e in &coverage.errors {
        assert!(!e.message.is_empty());
    }
}

/// Pack loading: any text in, a parse error or a compiled rule set out; a
/// compiled set then runs its own examples and a few lines.
pub fn pack(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(pack) = parse_pack("fuzz.toml", text) else {
        return;
    };
    let Ok(set) = RuleSet::compile(&[pack], &Selection::all()) else {
        return;
    };
    let _ = selftest::test(&set);
    let _ = selftest::lint(&set);
    let mut hits = Vec::new();
    for line in [
        &b"INFO 05-01 12:00:00 throughput 123.4 tok/s"[..],
        b"",
        b"\x1b[31merror\x1b[0m",
        text.as_bytes(),
    ] {
        for name in ["server.log", "a/b.log.gz", ""] {
            let active = set.active_for(name);
            set.literals_for(&active).hits(line, &mut hits);
        }
    }
}

fn builtin() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(|| {
        let packs = artiscan::builtin_packs().expect("built-in packs load");
        RuleSet::compile(&packs, &Selection::all()).expect("built-in packs compile")
    })
}

/// Member names that switch on the built-in packs' member-scoped rules.
const NAMES: &[&str] = &[
    "server.log",
    "node0_decode_w0.out",
    "fingerprint_decode_w0.json",
    "results_2026-10-29T04-12-33.json",
    "sweep_123.log",
    "config.yaml",
    "commands_host.txt",
    "samples_gsm8k.jsonl",
    "job.txt",
];

/// The line and rule layer with the built-in packs: arbitrary bytes read
/// as lines and scanned by every rule, and one long line (the input
/// repeated, newlines dropped, up to 256 KiB) scanned by every rule. The
/// first byte picks the member name, the options and the shape. Checks
/// that nothing panics, that records stay under the cap and cite lines
/// that exist.
pub fn rules(data: &[u8]) {
    let Some((&ctl, body)) = data.split_first() else {
        return;
    };
    let set = builtin();
    let name = NAMES[usize::from(ctl >> 4) % NAMES.len()];
    let owned;
    let text: &[u8] = if ctl & 4 != 0 && !body.is_empty() {
        // One long line: a few KB of input become a line of a few hundred
        // KB, where a rule that rescans to the end of the line at every
        // occurrence of its literal would take quadratic time.
        let unit: Vec<u8> = body.iter().copied().filter(|&b| b != b'\n').collect();
        let reps = if unit.is_empty() {
            0
        } else {
            (256 << 10) / unit.len()
        };
        owned = [unit.repeat(reps.clamp(1, 1 << 16)), b"\n".to_vec()].concat();
        &owned
    } else {
        body
    };
    // The literal layer on its own, for every member name.
    let mut hits = Vec::new();
    for n in NAMES {
        let active = set.literals_for(&set.active_for(n));
        for line in text.split(|&b| b == b'\n').take(64) {
            active.hits(line, &mut hits);
        }
    }
    // The whole scan: lines, prefilters, regexes, captures, aggregation.
    let p = scratch("rules");
    std::fs::write(&p, text).unwrap();
    let artifact = Artifact {
        path: name.into(),
        kind: ArtifactKind::File(p.clone()),
    };
    let mut limits = ReadLimits::default();
    limits.lines.max_line = if ctl & 8 != 0 { 1 << 10 } else { 1 << 20 };
    let opts = ScanOptions {
        every_match: ctl & 1 != 0,
        skip_prefilter: ctl & 2 != 0,
    };
    let scan = scan_artifact(set, &artifact, &limits, opts);
    let _ = std::fs::remove_file(&p);
    let lines = text.split(|&b| b == b'\n').count() as u64;
    for e in scan.evidence() {
        let back = Location::parse(&e.citation.to_string()).expect("citation parses");
        let (path, members, line) = (back.path, back.members, back.line);
        assert_eq!(&*path, name);
        assert!(members.is_empty());
        assert!(line >= 1 && line <= lines, "line {line} of {lines}");
        assert!(e.location.byte_offset <= text.len() as u64);
    }
    assert!(
        scan.records.len() <= 100_000 + 10_000,
        "{} records",
        scan.records.len()
    );
}
