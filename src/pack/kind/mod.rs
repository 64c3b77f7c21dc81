//! Rule kinds: how a variant finds its events. Each kind is one file here
//! holding its definition (what a variant of the kind reads from the pack,
//! checked in its `compile`), its compiled form (immutable, shared by every
//! member's scan) and what it keeps per member:
//! - [`line`]: a line matching a regex;
//! - [`block`]: a start line, then its entries (an env dump, a YAML or
//!   Kubernetes env block read by indentation);
//! - [`json`]: fields of whole JSON documents (or JSON Lines).
//!
//! A new kind is one file, one arm of [`Kind`] and one line of
//! [`compile_variant`]'s dispatch; the compiler then names every `match`
//! on [`Kind`] that must learn it (the scan's per-line step among them).

pub(crate) mod block;
pub(crate) mod json;
pub(crate) mod line;

use super::VariantDef;
use super::compile::{Variant, globs};
use super::pattern::PackRegex;
use super::prefilter::derive_literals;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The rule kinds. An enum, not a trait object: the line kind runs on
/// every candidate line of every member, where a `match` costs nothing and
/// a virtual call per line would, and lets the compiler inline each kind's
/// step; the kinds are few and known when the crate is built, and an enum
/// makes every place that dispatches on them list them all.
// Line variants are the many and the hot ones (every candidate line):
// kept inline, not boxed, though they are the largest.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Kind {
    /// A line matching `regex` (with `each`: one event per match of `each`
    /// inside the regex's match).
    Line(line::LineMatch),
    /// A line matching `start`, then each following line matching `each`
    /// until `end`, a line matching neither, or the member's end.
    Block(block::BlockMatch),
    /// Fields of a JSON document or JSON Lines member, read by path.
    Json(json::JsonMatch),
}

impl Kind {
    /// The regexes whose named groups become captures.
    pub fn regexes(&self) -> Vec<&PackRegex> {
        match self {
            Kind::Line(l) => l.regexes(),
            Kind::Block(b) => b.regexes(),
            Kind::Json(_) => Vec::new(),
        }
    }

    /// The kind's name, as `packs show` prints it.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Line(_) => "Line",
            Kind::Block(_) => "Block",
            Kind::Json(_) => "Json",
        }
    }

    /// What the variant looks for, by field, for `packs show`.
    pub fn patterns(&self) -> Vec<(&'static str, String)> {
        match self {
            Kind::Line(l) => l.patterns(),
            Kind::Block(b) => b.patterns(),
            Kind::Json(j) => j.describe(),
        }
    }
}

/// What a member's scan keeps per kind, each kind's part defined in its
/// file. A struct with a field per kind, not an enum or a list of `dyn`
/// states: one member is read by every kind at once (a line can open a
/// block, match a line rule and belong to a json document), the line
/// kind's part is touched on every candidate line where a field access
/// costs nothing and a virtual call would, and a split member's parts are
/// merged kind by kind in `append`. A new kind adds its field here.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) line: line::LineState,
    pub(crate) block: block::BlockState,
    /// The member's text where a json rule reads it (at its end).
    pub(crate) json: Option<json::JsonDoc>,
}

impl State {
    /// The state for a member read by the variants marked in `active`.
    pub(crate) fn new(variants: &[Variant], active: &[bool]) -> State {
        let json = active
            .iter()
            .zip(variants)
            .any(|(a, v)| *a && v.is_json())
            .then(json::JsonDoc::default);
        State {
            line: line::LineState::new(variants.len()),
            block: block::BlockState::default(),
            json,
        }
    }

    /// Takes in the state of the member's next part (the `then` waits and
    /// match slots of the later part are its own business: it read its
    /// lines already).
    pub(crate) fn append(&mut self, later: State) {
        self.block.append(later.block);
        if let (Some(doc), Some(more)) = (&mut self.json, later.json) {
            doc.append(more);
        }
    }
}

/// What compiling a variant's regexes needs: whether built-in (compiled
/// on first use, see [`PackRegex`]), and the rule's capture names so far.
pub(crate) struct Regexes<'a> {
    pub(crate) names: &'a mut BTreeSet<String>,
    pub(crate) eager: bool,
}

impl Regexes<'_> {
    /// The regex of field `field`, if given; its named groups become
    /// capture names of the rule.
    pub(crate) fn capturing(
        &mut self,
        field: &str,
        src: &Option<String>,
    ) -> Result<Option<PackRegex>, String> {
        match src {
            None => Ok(None),
            Some(s) => {
                let re = PackRegex::new(s, self.eager).map_err(|e| format!("{field}: {e}"))?;
                self.names.extend(re.names().iter().cloned());
                Ok(Some(re))
            }
        }
    }
}

/// Fields of one kind must not be given to another, where they would
/// silently mean nothing: the first given of `given` is an error.
pub(crate) fn unused(kind: &str, given: &[(&str, bool)]) -> Result<(), String> {
    match given.iter().find(|(_, g)| *g) {
        Some((f, _)) => Err(format!("`{f}` has no meaning in a {kind} variant")),
        None => Ok(()),
    }
}

/// A variant of rule number `rule` as the pack gives it, compiled; the
/// names it can capture are added to `names`.
pub(crate) fn compile_variant(
    rule: usize,
    v: &VariantDef,
    names: &mut BTreeSet<String>,
    eager: bool,
) -> Result<Variant, String> {
    if v.complete && v.kind.as_deref() != Some("block") {
        return Err("`complete` needs a block variant with `end`".into());
    }
    let mut re = Regexes { names, eager };
    // Each kind: its compiled form, and the pattern its literals are
    // derived from where the variant gives no `prefilter`.
    let (kind, key) = match v.kind.as_deref() {
        None | Some("line") => (Kind::Line(line::compile(v, &mut re)?), v.regex.as_deref()),
        Some("block") => (Kind::Block(block::compile(v, &mut re)?), v.start.as_deref()),
        Some("json") => (Kind::Json(json::compile(v, &mut re)?), None),
        Some(k) => return Err(format!("unknown kind {k:?} (line, block, json)")),
    };
    let (prefilter, explicit) = match &v.prefilter {
        Some(p) => {
            if p.iter().any(|l| l.is_empty()) {
                return Err("empty prefilter literal".into());
            }
            (p.clone(), true)
        }
        None => (key.map(derive_literals).unwrap_or_default(), false),
    };
    let member_globs = v.members.clone().unwrap_or_default();
    let members = globs(&member_globs).map_err(|e| format!("members: {e}"))?;
    let set = v.set.as_ref().map(toml_to_json).unwrap_or_default();
    re.names.extend(set.keys().cloned());
    Ok(Variant {
        rule,
        kind,
        set,
        members,
        member_globs,
        prefilter,
        prefilter_explicit: explicit,
        exclude: Vec::new(),
    })
}

fn toml_to_json(t: &toml::Table) -> Map<String, Value> {
    t.iter()
        .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
        .collect()
}
