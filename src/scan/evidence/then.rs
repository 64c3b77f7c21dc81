//! A rule's `then` line: a record waits for it and takes its captures.
//! The scan's, not a rule kind's: a record of any kind waits (see
//! `Results::emit`), and a kind only says which lines would start a new
//! record (`KindDef::starts_record`).

use super::{Record, Results};
use serde_json::Map;

impl Results<'_> {
    /// Lines after records that wait for their rule's `then` line: the
    /// first match adds the captures the record lacks.
    pub(super) fn follow(&mut self, text: &[u8]) {
        let set = self.set;
        let mut i = 0;
        while i < self.waits.len() {
            let (rule, at, left) = self.waits[i];
            let re = set.rules[rule]
                .then
                .as_ref()
                .expect("pending rule has then");
            let Some(c) = re.captures(text) else {
                if left <= 1 {
                    self.waits.remove(i);
                } else {
                    self.waits[i].2 = left - 1;
                    i += 1;
                }
                continue;
            };
            self.waits.remove(i);
            let Some(Record::Evidence(e)) = self.records.get_mut(at) else {
                continue;
            };
            let v = &set.variants[set.rules[rule].variants[0]];
            let found = set.captures(v, &[&c], &[re]);
            let caps = e.captures.get_or_insert_with(Map::new);
            for name in re.capture_names().flatten() {
                if let Some(val) = found.get(name) {
                    caps.entry(name.to_string()).or_insert_with(|| val.clone());
                }
            }
        }
    }

    /// Past its part (where rules are not run), a line that would start a
    /// new record of a waiting rule ends that wait, as the new record would
    /// in one scan of the member.
    pub(super) fn end_waits_at_new_records(&mut self, text: &[u8]) {
        let set = self.set;
        let active = &self.active;
        self.waits.retain(|&(rule, _, _)| {
            !set.rules[rule].variants.iter().any(|&vi| {
                let v = &set.variants[vi];
                active[vi] && !v.excluded(text) && v.kind.starts_record(text)
            })
        });
    }
}
