//! The rank a line came from, read off its prefix: SGLang `[ts DP0 TP3 EP3]`
//! (and 2024's `[14:02:41 TP0]`), vLLM `(Worker_TP1 pid=..)` /
//! `(EngineCore_DP0 pid=..)` / `(VllmWorker rank=5 pid=..)`, TRT-LLM
//! `[RANK 3]` / `[MPI_Rank 3]`, torchrun `[rank3]:`, torch ProcessGroupNCCL
//! `[Rank 1]` / `[PG 0 Rank 1]`, srun ` 3: `. Parsed by hand: this runs on every matching
//! line, often millions of `Decode batch` lines.

use std::collections::BTreeMap;

pub(crate) type Rank = BTreeMap<String, u32>;

/// Prefixes are short: only the head of a line is looked at.
const HEAD: usize = 400;

/// Rank fields in a fixed order; `None` where the prefix does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct RankKey(pub [Option<u32>; 7]);

const NAMES: [&str; 7] = ["attn_cp", "dp", "ep", "moe_dp", "pp", "rank", "tp"];

fn slot(tag: &[u8]) -> Option<usize> {
    Some(match tag {
        b"ATTN_CP" => 0,
        b"DP" => 1,
        b"EP" => 2,
        b"MOE_DP" => 3,
        b"PP" => 4,
        b"TP" => 6,
        _ => return None,
    })
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// `TP3` → (slot, 3).
fn tag(tok: &[u8]) -> Option<(usize, u32)> {
    let split = tok.iter().position(u8::is_ascii_digit)?;
    Some((slot(&tok[..split])?, digits(&tok[split..])?))
}

impl RankKey {
    pub(crate) fn parse(line: &[u8]) -> RankKey {
        let key = RankKey::parse_head(&line[..line.len().min(HEAD)]);
        if !key.is_empty() {
            return key;
        }
        // TP0 redraws a progress bar with `\r` and the next log line is
        // glued after the last update, however long the run of updates.
        match memchr::memrchr(b'\r', line) {
            Some(cr) if cr + 1 < line.len() => {
                let rest = &line[cr + 1..];
                RankKey::parse_head(&rest[..rest.len().min(HEAD)])
            }
            _ => key,
        }
    }

    fn parse_head(head: &[u8]) -> RankKey {
        let mut key = RankKey::default();
        // srun: `  3: ...`
        let trimmed = head.trim_ascii_start();
        if head.len() - trimmed.len() <= 8 {
            if let Some(colon) = memchr::memchr(b':', &trimmed[..trimmed.len().min(7)]) {
                if trimmed.get(colon + 1) == Some(&b' ') {
                    if let Some(n) = digits(&trimmed[..colon]) {
                        key.0[5] = Some(n);
                    }
                }
            }
        }
        // One pass over the brackets of the head (this runs on every
        // aggregated line): TRT-LLM `[RANK 3]`, `[MPI_Rank 3]`; torchrun
        // `[rank3]:`, `[91503] [rank26]:` (the first bracket is the pid);
        // SGLang `[2026-10-29 04:21:13(.512) DP0 TP3 EP3]` and 2024's
        // time-only `[14:02:41 TP0]`.
        let mut from = 0;
        while let Some(i) = memchr::memchr(b'[', &head[from..]) {
            let start = from + i + 1;
            let Some(end) = memchr::memchr(b']', &head[start..]) else {
                break;
            };
            let inner = &head[start..start + end];
            from = start;
            let rank = inner
                .strip_prefix(b"RANK ")
                .or_else(|| inner.strip_prefix(b"MPI_Rank "))
                .or_else(|| inner.strip_prefix(b"rank"))
                .or_else(|| inner.strip_prefix(b"Rank "))
                .or_else(|| pg_rank(inner));
            if let Some(n) = rank.and_then(digits) {
                key.0[5] = Some(n);
                continue;
            }
            let tags_at = if is_date_time(inner) {
                19
            } else if is_time(inner) {
                8
            } else {
                continue;
            };
            for tok in inner[tags_at..]
                .split(|&b| b == b' ')
                .filter(|t| !t.is_empty())
            {
                if let Some((s, n)) = tag(tok) {
                    key.0[s] = Some(n);
                }
            }
            return key;
        }
        // vLLM: `(Worker_PP0_TP1 pid=530)`, `(EngineCore_DP0 pid=163)`,
        // `(Worker_DP1_PP0_TP3_EP11 pid=..)`, `(VllmWorker TP1 pid=..)`,
        // `(VllmWorker rank=5 pid=..)`, 2025's `(EngineCore_0 pid=..)` (a
        // DP rank).
        if let Some(i) = find(head, b" pid=") {
            if let Some(open) = memchr::memrchr(b'(', &head[..i]) {
                let name = &head[open + 1..i];
                let mut toks = name.split(|&b| b == b'_' || b == b' ');
                let process = toks.next().unwrap_or_default();
                for tok in toks {
                    if let Some(n) = tok.strip_prefix(b"rank=").and_then(digits) {
                        key.0[5] = Some(n);
                    } else if let Some((s, n)) = tag(tok) {
                        key.0[s] = Some(n);
                    } else if process == b"EngineCore" {
                        if let Some(n) = digits(tok) {
                            key.0[1] = Some(n);
                        }
                    }
                }
            }
        }
        key
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    pub(crate) fn to_map(self) -> Option<Rank> {
        let map: Rank = NAMES
            .iter()
            .zip(self.0)
            .filter_map(|(n, v)| Some((n.to_string(), v?)))
            .collect();
        (!map.is_empty()).then_some(map)
    }
}

#[cfg(test)]
pub(crate) fn rank_of(line: &[u8]) -> Option<Rank> {
    RankKey::parse(line).to_map()
}

/// torch 2.x ProcessGroupNCCL's log prefix `[PG 0 Rank 1]` (and 2.4's
/// `[PG ID 0 PG GUID 0(default_pg) Rank 1]`): the digits after its last
/// `Rank `.
fn pg_rank(inner: &[u8]) -> Option<&[u8]> {
    if !inner.starts_with(b"PG ") {
        return None;
    }
    let at = inner.windows(5).rposition(|w| w == b"Rank ")?;
    Some(&inner[at + 5..])
}

/// `2026-10-29 04:21:13` at the start.
fn is_date_time(b: &[u8]) -> bool {
    b.len() >= 19 && b[4] == b'-' && b[7] == b'-' && b[10] == b' ' && is_time(&b[11..])
}

/// `14:02:41` at the start (then the end, a space or `.ms`).
fn is_time(b: &[u8]) -> bool {
    b.len() >= 8
        && b[2] == b':'
        && b[5] == b':'
        && [0, 1, 3, 4, 6, 7].iter().all(|&i| b[i].is_ascii_digit())
        && matches!(b.get(8), None | Some(b' ' | b'.'))
}

/// First place of `needle` in `hay`. The head of a line is short: a plain
/// scan beats building a memmem searcher on every call.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &hay[from..]) {
        let at = from + i;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Vec<(String, u32)> {
        rank_of(s.as_bytes())
            .unwrap_or_default()
            .into_iter()
            .collect()
    }

    #[test]
    fn prefixes() {
        assert_eq!(
            r("[2026-10-29 04:21:13 TP7 EP7] x"),
            vec![("ep".into(), 7), ("tp".into(), 7)]
        );
        assert_eq!(
            r("[2026-10-29 04:21:13.512 DP0 TP3 EP3] x"),
            vec![("dp".into(), 0), ("ep".into(), 3), ("tp".into(), 3)]
        );
        assert_eq!(
            r("(Worker_PP0_TP1 pid=530) INFO x"),
            vec![("pp".into(), 0), ("tp".into(), 1)]
        );
        assert_eq!(r("(EngineCore_DP0 pid=163) INFO"), vec![("dp".into(), 0)]);
        assert_eq!(
            r("[10/29/2026-04:21:13] [TRT-LLM] [RANK 3] [I] x"),
            vec![("rank".into(), 3)]
        );
        assert_eq!(
            r(" 3: [2026-10-29 04:21:13 TP3] x"),
            vec![("rank".into(), 3), ("tp".into(), 3)]
        );
        assert_eq!(
            r("(SGLangEngine pid=111711, ip=10.15.36.1) [2026-10-29 04:21:13 TP2 EP2] x"),
            vec![("ep".into(), 2), ("tp".into(), 2)]
        );
        assert_eq!(
            r("sglang_0  | [2026-10-29 04:21:13 PP1 TP0] x"),
            vec![("pp".into(), 1), ("tp".into(), 0)]
        );
        assert!(r("[2026-10-29 04:10:01] main").is_empty());
        // SGLang 2024: time only
        assert_eq!(
            r("[14:02:41 TP0] Capture cuda graph begin."),
            vec![("tp".into(), 0)]
        );
        assert_eq!(
            r("[2024-11-02 14:02:41.250 DP1 TP3] x"),
            vec![("dp".into(), 1), ("tp".into(), 3)]
        );
        assert!(r("[14:02:41] main process").is_empty());
        // vLLM process names across versions
        assert_eq!(
            r("(Worker_DP1_PP0_TP3_EP11 pid=9) INFO x"),
            vec![
                ("dp".into(), 1),
                ("ep".into(), 11),
                ("pp".into(), 0),
                ("tp".into(), 3)
            ]
        );
        assert_eq!(
            r("(VllmWorker TP1 pid=4711) INFO 05-02 x"),
            vec![("tp".into(), 1)]
        );
        assert_eq!(
            r("(VllmWorker rank=5 pid=4711) INFO 05-02 x"),
            vec![("rank".into(), 5)]
        );
        assert_eq!(r("(EngineCore_0 pid=357) INFO x"), vec![("dp".into(), 0)]);
        assert!(r("(APIServer pid=1) INFO x").is_empty());
        // TRT-LLM and torchrun
        assert_eq!(
            r("[11/04/2025-10:01:02] [TRT-LLM] [MPI_Rank 2] [I] x"),
            vec![("rank".into(), 2)]
        );
        assert_eq!(
            r("[rank0]: Traceback (most recent call last):"),
            vec![("rank".into(), 0)]
        );
        assert_eq!(
            r("[91503] [rank26]: torch.OutOfMemoryError: CUDA out of memory."),
            vec![("rank".into(), 26)]
        );
        assert!(r("[rankX]: x").is_empty());
        // torch 1.x ProcessGroupNCCL (`[Rank N] ` after the c10 log prefix)
        // and 2.x's `[PG 0 Rank N]` / `[PG ID 0 PG GUID 0(default_pg) Rank N]`
        assert_eq!(
            r(
                "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800541 milliseconds before timing out."
            ),
            vec![("rank".into(), 1)]
        );
        assert_eq!(
            r(
                "[rank3]:[E1029 04:21:13.512000 ProcessGroupNCCL.cpp:1375] [PG 0 Rank 3] Watchdog caught collective operation timeout"
            ),
            vec![("rank".into(), 3)]
        );
        assert_eq!(
            r(
                "[E1029 04:21:13.512 ProcessGroupNCCL.cpp:616] [PG ID 0 PG GUID 0(default_pg) Rank 6] Watchdog caught collective operation timeout"
            ),
            vec![("rank".into(), 6)]
        );
        assert!(r("[E ProcessGroupNCCL.cpp:737] [Rank X] x").is_empty());
        assert!(r("[PG 0] x").is_empty());
        // SGLang prefix after a long run of \r progress updates
        let bar = "Capturing batches (bs=2 avail_mem=7.70 GB):  50%|#####     | 1/2\r".repeat(40);
        assert_eq!(
            r(&format!(
                "{bar}[2026-08-17 16:52:18 TP3 EP3] Capture cuda graph end."
            )),
            vec![("ep".into(), 3), ("tp".into(), 3)]
        );
        assert!(r("2026-10-29 04:01:05 [INFO] Env: A=1").is_empty());
        assert!(r("2026-10-29T04:12:33.1234567Z [2026-10-29 04:21:13] x").is_empty());
    }
}
