//! The rank a line came from, read off its prefix: SGLang `[ts DP0 TP3 EP3]`,
//! vLLM `(Worker_TP1 pid=..)` / `(EngineCore_DP0 pid=..)`, TRT-LLM
//! `[RANK 3]`, srun ` 3: `.

use regex::bytes::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

pub type Rank = BTreeMap<String, u32>;

/// Prefixes are short: only the head of a line is looked at.
const HEAD: usize = 400;

static SGLANG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?((?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)+)\]",
    )
    .unwrap()
});
static VLLM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\([A-Za-z]+((?:_(?:DP|PP|TP|EP)\d+)+) pid=\d+").unwrap());
static TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(DP|PP|ATTN_CP|MOE_DP|TP|EP)(\d+)").unwrap());
static TRTLLM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[RANK (\d+)\]").unwrap());
static SRUN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s{0,8}(\d{1,5}): ").unwrap());

fn num(b: &[u8]) -> Option<u32> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

pub fn rank_of(line: &[u8]) -> Option<Rank> {
    let head = &line[..line.len().min(HEAD)];
    let mut rank = Rank::new();
    if let Some(c) = SRUN.captures(head) {
        if let Some(n) = num(&c[1]) {
            rank.insert("rank".into(), n);
        }
    }
    if let Some(c) = TRTLLM.captures(head) {
        if let Some(n) = num(&c[1]) {
            rank.insert("rank".into(), n);
        }
    }
    let tags = SGLANG.captures(head).or_else(|| VLLM.captures(head));
    if let Some(c) = tags {
        for t in TAG.captures_iter(&c[1]) {
            if let Some(n) = num(&t[2]) {
                let key = String::from_utf8_lossy(&t[1]).to_ascii_lowercase();
                rank.insert(key, n);
            }
        }
    }
    (!rank.is_empty()).then_some(rank)
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
        assert!(r("[2026-10-29 04:10:01] main").is_empty());
    }
}
