//! Rule kinds: how a variant finds its events. Each kind is one file here
//! holding all of it: its definition (what a variant of the kind reads from
//! the pack, checked in its `compile`), its compiled form (immutable, shared
//! by every member's scan), what it keeps per member, and its steps in a
//! member's scan:
//! - [`line`]: a line matching a regex;
//! - [`block`]: a start line, then its entries (an env dump, a YAML or
//!   Kubernetes env block read by indentation);
//! - [`json`]: fields of whole JSON documents (or JSON Lines).
//!
//! A new kind is its file and one line of the registry, `kinds!` below:
//! `Name(module::Type),`. The file implements [`KindDef`] for its compiled
//! type (its name in a pack, the variant keys it reads, `compile`, the
//! pattern its literals derive from) and [`KindState`] for what it keeps
//! per member; every hook has a default for a kind with nothing to do
//! there. The registry line declares the module and makes the kind an arm
//! of [`Kind`], a field of [`State`], a name `compile_variant` knows and an
//! arm of every dispatch the scan calls. (A kind that needs a key no kind
//! reads yet also adds it to the pack's format, `VariantDef`, and to
//! [`kind_keys`], so the other kinds refuse it.) The scan (`crate::scan::evidence`) reaches the kinds only
//! through that dispatch, and the kinds reach the member's results only
//! through [`Out`], which the scan implements: dependencies point down
//! (pack never names the scan).

use super::VariantDef;
use super::compile::{RuleSet, Variant, globs};
use super::pattern::PackRegex;
use super::prefilter::derive_literals;
use crate::lines::Line;
use crate::source::Coverage;
use regex::bytes::Captures;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// What a kind's step does to the member's results: emit records, count
/// aggregated lines. The scan implements it; the steps are generic over it
/// (monomorphised: no virtual call on the per-line path). `'s`: the rule
/// set's lifetime, so a step holds the set while it emits.
pub(crate) trait Out<'s> {
    /// The rules the scan runs.
    fn set(&self) -> &'s RuleSet;
    /// Whether variant `vi` reads this member.
    fn active(&self, vi: usize) -> bool;
    /// Whether variant `vi`'s lines are counted in aggregates, not records.
    fn aggregates(&self, vi: usize) -> bool;
    /// A record of variant `vi` at `line` (`text`: the line cleaned),
    /// `column` bytes into it.
    fn emit(
        &mut self,
        vi: usize,
        line: &Line<'_>,
        text: &[u8],
        column: usize,
        captures: Map<String, Value>,
    );
    /// Counts a line of an aggregating variant from its regex captures
    /// (each with the offset in `text` of what it ran on).
    fn aggregate_captures(
        &mut self,
        vi: usize,
        line: &Line<'_>,
        text: &[u8],
        caps: &[(&Captures<'_>, usize)],
    );
    /// Counts a line of an aggregating variant whose group keys and
    /// numeric captures (in the rule's order) `spans` writes as spans of
    /// `text` into the (cleared) buffer it is given.
    fn aggregate_spans(
        &mut self,
        vi: usize,
        line: &Line<'_>,
        text: &[u8],
        spans: impl FnOnce(&mut Vec<Option<(usize, usize)>>),
    );
    /// Drops the records of (rule index, line number) `claimed` says, and
    /// their counts (lines an earlier part of a split member recorded).
    fn drop_records(&mut self, claimed: impl Fn(usize, u64) -> bool);
    /// Puts the records in line order (records made at the member's end).
    fn sort_by_line(&mut self);
    /// The member, for coverage errors.
    fn members(&self) -> &[String];
}

/// A rule kind's compiled form and its steps on a member's lines. `vi` is
/// the variant's index in the rule set; `state` the kind's part of the
/// member's [`State`].
pub(crate) trait KindDef: Sized {
    /// Its name in a pack's `kind = "..."`.
    const NAME: &'static str;
    /// The keys of [`kind_keys`] its variants read; any other of them
    /// given is an error.
    const KEYS: &'static [&'static str];
    /// Whether its variants read `complete`.
    const COMPLETE: bool = false;
    /// Whether its variants run on the candidate lines the literal
    /// prefilter picks (literals derived or given feed them).
    const LINES: bool = true;
    /// What it keeps per member.
    type State: KindState;
    /// A variant of the kind as the pack gives it.
    fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<Self, String>;
    /// The pattern its prefilter literals are derived from where the
    /// variant gives none.
    fn key(_v: &VariantDef) -> Option<&str> {
        None
    }
    /// The regexes whose named groups become captures.
    fn regexes(&self) -> Vec<&PackRegex> {
        Vec::new()
    }
    /// Every regex it holds (built-in packs' test: each compiles).
    fn every_regex(&self) -> Vec<&PackRegex> {
        self.regexes()
    }
    /// Capture names it records beside its regexes' groups.
    fn names(&self) -> Vec<&str> {
        Vec::new()
    }
    /// What it looks for, by field, for `packs show`.
    fn patterns(&self) -> Vec<(&'static str, String)>;
    /// Its rule aggregates: `fields` are the group keys then the numeric
    /// captures; an error where the kind cannot.
    fn aggregated(&mut self, _fields: &[&str], _prefilter: &[String]) -> Result<(), String> {
        Ok(())
    }
    /// Whether `text` would start a record of it (past a part's end, such
    /// a line ends a record's wait for its `then` line).
    fn starts_record(&self, _text: &[u8]) -> bool {
        false
    }
    /// A candidate line of variant `vi` (its literal at `place`): whether
    /// the variant took it (the rule's later variants then pass over it).
    fn candidate<'s, O: Out<'s>>(
        &self,
        _vi: usize,
        _place: usize,
        _line: &Line<'_>,
        _text: &[u8],
        _state: &mut Self::State,
        _out: &mut O,
    ) -> bool {
        false
    }
}

/// What a kind keeps while it reads one member (or one part of a member
/// split across threads), and its steps that are not one variant's.
pub(crate) trait KindState: Sized {
    /// The state for a member read by the variants marked in `active`.
    fn new(variants: &[Variant], active: &[bool]) -> Self;
    /// Every line of the member is a candidate.
    fn every_line(&self) -> bool {
        false
    }
    /// Something is followed past the part's end (every line is then a
    /// candidate).
    fn following(&self) -> bool {
        false
    }
    /// Rule `rule` recorded this line already: its variants pass over it.
    fn took(&self, _rule: usize) -> bool {
        false
    }
    /// Each line (first window), before the rules run on it.
    fn each_line<'s, O: Out<'s>>(&mut self, _line: &Line<'_>, _text: &[u8], _out: &mut O) {}
    /// Each line past the part's end, while something is followed.
    fn overrun<'s, O: Out<'s>>(&mut self, _line: &Line<'_>, _text: &[u8], _out: &mut O) {}
    /// Takes in the state of the member's next part, whose results are
    /// `later_out` (not yet merged).
    fn append<'s, O: Out<'s>>(&mut self, _later: Self, _later_out: &mut O) {}
    /// At the member's end.
    fn end<'s, O: Out<'s>>(&mut self, _out: &mut O, _coverage: &mut Coverage) {}
}

/// The registry: one line per kind, `Name(module::Type)`; the first is a
/// variant's kind where it names none. Declares each kind's module and
/// generates [`Kind`], [`State`] and their dispatch.
macro_rules! kinds {
    ($($name:ident($module:ident :: $ty:ident)),+ $(,)?) => {
        $(pub(crate) mod $module;)+

        /// The rule kinds. An enum, not a trait object: the line kind runs
        /// on every candidate line of every member, where a `match` costs
        /// nothing and a virtual call per line would, and lets the compiler
        /// inline each kind's step; the kinds are few and known when the
        /// crate is built, and `kinds!` writes every dispatch on them.
        // Line variants are the many and the hot ones (every candidate
        // line): kept inline, not boxed, though they are the largest.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug)]
        pub enum Kind {
            $($name($module::$ty),)+
        }

        $(impl $module::$ty {
            /// The kind's compiled form in a variant's [`Kind`], if it is
            /// of this kind.
            #[allow(dead_code)]
            pub(crate) fn of(kind: &Kind) -> Option<&Self> {
                match kind {
                    Kind::$name(k) => Some(k),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        })+

        impl Kind {
            /// The kind's name, as `packs show` prints it.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Kind::$name(_) => stringify!($name),)+
                }
            }

            /// The regexes whose named groups become captures.
            pub fn regexes(&self) -> Vec<&PackRegex> {
                match self {
                    $(Kind::$name(k) => KindDef::regexes(k),)+
                }
            }

            /// Every regex the variant holds.
            pub fn every_regex(&self) -> Vec<&PackRegex> {
                match self {
                    $(Kind::$name(k) => KindDef::every_regex(k),)+
                }
            }

            /// Capture names recorded beside the regexes' groups.
            pub fn names(&self) -> Vec<&str> {
                match self {
                    $(Kind::$name(k) => KindDef::names(k),)+
                }
            }

            /// What the variant looks for, by field, for `packs show`.
            pub fn patterns(&self) -> Vec<(&'static str, String)> {
                match self {
                    $(Kind::$name(k) => KindDef::patterns(k),)+
                }
            }

            /// See [`KindDef::aggregated`].
            pub(crate) fn aggregated(
                &mut self,
                fields: &[&str],
                prefilter: &[String],
            ) -> Result<(), String> {
                match self {
                    $(Kind::$name(k) => KindDef::aggregated(k, fields, prefilter),)+
                }
            }

            /// See [`KindDef::starts_record`].
            pub(crate) fn starts_record(&self, text: &[u8]) -> bool {
                match self {
                    $(Kind::$name(k) => KindDef::starts_record(k, text),)+
                }
            }

            /// The kind named `name` compiled from `v`, and the pattern
            /// its literals derive from; `None`: no such kind.
            fn compile<'v>(
                name: &str,
                v: &'v VariantDef,
                re: &mut Regexes<'_>,
            ) -> Option<Result<(Kind, Option<&'v str>), String>> {
                $(if name == <$module::$ty as KindDef>::NAME {
                    return Some(
                        keys_read::<$module::$ty>(v)
                            .and_then(|()| <$module::$ty as KindDef>::compile(v, re))
                            .map(|k| (Kind::$name(k), <$module::$ty as KindDef>::key(v))),
                    );
                })+
                None
            }

            /// See [`KindDef::LINES`].
            pub(crate) fn reads_lines(&self) -> bool {
                match self {
                    $(Kind::$name(_) => <$module::$ty as KindDef>::LINES,)+
                }
            }

            /// Whether the kind named `name` reads `complete`.
            fn takes_complete(name: &str) -> bool {
                $(name == <$module::$ty as KindDef>::NAME
                    && <$module::$ty as KindDef>::COMPLETE)||+
            }

            /// Every kind's name, for an error.
            fn names_known() -> &'static [&'static str] {
                &[$(<$module::$ty as KindDef>::NAME),+]
            }
        }

        /// What a member's scan keeps per kind, each kind's part defined in
        /// its file (a field per kind, named by its module). Not an enum or
        /// a list of `dyn` states: one member is read by every kind at once
        /// (a line can open a block, match a line rule and belong to a json
        /// document), the line kind's part is touched on every candidate
        /// line where a field access costs nothing and a virtual call
        /// would, and a split member's parts are merged kind by kind in
        /// `append`. Each method runs the kinds' hooks in registry order.
        #[derive(Debug)]
        pub(crate) struct State {
            $(pub(crate) $module: <$module::$ty as KindDef>::State,)+
        }

        impl State {
            /// The state for a member read by the variants marked in `active`.
            pub(crate) fn new(variants: &[Variant], active: &[bool]) -> State {
                State {
                    $($module: KindState::new(variants, active),)+
                }
            }

            /// See [`KindState::every_line`].
            pub(crate) fn every_line(&self) -> bool {
                $(KindState::every_line(&self.$module))||+
            }

            /// See [`KindState::following`].
            #[inline]
            pub(crate) fn following(&self) -> bool {
                $(KindState::following(&self.$module))||+
            }

            /// See [`KindState::took`].
            #[inline]
            pub(crate) fn took(&self, rule: usize) -> bool {
                $(KindState::took(&self.$module, rule))||+
            }

            /// Variant `vi` (of kind `kind`) on a candidate line: see
            /// [`KindDef::candidate`].
            #[inline]
            pub(crate) fn candidate<'s, O: Out<'s>>(
                &mut self,
                kind: &Kind,
                vi: usize,
                place: usize,
                line: &Line<'_>,
                text: &[u8],
                out: &mut O,
            ) -> bool {
                match kind {
                    $(Kind::$name(k) => {
                        KindDef::candidate(k, vi, place, line, text, &mut self.$module, out)
                    })+
                }
            }

            /// See [`KindState::each_line`].
            #[inline]
            pub(crate) fn each_line<'s, O: Out<'s>>(
                &mut self,
                line: &Line<'_>,
                text: &[u8],
                out: &mut O,
            ) {
                $(KindState::each_line(&mut self.$module, line, text, out);)+
            }

            /// See [`KindState::overrun`].
            pub(crate) fn overrun<'s, O: Out<'s>>(
                &mut self,
                line: &Line<'_>,
                text: &[u8],
                out: &mut O,
            ) {
                $(KindState::overrun(&mut self.$module, line, text, out);)+
            }

            /// Takes in the state of the member's next part (see
            /// [`KindState::append`]).
            pub(crate) fn append<'s, O: Out<'s>>(&mut self, later: State, later_out: &mut O) {
                $(KindState::append(&mut self.$module, later.$module, later_out);)+
            }

            /// See [`KindState::end`].
            pub(crate) fn end<'s, O: Out<'s>>(&mut self, out: &mut O, coverage: &mut Coverage) {
                $(KindState::end(&mut self.$module, out, coverage);)+
            }
        }
    };
}

kinds! {
    Line(line::LineMatch),
    Block(block::BlockMatch),
    Json(json::JsonMatch),
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

/// The variant keys only some kinds read, each with whether `v` gives it,
/// in the order an error names them. A new kind's new key (a field of
/// `VariantDef`, the pack's format) is added here too.
fn kind_keys(v: &VariantDef) -> [(&'static str, bool); 14] {
    [
        ("regex", v.regex.is_some()),
        ("each", v.each.is_some()),
        ("start", v.start.is_some()),
        ("end", v.end.is_some()),
        ("dump", v.dump.is_some()),
        ("keys", v.keys.is_some()),
        ("carry", !v.carry.is_empty()),
        ("indent", v.indent.is_some()),
        ("at", v.at.is_some()),
        ("key", v.key.is_some()),
        ("fields", v.fields.is_some()),
        ("cite", v.cite.is_some()),
        ("json_lines", v.json_lines),
        ("prefilter", v.prefilter.is_some()),
    ]
}

/// Keys of other kinds must not be given to a variant of kind `K`, where
/// they would silently mean nothing: the first given is an error.
fn keys_read<K: KindDef>(v: &VariantDef) -> Result<(), String> {
    match kind_keys(v)
        .iter()
        .find(|(k, given)| *given && !K::KEYS.contains(k))
    {
        Some((k, _)) => Err(format!("`{k}` has no meaning in a {} variant", K::NAME)),
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
    // The first kind of the registry where the variant names none.
    let name = v.kind.as_deref().unwrap_or(Kind::names_known()[0]);
    if v.complete && !Kind::takes_complete(name) {
        return Err("`complete` needs a block variant with `end`".into());
    }
    let mut re = Regexes { names, eager };
    // Its compiled form, and the pattern its literals are derived from
    // where the variant gives no `prefilter`.
    let Some(kind) = Kind::compile(name, v, &mut re) else {
        return Err(format!(
            "unknown kind {name:?} ({})",
            Kind::names_known().join(", ")
        ));
    };
    let (kind, key) = kind?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::compile::Selection;

    fn compile(variant: &str) -> Result<RuleSet, String> {
        let src = format!("name = \"p\"\nversion = \"1\"\n[[rule]]\nid = \"r\"\n{variant}\n");
        let pack = crate::pack::parse_pack("t.toml", &src).map_err(|e| e.to_string())?;
        RuleSet::compile(&[pack], &Selection::all()).map_err(|e| e.to_string())
    }

    /// A variant given a key only other kinds read is refused, the first
    /// such key named; every key a kind says it reads is one the check
    /// knows (a misspelt one would refuse the kind's own key).
    #[test]
    fn a_kind_refuses_the_keys_of_the_others() {
        for (variant, key, kind) in [
            ("regex = 'x'\nat = '/a'\nstart = 'y'", "start", "line"),
            ("regex = 'x'\njson_lines = true", "json_lines", "line"),
            (
                "kind = \"block\"\nstart = 'a'\neach = 'b'\nkeys = ['k']\nat = '/a'",
                "keys",
                "block",
            ),
            (
                "kind = \"json\"\nmembers = ['*.json']\nfields = { v = '/v' }\nprefilter = ['x']",
                "prefilter",
                "json",
            ),
            (
                "kind = \"json\"\nmembers = ['*.json']\nfields = { v = '/v' }\nend = 'x'\nregex = 'y'",
                "regex",
                "json",
            ),
        ] {
            let err = compile(variant).expect_err(variant);
            assert!(
                err.ends_with(&format!("`{key}` has no meaning in a {kind} variant")),
                "{variant}: {err}"
            );
        }
        let dump = compile("regex = 'x'\neach = 'y'\ndump = 'z'").expect_err("no group z");
        assert!(
            dump.ends_with("dump: `regex` has no group named z"),
            "{dump}"
        );
        compile("kind = \"block\"\nstart = 'a'\neach = 'b'\nend = 'c'\ncarry = ['d']")
            .expect("block");
        let known = kind_keys(&VariantDef::default()).map(|(k, _)| k);
        for k in [
            line::LineMatch::KEYS,
            block::BlockMatch::KEYS,
            json::JsonMatch::KEYS,
        ]
        .concat()
        {
            assert!(known.contains(&k), "{k}");
        }
    }
}
