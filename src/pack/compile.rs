//! Compiling packs into one [`RuleSet`]: the selected rules, their
//! variants (each of a rule kind, see [`super::kind`]) and typed captures.
//! The literal prefilter that picks the rules worth running on a line is
//! [`super::prefilter`]; a variant's kind compiles in its own file.

use super::anchored::AnchoredRegex;
use super::kind::line::LineMatch;
use super::kind::{Kind, compile_variant};
use super::pattern::PackRegex;
use super::prefilter::Literals;
use super::{LoadedPack, PackError};
use globset::GlobSet;
use regex::bytes::{Captures, Regex};
use serde_json::{Map, Value};
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

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

#[derive(Debug)]
pub struct Variant {
    pub rule: usize,
    pub kind: Kind,
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
        LineMatch::of(&self.kind).and_then(|l| l.anchored.as_ref())
    }

    /// The regexes whose named groups become captures.
    pub fn regexes(&self) -> Vec<&PackRegex> {
        self.kind.regexes()
    }

    /// The kind's name, as `packs show` prints it.
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// What the variant looks for, by field, for `packs show`.
    pub fn patterns(&self) -> Vec<(&'static str, String)> {
        self.kind.patterns()
    }

    /// Whether this variant runs on the lines the literal prefilter picks
    /// (a json variant reads whole documents instead).
    pub fn reads_lines(&self) -> bool {
        self.kind.reads_lines()
    }

    /// The dump group and its keys, for a line variant that reads one.
    pub fn dump(&self) -> Option<&(String, Option<Vec<String>>)> {
        LineMatch::of(&self.kind).and_then(|l| l.dump.as_ref())
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
pub(crate) fn globs(pats: &[String]) -> Result<Option<GlobSet>, globset::Error> {
    crate::member_glob::glob_set(pats)
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
                        v.kind.aggregated(&fields, &v.prefilter).map_err(&err)?;
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
            fingerprint: crate::hash::hex(&fp.finalize())[..16].to_string(),
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
            names.extend(v.kind.names().into_iter().map(str::to_string));
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

pub(crate) fn strip_compression(name: &str) -> &str {
    crate::formats::strip_compression(name).map_or(name, |(rest, _)| rest)
}

fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::pattern::{build_regex, group_names};

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

    /// A line whose one place of the literal does not match runs no
    /// unanchored search: no match can begin past the literal's last place
    /// (vLLM prints `SpecDecoding metrics: ` lines that a variant's regex
    /// rejects, one every few seconds).
    #[test]
    fn anchored_regex_searches_no_further_than_its_literal() {
        let src = r#""POST /v1/completions(?:\?\S*)? HTTP/[\d.]+" (?P<status>\d{3})\b"#;
        let a = AnchoredRegex::new(src, &[]).expect("one literal prefix");
        let mut caps = a.new_captures();
        let no_status = br#"INFO:     10.0.6.193:40326 - "POST /v1/completions HTTP/1.1" OK"#;
        assert!(!a.captures(no_status, 0, &mut caps));
        // The anchored attempt is a search unless the pattern is walked.
        assert_eq!(caps.searches, usize::from(!a.walks()));
        // A later place of the literal is still searched, and found.
        let both = [&no_status[..], br#" "POST /v1/completions HTTP/1.1" 201"#].concat();
        caps.searches = 0;
        assert!(a.captures(&both, 0, &mut caps));
        assert!(caps.searches <= 2);
        assert_eq!(a.group(&both, &caps, "status"), Some(&b"201"[..]));
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
            all.extend(v.kind.every_regex());
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
            let Some(LineMatch {
                anchored: Some(a),
                regex: re,
                ..
            }) = LineMatch::of(&v.kind)
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
}
