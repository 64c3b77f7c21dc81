//! Compiling packs into one matcher: every rule's literals go into one
//! Aho-Corasick automaton that finds candidate lines in whole buffers; only
//! the rules whose literal occurs on a line run their regex there.

use super::{LoadedPack, PackError, VariantDef};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::onepass::{OnePass, Spans};
use globset::GlobSet;
use regex::bytes::{Captures, Regex, RegexBuilder};
use serde_json::{Map, Value};
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, OnceLock};

/// Type of a named capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapType {
    Int,
    Float,
    Str,
    Bool,
    IntList,
    /// A string whose one pair of surrounding quotes (`"` or `'`) is
    /// dropped: a JSON or shell value captured whole, quoted or not (`"1"`,
    /// `'1'` and `1` alike).
    Unquoted,
}

impl CapType {
    pub fn parse(s: &str) -> Option<CapType> {
        Some(match s {
            "int" => CapType::Int,
            "float" => CapType::Float,
            "string" => CapType::Str,
            "bool" => CapType::Bool,
            "int_list" => CapType::IntList,
            "unquoted" => CapType::Unquoted,
            _ => return None,
        })
    }

    /// The typed JSON value of a captured string; `null` if it does not parse.
    pub fn convert(self, s: &str) -> Value {
        let t = s.trim();
        match self {
            CapType::Str => Value::String(s.to_string()),
            CapType::Unquoted => Value::String(
                ['"', '\'']
                    .iter()
                    .find_map(|q| s.strip_prefix(*q)?.strip_suffix(*q))
                    .unwrap_or(s)
                    .to_string(),
            ),
            CapType::Int => {
                let digits: String = t.chars().filter(|c| *c != ',' && *c != '_').collect();
                digits
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or(Value::Null)
            }
            CapType::Float => t
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Value::from)
                .unwrap_or(Value::Null),
            CapType::Bool => match t.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Value::Bool(true),
                "false" | "0" | "no" | "off" | "" => Value::Bool(false),
                _ => Value::Null,
            },
            CapType::IntList => {
                let mut list = Vec::new();
                let mut cur: Option<i64> = None;
                let mut neg = false;
                for c in t.chars() {
                    if let Some(d) = c.to_digit(10) {
                        cur = Some(cur.unwrap_or(0).saturating_mul(10).saturating_add(d as i64));
                    } else {
                        if let Some(n) = cur.take() {
                            list.push(Value::from(if neg { -n } else { n }));
                        }
                        neg = c == '-';
                    }
                }
                if let Some(n) = cur {
                    list.push(Value::from(if neg { -n } else { n }));
                }
                Value::Array(list)
            }
        }
    }
}

/// How a variant finds its events: the rule kinds. A new kind is one arm
/// here, its compile in [`compile_variant`] and its match in the scan.
// Line variants are the many and the hot ones (every candidate line):
// kept inline, not boxed, though they are the largest.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Matcher {
    /// A line matching `regex` (with `each`: one event per match of `each`
    /// inside the regex's match).
    Line(LineMatch),
    /// A line matching `start`, then each following line matching `each`
    /// until `end`, a line matching neither, or the member's end.
    Block(BlockMatch),
    /// Fields of a JSON document or JSON Lines member, read by path.
    Json(super::kind::json::JsonMatch),
}

#[derive(Debug)]
pub struct LineMatch {
    pub regex: PackRegex,
    pub each: Option<PackRegex>,
    /// For the line variants of aggregating rules (the most frequent lines).
    pub anchored: Option<AnchoredRegex>,
    /// With `anchored` and a single prefilter literal: how far into a match
    /// that literal can begin, at most. No match then begins more than this
    /// before the literal's first place on the line (a [`Hit`]'s place), so
    /// the anchor is looked for from there, not from the line's start.
    pub lead: Option<usize>,
    /// The capture group that holds a repr/dict dump, and the keys to keep.
    pub dump: Option<(String, Option<Vec<String>>)>,
}

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
}

#[derive(Debug)]
pub struct Variant {
    pub rule: usize,
    pub matcher: Matcher,
    pub set: Map<String, Value>,
    pub members: Option<GlobSet>,
    pub member_globs: Vec<String>,
    /// Literals one of which every matching line contains; empty: none.
    pub prefilter: Vec<String>,
    pub prefilter_explicit: bool,
    /// The rule's `exclude` regexes: a line matching one is no event.
    pub exclude: Vec<PackRegex>,
}

impl Variant {
    /// Whether the rule says this line is not one of its events.
    #[inline]
    pub fn excluded(&self, text: &[u8]) -> bool {
        self.exclude.iter().any(|re| re.is_match(text))
    }

    /// The anchored form of an aggregating line variant's regex.
    pub fn anchored(&self) -> Option<&AnchoredRegex> {
        match &self.matcher {
            Matcher::Line(l) => l.anchored.as_ref(),
            _ => None,
        }
    }

    /// The regexes whose named groups become captures.
    pub fn regexes(&self) -> Vec<&PackRegex> {
        match &self.matcher {
            Matcher::Line(l) => [Some(&l.regex), l.each.as_ref()]
                .into_iter()
                .flatten()
                .collect(),
            Matcher::Block(b) => vec![&b.start, &b.each],
            Matcher::Json(_) => Vec::new(),
        }
    }

    /// The kind's name, as `packs show` prints it.
    pub fn kind_name(&self) -> &'static str {
        match &self.matcher {
            Matcher::Line(_) => "Line",
            Matcher::Block(_) => "Block",
            Matcher::Json(_) => "Json",
        }
    }

    /// What the variant looks for, by field, for `packs show`.
    pub fn patterns(&self) -> Vec<(&'static str, String)> {
        let re = |n: &'static str, r: &PackRegex| (n, r.as_str().to_string());
        match &self.matcher {
            Matcher::Line(l) => [
                Some(re("regex", &l.regex)),
                l.each.as_ref().map(|e| re("each", e)),
            ]
            .into_iter()
            .flatten()
            .collect(),
            Matcher::Block(b) => [
                Some(re("start", &b.start)),
                Some(re("each", &b.each)),
                b.end.as_ref().map(|e| re("end", e)),
            ]
            .into_iter()
            .flatten()
            .collect(),
            Matcher::Json(j) => j.describe(),
        }
    }

    /// Whether this variant reads whole documents rather than lines.
    pub fn is_json(&self) -> bool {
        matches!(self.matcher, Matcher::Json(_))
    }

    /// The dump group and its keys, for a line variant that reads one.
    pub fn dump(&self) -> Option<&(String, Option<Vec<String>>)> {
        match &self.matcher {
            Matcher::Line(l) => l.dump.as_ref(),
            _ => None,
        }
    }
}

/// A line regex every match of which begins with one literal: it runs
/// anchored at that literal's places (found with memmem from where the
/// prefilter saw the variant's literal, less the pattern's bounded lead:
/// see [`Variant::lead`]), which skips the
/// forward-then-reverse search for the match bounds.
#[derive(Debug)]
pub struct AnchoredRegex {
    literal: memchr::memmem::Finder<'static>,
    re: regex_automata::meta::Regex,
    /// The same pattern as a forward walk, where it has one (no regex run
    /// on the lines it matches).
    onepass: Option<OnePass>,
    /// Capture group index by name.
    groups: Vec<(String, usize)>,
    /// The group of each of the rule's fields (aggregate keys, then numeric
    /// captures) by position: looked up once, not by name on every line.
    fields: Vec<Option<usize>>,
}

/// Reusable match slots of an [`AnchoredRegex`]: the walk's or the regex's.
#[derive(Debug)]
pub struct AnchoredCaptures {
    caps: regex_automata::util::captures::Captures,
    spans: Spans,
    walked: bool,
    /// Regex searches run so far (linearity is tested by this count).
    pub(crate) searches: usize,
}

impl AnchoredRegex {
    /// `fields`: the names [`Self::field_span`] asks for by position.
    fn new(src: &str, fields: &[&str]) -> Option<AnchoredRegex> {
        use regex_automata::{meta, util::syntax};
        let literal = anchor_literal(src)?;
        let re = meta::Regex::builder()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .configure(meta::Config::new().nfa_size_limit(Some(32 << 20)))
            .build(src)
            .ok()?;
        let groups: Vec<(String, usize)> = re
            .group_info()
            .pattern_names(regex_automata::PatternID::ZERO)
            .enumerate()
            .filter_map(|(i, n)| Some((n?.to_string(), i)))
            .collect();
        let fields = fields
            .iter()
            .map(|f| groups.iter().find(|(n, _)| n == f).map(|(_, g)| *g))
            .collect();
        Some(AnchoredRegex {
            literal: memchr::memmem::Finder::new(&literal).into_owned(),
            re,
            onepass: OnePass::new(src),
            groups,
            fields,
        })
    }

    pub fn new_captures(&self) -> AnchoredCaptures {
        AnchoredCaptures {
            caps: self.re.create_captures(),
            spans: self
                .onepass
                .as_ref()
                .map_or_else(Vec::new, OnePass::new_spans),
            walked: false,
            searches: 0,
        }
    }

    /// Whether lines it matches are matched without running a regex.
    pub fn walks(&self) -> bool {
        self.onepass.is_some()
    }

    /// How far into a match the literal `lit` can begin, at most (see
    /// [`Variant::lead`]).
    pub fn lead(&self, lit: &str) -> Option<usize> {
        if self.literal.needle() == lit.as_bytes() {
            return Some(0);
        }
        self.onepass.as_ref()?.lead(lit.as_bytes())
    }

    /// The leftmost-first match in `text`, the one the unanchored regex
    /// finds, where no match begins before `from`: at the first place of
    /// the literal where the regex matches. Only the literal's first place
    /// is tried anchored (where real lines match); past it one unanchored
    /// search finds the same match. Retrying anchored at every place would
    /// be quadratic on a line that repeats the literal (a `.*?` runs to the
    /// line's end each time).
    pub fn captures(&self, text: &[u8], from: usize, caps: &mut AnchoredCaptures) -> bool {
        use regex_automata::{Anchored, Input};
        caps.walked = false;
        let from = from.min(text.len());
        // The literal is usually right there (`from` is where the prefilter
        // saw it): no search.
        let at = if super::onepass::has_prefix(&text[from..], self.literal.needle()) {
            Some(from)
        } else {
            self.literal.find(&text[from..]).map(|i| from + i)
        };
        let Some(at) = at else {
            caps.caps.set_pattern(None);
            return false;
        };
        // The walk finds what the anchored regex finds (see `onepass`), so
        // where it fails only the unanchored search remains.
        let tried = match &self.onepass {
            Some(walk) => {
                if walk.matches_at(text, at, &mut caps.spans) {
                    caps.walked = true;
                    return true;
                }
                true
            }
            None => false,
        };
        if !tried {
            let input = Input::new(text)
                .span(at..text.len())
                .anchored(Anchored::Yes);
            caps.searches += 1;
            self.re.search_captures(&input, &mut caps.caps);
            if caps.caps.is_match() {
                return true;
            }
        }
        if at + 1 >= text.len() {
            caps.caps.set_pattern(None);
            return false;
        }
        let rest = Input::new(text).span(at + 1..text.len());
        caps.searches += 1;
        self.re.search_captures(&rest, &mut caps.caps);
        caps.caps.is_match()
    }

    /// The bytes of group `name` of the match in `caps`.
    pub fn group<'t>(
        &self,
        text: &'t [u8],
        caps: &AnchoredCaptures,
        name: &str,
    ) -> Option<&'t [u8]> {
        let (_, g) = self.groups.iter().find(|(n, _)| n == name)?;
        Self::at(text, caps, *g)
    }

    /// How many fields [`Self::field_span`] knows (see [`Self::new`]).
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// Where the rule's field number `i` is in the text of the match in
    /// `caps`, if it took part.
    pub fn field_span(&self, caps: &AnchoredCaptures, i: usize) -> Option<(usize, usize)> {
        Self::span(caps, (*self.fields.get(i)?)?)
    }

    fn at<'t>(text: &'t [u8], caps: &AnchoredCaptures, g: usize) -> Option<&'t [u8]> {
        Self::span(caps, g).map(|(s, e)| &text[s..e])
    }

    /// Group `g`'s span, from the walk's slots or the regex's.
    fn span(caps: &AnchoredCaptures, g: usize) -> Option<(usize, usize)> {
        if caps.walked {
            return caps.spans.get(g).copied().flatten();
        }
        caps.caps.get_group(g).map(|s| (s.start, s.end))
    }
}

#[derive(Debug)]
pub struct Rule {
    pub id: String,
    pub pack: String,
    pub pack_version: String,
    pub description: String,
    /// Where the rule's formats come from (engine files, versions).
    pub source: Option<String>,
    pub tags: Vec<String>,
    /// Run only when asked for (see `RuleDef::opt_in`).
    pub opt_in: bool,
    pub captures: BTreeMap<String, CapType>,
    pub aggregate: Vec<String>,
    /// Whether `aggregate` groups by rank, and the positions in it of the
    /// other keys (captures), worked out once rather than on every line.
    pub by_rank: bool,
    pub capture_keys: Vec<usize>,
    /// The numeric captures (int, float): what aggregates summarise.
    pub numeric: Vec<String>,
    pub variants: Vec<usize>,
    /// The line that completes a record (see `RuleDef::then`).
    pub then: Option<PackRegex>,
    pub examples: Vec<super::ExampleDef>,
    pub file: String,
    pub line: usize,
}

/// All selected rules, compiled.
#[derive(Debug)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    pub variants: Vec<Variant>,
    /// Literal matchers by the set of variants active in a member (a log and
    /// an env dump see different literals), built on first use.
    literals: Mutex<Vec<(Vec<bool>, Arc<Literals>)>>,
    /// Fingerprint of the rules (packs' names, versions and text).
    pub fingerprint: String,
}

/// Which rules to keep: `--only`, `--skip` and `--with` globs over rule
/// ids. Opt-in rules are kept only where `--with` or `--only` names them.
#[derive(Debug, Default, Clone)]
pub struct Selection {
    pub only: Vec<String>,
    pub skip: Vec<String>,
    pub with: Vec<String>,
}

impl Selection {
    /// Every rule, opt-in ones included (`packs list`, `test`, `lint`).
    pub fn all() -> Selection {
        Selection {
            with: vec!["*".into()],
            ..Selection::default()
        }
    }
}

/// Rule-id globs (`--only`, `--skip`, `--with`) and a rule's `members`
/// globs: the one dialect of [`crate::member_glob`] (`*` stays inside a
/// path component; a rule id has none).
fn globs(pats: &[String]) -> Result<Option<GlobSet>, globset::Error> {
    crate::member_glob::glob_set(pats)
}

fn build_regex(src: &str) -> Result<Regex, regex::Error> {
    // The regex crate is linear-time; the size limit bounds compile memory.
    // ASCII classes (`\d`, `\w`, `\b`) are what log lines need and run
    // several times faster than their Unicode forms.
    RegexBuilder::new(src)
        .unicode(false)
        .size_limit(32 << 20)
        .build()
}

/// A rule's regex. A built-in pack's regexes are compiled when a scan
/// first runs them: most rules see no candidate line in a given input, and
/// compiling every one took most of a scan's start-up. They cannot fail
/// then: a test compiles every one (`every_builtin_regex_compiles`), and
/// their syntax and group names are read at load. Other packs' regexes are
/// compiled at load, so that a size limit is an error there, not later.
/// Clones share the compiled regex.
#[derive(Clone)]
pub struct PackRegex(Arc<Lazy>);

struct Lazy {
    src: Box<str>,
    /// Its named groups, in order.
    names: Box<[String]>,
    compiled: OnceLock<Regex>,
}

impl PackRegex {
    /// The regex of `src`; `eager`: compiled now.
    fn new(src: &str, eager: bool) -> Result<PackRegex, String> {
        let compiled = OnceLock::new();
        let names = if eager {
            let re = build_regex(src).map_err(|e| e.to_string())?;
            let names = re.capture_names().flatten().map(str::to_string).collect();
            let _ = compiled.set(re);
            names
        } else {
            group_names(src)?
        };
        Ok(PackRegex(Arc::new(Lazy {
            src: src.into(),
            names: names.into(),
            compiled,
        })))
    }

    /// The pattern as written (compiles nothing).
    pub fn as_str(&self) -> &str {
        &self.0.src
    }

    /// Its named groups, in order (compiles nothing).
    pub fn names(&self) -> &[String] {
        &self.0.names
    }

    /// Whether the regex has been compiled (tests).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.0.compiled.get().is_some()
    }
}

impl std::ops::Deref for PackRegex {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        self.0.compiled.get_or_init(|| {
            build_regex(&self.0.src)
                .expect("a built-in pack's regex compiles (every_builtin_regex_compiles)")
        })
    }
}

impl std::fmt::Debug for PackRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The named groups of `src`, in order, read from its syntax with the
/// flags of [`build_regex`] (a syntax error is the same error).
fn group_names(src: &str) -> Result<Vec<String>, String> {
    use regex_syntax::hir::{Hir, HirKind};
    fn walk(h: &Hir, out: &mut Vec<String>) {
        match h.kind() {
            HirKind::Capture(c) => {
                if let Some(n) = &c.name {
                    out.push(n.to_string());
                }
                walk(&c.sub, out);
            }
            HirKind::Repetition(r) => walk(&r.sub, out),
            HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().for_each(|h| walk(h, out)),
            HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(src)
        .map_err(|e| regex::Error::Syntax(e.to_string()).to_string())?;
    let mut out = Vec::new();
    walk(&hir, &mut out);
    Ok(out)
}

/// The literal prefixes of `src`'s matches, as regex-syntax extracts them.
fn prefix_literals(src: &str) -> Option<regex_syntax::hir::literal::Seq> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new().build().parse(src).ok()?;
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix);
    Some(ex.extract(&hir))
}

/// The literal every match of `src` begins with (the common prefix of its
/// prefix literals: ` graph: ` for ` graph: (True|False), ...`), if it is
/// long enough to search for.
fn anchor_literal(src: &str) -> Option<Vec<u8>> {
    let seq = prefix_literals(src)?;
    let lcp = seq.longest_common_prefix()?;
    (lcp.trim_ascii().len() >= 3).then(|| lcp.to_vec())
}

/// Literal prefixes every match starts with, if the regex has a small set of them.
pub(crate) fn derive_literals(src: &str) -> Vec<String> {
    let Some(seq) = prefix_literals(src) else {
        return Vec::new();
    };
    let Some(lits) = seq.literals() else {
        return Vec::new();
    };
    let out: Vec<String> = lits
        .iter()
        .filter_map(|l| std::str::from_utf8(l.as_bytes()).ok().map(str::to_string))
        .collect();
    // Too short or too many literals filter nothing.
    if out.is_empty()
        || out.len() > 16
        || out.iter().any(|l| l.trim().len() < 3)
        || out.len() != lits.len()
    {
        return Vec::new();
    }
    out
}

impl RuleSet {
    pub fn compile(packs: &[LoadedPack], sel: &Selection) -> Result<RuleSet, PackError> {
        let only = globs(&sel.only).map_err(|e| PackError::Parse {
            file: "--only".into(),
            message: e.to_string(),
        })?;
        let skip = globs(&sel.skip).map_err(|e| PackError::Parse {
            file: "--skip".into(),
            message: e.to_string(),
        })?;
        let with = globs(&sel.with).map_err(|e| PackError::Parse {
            file: "--with".into(),
            message: e.to_string(),
        })?;
        let mut rules: Vec<Rule> = Vec::new();
        let mut variants = Vec::new();
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut fp = sha2::Sha256::new();
        for pack in packs {
            let eager = !pack.builtin;
            fp.update(pack.def.name.as_bytes());
            fp.update(pack.def.version.as_bytes());
            fp.update(pack.source.as_bytes());
            for def in &pack.def.rules {
                let id = def.id.get_ref().clone();
                let line = pack.line_of(def.id.span().start);
                let err = |message: String| PackError::Rule {
                    file: pack.file.clone(),
                    line,
                    rule: id.clone(),
                    message,
                };
                if let Some(other) = seen.insert(id.clone(), pack.file.clone()) {
                    return Err(err(format!("duplicate rule id (also in {other})")));
                }
                let named = |g: &Option<GlobSet>| g.as_ref().is_some_and(|g| g.is_match(&id));
                if only.as_ref().is_some_and(|g| !g.is_match(&id))
                    || named(&skip)
                    || (def.opt_in && !named(&with) && !named(&only))
                {
                    continue;
                }
                let rule_index = rules.len();
                let mut names = BTreeSet::new();
                let mut vids = Vec::new();
                let vdefs = def.variant_defs();
                if vdefs.is_empty() {
                    return Err(err("no regex, block or variant".into()));
                }
                let exclude = def
                    .exclude
                    .iter()
                    .map(|src| PackRegex::new(src, eager).map_err(|e| err(format!("exclude: {e}"))))
                    .collect::<Result<Vec<_>, _>>()?;
                // A dump without `keys` may yield any field name.
                let mut any_name = false;
                for v in &vdefs {
                    let mut var = compile_variant(rule_index, v, &mut names, eager).map_err(err)?;
                    any_name |= var.dump().is_some_and(|(_, k)| k.is_none());
                    var.exclude = exclude.clone();
                    vids.push(variants.len());
                    variants.push(var);
                }
                let then = match &def.then {
                    None => None,
                    Some(src) => {
                        let re =
                            PackRegex::new(src, eager).map_err(|e| err(format!("then: {e}")))?;
                        names.extend(re.names().iter().cloned());
                        Some(re)
                    }
                };
                if then.is_some() && !def.aggregate.is_empty() {
                    return Err(err("a rule with `then` cannot aggregate".into()));
                }
                if !def.aggregate.is_empty() && vdefs.iter().any(|v| v.dump.is_some()) {
                    return Err(err("a rule with a `dump` cannot aggregate".into()));
                }
                let mut captures = BTreeMap::new();
                for (name, ty) in &def.captures {
                    let t = CapType::parse(ty).ok_or_else(|| {
                        err(format!("capture {name}: unknown type {ty:?} (int, float, string, bool, int_list, unquoted)"))
                    })?;
                    if !names.contains(name) && !any_name {
                        return Err(err(format!(
                            "capture {name} is typed but no regex names it"
                        )));
                    }
                    captures.insert(name.clone(), t);
                }
                for key in &def.aggregate {
                    if key != "rank" && !names.contains(key) {
                        return Err(err(format!(
                            "aggregate key {key} is neither \"rank\" nor a capture"
                        )));
                    }
                }
                let numeric: Vec<String> = captures
                    .iter()
                    .filter(|(_, t)| matches!(t, CapType::Int | CapType::Float))
                    .map(|(n, _)| n.clone())
                    .collect();
                if !def.aggregate.is_empty() {
                    let fields: Vec<&str> = def
                        .aggregate
                        .iter()
                        .chain(&numeric)
                        .map(String::as_str)
                        .collect();
                    for &vi in &vids {
                        let v: &mut Variant = &mut variants[vi];
                        match &mut v.matcher {
                            Matcher::Line(l) if l.each.is_none() => {
                                l.anchored = AnchoredRegex::new(l.regex.as_str(), &fields);
                                l.lead = match (&l.anchored, v.prefilter.as_slice()) {
                                    (Some(a), [lit]) => a.lead(lit),
                                    _ => None,
                                };
                            }
                            Matcher::Json(_) => {
                                return Err(err("a json rule cannot aggregate".into()));
                            }
                            _ => {}
                        }
                    }
                }
                rules.push(Rule {
                    id,
                    pack: pack.def.name.clone(),
                    pack_version: pack.def.version.clone(),
                    description: def.description.clone(),
                    source: def.source.clone(),
                    tags: def.tags.clone(),
                    opt_in: def.opt_in,
                    numeric,
                    captures,
                    by_rank: def.aggregate.iter().any(|k| k == "rank"),
                    capture_keys: (0..def.aggregate.len())
                        .filter(|&i| def.aggregate[i] != "rank")
                        .collect(),
                    aggregate: def.aggregate.clone(),
                    variants: vids,
                    then,
                    examples: def.examples.clone(),
                    file: pack.file.clone(),
                    line,
                });
            }
        }
        Ok(RuleSet {
            rules,
            variants,
            literals: Mutex::new(Vec::new()),
            fingerprint: crate::drive::hex(&fp.finalize())[..16].to_string(),
        })
    }

    /// Which variants apply to a member (by its innermost name).
    pub fn active_for(&self, name: &str) -> Vec<bool> {
        let bare = strip_compression(name);
        self.variants
            .iter()
            .map(|v| match &v.members {
                None => true,
                Some(g) => g.is_match(name) || g.is_match(bare) || g.is_match(basename(bare)),
            })
            .collect()
    }

    /// The literal matcher for the variants in `active`.
    pub fn literals_for(&self, active: &[bool]) -> Arc<Literals> {
        let mut cache = self.literals.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, l)) = cache.iter().find(|(a, _)| a == active) {
            return l.clone();
        }
        let l = Arc::new(Literals::new(&self.variants, active));
        cache.push((active.to_vec(), l.clone()));
        l
    }

    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The captures rule `id` can record (None: no such rule; Some(None):
    /// any name, for a rule that reads a dump's fields without a `keys`
    /// list): named groups of its regexes, the keys its dumps keep,
    /// constants it sets, declared types.
    pub(crate) fn capture_names(&self, id: &str) -> Option<Option<BTreeSet<String>>> {
        let rule = self.rule(id)?;
        let mut names: BTreeSet<String> = rule.captures.keys().cloned().collect();
        for &vi in &rule.variants {
            let v = &self.variants[vi];
            // A dump records only its `keys` (when listed): those are
            // names it can record, so a mistyped one is caught too.
            let dumped = match v.dump() {
                Some((group, Some(keys))) => Some((group, keys)),
                Some((_, None)) => return Some(None),
                None => None,
            };
            for re in v.regexes() {
                names.extend(re.names().iter().cloned());
            }
            // Its text group is not recorded itself.
            if let Some((group, keys)) = dumped {
                names.remove(group);
                names.extend(keys.iter().cloned());
            }
            if let Matcher::Json(j) = &v.matcher {
                names.extend(j.names().map(str::to_string));
            }
            names.extend(v.set.keys().cloned());
        }
        Some(Some(names))
    }

    /// Typed captures of a record made from named texts rather than regex
    /// groups (an entry the indented block kind pairs across lines), with
    /// the variant's constants, converted by the rule's types.
    pub fn named_captures(&self, v: &Variant, named: &[(&str, &str)]) -> Map<String, Value> {
        let rule = &self.rules[v.rule];
        let mut map = Map::new();
        for (name, text) in named {
            let value = match rule.captures.get(*name) {
                Some(t) => t.convert(text),
                None => Value::String(text.to_string()),
            };
            map.insert(name.to_string(), value);
        }
        for (k, val) in &v.set {
            map.insert(k.clone(), val.clone());
        }
        map
    }

    /// Typed captures of a record: named groups of `caps` (then `more`), the
    /// variant's constants, converted by the rule's types.
    pub fn captures(
        &self,
        v: &Variant,
        sources: &[&Captures<'_>],
        regexes: &[&Regex],
    ) -> Map<String, Value> {
        let rule = &self.rules[v.rule];
        let mut map = Map::new();
        for (caps, re) in sources.iter().zip(regexes) {
            for name in re.capture_names().flatten() {
                if let Some(m) = caps.name(name) {
                    let s = String::from_utf8_lossy(m.as_bytes());
                    let value = match rule.captures.get(name) {
                        Some(t) => t.convert(&s),
                        None => Value::String(s.into_owned()),
                    };
                    map.insert(name.to_string(), value);
                }
            }
        }
        if let Some((group, keys)) = v.dump() {
            let text = sources.iter().find_map(|c| c.name(group));
            map.remove(group);
            for (k, val) in text
                .map(|m| super::dump::fields(m.as_bytes()))
                .unwrap_or_default()
            {
                // `None` is "not set": absent, as for a field not printed.
                if val == "None" || keys.as_ref().is_some_and(|ks| !ks.contains(&k)) {
                    continue;
                }
                let value = match rule.captures.get(&k) {
                    Some(t) => t.convert(&val),
                    None => Value::String(val),
                };
                map.insert(k, value);
            }
        }
        for (k, val) in &v.set {
            map.insert(k.clone(), val.clone());
        }
        map
    }
}

/// Most literals one SIMD (Teddy) searcher takes; past about 64 it cannot
/// be built. Fewer per searcher means fewer false candidates, but every
/// searcher is one more pass over the text: on a decode-heavy log 24 cost
/// 9% more instructions than 32 (three cold passes instead of two), 12
/// and 64 more still; on environment dumps 32 was as good.
const GROUP: usize = 32;

/// The literals of some variants, in groups searched separately with SIMD:
/// where the next candidate line is, and which variants a line may feed.
#[derive(Debug)]
pub struct Literals {
    groups: Vec<Group>,
    /// Variants without any literal: they see every line.
    unfiltered: Vec<usize>,
    /// Per pair of adjacent bytes (`a` then `b`: index `a << 8 | b`), 1 +
    /// its index in `straddling` if some literal holds it, else 0.
    pairs: Box<[u16]>,
    /// Per such pair, the places it is inside literals.
    straddling: Vec<Vec<Straddle>>,
}

/// A literal that holds a pair of bytes: a literal across a join in a
/// cleaned line whose pair is the bytes either side of the join.
#[derive(Debug, Clone, Copy)]
struct Straddle {
    group: u32,
    literal: u32,
    /// Index of the pair's second byte in the literal.
    at: u32,
    len: u32,
    /// Its first and last bytes: most candidates fail on these.
    ends: [u8; 2],
}

#[derive(Debug)]
struct Group {
    finder: Finder,
    /// Per literal of the group, the variants it and the group's literals it
    /// contains feed (sorted): leftmost-longest reports one literal per place.
    implied: Vec<Vec<usize>>,
    /// A literal's end can begin another of the group (`ab`, `bc`): after a
    /// match the search resumes one byte in rather than at its end.
    chained: bool,
    literals: Vec<Box<[u8]>>,
}

#[derive(Debug)]
enum Finder {
    Packed(aho_corasick::packed::Searcher),
    /// Where no SIMD searcher can be built (CPU, patterns).
    Automaton(AhoCorasick),
}

impl Finder {
    fn new(lits: &[&str]) -> Finder {
        use aho_corasick::packed;
        let packed = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(lits)
            .build();
        match packed {
            Some(p) => Finder::Packed(p),
            None => Finder::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(lits)
                    .expect("literal automaton"),
            ),
        }
    }

    /// First match in `hay[from..]`: (start, end, literal).
    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize, usize)> {
        let span = from..hay.len();
        let m = match self {
            Finder::Packed(p) => p.find_in(hay, aho_corasick::Span::from(span)),
            Finder::Automaton(a) => a.find(aho_corasick::Input::new(hay).span(span)),
        }?;
        Some((m.start(), m.end(), m.pattern().as_usize()))
    }
}

/// Per member: each group's next match at or after the last place asked
/// about, in member offsets. Lines are visited in order, so a group is
/// searched once over the member, not once per candidate.
#[derive(Debug, Clone, Default)]
pub struct LiteralCursor {
    next: Vec<Next>,
}

#[derive(Debug, Clone, Copy, Default)]
enum Next {
    #[default]
    Unknown,
    /// Searched from at most the place asked about; first match here.
    Hit {
        start: u64,
        end: u64,
        literal: usize,
    },
    /// Searched from at most the place asked about up to here: no match.
    NoneBefore(u64),
}

impl Next {
    /// Whether this still tells the first match at or after member offset
    /// `at` in text that ends at `end`.
    fn answers(self, at: u64, end: u64) -> bool {
        match self {
            Next::Hit { start, .. } => start >= at,
            Next::NoneBefore(upto) => upto >= end,
            Next::Unknown => false,
        }
    }
}

impl Group {
    /// The first match in `text[from..]`, `text` being at member offset `at`.
    fn search(&self, text: &[u8], at: u64, from: usize) -> Next {
        match self.finder.find(text, from) {
            Some((s, e, literal)) => Next::Hit {
                start: at + s as u64,
                end: at + e as u64,
                literal,
            },
            None => Next::NoneBefore(at + text.len() as u64),
        }
    }
}

impl Literals {
    fn new(variants: &[Variant], active: &[bool]) -> Literals {
        let mut unfiltered = Vec::new();
        // The literals of aggregating rules (the lines a log repeats most)
        // get groups of their own: such a line then costs one group's
        // searches, not one in every group that holds one of its literals.
        // Teddy filters on as many first bytes as the group's shortest
        // literal has, so literals under 4 bytes (`==`) are grouped apart
        // too: they would make every other literal's filter weaker.
        let mut hot = (Vec::new(), Vec::new());
        let mut short = (Vec::new(), Vec::new());
        let mut cold = (Vec::new(), Vec::new());
        // Json variants read documents, not lines: no literal feeds them.
        for (i, v) in variants
            .iter()
            .enumerate()
            .filter(|(i, v)| active[*i] && !v.is_json())
        {
            if v.prefilter.is_empty() {
                unfiltered.push(i);
            }
            for l in &v.prefilter {
                let (lits, feeds): &mut (Vec<&str>, Vec<Vec<usize>>) = if v.anchored().is_some() {
                    &mut hot
                } else if l.len() < 4 {
                    &mut short
                } else {
                    &mut cold
                };
                match lits.iter().position(|x| x == l) {
                    Some(p) => feeds[p].push(i),
                    None => {
                        lits.push(l);
                        feeds.push(vec![i]);
                    }
                }
            }
        }
        let mut groups = Vec::new();
        for (lits, feeds) in [hot, short, cold] {
            if lits.is_empty() {
                continue;
            }
            let count = lits.len().div_ceil(GROUP);
            let size = lits.len().div_ceil(count);
            groups.extend(
                lits.chunks(size)
                    .zip(feeds.chunks(size))
                    .map(|(lits, feeds)| Group {
                        finder: Finder::new(lits),
                        implied: lits
                            .iter()
                            .map(|a| {
                                let mut vs: Vec<usize> = lits
                                    .iter()
                                    .zip(feeds)
                                    .filter(|(b, _)| a.contains(**b))
                                    .flat_map(|(_, v)| v.iter().copied())
                                    .collect();
                                vs.sort_unstable();
                                vs.dedup();
                                vs
                            })
                            .collect(),
                        chained: literals_chain(lits),
                        literals: lits.iter().map(|l| l.as_bytes().into()).collect(),
                    }),
            );
        }
        let mut pairs = vec![0u16; 1 << 16].into_boxed_slice();
        let mut straddling: Vec<Vec<Straddle>> = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            for (l, lit) in group.literals.iter().enumerate() {
                for at in 1..lit.len() {
                    let pair = usize::from(lit[at - 1]) << 8 | usize::from(lit[at]);
                    if pairs[pair] == 0 {
                        straddling.push(Vec::new());
                        pairs[pair] = u16::try_from(straddling.len()).expect("pairs fit u16");
                    }
                    straddling[usize::from(pairs[pair]) - 1].push(Straddle {
                        group: g as u32,
                        literal: l as u32,
                        at: at as u32,
                        len: lit.len() as u32,
                        ends: [lit[0], lit[lit.len() - 1]],
                    });
                }
            }
        }
        Literals {
            groups,
            unfiltered,
            pairs,
            straddling,
        }
    }

    /// Whether some variant has no literal (every line is a candidate).
    pub fn needs_every_line(&self) -> bool {
        !self.unfiltered.is_empty()
    }

    pub fn cursor(&self) -> LiteralCursor {
        LiteralCursor {
            next: vec![Next::Unknown; self.groups.len()],
        }
    }

    /// Index in `hay` (which starts at member offset `at`; later calls ask
    /// about later places) of the first place a candidate line may be.
    pub fn candidate(&self, cur: &mut LiteralCursor, hay: &[u8], at: u64) -> Option<usize> {
        let end = at + hay.len() as u64;
        let mut first = u64::MAX;
        for (g, next) in self.groups.iter().zip(&mut cur.next) {
            if !next.answers(at, end) {
                *next = g.search(hay, at, 0);
            }
            if let Next::Hit { start, .. } = *next {
                first = first.min(start);
            }
        }
        let m = (first < end).then(|| (first - at) as usize);
        // Lines with escape sequences are always looked at: a literal may be
        // split by colour codes in the raw bytes.
        memchr::memchr(0x1b, &hay[..m.unwrap_or(hay.len())]).or(m)
    }

    /// Variants (sorted) whose literal is in the line `hay[..len]` (raw, at
    /// member offset `at`), plus the unfiltered ones; moves the cursor past
    /// the line. The search runs on into the rest of `hay`, so that the
    /// next candidate is known without searching again.
    pub fn hits_at(
        &self,
        cur: &mut LiteralCursor,
        hay: &[u8],
        len: usize,
        at: u64,
        out: &mut Vec<Hit>,
    ) {
        out.clear();
        let end = at + len as u64;
        for (g, next) in self.groups.iter().zip(&mut cur.next) {
            if !next.answers(at, end) {
                *next = g.search(hay, at, 0);
            }
            while let Next::Hit {
                start,
                end: e,
                literal,
            } = *next
            {
                if start >= end {
                    break;
                }
                let place = start.saturating_sub(at) as usize;
                out.extend(
                    g.implied[literal]
                        .iter()
                        .map(|&variant| Hit { variant, place }),
                );
                let from = if g.chained { start + 1 } else { e };
                *next = g.search(hay, at, (from - at) as usize);
            }
        }
        finish_hits(out, &self.unfiltered);
    }

    /// Variants (sorted) whose literal is in `text`, the cleaned text of the
    /// raw line `hay[..len]` (at member offset `at`; not a json-file
    /// record), plus the unfiltered ones; moves the cursor past the line.
    /// A literal in `text` either lies between two escape sequences, and is
    /// in the raw line, or straddles a place where they were taken out: the
    /// cursor finds the first kind, a look at each such place the second,
    /// so a coloured line costs no search of its own. Places are 0: they
    /// are in raw bytes, not in `text`.
    pub fn hits_cleaned(
        &self,
        cur: &mut LiteralCursor,
        hay: &[u8],
        len: usize,
        at: u64,
        text: &[u8],
        out: &mut Vec<Hit>,
    ) {
        self.hits_at(cur, hay, len, at, out);
        out.iter_mut().for_each(|h| h.place = 0);
        let found = out.len();
        crate::lines::for_each_join(&hay[..len], |p| {
            if p >= text.len() {
                return;
            }
            let slot = self.pairs[usize::from(text[p - 1]) << 8 | usize::from(text[p])];
            if slot == 0 {
                return;
            }
            for s in &self.straddling[usize::from(slot) - 1] {
                let (at, len) = (s.at as usize, s.len as usize);
                let Some(start) = p.checked_sub(at) else {
                    continue;
                };
                let Some(seen) = text.get(start..start + len) else {
                    continue;
                };
                let g = &self.groups[s.group as usize];
                if seen[0] == s.ends[0]
                    && seen[len - 1] == s.ends[1]
                    && *seen == *g.literals[s.literal as usize]
                {
                    out.extend(
                        g.implied[s.literal as usize]
                            .iter()
                            .map(|&variant| Hit { variant, place: 0 }),
                    );
                }
            }
        });
        if out.len() > found {
            out.sort_unstable();
            out.dedup_by_key(|h| h.variant);
        }
    }

    /// Variants (sorted) whose literal is in `text`, plus the unfiltered
    /// ones, without a cursor (text that is not the raw line).
    pub fn hits(&self, text: &[u8], out: &mut Vec<Hit>) {
        out.clear();
        for g in &self.groups {
            let mut from = 0;
            while let Some((s, e, literal)) = g.finder.find(text, from) {
                out.extend(
                    g.implied[literal]
                        .iter()
                        .map(|&variant| Hit { variant, place: s }),
                );
                from = if g.chained { s + 1 } else { e };
            }
        }
        finish_hits(out, &self.unfiltered);
    }
}

/// A variant whose literal is on a line, and a place in the line at or
/// before the first place of its literal: where a match can begin to be
/// looked for (see [`Variant::lead`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub variant: usize,
    pub place: usize,
}

/// Adds the unfiltered variants, then one hit per variant, its first.
fn finish_hits(out: &mut Vec<Hit>, unfiltered: &[usize]) {
    out.extend(unfiltered.iter().map(|&variant| Hit { variant, place: 0 }));
    if out.len() > 1 {
        out.sort_unstable();
        out.dedup_by_key(|h| h.variant);
    }
}

/// Whether a proper suffix of one literal is a proper prefix of another, so
/// that two literals can overlap in a text without one containing the other.
fn literals_chain(lits: &[&str]) -> bool {
    lits.iter().enumerate().any(|(i, a)| {
        lits.iter().enumerate().any(|(j, b)| {
            i != j && (1..a.len().min(b.len())).any(|k| a.as_bytes().ends_with(&b.as_bytes()[..k]))
        })
    })
}

pub(crate) fn strip_compression(name: &str) -> &str {
    crate::formats::strip_compression(name).map_or(name, |(rest, _)| rest)
}

fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn toml_to_json(t: &toml::Table) -> Map<String, Value> {
    t.iter()
        .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
        .collect()
}

fn compile_variant(
    rule: usize,
    v: &VariantDef,
    names: &mut BTreeSet<String>,
    eager: bool,
) -> Result<Variant, String> {
    let mut compile = |field: &str, src: &Option<String>| -> Result<Option<PackRegex>, String> {
        match src {
            None => Ok(None),
            Some(s) => {
                let re = PackRegex::new(s, eager).map_err(|e| format!("{field}: {e}"))?;
                names.extend(re.names().iter().cloned());
                Ok(Some(re))
            }
        }
    };
    // Fields of one kind must not be given to another, where they would
    // silently mean nothing.
    let unused = |kind: &str, given: &[(&str, bool)]| -> Result<(), String> {
        match given.iter().find(|(_, g)| *g) {
            Some((f, _)) => Err(format!("`{f}` has no meaning in a {kind} variant")),
            None => Ok(()),
        }
    };
    if v.complete && v.kind.as_deref() != Some("block") {
        return Err("`complete` needs a block variant with `end`".into());
    }
    let (matcher, key) = match v.kind.as_deref() {
        None | Some("line") => {
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
            let regex = compile("regex", &v.regex)?.ok_or("a line variant needs `regex`")?;
            let each = compile("each", &v.each)?;
            let dump = match &v.dump {
                None => None,
                Some(group) => {
                    if !regex.names().iter().any(|n| n == group) {
                        return Err(format!("dump: `regex` has no group named {group}"));
                    }
                    names.extend(v.keys.iter().flatten().cloned());
                    Some((group.clone(), v.keys.clone()))
                }
            };
            let line = LineMatch {
                regex,
                each,
                anchored: None,
                lead: None,
                dump,
            };
            (Matcher::Line(line), v.regex.as_deref())
        }
        Some("block") => {
            unused(
                "block",
                &[
                    ("regex", v.regex.is_some()),
                    ("dump", v.dump.is_some()),
                    ("keys", v.keys.is_some()),
                    ("at", v.at.is_some()),
                    ("key", v.key.is_some()),
                    ("fields", v.fields.is_some()),
                    ("cite", v.cite.is_some()),
                    ("json_lines", v.json_lines),
                ],
            )?;
            let start = compile("start", &v.start)?;
            let each = compile("each", &v.each)?;
            let end = compile("end", &v.end)?;
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
                    let re = PackRegex::new(s, eager).map_err(|e| format!("indent: {e}"))?;
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
            let block = BlockMatch {
                start,
                each,
                end,
                carry: v.carry.clone(),
                complete: v.complete,
                indent,
            };
            (Matcher::Block(block), v.start.as_deref())
        }
        Some("json") => {
            unused(
                "json",
                &[
                    ("regex", v.regex.is_some()),
                    ("each", v.each.is_some()),
                    ("start", v.start.is_some()),
                    ("end", v.end.is_some()),
                    ("dump", v.dump.is_some()),
                    ("carry", !v.carry.is_empty()),
                    ("indent", v.indent.is_some()),
                    ("prefilter", v.prefilter.is_some()),
                ],
            )?;
            let m = super::kind::json::JsonMatch::compile(v)?;
            names.extend(m.names().map(str::to_string));
            (Matcher::Json(m), None)
        }
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
    names.extend(set.keys().cloned());
    Ok(Variant {
        rule,
        matcher,
        set,
        members,
        member_globs,
        prefilter,
        prefilter_explicit: explicit,
        exclude: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variants whose literals occur in `line`, the slow way.
    fn naive(lits: &[Vec<&str>], line: &[u8]) -> Vec<usize> {
        let has = |l: &str| line.windows(l.len()).any(|w| w == l.as_bytes());
        (0..lits.len())
            .filter(|&v| lits[v].iter().any(|l| has(l)))
            .collect()
    }

    /// `n` of `parts` in a deterministic pseudo-random order.
    fn mix(parts: &[&str], n: usize, mut seed: u64) -> Vec<u8> {
        let mut text = Vec::new();
        for _ in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.extend_from_slice(parts[(seed >> 33) as usize % parts.len()].as_bytes());
        }
        text
    }

    fn variant(prefilter: &[&str]) -> Variant {
        Variant {
            rule: 0,
            matcher: Matcher::Line(LineMatch {
                regex: PackRegex::new("x", true).unwrap(),
                each: None,
                anchored: None,
                lead: None,
                dump: None,
            }),
            set: Map::new(),
            members: None,
            member_globs: Vec::new(),
            prefilter: prefilter.iter().map(|s| s.to_string()).collect(),
            prefilter_explicit: true,
            exclude: Vec::new(),
        }
    }

    /// Grouped SIMD search with a cursor (as the line reader drives it) and
    /// without one both find exactly the variants whose literal is on a
    /// line: literals that contain others, overlap end-to-start, repeat, and
    /// more of them than one group holds.
    #[test]
    fn literal_hits_equal_substring_search() {
        let mut lits: Vec<Vec<&str>> = vec![
            vec!["accept len: "],
            vec!["len: "],
            vec!["ab", "abc"],
            vec!["bcd"],
            vec!["=="],
            vec!["="],
            vec!["Capture cuda graph "],
        ];
        let words = [
            "w00", "w01", "w02", "w03", "w04", "w05", "w06", "w07", "w08", "w09", "w10", "w11",
            "w12", "w13", "w14", "w15", "w16", "w17", "w18", "w19", "w20", "w21", "w22", "w23",
            "w24", "w25", "w26", "w27", "w28", "w29", "w30", "w31", "w32", "w33", "w34", "w35",
        ];
        lits.extend(words.iter().map(|w| vec![*w]));
        let mut variants: Vec<Variant> = lits.iter().map(|l| variant(l)).collect();
        // Some as aggregating rules' (hot, grouped apart): literals that
        // contain or are contained in another end up in different groups.
        for i in [0, 2, 5] {
            if let Matcher::Line(l) = &mut variants[i].matcher {
                l.anchored = AnchoredRegex::new(r"accept len: (\d+)", &[]);
            }
        }
        let active = vec![true; variants.len()];
        let set = Literals::new(&variants, &active);
        assert!(set.groups.len() >= 3);
        // A deterministic mix of fragments, so literals meet at every
        // position and across fragment boundaries.
        let parts = [
            "accept len: 3.7",
            "abcd",
            "x=",
            "=",
            "w1",
            "7 ",
            "Capture cuda graph bs",
            "b",
            "c",
            "d",
            "w3",
            "5",
            "\n",
            "len:",
            " ",
        ];
        let text = mix(&parts, 4000, 7);
        let mut cur = set.cursor();
        let (mut out, mut plain) = (Vec::new(), Vec::new());
        let mut pos = 0;
        let mut checked = 0;
        while pos < text.len() {
            let hay = &text[pos..];
            let Some(c) = set.candidate(&mut cur, hay, pos as u64) else {
                // No line left may hold a literal.
                for line in hay.split(|&b| b == b'\n') {
                    assert!(naive(&lits, line).is_empty(), "missed {:?}", line);
                }
                break;
            };
            let ls = pos + memchr::memrchr(b'\n', &hay[..c]).map_or(0, |j| j + 1);
            for skipped in text[pos..ls].split(|&b| b == b'\n') {
                assert!(naive(&lits, skipped).is_empty(), "skipped {:?}", skipped);
            }
            let le = memchr::memchr(b'\n', &text[ls..]).map_or(text.len(), |j| ls + j);
            let line = &text[ls..le];
            // The search may run on past the line, as the scan's does.
            set.hits_at(&mut cur, &text[ls..], line.len(), ls as u64, &mut out);
            set.hits(line, &mut plain);
            let want = naive(&lits, line);
            let variants = |h: &[Hit]| h.iter().map(|h| h.variant).collect::<Vec<_>>();
            assert_eq!(
                variants(&out),
                want,
                "line {:?}",
                String::from_utf8_lossy(line)
            );
            assert_eq!(variants(&plain), want);
            // Each place is at or before the first of the variant's literals.
            for h in out.iter().chain(&plain) {
                let first = lits[h.variant]
                    .iter()
                    .filter_map(|l| line.windows(l.len()).position(|w| w == l.as_bytes()))
                    .min();
                assert!(first.is_some_and(|f| h.place <= f), "{h:?} in {line:?}");
            }
            checked += 1;
            pos = le + 1;
        }
        assert!(checked > 100);
    }

    /// On coloured lines, the cursor's raw hits plus the look at each place
    /// escape sequences were taken out find exactly the variants whose
    /// literal is in the cleaned line, as a search of the cleaned copy does:
    /// literals split by colour codes, whole ones beside them, and escape
    /// sequences that swallow a byte.
    #[test]
    fn cleaned_line_hits_equal_a_search_of_the_cleaned_text() {
        let lits: Vec<Vec<&str>> = vec![
            vec!["accept len: "],
            vec!["len: "],
            vec!["ab", "abc"],
            vec!["bcd"],
            vec!["=="],
            vec!["INFO"],
            vec!["Capture cuda graph "],
        ];
        let variants: Vec<Variant> = lits.iter().map(|l| variant(l)).collect();
        let active = vec![true; variants.len()];
        let set = Literals::new(&variants, &active);
        let parts = [
            "accept",
            " len: 3",
            "a",
            "bc",
            "d",
            "=",
            "IN",
            "FO",
            "Capture cuda",
            " graph ",
            "\x1b[0m",
            "\x1b[32;20m",
            "\x1b[1m\x1b[0m",
            "\x1bX",
            "\x1b]0;t\x07",
            "\r",
            "\n",
            " ",
            "x",
        ];
        let text = mix(&parts, 20000, 11);
        let mut scratch = Vec::new();
        let mut cur = set.cursor();
        let (mut out, mut plain) = (Vec::new(), Vec::new());
        let variants = |h: &[Hit]| h.iter().map(|h| h.variant).collect::<Vec<_>>();
        let (mut pos, mut coloured, mut joined) = (0, 0, 0);
        while pos < text.len() {
            let hay = &text[pos..];
            let Some(c) = set.candidate(&mut cur, hay, pos as u64) else {
                for line in hay.split(|&b| b == b'\n') {
                    let clean = crate::lines::clean(line, &mut scratch);
                    assert!(naive(&lits, clean).is_empty(), "missed {line:?}");
                }
                break;
            };
            let ls = pos + memchr::memrchr(b'\n', &hay[..c]).map_or(0, |j| j + 1);
            for skipped in text[pos..ls].split(|&b| b == b'\n') {
                let clean = crate::lines::clean(skipped, &mut scratch);
                assert!(naive(&lits, clean).is_empty(), "skipped {skipped:?}");
            }
            let le = memchr::memchr(b'\n', &text[ls..]).map_or(text.len(), |j| ls + j);
            let line = &text[ls..le];
            let clean = crate::lines::clean(line, &mut scratch).to_vec();
            let want = naive(&lits, &clean);
            if clean.as_ptr() != line.as_ptr() && memchr::memchr(0x1b, line).is_some() {
                set.hits_cleaned(
                    &mut cur,
                    &text[ls..],
                    line.len(),
                    ls as u64,
                    &clean,
                    &mut out,
                );
                assert_eq!(variants(&out), want, "line {line:?}");
                coloured += 1;
                joined += usize::from(naive(&lits, line).len() < want.len());
            } else {
                set.hits_at(&mut cur, &text[ls..], line.len(), ls as u64, &mut out);
                assert_eq!(variants(&out), want, "line {line:?}");
            }
            set.hits(&clean, &mut plain);
            assert_eq!(variants(&plain), want);
            pos = le + 1;
        }
        // The text exercised what it is for.
        assert!(
            coloured > 100 && joined > 20,
            "{coloured} coloured, {joined} joined"
        );
    }

    /// The anchored regex finds the match the unanchored one finds, also
    /// when the literal's first places do not start a match.
    #[test]
    fn anchored_regex_finds_the_leftmost_match() {
        let src =
            r"accept len: (?P<value>\d+(?:\.\d+)?)(?:, accept rate: (?P<rate>\d+(?:\.\d+)?))?";
        let a = AnchoredRegex::new(src, &[]).expect("one literal prefix");
        let re = build_regex(src).unwrap();
        let mut caps = a.new_captures();
        for text in [
            "Decode batch, accept len: 3.77, accept rate: 0.55, x",
            "accept len: n/a, then accept len: accept len: 2.5",
            "accept len: 4",
            "accept len: 4.",
            "no literal here",
            "accept len:accept len: 1.0, accept rate: 0.2accept len: 9",
        ] {
            let want = re.captures(text.as_bytes());
            let found = a.captures(text.as_bytes(), 0, &mut caps);
            assert_eq!(found, want.is_some(), "{text}");
            if let Some(w) = want {
                for name in ["value", "rate"] {
                    assert_eq!(
                        a.group(text.as_bytes(), &caps, name),
                        w.name(name).map(|m| m.as_bytes()),
                        "{text}: {name}"
                    );
                }
            }
        }
        // No single literal starts every match: no anchored form.
        assert!(AnchoredRegex::new(r"(?:foo|bar)baz\d", &[]).is_none());
    }

    /// Looking for the anchor from `lead` bytes before the prefilter
    /// literal's first place finds the match a search from the line's
    /// start finds, wherever the literals repeat.
    #[test]
    fn anchored_search_from_the_lead_finds_the_leftmost_match() {
        let src = r" graph: (?P<g>True|False), (?P<p>gen|input) throughput \(token/s\): (?P<t>\d+(?:\.\d+)?)";
        let lit = "throughput (token/s): ";
        let a = AnchoredRegex::new(src, &[]).unwrap();
        let lead = a.lead(lit).expect("bounded");
        assert_eq!(lead, 21);
        let re = build_regex(src).unwrap();
        let mut caps = a.new_captures();
        let parts = [
            " graph: ",
            "True",
            "False",
            ", ",
            "gen",
            "input",
            " throughput (token/s): ",
            "12.5",
            "x",
            " ",
        ];
        let mut seed = 11u64;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            for _ in 0..12 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.extend_from_slice(parts[(seed >> 33) as usize % parts.len()].as_bytes());
            }
            let Some(first) = text.windows(lit.len()).position(|w| w == lit.as_bytes()) else {
                continue;
            };
            let want = re.captures(&text);
            let found = a.captures(&text, first.saturating_sub(lead), &mut caps);
            assert_eq!(
                found,
                want.is_some(),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            if let Some(w) = want {
                for name in ["g", "p", "t"] {
                    assert_eq!(
                        a.group(&text, &caps, name),
                        w.name(name).map(|m| m.as_bytes())
                    );
                }
            }
        }
    }

    /// Issue 13: a 1 MiB line repeating the literal of an anchored regex
    /// whose `.*?` runs to the line's end took 44 s (one anchored attempt
    /// per place of the literal); it must stay linear.
    #[test]
    fn anchored_regex_is_linear_on_a_line_repeating_its_literal() {
        let src = r"SpecDecoding metrics: .*?\bMean acceptance length: (?P<value>\d+(?:\.\d+)?)";
        let a = AnchoredRegex::new(src, &[]).expect("one literal prefix");
        let mut caps = a.new_captures();
        let mut line = "SpecDecoding metrics: ".repeat((1 << 20) / 22).into_bytes();
        assert!(!a.captures(&line, 0, &mut caps));
        // At most one anchored and one unanchored search, each linear: not
        // one search per place of the literal (~48k over ~1 MiB each).
        assert!(caps.searches <= 2, "{} regex searches", caps.searches);
        // The same line with a match at its very end is still found.
        line.extend_from_slice(b"Mean acceptance length: 2.5");
        caps.searches = 0;
        assert!(a.captures(&line, 0, &mut caps));
        assert!(caps.searches <= 2, "{} regex searches", caps.searches);
        assert_eq!(a.group(&line, &caps, "value"), Some(&b"2.5"[..]));
    }

    /// Every built-in rule on 1 MiB lines that repeat the literals the
    /// packs look for: time stays linear whatever one line holds.
    #[test]
    fn builtin_rules_are_linear_on_hostile_long_lines() {
        use crate::lines::LineReader;
        use crate::scan::evidence::{MemberScan, ScanOptions};
        let packs = crate::pack::builtin().expect("packs");
        let set = RuleSet::compile(&packs, &Selection::all()).expect("compile");
        let member = vec!["server.log".to_string()];
        for unit in [
            "SpecDecoding metrics: ",
            "accept len: ",
            "server_args={'a': (",
            " graph: True, ",
            "Engine 000: Avg prompt throughput: ",
            "iter = 1, elapsed_time = ",
            "Load weight end. type=X, ",
            "NCCL error",
            "non-default args: {'a': [",
        ] {
            // A rule that rescans the line per match shows as a test of
            // minutes; the time is not asserted (CI machines are shared).
            let line = unit.repeat((1 << 20) / unit.len());
            for opts in [
                ScanOptions::default(),
                ScanOptions {
                    every_match: true,
                    skip_prefilter: false,
                },
            ] {
                let mut sink = MemberScan::new(&set, "x", &member, &member[0], opts);
                let mut reader = LineReader::new(crate::lines::LineLimits {
                    max_line: 2 << 20,
                    binary: false,
                });
                reader.scan(&mut line.as_bytes(), &mut sink).expect("scan");
                let (mut records, mut counts) = (Vec::new(), std::collections::BTreeMap::new());
                sink.finish(&mut records, &mut counts);
                // Records stay within the artifact's cap however many
                // matches one line holds.
                assert!(
                    records.len() <= crate::scan::evidence::MAX_RECORDS + 64,
                    "{unit:?}"
                );
            }
        }
    }

    /// Every regex of a built-in pack: loading compiles none of them; each
    /// compiles (what `PackRegex`'s deref relies on), and the group names
    /// read from its syntax at load are the compiled regex's.
    #[test]
    fn every_builtin_regex_compiles() {
        let packs = crate::pack::builtin().expect("packs");
        let set = RuleSet::compile(&packs, &Selection::all()).expect("compile");
        let mut all: Vec<&PackRegex> = Vec::new();
        for v in &set.variants {
            match &v.matcher {
                Matcher::Line(l) => {
                    all.extend([Some(&l.regex), l.each.as_ref()].into_iter().flatten())
                }
                Matcher::Block(b) => all.extend(
                    [
                        Some(&b.start),
                        Some(&b.each),
                        b.end.as_ref(),
                        b.indent.as_ref(),
                    ]
                    .into_iter()
                    .flatten(),
                ),
                Matcher::Json(_) => {}
            }
            all.extend(&v.exclude);
        }
        all.extend(set.rules.iter().filter_map(|r| r.then.as_ref()));
        assert!(all.len() > 200, "{}", all.len());
        for re in &all {
            assert!(!re.is_compiled(), "compiled at load: {}", re.as_str());
        }
        for re in all {
            let compiled =
                build_regex(re.as_str()).unwrap_or_else(|e| panic!("{}: {e}", re.as_str()));
            let names: Vec<String> = compiled
                .capture_names()
                .flatten()
                .map(str::to_string)
                .collect();
            assert_eq!(group_names(re.as_str()).unwrap(), names, "{}", re.as_str());
            let _ = re.is_match(b"");
            assert!(re.is_compiled());
        }
    }

    /// A pack given on the command line is compiled at load: a regex over
    /// the size limit is an error naming the rule there, not a failure at
    /// its first candidate line.
    #[test]
    fn other_packs_compile_at_load() {
        let src = r#"
name = "big"
version = "1"
description = "x"

[[rule]]
id = "big.one"
description = "x"
prefilter = ["abc"]
regex = '''abc(?:\w{1000}){1000}'''

[[rule.example]]
line = "abc"
matches = false
"#;
        let pack = crate::pack::parse_pack("big.toml", src).expect("parses");
        let err = RuleSet::compile(std::slice::from_ref(&pack), &Selection::all())
            .expect_err("over the size limit")
            .to_string();
        assert!(
            err.contains("big.one") && err.contains("size limit"),
            "{err}"
        );
        // Its syntax alone is fine: only compiling finds the error.
        assert!(group_names(r"abc(?:\w{1000}){1000}").is_ok());
        let bad = src.replace("(?:", "(?:(");
        let pack = crate::pack::parse_pack("bad.toml", &bad).expect("parses");
        let err = RuleSet::compile(&[pack], &Selection::all()).expect_err("syntax");
        assert!(err.to_string().contains("regex parse error"), "{err}");
    }

    /// Where an aggregate regex is walked (no regex engine), it finds the
    /// same match and groups as the regex crate, on every example line of
    /// every built-in rule and on their cut and spliced forms.
    #[test]
    fn walked_aggregate_regexes_agree_with_the_regex_crate() {
        let packs = crate::pack::builtin().expect("packs");
        let set = RuleSet::compile(&packs, &Selection::all()).expect("compile");
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for r in &set.rules {
            let texts = r
                .examples
                .iter()
                .flat_map(|e| e.line.iter().chain(e.lines.iter().flatten()));
            for l in texts.map(|t| t.as_bytes()) {
                lines.push(l.to_vec());
                for cut in [
                    l.len() / 3,
                    l.len() / 2,
                    l.len() * 3 / 4,
                    l.len().saturating_sub(1),
                ] {
                    lines.push(l[..cut].to_vec());
                    lines.push([&l[..cut], &b".5, 7x"[..], &l[cut..]].concat());
                }
            }
        }
        let mut walked = 0;
        for v in &set.variants {
            let Matcher::Line(LineMatch {
                anchored: Some(a),
                regex: re,
                ..
            }) = &v.matcher
            else {
                continue;
            };
            if !a.walks() {
                continue;
            }
            walked += 1;
            let mut caps = a.new_captures();
            for line in &lines {
                let want = re.captures(line);
                assert_eq!(
                    a.captures(line, 0, &mut caps),
                    want.is_some(),
                    "{:?}",
                    String::from_utf8_lossy(line)
                );
                let Some(want) = want else { continue };
                for name in re.capture_names().flatten() {
                    assert_eq!(
                        a.group(line, &caps, name),
                        want.name(name).map(|m| m.as_bytes()),
                        "group {name} of {:?}",
                        String::from_utf8_lossy(line)
                    );
                }
            }
        }
        // The hot lines (SGLang decode batches, vLLM throughput) are walked.
        assert!(walked >= 3, "only {walked} aggregate regexes are walked");
    }

    #[test]
    fn capture_types() {
        assert_eq!(
            CapType::IntList.convert("[1, 2, 4]"),
            serde_json::json!([1, 2, 4])
        );
        assert_eq!(CapType::Int.convert("123,456"), serde_json::json!(123456));
        assert_eq!(CapType::Float.convert("3.77"), serde_json::json!(3.77));
        assert_eq!(CapType::Float.convert("N/A"), Value::Null);
        assert_eq!(CapType::Bool.convert("True"), Value::Bool(true));
        assert_eq!(
            CapType::Unquoted.convert("\"a, b\""),
            serde_json::json!("a, b")
        );
        assert_eq!(CapType::Unquoted.convert("1"), serde_json::json!("1"));
        assert_eq!(CapType::Unquoted.convert("'a b'"), serde_json::json!("a b"));
        assert_eq!(CapType::Unquoted.convert("'a\""), serde_json::json!("'a\""));
        assert_eq!(CapType::Unquoted.convert("\""), serde_json::json!("\""));
    }

    #[test]
    fn literals_from_prefix() {
        assert_eq!(
            derive_literals(r"monokernel routing check: (?P<k>\S+)"),
            vec!["monokernel routing check: "]
        );
        assert!(derive_literals(r"(?P<name>[A-Z_]+)=").is_empty());
        assert_eq!(derive_literals(r"Decode batch[.,]").len(), 2);
    }
}
