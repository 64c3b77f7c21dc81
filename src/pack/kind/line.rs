//! The line kind: a line matching the variant's `regex` is an event (with
//! `each`: one event per match of `each` inside the regex's match; with
//! `dump`: the fields of a repr or dict dump in one group become captures).

use super::{Regexes, unused};
use crate::pack::VariantDef;
use crate::pack::anchored::{AnchoredCaptures, AnchoredRegex};
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
    /// The regexes whose named groups become captures.
    pub fn regexes(&self) -> Vec<&PackRegex> {
        [Some(&self.regex), self.each.as_ref()]
            .into_iter()
            .flatten()
            .collect()
    }

    /// What it looks for, by field, for `packs show`.
    pub fn patterns(&self) -> Vec<(&'static str, String)> {
        let re = |n: &'static str, r: &PackRegex| (n, r.as_str().to_string());
        [
            Some(re("regex", &self.regex)),
            self.each.as_ref().map(|e| re("each", e)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

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
    /// Records waiting for their rule's `then` line: (rule, index in the
    /// scan's records, lines left to look in).
    pub(crate) pending: Vec<(usize, usize, u32)>,
    /// Reused match slots of anchored regexes, by variant.
    pub(crate) anchored_caps: Vec<Option<AnchoredCaptures>>,
}

impl LineState {
    pub(crate) fn new(variants: usize) -> LineState {
        LineState {
            pending: Vec::new(),
            anchored_caps: (0..variants).map(|_| None).collect(),
        }
    }
}

/// A line variant as the pack gives it.
pub(super) fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<LineMatch, String> {
    unused(
        "line",
        &[
            ("start", v.start.is_some()),
            ("end", v.end.is_some()),
            ("carry", !v.carry.is_empty()),
            ("indent", v.indent.is_some()),
            ("at", v.at.is_some()),
            ("key", v.key.is_some()),
            ("fields", v.fields.is_some()),
            ("cite", v.cite.is_some()),
            ("json_lines", v.json_lines),
        ],
    )?;
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
