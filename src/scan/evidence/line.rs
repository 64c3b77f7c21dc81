//! The line kind's step in a member's scan: a candidate line matched by a
//! line variant, and the `then` lines after a record (the kind itself is
//! [`crate::pack::kind::line`]).

use super::MemberScan;
use crate::lines::Line;
use crate::pack::Kind;
use crate::pack::kind::line::LineMatch;
use crate::scan::evidence::Record;
use serde_json::Map;

impl MemberScan<'_> {
    /// Whether line variant `vi` (`l`) matches the line; what it finds is
    /// recorded or counted. `place`: where its literal is on the line.
    pub(super) fn line_variant(
        &mut self,
        vi: usize,
        l: &LineMatch,
        place: usize,
        line: &Line<'_>,
        text: &[u8],
    ) -> bool {
        if let Some(a) = l.anchored.as_ref().filter(|_| self.aggregates(vi)) {
            // No match begins more than `lead` before the literal.
            let from = l
                .lead
                .map_or(0, |lead| place.saturating_sub(lead))
                .max(line.owned_from());
            let caps = self.kinds.line.anchored_caps[vi].get_or_insert_with(|| a.new_captures());
            let found = a.captures(text, from, caps);
            if found {
                let mut fields = std::mem::take(&mut self.groups.fields);
                fields.clear();
                fields.extend((0..a.field_count()).map(|i| a.field_span(caps, i)));
                self.aggregate(vi, line, text, &fields);
                self.groups.fields = fields;
            }
            return found;
        }
        let set = self.set;
        let v = &set.variants[vi];
        let re = &l.regex;
        // In a window of a long line, the first match it owns
        // (the one before it reports what starts earlier).
        let found = re
            .captures_at(text, line.owned_from())
            .filter(|c| c.get(0).is_none_or(|m| line.owns(m.start())));
        match found {
            None => false,
            Some(c) => match &l.each {
                None if self.aggregates(vi) => {
                    self.aggregate_captures(vi, line, text, &[(&c, 0)]);
                    true
                }
                None => {
                    let caps = self.set.captures(v, &[&c], &[re]);
                    let column = c.get(0).map_or(0, |m| m.start());
                    self.emit(vi, line, text, column, caps);
                    true
                }
                Some(each) => {
                    let span = c.get(0).expect("group 0");
                    let mut any = false;
                    for e in each.captures_iter(&text[span.start()..span.end()]) {
                        if self.aggregates(vi) {
                            self.aggregate_captures(vi, line, text, &[(&c, 0), (&e, span.start())]);
                            any = true;
                            continue;
                        }
                        let caps = self.set.captures(v, &[&c, &e], &[re, each]);
                        let column = span.start() + e.get(0).map_or(0, |m| m.start());
                        self.emit(vi, line, text, column, caps);
                        any = true;
                    }
                    any
                }
            },
        }
    }

    /// Lines after records that wait for their rule's `then` line: the
    /// first match adds the captures the record lacks.
    pub(super) fn follow(&mut self, text: &[u8]) {
        let set = self.set;
        let mut i = 0;
        while i < self.kinds.line.pending.len() {
            let (rule, at, left) = self.kinds.line.pending[i];
            let re = set.rules[rule]
                .then
                .as_ref()
                .expect("pending rule has then");
            let Some(c) = re.captures(text) else {
                if left <= 1 {
                    self.kinds.line.pending.remove(i);
                } else {
                    self.kinds.line.pending[i].2 = left - 1;
                    i += 1;
                }
                continue;
            };
            self.kinds.line.pending.remove(i);
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
        let active = &self.filter.active;
        self.kinds.line.pending.retain(|&(rule, _, _)| {
            !set.rules[rule].variants.iter().any(|&vi| {
                let v = &set.variants[vi];
                active[vi]
                    && !v.excluded(text)
                    && matches!(&v.kind, Kind::Line(l) if l.regex.is_match(text))
            })
        });
    }
}
