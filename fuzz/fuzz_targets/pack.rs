//! Pack loading: any text in, a parse error or a compiled rule set out;
//! a compiled set then runs its own examples and a few lines.
#![no_main]

use artiscan::pack::compile::Selection;
use artiscan::pack::{RuleSet, parse_pack, selftest};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(pack) = parse_pack("fuzz.toml", text) else {
        return;
    };
    let Ok(set) = RuleSet::compile(&[pack], &Selection::default()) else {
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
        let _ = set.candidate(line);
        for name in ["server.log", "a/b.log.gz", ""] {
            let active = set.active_for(name);
            set.hits(line, &active, &mut hits);
        }
    }
});
