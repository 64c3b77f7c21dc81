//! The json kind's step in a member's scan: its documents, read at the
//! member's end (the kind itself is [`crate::pack::kind::json`]).

use super::MemberScan;
use crate::lines::Line;
use crate::pack::Kind;
use crate::pack::kind::json::{JsonDoc, JsonHit, documents};
use crate::source::{self, Coverage};

impl MemberScan<'_> {
    /// Runs the json rules over the member's text: one document, or JSON
    /// Lines. What cannot be read is a coverage error on the member, so no
    /// absence is claimed from it.
    pub(super) fn read_json(&mut self, doc: &JsonDoc, coverage: &mut Coverage) {
        let set = self.set;
        let json_rules = {
            let mut ids: Vec<&str> = (0..set.variants.len())
                .filter(|&v| self.filter.active[v] && set.variants[v].is_json())
                .map(|v| set.rules[set.variants[v].rule].id.as_str())
                .collect();
            ids.dedup();
            ids.join(", ")
        };
        if let Some(cut) = &doc.cut {
            let msg = format!("not read as JSON ({cut}) by {}", json_rules);
            coverage.error(&self.at.members, source::ErrorKind::Limit, msg);
            return;
        }
        let Ok(text) = std::str::from_utf8(&doc.text) else {
            let msg = format!("not UTF-8, so not read as JSON by {}", json_rules);
            coverage.error(&self.at.members, source::ErrorKind::Corrupt, msg);
            return;
        };
        // JSON Lines only where a variant reading the member says so.
        let json_lines = (0..set.variants.len()).any(|v| {
            self.filter.active[v] && matches!(&set.variants[v].kind, Kind::Json(m) if m.json_lines)
        });
        let lines = (0..doc.lines.len()).map(|i| {
            let line = std::str::from_utf8(doc.line_text(i)).unwrap_or_default();
            (doc.lines[i].2, line)
        });
        let (docs, error) = documents(text, lines, json_lines);
        let mut hits = Vec::new();
        let mut emitted = false;
        for (base, value) in &docs {
            let end = if docs.len() == 1 && *base == 0 {
                text.len()
            } else {
                base + text[*base..].find('\n').unwrap_or(text.len() - base)
            };
            emitted |= self.json_hits(doc, value, &text[*base..end], *base, &mut hits);
        }
        if let Some(why) = error {
            let msg = format!("{why}, so not read by {json_rules}");
            coverage.error(&self.at.members, source::ErrorKind::Corrupt, msg);
        }
        if emitted {
            self.sort_by_line();
        }
    }

    /// Records of the json variants in one document (`text`, at `base` in
    /// the member's kept text); the first variant of a rule that finds any
    /// wins, as on lines.
    fn json_hits(
        &mut self,
        doc: &JsonDoc,
        value: &jsonc_parser::ast::Value<'_>,
        text: &str,
        base: usize,
        hits: &mut Vec<JsonHit>,
    ) -> bool {
        let set = self.set;
        let mut done = Vec::new();
        let mut any = false;
        for (vi, v) in set.variants.iter().enumerate() {
            let Kind::Json(m) = &v.kind else {
                continue;
            };
            if !self.filter.active[vi] || done.contains(&v.rule) {
                continue;
            }
            hits.clear();
            m.hits(value, text, &set.rules[v.rule].captures, hits);
            if hits.is_empty() {
                continue;
            }
            done.push(v.rule);
            for h in hits.drain(..) {
                let at = base + h.offset;
                let i = doc.line_at(at);
                let (number, offset, start) = doc.lines[i];
                let raw = doc.line_text(i);
                let line = Line {
                    number,
                    offset,
                    raw,
                    hay: raw,
                    truncated: false,
                    window: 0,
                    shared: 0,
                };
                let mut caps = h.captures;
                for (k, val) in &v.set {
                    caps.insert(k.clone(), val.clone());
                }
                self.emit(vi, &line, raw, at - start, caps);
                any = true;
            }
        }
        any
    }
}
