//! The block kind: a `kind = "block"` variant's `start` line opens a
//! block whose following lines are its entries (each read by `each`) until
//! `end`, a line matching neither, or the member's end (an env dump, an
//! lm-eval table under its task's row).
//!
//! Indented (YAML) blocks: a block variant with an
//! `indent` regex reads a YAML mapping or list of name/value entries (an
//! env block) by indentation, the way YAML nests it.
//!
//! The block holds the lines indented deeper than its start line, and `- `
//! items at the start line's own indentation; its entries are the lines at
//! the indentation of its first line. Besides one-line entries (`NAME:
//! value`, `- NAME=value`, read by the variant's `each`), it pairs what YAML
//! spreads over lines:
//! - `NAME:` with nothing after it, then its value on the next, deeper line;
//! - Kubernetes' `- name: NAME` item with its `value: ...` key (either order).
//!
//! An entry it cannot read (neither `each` nor one of those forms), or a
//! Kubernetes item whose value it cannot read (`valueFrom:` a secret or a
//! config map), is reported as unreadable: the scanner makes it a
//! `truncated` coverage error, so no absence is claimed from the block.

use super::{KindDef, KindState, Out, Regexes};
use crate::lines::Line;
use crate::pack::RuleSet;
use crate::pack::VariantDef;
use crate::pack::compile::Variant;
use crate::pack::pattern::PackRegex;
use crate::source::{Coverage, ErrorKind};
use serde_json::{Map, Value};
use std::collections::HashSet;

#[derive(Debug)]
pub struct BlockMatch {
    pub start: PackRegex,
    pub each: PackRegex,
    pub end: Option<PackRegex>,
    /// `each` captures carried down from the line above where a line
    /// leaves them empty.
    pub carry: Vec<String>,
    /// Closing other than at `end` is a coverage error (see
    /// `VariantDef::complete`).
    pub complete: bool,
    /// A YAML block: where a line's indentation is (group `indent`; see
    /// `VariantDef::indent`).
    pub indent: Option<PackRegex>,
    /// `each` has a `name` group: an indented block's entries are
    /// name/value pairs, which may spread over lines (see [`Each`]).
    pub pairs: bool,
}

impl KindDef for BlockMatch {
    const NAME: &'static str = "block";
    const KEYS: &'static [&'static str] =
        &["start", "each", "end", "carry", "indent", "prefilter"];
    const COMPLETE: bool = true;
    type State = BlockState;

    fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<BlockMatch, String> {
        compile(v, re)
    }

    fn key(v: &VariantDef) -> Option<&str> {
        v.start.as_deref()
    }

    fn regexes(&self) -> Vec<&PackRegex> {
        vec![&self.start, &self.each]
    }

    fn every_regex(&self) -> Vec<&PackRegex> {
        [
            Some(&self.start),
            Some(&self.each),
            self.end.as_ref(),
            self.indent.as_ref(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn patterns(&self) -> Vec<(&'static str, String)> {
        let re = |n: &'static str, r: &PackRegex| (n, r.as_str().to_string());
        [
            Some(re("start", &self.start)),
            Some(re("each", &self.each)),
            self.end.as_ref().map(|e| re("end", e)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// A line that starts the block opens it (anew, where it is open
    /// already).
    fn candidate<'s, O: Out<'s>>(
        &self,
        vi: usize,
        _place: usize,
        line: &Line<'_>,
        text: &[u8],
        state: &mut BlockState,
        _out: &mut O,
    ) -> bool {
        if line.window > 0 || !self.start.is_match(text) {
            return false;
        }
        let indent = self
            .indent
            .as_ref()
            .map(|re| IndentState::new(indentation(re, text).0));
        state.open.retain(|b| b.variant != vi);
        state.open.push(OpenBlock {
            variant: vi,
            start: text.into(),
            caps: None,
            indent,
        });
        true
    }
}

/// A block variant as the pack gives it.
fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<BlockMatch, String> {
    let start = re.capturing("start", &v.start)?;
    let each = re.capturing("each", &v.each)?;
    let end = re.capturing("end", &v.end)?;
    let (Some(start), Some(each)) = (start, each) else {
        return Err("a block variant needs `start` and `each`".into());
    };
    if v.complete && end.is_none() {
        return Err("`complete` needs a block variant with `end`".into());
    }
    let indent = match &v.indent {
        None => None,
        Some(s) => {
            // Its group is a position, not a capture of the record.
            let re = PackRegex::new(s, re.eager).map_err(|e| format!("indent: {e}"))?;
            if !re.names().iter().any(|n| n == "indent") {
                return Err("indent: the regex needs a group named `indent`".into());
            }
            Some(re)
        }
    };
    if v.complete && indent.is_some() {
        return Err(
            "`complete` and `indent` exclude each other (an indented block ends where \
             its indentation does)"
                .into(),
        );
    }
    Ok(BlockMatch {
        pairs: each.names().iter().any(|n| n == "name"),
        start,
        each,
        end,
        carry: v.carry.clone(),
        complete: v.complete,
        indent,
    })
}

/// What the block kind keeps while it reads one member (or one part of a
/// member split across threads).
#[derive(Debug, Default)]
pub(crate) struct BlockState {
    /// Open blocks, in the order they opened.
    pub(crate) open: Vec<OpenBlock>,
    /// Rules a block recorded the current line for: their line variants
    /// pass over it (see `continue_blocks`).
    pub(crate) rules: Vec<usize>,
    /// (rule, line) a block recorded past this part's end (see `append`).
    /// A set: a block followed over whole parts claims many
    /// lines, each looked up for every record of the parts after it.
    pub(crate) overrun_claims: HashSet<(usize, u64), foldhash::fast::RandomState>,
    /// `complete` blocks that closed other than at their `end`: why, for
    /// a coverage error.
    pub(crate) cuts: Vec<String>,
}

impl KindState for BlockState {
    fn new(_variants: &[Variant], _active: &[bool]) -> BlockState {
        BlockState::default()
    }

    #[inline]
    fn following(&self) -> bool {
        !self.open.is_empty()
    }

    #[inline]
    fn took(&self, rule: usize) -> bool {
        self.rules.contains(&rule)
    }

    #[inline]
    fn each_line<'s, O: Out<'s>>(&mut self, line: &Line<'_>, text: &[u8], out: &mut O) {
        if self.open.is_empty() {
            self.rules.clear();
        } else {
            self.continue_blocks(line, text, false, out);
        }
    }

    fn overrun<'s, O: Out<'s>>(&mut self, line: &Line<'_>, text: &[u8], out: &mut O) {
        self.continue_blocks(line, text, true, out);
        // A block that starts again here is the next part's to follow.
        let set = out.set();
        self.open.retain(|open| {
            let Some(b) = BlockMatch::of(&set.variants[open.variant].kind) else {
                return false;
            };
            !b.start.is_match(text)
        });
    }

    /// A block this part (or one before it) followed across the cut
    /// recorded those lines already: the later part's line variants of
    /// that rule step back there, as they do when one scan reads both. A
    /// block followed over a whole part claims lines of the parts after
    /// it too, so the claims are kept for them.
    fn append<'s, O: Out<'s>>(&mut self, later: BlockState, later_out: &mut O) {
        if !self.overrun_claims.is_empty() {
            let claims = &self.overrun_claims;
            later_out.drop_records(|rule, line| claims.contains(&(rule, line)));
        }
        self.overrun_claims.extend(later.overrun_claims);
        self.cuts.extend(later.cuts);
        // The member's open blocks where it ends: those this part's scanner
        // followed to the member's end without their closing (the overrun
        // reads on to the end while a block is open), then the later part's.
        self.open.extend(later.open);
    }

    /// A `complete` block still open where the member ends was cut; the
    /// blocks cut are a coverage error.
    fn end<'s, O: Out<'s>>(&mut self, out: &mut O, coverage: &mut Coverage) {
        let set = out.set();
        for b in &self.open {
            let v = &set.variants[b.variant];
            if BlockMatch::of(&v.kind).is_some_and(|b| b.complete) {
                self.cuts.push(format!(
                    "{}: a block the rule reads whole is still open where the member ends \
                     (no line matching its end): the dump is cut",
                    set.rules[v.rule].id
                ));
            }
        }
        if let Some(first) = self.cuts.first() {
            let more = match self.cuts.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            coverage.error(
                out.members(),
                ErrorKind::Truncated,
                format!("{first}{more}"),
            );
        }
    }
}

impl BlockState {
    /// Lines inside open blocks: records, or the block closes. The rules
    /// that recorded the line from a block go to `rules`: their line
    /// variants pass over it (the first variant that matches wins, and a
    /// block's is first). `overrun`: past the part's end, where the lines
    /// recorded are claimed from the next part.
    fn continue_blocks<'s, O: Out<'s>>(
        &mut self,
        line: &Line<'_>,
        text: &[u8],
        overrun: bool,
        out: &mut O,
    ) {
        let set = out.set();
        self.rules.clear();
        let mut i = 0;
        while i < self.open.len() {
            let vi = self.open[i].variant;
            let v = &set.variants[vi];
            let Some(b) = BlockMatch::of(&v.kind) else {
                self.open.remove(i);
                continue;
            };
            if let (Some(re), Some(state)) = (&b.indent, self.open[i].indent.as_mut()) {
                // A YAML block: its indentation decides where it ends and
                // which lines are its entries (see the module's doc).
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
                            let mut caps = self.open[i].caps(set).clone();
                            caps.extend(
                                set.named_captures(v, &[("name", &name), ("value", &value)]),
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
                                    out.emit(vi, &cited, &a.text, 0, caps);
                                }
                                None => out.emit(vi, line, text, at_column(text, rest), caps),
                            }
                            self.rules.push(v.rule);
                        }
                        Made::Unreadable(what) => self.cuts.push(format!(
                            "{}: line {}: {what}: the block is read in part",
                            set.rules[v.rule].id, line.number
                        )),
                    }
                }
                match then {
                    Then::End => {
                        self.open.remove(i);
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
                self.open.remove(i);
                continue;
            }
            let each = &b.each;
            if let Some(c) = each.captures(text) {
                if out.aggregates(vi) {
                    out.aggregate_captures(vi, line, text, &[(&c, 0)]);
                    i += 1;
                    continue;
                }
                let mut caps = self.open[i].caps(set).clone();
                let mut fresh = set.captures(v, &[&c], &[each]);
                for k in &b.carry {
                    match fresh.get(k) {
                        // Empty here: the value of the line above stays.
                        Some(Value::String(s)) if s.is_empty() => {
                            fresh.remove(k);
                        }
                        Some(val) => {
                            self.open[i].caps(set).insert(k.clone(), val.clone());
                        }
                        None => {}
                    }
                }
                caps.extend(fresh);
                let column = c.get(0).map_or(0, |m| m.start());
                out.emit(vi, line, text, column, caps);
                self.rules.push(v.rule);
                if overrun {
                    self.overrun_claims.insert((v.rule, line.number));
                }
                i += 1;
            } else if is_blank_or_comment(text) {
                i += 1;
            } else {
                if b.complete {
                    self.cuts.push(format!(
                        "{}: line {} ends a block the rule reads whole but is neither an entry nor \
                         its end: the rest of the dump is not read",
                        set.rules[v.rule].id, line.number
                    ));
                }
                self.open.remove(i);
            }
        }
    }
}

/// A block being read: its variant, the captures of the line that opened
/// it, and for an indented (YAML) block the start line's indentation and
/// that of its entries (known at its first entry).
#[derive(Debug, Clone)]
pub(crate) struct OpenBlock {
    pub(crate) variant: usize,
    /// The start line's text, kept until its captures are made: at the
    /// block's first entry. Most blocks end on the line after their start
    /// without one (each `"key": {` of a pretty-printed JSON opens an
    /// lm-eval block).
    pub(crate) start: Box<[u8]>,
    pub(crate) caps: Option<Map<String, Value>>,
    pub(crate) indent: Option<IndentState>,
}

impl OpenBlock {
    /// The start line's captures, made now if they were not yet.
    pub(crate) fn caps(&mut self, set: &RuleSet) -> &mut Map<String, Value> {
        let (variant, start) = (self.variant, &self.start);
        self.caps.get_or_insert_with(|| {
            let v = &set.variants[variant];
            match BlockMatch::of(&v.kind) {
                Some(b) => b
                    .start
                    .captures(start)
                    .map(|c| set.captures(v, &[&c], &[&b.start]))
                    .unwrap_or_default(),
                None => Map::new(),
            }
        })
    }
}

/// The indentation `re` finds on `text` (its group `indent`; 0 where it
/// does not match), and what follows it.
pub(crate) fn indentation<'t>(re: &regex::bytes::Regex, text: &'t [u8]) -> (usize, &'t [u8]) {
    match re.captures(text).and_then(|c| c.name("indent")) {
        Some(m) => (m.end() - m.start(), &text[m.end()..]),
        None => (0, text),
    }
}

/// The column (0-based) where `rest` begins in `text`.
pub(crate) fn at_column(text: &[u8], rest: &[u8]) -> usize {
    text.len() - rest.len()
}

/// Blank lines and `#` comments do not end a block (YAML recipes have both).
pub(crate) fn is_blank_or_comment(text: &[u8]) -> bool {
    let t = text.trim_ascii_start();
    t.is_empty() || t.starts_with(b"#")
}

/// Where an open indented block is.
#[derive(Debug, Clone)]
pub(crate) struct IndentState {
    /// The start line's indentation.
    start: usize,
    /// The entries' indentation, known at the first line inside.
    entry: Option<usize>,
    pending: Pending,
}

/// A name line whose value is on a line still to come.
#[derive(Debug, Clone, Default)]
enum Pending {
    #[default]
    None,
    /// `NAME:` with no value on its line, at line `line`.
    Value { name: String, line: LineAt },
    /// A Kubernetes list item, its keys read so far.
    Item {
        name: Option<String>,
        value: Option<String>,
        /// `valueFrom:` (a secret or config map: the value is not here).
        from: bool,
    },
}

/// A line kept to cite later: number, byte offset and text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LineAt {
    pub number: u64,
    pub offset: u64,
    pub text: Box<[u8]>,
}

/// What a line makes.
#[derive(Debug, PartialEq)]
pub(crate) enum Made {
    /// A record: name and value (as printed, quotes kept), cited to `at`
    /// (None: the line being read).
    Record {
        name: String,
        value: String,
        at: Option<LineAt>,
    },
    /// An entry the reader cannot read: the block is read in part.
    Unreadable(String),
}

/// What becomes of the line after what it made.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Then {
    /// The block ended before this line (which may open another).
    End,
    /// Read (or passed over): the block goes on.
    Done,
    /// A one-line entry: the caller reads it with `each`.
    Entry,
}

/// What a block's `each` read on a line of an indented block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Each<'t> {
    /// `each` without a `name` group picks values out of a YAML mapping
    /// (`container:` under `model:`): whether it matched. Lines at the
    /// entries' indentation that it does not match are other keys.
    Keys(bool),
    /// `each` with a `name` group reads name/value entries: the name and
    /// value it read, if it matched.
    Pairs(Option<(&'t [u8], &'t [u8])>),
}

/// The key and value of a `key: value` text (a Kubernetes item's keys).
fn key_value(rest: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = rest.strip_prefix(b"- ").unwrap_or(rest).trim_ascii_start();
    let colon = rest.iter().position(|&b| b == b':')?;
    let key = rest[..colon].trim_ascii();
    if key.is_empty() || !key.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_') {
        return None;
    }
    Some((key, strip_comment(&rest[colon + 1..]).trim_ascii()))
}

/// A YAML value without its trailing ` # comment` (outside quotes).
fn strip_comment(v: &[u8]) -> &[u8] {
    let t = v.trim_ascii_start();
    if let Some(q @ (b'"' | b'\'')) = t.first().copied() {
        if let Some(end) = t[1..].iter().position(|&b| b == q) {
            return &t[..end + 2];
        }
        return t;
    }
    match v
        .windows(2)
        .position(|w| w[1] == b'#' && w[0].is_ascii_whitespace())
    {
        Some(i) => &v[..i],
        None if v.first() == Some(&b'#') => b"",
        None => v,
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl IndentState {
    pub(crate) fn new(start: usize) -> IndentState {
        IndentState {
            start,
            entry: None,
            pending: Pending::None,
        }
    }

    /// Reads one line: `blank` (blank or a comment), its indentation `at`,
    /// the text after it `rest`, and what `each` read on it. `line` is the
    /// line itself, kept if it opens a value to come.
    pub(crate) fn step(
        &mut self,
        blank: bool,
        at: usize,
        rest: &[u8],
        each: Each<'_>,
        line: impl FnOnce() -> LineAt,
    ) -> (Vec<Made>, Then) {
        let mut made = Vec::new();
        if blank {
            return (made, Then::Done);
        }
        if at < self.start || (at == self.start && !rest.starts_with(b"- ")) {
            self.flush(&mut made);
            return (made, Then::End);
        }
        let entry = *self.entry.get_or_insert(at);
        if at > entry {
            // Deeper: the value a pending line waits for, or inside a
            // multi-line value.
            match std::mem::take(&mut self.pending) {
                Pending::Value { name, .. } => {
                    let v = strip_comment(rest).trim_ascii();
                    // A block scalar's indicator leaves the value to the
                    // lines below it.
                    made.push(Made::Record {
                        name,
                        value: text(v),
                        at: None,
                    });
                }
                Pending::Item {
                    mut name,
                    mut value,
                    mut from,
                } => {
                    match key_value(rest) {
                        Some((b"name", v)) if name.is_none() => name = Some(text(v)),
                        Some((b"value", v)) if value.is_none() => value = Some(text(v)),
                        Some((b"valueFrom", _)) => from = true,
                        _ => {}
                    }
                    self.pending = Pending::Item { name, value, from };
                    self.item_done(&mut made);
                }
                Pending::None => {}
            }
            return (made, Then::Done);
        }
        let each = match each {
            // Other keys of the mapping are passed over; nothing pends.
            Each::Keys(matched) => return (made, if matched { Then::Entry } else { Then::Done }),
            Each::Pairs(each) => each,
        };
        self.flush(&mut made);
        // A Kubernetes item: `- name: X` or `- value: Y` opens it.
        if rest.starts_with(b"- ")
            && let Some((k @ (b"name" | b"value" | b"valueFrom"), v)) = key_value(rest)
        {
            self.pending = Pending::Item {
                name: (k == b"name").then(|| text(v)),
                value: (k == b"value").then(|| text(v)),
                from: k == b"valueFrom",
            };
            return (made, Then::Done);
        }
        match each {
            Some((name, value)) if strip_comment(value).trim_ascii().is_empty() => {
                self.pending = Pending::Value {
                    name: text(name),
                    line: line(),
                };
                (made, Then::Done)
            }
            Some(_) => (made, Then::Entry),
            None => {
                made.push(Made::Unreadable(format!(
                    "an entry of the block the rule cannot read ({})",
                    text(&rest[..rest.len().min(80)])
                )));
                (made, Then::Done)
            }
        }
    }

    /// A Kubernetes item with both keys read is a record.
    fn item_done(&mut self, made: &mut Vec<Made>) {
        if let Pending::Item {
            name: Some(_),
            value: Some(_),
            ..
        } = &self.pending
            && let Pending::Item {
                name: Some(name),
                value: Some(value),
                ..
            } = std::mem::take(&mut self.pending)
        {
            made.push(Made::Record {
                name,
                value,
                at: None,
            });
        }
    }

    /// What is pending when its entry ends: `NAME:` alone is an empty
    /// value, cited to its own line; an item without a readable value is
    /// unreadable.
    fn flush(&mut self, made: &mut Vec<Made>) {
        match std::mem::take(&mut self.pending) {
            Pending::None => {}
            Pending::Value { name, line } => made.push(Made::Record {
                name,
                value: String::new(),
                at: Some(line),
            }),
            Pending::Item { name, from, .. } => made.push(Made::Unreadable(format!(
                "a Kubernetes env item whose value is not in the log ({}{})",
                name.as_deref().unwrap_or("no name"),
                if from { ": valueFrom" } else { "" }
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs lines (indentation by spaces) through a block started at
    /// indentation `start`; `each` reads `NAME: v` and `- NAME=v`.
    fn run(start: usize, lines: &[&str]) -> Vec<String> {
        read(start, false, lines)
    }

    /// As `run`, with `keys`: `each` picks keys out of a mapping.
    fn read(start: usize, keys: bool, lines: &[&str]) -> Vec<String> {
        let mut s = IndentState::new(start);
        let mut out = Vec::new();
        for (n, l) in lines.iter().enumerate() {
            let at = l.len() - l.trim_start().len();
            let rest = &l.as_bytes()[at..];
            let t = l.trim();
            let blank = t.is_empty() || t.starts_with('#');
            let body = t.strip_prefix("- ").unwrap_or(t);
            let each = body
                .split_once(": ")
                .or_else(|| body.strip_suffix(':').map(|n| (n, "")))
                .or_else(|| body.split_once('='))
                .filter(|(k, _)| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .map(|(k, v)| (k.as_bytes(), v.as_bytes()));
            let each = if keys {
                Each::Keys(each.is_some())
            } else {
                Each::Pairs(each)
            };
            let (made, then) = s.step(blank, at, rest, each, || LineAt {
                number: n as u64 + 1,
                offset: 0,
                text: l.as_bytes().into(),
            });
            for m in made {
                out.push(match m {
                    Made::Record { name, value, at } => {
                        format!("{name}={value}@{}", at.map_or(n as u64 + 1, |a| a.number))
                    }
                    Made::Unreadable(_) => "unreadable".into(),
                });
            }
            match then {
                Then::End => {
                    out.push("end".into());
                    break;
                }
                Then::Entry => out.push(format!("entry@{}", n + 1)),
                Then::Done => {}
            }
        }
        out
    }

    #[test]
    fn kubernetes_items_in_either_order_and_value_from() {
        let got = run(
            4,
            &[
                "    - name: HF_HOME",
                "      value: /data/hf",
                "    - value: \"1\"",
                "      name: SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
                "    - name: HF_TOKEN",
                "      valueFrom:",
                "        secretKeyRef: {name: hf, key: token}",
                "    command: [\"python3\"]",
            ],
        );
        assert_eq!(
            got,
            [
                "HF_HOME=/data/hf@2",
                "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=\"1\"@4",
                "unreadable",
                "end"
            ]
        );
    }

    #[test]
    fn a_value_on_the_next_deeper_line_and_an_empty_one() {
        let got = run(
            2,
            &[
                "    NCCL_DEBUG: WARN",
                "    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE:",
                "      \"1\"  # on",
                "    EMPTY:",
                "",
                "    OTHER: x",
                "  sglang_config:",
            ],
        );
        assert_eq!(
            got,
            [
                "entry@1",
                "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=\"1\"@3",
                "EMPTY=@4",
                "entry@6",
                "end"
            ]
        );
    }

    #[test]
    fn an_unreadable_entry_is_reported_and_the_block_goes_on() {
        let got = run(
            2,
            &[
                "    A: 1",
                "    ??? what",
                "    B: 2",
                "      deeper: text",
                "x",
            ],
        );
        assert_eq!(got, ["entry@1", "unreadable", "entry@3", "end"]);
    }

    #[test]
    fn a_mapping_read_by_keys_passes_over_other_keys_and_deeper_lines() {
        // sglang's recipe YAML: `model:` holds `container:` among other
        // keys, some with nested values.
        let got = read(
            2,
            true,
            &[
                "    path: /models/dsr1",
                "    served:",
                "      - name: dsr1",
                "    container: lmsysorg/sglang:v0.5.5",
                "    ??? what",
                "  resources:",
            ],
        );
        assert_eq!(got, ["entry@1", "entry@2", "entry@4", "end"]);
    }

    #[test]
    fn comments_are_stripped_outside_quotes() {
        assert_eq!(strip_comment(b" 1  # on"), b" 1 ");
        assert_eq!(strip_comment(b" \"a # b\" # c"), b"\"a # b\"");
        assert_eq!(strip_comment(b" a#b"), b" a#b");
    }
}
