//! Compiling packs into one matcher: every rule's literals go into one
//! Aho-Corasick automaton that finds candidate lines in whole buffers; only
//! the rules whose literal occurs on a line run their regex there.

use super::{LoadedPack, PackError, VariantDef};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::bytes::{Captures, Regex, RegexBuilder};
use serde_json::{Map, Value};
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet};

/// Type of a named capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapType {
    Int,
    Float,
    Str,
    Bool,
    IntList,
}

impl CapType {
    pub fn parse(s: &str) -> Option<CapType> {
        Some(match s {
            "int" => CapType::Int,
            "float" => CapType::Float,
            "string" => CapType::Str,
            "bool" => CapType::Bool,
            "int_list" => CapType::IntList,
            _ => return None,
        })
    }

    /// The typed JSON value of a captured string; `null` if it does not parse.
    pub fn convert(self, s: &str) -> Value {
        let t = s.trim();
        match self {
            CapType::Str => Value::String(s.to_string()),
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantKind {
    Line,
    Block,
}

#[derive(Debug)]
pub struct Variant {
    pub rule: usize,
    pub kind: VariantKind,
    pub regex: Option<Regex>,
    pub each: Option<Regex>,
    pub start: Option<Regex>,
    pub end: Option<Regex>,
    pub set: Map<String, Value>,
    pub members: Option<GlobSet>,
    pub member_globs: Vec<String>,
    /// Literals one of which every matching line contains; empty: none.
    pub prefilter: Vec<String>,
    pub prefilter_explicit: bool,
}

#[derive(Debug)]
pub struct Rule {
    pub id: String,
    pub pack: String,
    pub pack_version: String,
    pub description: String,
    pub tags: Vec<String>,
    pub captures: BTreeMap<String, CapType>,
    pub aggregate: Vec<String>,
    pub variants: Vec<usize>,
    pub examples: Vec<super::ExampleDef>,
    pub file: String,
    pub line: usize,
}

/// All selected rules, compiled.
#[derive(Debug)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    pub variants: Vec<Variant>,
    /// Leftmost-first over every literal plus ESC: where the next candidate line is.
    candidates: Option<AhoCorasick>,
    /// Every literal, overlapping (only built when two literals can overlap
    /// in a text; otherwise `candidates` finds them all): which variants a
    /// line may feed.
    overlapping: Option<AhoCorasick>,
    /// Per distinct literal, the variants it feeds.
    literal_variants: Vec<Vec<usize>>,
    /// Variants without any literal: they see every line of their members.
    unfiltered: Vec<usize>,
    /// Fingerprint of the rules (packs' names, versions and text).
    pub fingerprint: String,
}

/// Which rules to keep: `--only` and `--skip` globs over rule ids.
#[derive(Debug, Default, Clone)]
pub struct Selection {
    pub only: Vec<String>,
    pub skip: Vec<String>,
}

fn globs(pats: &[String]) -> Result<Option<GlobSet>, globset::Error> {
    if pats.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for p in pats {
        b.add(Glob::new(p)?);
    }
    Ok(Some(b.build()?))
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

/// Literal prefixes every match starts with, if the regex has a small set of them.
pub fn derive_literals(src: &str) -> Vec<String> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(src) else {
        return Vec::new();
    };
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix);
    let seq = ex.extract(&hir);
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
        let mut rules: Vec<Rule> = Vec::new();
        let mut variants = Vec::new();
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut fp = sha2::Sha256::new();
        for pack in packs {
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
                if only.as_ref().is_some_and(|g| !g.is_match(&id))
                    || skip.as_ref().is_some_and(|g| g.is_match(&id))
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
                for v in &vdefs {
                    let var = compile_variant(rule_index, v, &mut names).map_err(err)?;
                    vids.push(variants.len());
                    variants.push(var);
                }
                let mut captures = BTreeMap::new();
                for (name, ty) in &def.captures {
                    let t = CapType::parse(ty).ok_or_else(|| {
                        err(format!("capture {name}: unknown type {ty:?} (int, float, string, bool, int_list)"))
                    })?;
                    if !names.contains(name) {
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
                rules.push(Rule {
                    id,
                    pack: pack.def.name.clone(),
                    pack_version: pack.def.version.clone(),
                    description: def.description.clone(),
                    tags: def.tags.clone(),
                    captures,
                    aggregate: def.aggregate.clone(),
                    variants: vids,
                    examples: def.examples.clone(),
                    file: pack.file.clone(),
                    line,
                });
            }
        }
        let mut lits: Vec<String> = Vec::new();
        let mut literal_variants: Vec<Vec<usize>> = Vec::new();
        let mut unfiltered = Vec::new();
        for (i, v) in variants.iter().enumerate() {
            if v.prefilter.is_empty() {
                unfiltered.push(i);
            }
            for l in &v.prefilter {
                match lits.iter().position(|x| x == l) {
                    Some(p) => literal_variants[p].push(i),
                    None => {
                        lits.push(l.clone());
                        literal_variants.push(vec![i]);
                    }
                }
            }
        }
        let (candidates, overlapping) = if lits.is_empty() {
            (None, None)
        } else {
            let c = AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostFirst)
                .build(&lits)
                .expect("literal automaton");
            let o = literals_overlap(&lits).then(|| {
                AhoCorasickBuilder::new()
                    .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                    .build(&lits)
                    .expect("literal automaton")
            });
            (Some(c), o)
        };
        Ok(RuleSet {
            rules,
            variants,
            candidates,
            overlapping,
            literal_variants,
            unfiltered,
            fingerprint: crate::engine::hex(&fp.finalize())[..16].to_string(),
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

    /// Whether some active variant has no literal (every line is a candidate).
    pub fn needs_every_line(&self, active: &[bool]) -> bool {
        self.unfiltered.iter().any(|&v| active[v])
    }

    /// Index in `hay` of the first place a candidate line may be.
    pub fn candidate(&self, hay: &[u8]) -> Option<usize> {
        let m = self.candidates.as_ref()?.find(hay).map(|m| m.start());
        // Lines with escape sequences are always looked at: a literal may be
        // split by colour codes in the raw bytes.
        memchr::memchr(0x1b, &hay[..m.unwrap_or(hay.len())]).or(m)
    }

    /// Variants (sorted, active only) whose literal is in `text`, plus the
    /// active unfiltered ones.
    pub fn hits(&self, text: &[u8], active: &[bool], out: &mut Vec<usize>) {
        out.clear();
        let mut add = |p: usize| {
            out.extend(
                self.literal_variants[p]
                    .iter()
                    .copied()
                    .filter(|&v| active[v]),
            )
        };
        match (&self.overlapping, &self.candidates) {
            (Some(ac), _) => ac
                .find_overlapping_iter(text)
                .for_each(|m| add(m.pattern().as_usize())),
            (None, Some(ac)) => ac.find_iter(text).for_each(|m| add(m.pattern().as_usize())),
            (None, None) => {}
        }
        out.extend(self.unfiltered.iter().copied().filter(|&v| active[v]));
        out.sort_unstable();
        out.dedup();
    }

    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
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
        for (k, val) in &v.set {
            map.insert(k.clone(), val.clone());
        }
        map
    }
}

/// Whether two of the literals can overlap in some text (one contains the
/// other, or a suffix of one is a prefix of the other); if not, a
/// non-overlapping search finds every literal on a line.
fn literals_overlap(lits: &[String]) -> bool {
    lits.iter().enumerate().any(|(i, a)| {
        lits.iter().enumerate().any(|(j, b)| {
            i != j
                && (b.contains(a.as_str())
                    || (1..a.len().min(b.len()))
                        .any(|k| a.as_bytes().ends_with(&b.as_bytes()[..k])))
        })
    })
}

pub fn strip_compression(name: &str) -> &str {
    for ext in [".gz", ".zst", ".xz", ".bz2"] {
        if let Some(s) = name.strip_suffix(ext) {
            return s;
        }
    }
    name
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
) -> Result<Variant, String> {
    let kind = match v.kind.as_deref() {
        None | Some("line") => VariantKind::Line,
        Some("block") => VariantKind::Block,
        Some(k) => return Err(format!("unknown kind {k:?} (line, block)")),
    };
    let mut compile = |field: &str, src: &Option<String>| -> Result<Option<Regex>, String> {
        match src {
            None => Ok(None),
            Some(s) => {
                let re = build_regex(s).map_err(|e| format!("{field}: {e}"))?;
                names.extend(re.capture_names().flatten().map(str::to_string));
                Ok(Some(re))
            }
        }
    };
    let regex = compile("regex", &v.regex)?;
    let each = compile("each", &v.each)?;
    let start = compile("start", &v.start)?;
    let end = compile("end", &v.end)?;
    match kind {
        VariantKind::Line if regex.is_none() => return Err("a line variant needs `regex`".into()),
        VariantKind::Block if start.is_none() || each.is_none() => {
            return Err("a block variant needs `start` and `each`".into());
        }
        _ => {}
    }
    let key = match kind {
        VariantKind::Line => v.regex.as_deref(),
        VariantKind::Block => v.start.as_deref(),
    }
    .unwrap_or_default();
    let (prefilter, explicit) = match &v.prefilter {
        Some(p) => {
            if p.iter().any(|l| l.is_empty()) {
                return Err("empty prefilter literal".into());
            }
            (p.clone(), true)
        }
        None => (derive_literals(key), false),
    };
    let member_globs = v.members.clone().unwrap_or_default();
    let members = globs(&member_globs).map_err(|e| format!("members: {e}"))?;
    let set = v.set.as_ref().map(toml_to_json).unwrap_or_default();
    names.extend(set.keys().cloned());
    Ok(Variant {
        rule,
        kind,
        regex,
        each,
        start,
        end,
        set,
        members,
        member_globs,
        prefilter,
        prefilter_explicit: explicit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
