//! The block kind's step in a member's scan: each line inside an open
//! block (the kind itself is [`crate::pack::kind::block`]).

use super::MemberScan;
use crate::lines::Line;
use crate::pack::Kind;
use crate::pack::kind::block::{
    BlockMatch, Each, IndentState, LineAt, Made, OpenBlock, Then, at_column, indentation,
    is_blank_or_comment,
};
use serde_json::Value;

impl MemberScan<'_> {
    /// Lines inside open blocks: records, or the block closes. The rules
    /// that recorded the line from a block go to `block_rules`: their line
    /// variants pass over it (the first variant that matches wins, and a
    /// block's is first).
    pub(super) fn continue_blocks(&mut self, line: &Line<'_>, text: &[u8]) {
        self.kinds.block.rules.clear();
        let mut i = 0;
        while i < self.kinds.block.open.len() {
            let vi = self.kinds.block.open[i].variant;
            let v = &self.set.variants[vi];
            let Kind::Block(b) = &v.kind else {
                self.kinds.block.open.remove(i);
                continue;
            };
            if let (Some(re), Some(state)) = (&b.indent, self.kinds.block.open[i].indent.as_mut()) {
                // A YAML block: its indentation decides where it ends and
                // which lines are its entries (src/pack/kind/block.rs).
                let (at, rest) = indentation(re, text);
                // Without a `name` group, `each` reads an entry's line
                // itself below; with one, the state pairs entries across
                // lines and records them here.
                let read = if b.pairs { b.each.captures(text) } else { None };
                let each = if b.pairs {
                    Each::Pairs(read.as_ref().and_then(|c| {
                        let value = c.name("value").map_or(&b""[..], |m| m.as_bytes());
                        Some((c.name("name")?.as_bytes(), value))
                    }))
                } else {
                    Each::Keys(b.each.is_match(text))
                };
                let (made, then) =
                    state.step(is_blank_or_comment(text), at, rest, each, || LineAt {
                        number: line.number,
                        offset: line.offset,
                        text: text.into(),
                    });
                for m in made {
                    match m {
                        Made::Record { name, value, at } => {
                            let mut caps = self.kinds.block.open[i].caps(self.set).clone();
                            caps.extend(
                                self.set
                                    .named_captures(v, &[("name", &name), ("value", &value)]),
                            );
                            match &at {
                                Some(a) => {
                                    let cited = Line {
                                        number: a.number,
                                        offset: a.offset,
                                        raw: &a.text,
                                        hay: &a.text,
                                        truncated: false,
                                        window: 0,
                                        shared: 0,
                                    };
                                    self.emit(vi, &cited, &a.text, 0, caps);
                                }
                                None => self.emit(vi, line, text, at_column(text, rest), caps),
                            }
                            self.kinds.block.rules.push(v.rule);
                        }
                        Made::Unreadable(what) => self.kinds.block.cuts.push(format!(
                            "{}: line {}: {what}: the block is read in part",
                            self.set.rules[v.rule].id, line.number
                        )),
                    }
                }
                match then {
                    Then::End => {
                        self.kinds.block.open.remove(i);
                        continue;
                    }
                    Then::Done => {
                        i += 1;
                        continue;
                    }
                    Then::Entry => {}
                }
            }
            if b.end.as_ref().is_some_and(|e| e.is_match(text)) {
                self.kinds.block.open.remove(i);
                continue;
            }
            let each = &b.each;
            if let Some(c) = each.captures(text) {
                if self.aggregates(vi) {
                    self.aggregate_captures(vi, line, text, &[(&c, 0)]);
                    i += 1;
                    continue;
                }
                let mut caps = self.kinds.block.open[i].caps(self.set).clone();
                let mut fresh = self.set.captures(v, &[&c], &[each]);
                for k in &b.carry {
                    match fresh.get(k) {
                        // Empty here: the value of the line above stays.
                        Some(Value::String(s)) if s.is_empty() => {
                            fresh.remove(k);
                        }
                        Some(val) => {
                            self.kinds.block.open[i]
                                .caps(self.set)
                                .insert(k.clone(), val.clone());
                        }
                        None => {}
                    }
                }
                caps.extend(fresh);
                let column = c.get(0).map_or(0, |m| m.start());
                self.emit(vi, line, text, column, caps);
                self.kinds.block.rules.push(v.rule);
                if self.overrun {
                    self.kinds
                        .block
                        .overrun_claims
                        .insert((v.rule, line.number));
                }
                i += 1;
            } else if is_blank_or_comment(text) {
                i += 1;
            } else {
                if b.complete {
                    self.kinds.block.cuts.push(format!(
                        "{}: line {} ends a block the rule reads whole but is neither an entry nor \
                         its end: the rest of the dump is not read",
                        self.set.rules[v.rule].id, line.number
                    ));
                }
                self.kinds.block.open.remove(i);
            }
        }
    }

    /// A line that starts block variant `vi` (`b`) opens it (anew, where
    /// it is open already).
    pub(super) fn open_block(
        &mut self,
        vi: usize,
        b: &BlockMatch,
        line: &Line<'_>,
        text: &[u8],
    ) -> bool {
        if line.window > 0 || !b.start.is_match(text) {
            return false;
        }
        let indent = b
            .indent
            .as_ref()
            .map(|re| IndentState::new(indentation(re, text).0));
        self.kinds.block.open.retain(|b| b.variant != vi);
        self.kinds.block.open.push(OpenBlock {
            variant: vi,
            start: text.into(),
            caps: None,
            indent,
        });
        true
    }
}
