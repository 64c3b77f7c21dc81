//! The line kind: a line matching the variant's `regex` is an event (with
//! `each`: one event per match of `each` inside the regex's match; with
//! `dump`: the fields of a repr or dict dump in one group become captures).

use super::{KindDef, KindState, Out, Regexes};
use crate::lines::Line;
use crate::pack::VariantDef;
use crate::pack::anchored::{AnchoredCaptures, AnchoredRegex};
use crate::pack::compile::Variant;
use crate::pack::pattern::PackRegex;

#[derive(Debug)]
pub struct LineMatch {
    pub regex: PackRegex,
    pub each: Option<PackRegex>,
    /// For the line variants of aggregating rules (the most frequent lines).
    pub anchored: Option<AnchoredRegex>,
    /// With `anchored` and a single prefilter literal: how far into a match
    /// that literal can begin, at most. No match then begins more than this
    /// before the literal's first place on the line (a [`Hit`](crate::pack::Hit)'s place), so
    /// the anchor is looked for from there, not from the line's start.
    pub lead: Option<usize>,
    /// The capture group that holds a repr/dict dump, and the keys to keep.
    pub dump: Option<(String, Option<Vec<String>>)>,
}

impl LineMatch {
    /// The variant's line form, given the aggregating rule's fields (its
    /// group keys, then its numeric captures) and the variant's literals:
    /// anchored where its regex has one literal prefix (and no `each`).
    pub(crate) fn anchor(&mut self, fields: &[&str], prefilter: &[String]) {
        if self.each.is_some() {
            return;
        }
        self.anchored = AnchoredRegex::new(self.regex.as_str(), fields);
        self.lead = match (&self.anchored, prefilter) {
            (Some(a), [lit]) => a.lead(lit),
            _ => None,
        };
    }
}

/// What the line kind keeps while it reads one member.
#[derive(Debug, Default)]
pub(crate) struct LineState {
    /// Reused match slots of anchored regexes, by variant.
    pub(crate) anchored_caps: Vec<Option<AnchoredCaptures>>,
}

impl KindState for LineState {
    fn new(variants: &[Variant], _active: &[bool]) -> LineState {
        LineState {
            anchored_caps: (0..variants.len()).map(|_| None).collect(),
        }
    }
}

impl KindDef for LineMatch {
    const NAME: &'static str = "line";
    const KEYS: &'static [&'static str] = &["regex", "each", "dump", "keys", "prefilter"];
    type State = LineState;

    fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<LineMatch, String> {
        compile(v, re)
    }

    fn key(v: &VariantDef) -> Option<&str> {
        v.regex.as_deref()
    }

    fn regexes(&self) -> Vec<&PackRegex> {
        [Some(&self.regex), self.each.as_ref()]
            .into_iter()
            .flatten()
            .collect()
    }

    fn patterns(&self) -> Vec<(&'static str, String)> {
        let re = |n: &'static str, r: &PackRegex| (n, r.as_str().to_string());
        [
            Some(re("regex", &self.regex)),
            self.each.as_ref().map(|e| re("each", e)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn aggregated(&mut self, fields: &[&str], prefilter: &[String]) -> Result<(), String> {
        self.anchor(fields, prefilter);
        Ok(())
    }

    fn starts_record(&self, text: &[u8]) -> bool {
        self.regex.is_match(text)
    }

    /// Whether the line matches; what it finds is recorded or counted.
    #[inline]
    fn candidate<'s, O: Out<'s>>(
        &self,
        vi: usize,
        place: usize,
        line: &Line<'_>,
        text: &[u8],
        state: &mut LineState,
        out: &mut O,
    ) -> bool {
        if let Some(a) = self.anchored.as_ref().filter(|_| out.aggregates(vi)) {
            // No match begins more than `lead` before the literal.
            let from = self
                .lead
                .map_or(0, |lead| place.saturating_sub(lead))
                .max(line.owned_from());
            let caps = state.anchored_caps[vi].get_or_insert_with(|| a.new_captures());
            let found = a.captures(text, from, caps);
            if found {
                out.aggregate_spans(vi, line, text, |fields| {
                    fields.extend((0..a.field_count()).map(|i| a.field_span(caps, i)));
                });
            }
            return found;
        }
        let set = out.set();
        let v = &set.variants[vi];
        let re = &self.regex;
        // In a window of a long line, the first match it owns
        // (the one before it reports what starts earlier).
        let found = re
            .captures_at(text, line.owned_from())
            .filter(|c| c.get(0).is_none_or(|m| line.owns(m.start())));
        match found {
            None => false,
            Some(c) => match &self.each {
                None if out.aggregates(vi) => {
                    out.aggregate_captures(vi, line, text, &[(&c, 0)]);
                    true
                }
                None => {
                    let caps = set.captures(v, &[&c], &[re]);
                    let column = c.get(0).map_or(0, |m| m.start());
                    out.emit(vi, line, text, column, caps);
                    true
                }
                Some(each) => {
                    let span = c.get(0).expect("group 0");
                    let mut any = false;
                    for e in each.captures_iter(&text[span.start()..span.end()]) {
                        if out.aggregates(vi) {
                            out.aggregate_captures(vi, line, text, &[(&c, 0), (&e, span.start())]);
                            any = true;
                            continue;
                        }
                        let caps = set.captures(v, &[&c, &e], &[re, each]);
                        let column = span.start() + e.get(0).map_or(0, |m| m.start());
                        out.emit(vi, line, text, column, caps);
                        any = true;
                    }
                    any
                }
            },
        }
    }
}

/// A line variant as the pack gives it.
fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<LineMatch, String> {
    let regex = re
        .capturing("regex", &v.regex)?
        .ok_or("a line variant needs `regex`")?;
    let each = re.capturing("each", &v.each)?;
    let dump = match &v.dump {
        None => None,
        Some(group) => {
            if !regex.names().iter().any(|n| n == group) {
                return Err(format!("dump: `regex` has no group named {group}"));
            }
            re.names.extend(v.keys.iter().flatten().cloned());
            Some((group.clone(), v.keys.clone()))
        }
    };
    Ok(LineMatch {
        regex,
        each,
        anchored: None,
        lead: None,
        dump,
    })
}
