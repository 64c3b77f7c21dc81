//! Aggregate records: per rule and group (rank, captured fields), the
//! count of matching lines, the first and last, and min/max/mean of the
//! numeric captures, mergeable across the parts of a split member.

use super::rank::RankKey;
use crate::domain::{Aggregate, Citation, SmallMap, Stats};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A compensated (Neumaier) sum: near exact, so that a mean does not depend
/// on how a member was split across threads.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sum {
    hi: f64,
    lo: f64,
}

impl Sum {
    pub(super) fn add(&mut self, x: f64) {
        let t = self.hi + x;
        self.lo += if self.hi.abs() >= x.abs() {
            (self.hi - t) + x
        } else {
            (x - t) + self.hi
        };
        self.hi = t;
    }

    pub(super) fn add_sum(&mut self, other: Sum) {
        self.add(other.hi);
        self.lo += other.lo;
    }

    /// The mean to 12 significant digits (what a log's decimals carry, and
    /// the same whatever the order of the additions).
    pub(super) fn mean(self, count: u64) -> f64 {
        let m = (self.hi + self.lo) / count as f64;
        if m == 0.0 || !m.is_finite() {
            return m;
        }
        format!("{m:.11e}").parse().unwrap_or(m)
    }
}

/// A numeric capture's value, as `str::parse::<f64>` reads it after
/// `str::trim`. Captures are mostly plain decimals (`1012.55`), read here
/// without the general parser.
pub(super) fn parse_number(m: &[u8]) -> Option<f64> {
    let b = m.trim_ascii();
    if let Some(x) = plain_decimal(b) {
        return Some(x);
    }
    let t = std::str::from_utf8(b).ok()?;
    t.parse().ok().or_else(|| t.trim().parse().ok())
}

/// `\d+(\.\d+)?` of at most 15 digits: the digits as an integer and the
/// power of ten are exact doubles, so their quotient is rounded once, to
/// the double nearest the decimal (what `str::parse` gives: Clinger's fast
/// path). `None` for anything else.
fn plain_decimal(b: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    // A few bytes: a plain loop beats a `memchr` call.
    let (int, frac) = match b.iter().position(|&c| c == b'.') {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &b[..0]),
    };
    if int.is_empty() || (frac.is_empty() && int.len() < b.len()) || int.len() + frac.len() > 15 {
        return None;
    }
    let mut m = 0u64;
    for &c in int.iter().chain(frac) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        m = m * 10 + u64::from(d);
    }
    Some(m as f64 / POW10[frac.len()])
}

/// Rule, rank and the values of the other group captures.
pub(super) type AggKey = (usize, RankKey, String);

/// Where a field of an aggregating match is in the line's text, if it
/// matched.
pub(super) type Field = Option<(usize, usize)>;

/// Groups per aggregating rule looked at before its index: a node's
/// ranks (eight GPUs) take turns line by line.
pub(super) const RECENT_GROUPS: usize = 8;

/// A member's aggregate groups and the buffers that find a line's group.
pub(super) struct Groups {
    /// Groups in the order first seen, and where each key is.
    pub(super) list: Vec<(AggKey, Agg)>,
    pub(super) index: HashMap<AggKey, usize, foldhash::fast::RandomState>,
    /// Per rule, the groups its last lines went to, latest first: a log's
    /// ranks take turns line by line (TP0, TP1, ... TP7), so a line's group
    /// is mostly among the last few, found then without hashing the key.
    pub(super) recent: Vec<[usize; RECENT_GROUPS]>,
    /// Reused text of the group key being looked up.
    pub(super) key: String,
    /// Reused spans (in the line's text) of an aggregating match's fields:
    /// its rule's group keys, then its numeric captures.
    pub(super) fields: Vec<Field>,
}

impl Groups {
    pub(super) fn new(rules: usize) -> Groups {
        Groups {
            list: Vec::new(),
            index: HashMap::default(),
            recent: vec![[usize::MAX; RECENT_GROUPS]; rules],
            key: String::new(),
            fields: Vec::new(),
        }
    }

    /// Takes in the groups of the member's next part.
    pub(super) fn merge(&mut self, later: Groups) {
        for (key, b) in later.list {
            match self.index.get(&key) {
                Some(&i) => self.list[i].1.merge(b),
                None => {
                    self.index.insert(key.clone(), self.list.len());
                    self.list.push((key, b));
                }
            }
        }
    }
}

pub(super) struct Agg {
    pub(super) group: SmallMap<Value>,
    pub(super) count: u64,
    pub(super) first: (u64, u64),
    pub(super) last: (u64, u64),
    /// Min, max and sum by capture name (overflow groups).
    pub(super) stats: BTreeMap<String, (f64, f64, Sum)>,
    /// The same by position in the rule's `numeric` captures (rule groups:
    /// no name looked up per line).
    slots: Vec<Option<(f64, f64, Sum)>>,
}

fn add_to(s: &mut (f64, f64, Sum), x: f64) {
    s.0 = s.0.min(x);
    s.1 = s.1.max(x);
    s.2.add(x);
}

fn first_value(x: f64) -> (f64, f64, Sum) {
    let mut sum = Sum::default();
    sum.add(x);
    (x, x, sum)
}

fn merge_into(s: &mut (f64, f64, Sum), (min, max, sum): (f64, f64, Sum)) {
    s.0 = s.0.min(min);
    s.1 = s.1.max(max);
    s.2.add_sum(sum);
}

impl Agg {
    /// An empty group whose first line is at `at` (line, offset).
    pub(super) fn new(group: SmallMap<Value>, at: (u64, u64)) -> Agg {
        Agg {
            group,
            count: 0,
            first: at,
            last: at,
            stats: BTreeMap::new(),
            slots: Vec::new(),
        }
    }

    /// Adds the counts of the same group from another part of the member
    /// (first and last by line: parts may come in any order).
    pub(super) fn merge(&mut self, b: Agg) {
        self.count += b.count;
        self.first = self.first.min(b.first);
        self.last = self.last.max(b.last);
        for (name, (min, max, sum)) in b.stats {
            let s = self.stats.entry(name).or_insert((min, max, Sum::default()));
            merge_into(s, (min, max, sum));
        }
        if self.slots.len() < b.slots.len() {
            self.slots.resize(b.slots.len(), None);
        }
        for (a, b) in self.slots.iter_mut().zip(b.slots) {
            match (a.as_mut(), b) {
                (Some(a), Some(b)) => merge_into(a, b),
                (None, b) => *a = b,
                (_, None) => {}
            }
        }
    }

    pub(super) fn add_stat(&mut self, name: &str, x: f64) {
        match self.stats.get_mut(name) {
            Some(s) => add_to(s, x),
            None => {
                self.stats.insert(name.to_string(), first_value(x));
            }
        }
    }

    /// Adds `x` to the rule's numeric capture number `slot`.
    pub(super) fn add_slot(&mut self, slot: usize, x: f64) {
        if self.slots.len() <= slot {
            self.slots.resize(slot + 1, None);
        }
        match &mut self.slots[slot] {
            Some(s) => add_to(s, x),
            s @ None => *s = Some(first_value(x)),
        }
    }

    pub(super) fn record(
        self,
        rule: &crate::pack::compile::Rule,
        path: &Arc<str>,
        members: &Arc<[String]>,
        cite: &Arc<str>,
    ) -> Aggregate {
        let mut stats = self.stats;
        for (name, slot) in rule.numeric.iter().zip(self.slots) {
            if let Some(v) = slot {
                match stats.get_mut(name) {
                    Some(s) => merge_into(s, v),
                    None => {
                        stats.insert(name.clone(), v);
                    }
                }
            }
        }
        let at = |(line, _): (u64, u64)| Citation::new(cite.clone(), line);
        Aggregate {
            rule: rule.id.clone(),
            pack: rule.pack.clone(),
            path: path.clone(),
            members: members.clone(),
            group: self.group,
            count: self.count,
            stats: stats
                .into_iter()
                .map(|(k, (min, max, sum))| {
                    let mean = sum.mean(self.count);
                    (k, Stats { min, max, mean })
                })
                .collect(),
            first: at(self.first),
            last: at(self.last),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_number;

    /// The fast path reads every plain decimal as `str::parse` does, and
    /// leaves everything else to it.
    #[test]
    fn numbers_read_as_str_parse_reads_them() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut cases: Vec<String> = [
            "0",
            "0.0",
            "1012.55",
            "3.77",
            "0.1",
            "0.3",
            "9007199254740993",
            "123456789012345",
            "1234567890123456",
            "99999999999999.9",
            "0.000000000000001",
            "5.",
            ".5",
            "-0.01",
            "+1",
            "1e3",
            "inf",
            "NaN",
            " 7.29 ",
            "1_000",
            "",
            ".",
            "1.2.3",
            "\u{a0}4.5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..20_000 {
            let int: String = (0..=next(12))
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            let frac: String = (0..next(10))
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            cases.push(if frac.is_empty() {
                int
            } else {
                format!("{int}.{frac}")
            });
        }
        for s in &cases {
            let want = s.trim().parse::<f64>().ok();
            let got = parse_number(s.as_bytes());
            assert_eq!(
                got.map(f64::to_bits),
                want.map(f64::to_bits),
                "{s:?}: {got:?} != {want:?}"
            );
        }
    }
}
