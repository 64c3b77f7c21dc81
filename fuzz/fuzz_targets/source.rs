//! The source layer: bytes in (as an artifact file), members and lines out.
//! Checks that nothing panics, that limits hold, and that every member
//! chain survives a citation round trip.
#![no_main]

use artiscan::Location;
use artiscan::lines::{Line, LineReader, LineSink};
use artiscan::source::{Artifact, ArtifactKind, Coverage, Limits, for_each_member};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Small limits so one input stays fast; the logic is the same. A zero
/// spool sends every nested zip through the local-header reader.
fn limits(binary: bool, spool: bool) -> Limits {
    Limits {
        max_depth: 8,
        max_bytes: 32 << 20,
        max_member_bytes: 16 << 20,
        max_ratio: 1000.0,
        ratio_grace: 1 << 20,
        spool_cap: if spool { 1 << 20 } else { 0 },
        max_line: 4 << 10,
        binary,
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

fn path() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| std::env::temp_dir().join(format!("artiscan-fuzz-{}.bin", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let p = path();
    std::fs::write(p, data).unwrap();
    let artifact = Artifact {
        path: "fuzz.bin".into(),
        kind: ArtifactKind::File(p.clone()),
    };
    let last = data.last().copied().unwrap_or(0);
    let limits = limits(last & 1 == 1, last & 2 == 0);
    let mut coverage = Coverage::default();
    let mut reader = LineReader::new(limits.max_line, limits.binary);
    let mut bytes = 0u64;
    for_each_member(&artifact, &limits, &mut coverage, |leaf| {
        let loc = Location {
            path: "fuzz.bin".into(),
            members: leaf.members.to_vec().into(),
            line: 1,
            ..Location::default()
        };
        assert_eq!(Location::parse(&loc.to_string()), Some(loc), "citation round-trips");
        let mut sink = Count {
            lines: 0,
            last: 0,
            max_line: limits.max_line,
        };
        let out = reader.scan(leaf.reader, &mut sink)?;
        bytes += out.bytes;
        Ok(())
    });
    assert!(
        bytes <= limits.max_bytes + (1 << 20),
        "read {bytes} bytes past --max-bytes"
    );
    for e in &coverage.errors {
        assert!(!e.message.is_empty());
    }
});
