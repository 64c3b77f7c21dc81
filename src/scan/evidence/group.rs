//! Aggregation of a rule's lines into groups (by rank and the group
//! keys it captures): the group a line belongs to, found without building
//! its key in the common case, and the line counted in it.

use super::Results;
use crate::domain::SmallMap;
use crate::lines::Line;
use crate::pack::CapType;
use crate::scan::aggregate::{Agg, Field, parse_number};
use crate::scan::rank::RankKey;
use serde_json::Value;

impl Results<'_> {
    /// Counts a line of an aggregating rule: no record, no allocation once
    /// its group exists. `fields`: as in `MemberScan::fields`.
    pub(super) fn aggregate(
        &mut self,
        variant: usize,
        line: &Line<'_>,
        text: &[u8],
        fields: &[Field],
    ) {
        let set = self.set;
        let v = &set.variants[variant];
        let rule_index = v.rule;
        let rule = &set.rules[rule_index];
        self.counts[rule_index] += 1;
        let rank = if rule.by_rank {
            self.rank_of(line, text)
        } else {
            RankKey::default()
        };
        let field = |i: usize| fields.get(i).copied().flatten().map(|(s, e)| &text[s..e]);
        let at = (line.number, line.offset);
        let aggs = &self.groups.list;
        let recent = self.groups.recent[rule_index].iter().copied().find(|&i| {
            aggs.get(i).is_some_and(|((_, r, e), _)| {
                *r == rank && same_group(e.as_bytes(), rule, v, field)
            })
        });
        let i = match recent {
            Some(i) => i,
            None => self.find_group(variant, rank, at, field),
        };
        let agg = &mut self.groups.list[i].1;
        agg.count += 1;
        agg.last = at;
        let keys = rule.aggregate.len();
        for slot in 0..rule.numeric.len() {
            if let Some(x) = field(keys + slot).and_then(parse_number) {
                agg.add_slot(slot, x);
            }
        }
    }

    /// The aggregate group of a line (its rank and captured group fields),
    /// made when new; remembered as its rule's last.
    fn find_group<'t>(
        &mut self,
        variant: usize,
        rank: RankKey,
        at: (u64, u64),
        group: impl Fn(usize) -> Option<&'t [u8]>,
    ) -> usize {
        let v = &self.set.variants[variant];
        let rule_index = v.rule;
        let rule = &self.set.rules[rule_index];
        // A group field the line does not capture may be set by its variant
        // (`set = { phase = "gen" }`): the same group as a captured `gen`.
        let set_text = |k: &str| {
            v.set
                .get(k)
                .map(|val| val.as_str().map_or_else(|| val.to_string(), str::to_string))
        };
        let mut extra = std::mem::take(&mut self.groups.key);
        extra.clear();
        for &i in &rule.capture_keys {
            let k = &rule.aggregate[i];
            match group(i) {
                Some(b) => extra.push_str(&String::from_utf8_lossy(b)),
                None => extra.push_str(&set_text(k).unwrap_or_default()),
            }
            extra.push('\0');
        }
        let key = (rule_index, rank, extra);
        let i = match self.groups.index.get(&key) {
            Some(&i) => i,
            None => {
                let mut fields = SmallMap::new();
                for (i, k) in rule.aggregate.iter().enumerate() {
                    if k == "rank" {
                        for (n, v) in rank.to_map().into_iter().flatten() {
                            fields.insert(n, Value::from(v));
                        }
                    } else if let Some(b) = group(i) {
                        let t = rule.captures.get(k).copied().unwrap_or(CapType::Str);
                        fields.insert(k.clone(), t.convert(&String::from_utf8_lossy(b)));
                    } else if let Some(val) = v.set.get(k) {
                        fields.insert(k.clone(), val.clone());
                    }
                }
                self.groups
                    .index
                    .insert(key.clone(), self.groups.list.len());
                self.groups.list.push((key.clone(), Agg::new(fields, at)));
                self.groups.list.len() - 1
            }
        };
        // The key's text buffer serves the next line.
        self.groups.key = key.2;
        let recent = &mut self.groups.recent[rule_index];
        recent.rotate_right(1);
        recent[0] = i;
        i
    }
}

/// Whether a line's group fields are those of the group key `key` (the
/// fields' text, each followed by NUL, as `find_group` builds it), compared
/// in place: the common case, a rule's line in the group of its last line,
/// then costs no key built. `false` sends the line to `find_group`, which
/// decides (fields that are not UTF-8 or set to a non-string value).
fn same_group<'t>(
    key: &[u8],
    rule: &crate::pack::compile::Rule,
    v: &crate::pack::compile::Variant,
    group: impl Fn(usize) -> Option<&'t [u8]>,
) -> bool {
    let mut rest = key;
    for &i in &rule.capture_keys {
        let b: &[u8] = match group(i) {
            Some(b) => b,
            None => match v.set.get(&rule.aggregate[i]) {
                None => b"",
                Some(val) => match val.as_str() {
                    Some(s) => s.as_bytes(),
                    None => return false,
                },
            },
        };
        match rest.strip_prefix(b) {
            Some([0, tail @ ..]) => rest = tail,
            _ => return false,
        }
    }
    rest.is_empty()
}
