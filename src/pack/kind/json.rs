//! The `json` rule kind: fields of a JSON document (or of each line of a
//! JSON Lines file) read by path, each object found one record, cited to
//! the line its cited field is on.
//!
//! Paths are JSON Pointers (RFC 6901: `/results/gsm8k`, `~1` for `/`,
//! `~0` for `~`) with `*` for any key or index. `at` says where the
//! records' objects are (default: the document itself); `fields` are paths
//! below each object, or from the document's root when they begin with
//! `$` (`$/config/model`). In a field, `{name}` stands for the key a
//! `*` of `at` stood for (the key named `name` in `keys`), and `*` makes
//! the field the list of every value there: `$/configs/{task}/metric_list/*/metric`
//! is the metrics lm-eval's task config declares for the record's task.
//!
//! A member is one document unless the variant says `json_lines = true`:
//! a result file cut short, empty or written as JSON Lines where one
//! document is expected is not read "completely" line by line, it is a
//! coverage error naming the member (lm-eval and InferenceX write each of
//! their files with one `json.dump`).

use super::{KindDef, KindState, Out, Regexes};
use crate::lines::Line;
use crate::pack::compile::Variant;
use crate::pack::{CapType, VariantDef};
use crate::source::{Coverage, ErrorKind};
use jsonc_parser::ast;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Any,
    /// `{name}` in a field: the key `at`'s `*` named `name` stood for.
    KeyOf(String),
}

#[derive(Debug, Clone)]
struct Path {
    from_root: bool,
    segs: Vec<Seg>,
}

/// What the key (or index) a `*` of `at` stood for becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum KeyCap {
    None,
    One(String),
    /// Split at the first comma (lm-eval's `metric,filter`); a key without
    /// one is no record.
    Split(String, String),
}

/// How a `json` variant reads a document.
#[derive(Debug)]
pub struct JsonMatch {
    at: Vec<Seg>,
    /// Per `*` of `at`, in order: what its key becomes.
    keys: Vec<KeyCap>,
    /// The member may be JSON Lines.
    pub json_lines: bool,
    /// Capture name and its path, in the order the check file gives.
    fields: Vec<(String, Path)>,
    /// The field whose line cites the record (default: the object's).
    cite: Option<usize>,
}

/// A record found in a document: where its citation points (a byte offset
/// in the document's text) and its captures.
#[derive(Debug, PartialEq)]
pub struct JsonHit {
    pub offset: usize,
    pub captures: Map<String, Value>,
}

fn parse_pointer(src: &str) -> Result<Vec<Seg>, String> {
    if src.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = src.strip_prefix('/') else {
        return Err(format!("path {src:?} must begin with / (a JSON Pointer)"));
    };
    Ok(rest
        .split('/')
        .map(|s| match s {
            "*" => Seg::Any,
            s if s.len() > 2 && s.starts_with('{') && s.ends_with('}') => {
                Seg::KeyOf(s[1..s.len() - 1].to_string())
            }
            s => Seg::Key(s.replace("~1", "/").replace("~0", "~")),
        })
        .collect())
}

impl JsonMatch {
    /// `at`: where the objects are; `key`: a capture for `at`'s last `*`;
    /// `fields`: capture name to path; `cite`: the field that cites.
    pub fn new(
        at: Option<&str>,
        key: Option<&str>,
        fields: &[(String, String)],
        cite: Option<&str>,
    ) -> Result<JsonMatch, String> {
        Self::with_keys(at, key, None, fields, cite)
    }

    /// A variant as the pack gives it.
    fn from_def(v: &VariantDef) -> Result<JsonMatch, String> {
        // Every line of a member it reads is kept until the member ends:
        // only members named for it.
        if v.members.as_ref().is_none_or(|m| m.is_empty()) {
            return Err("a json variant needs `members` (the documents it reads)".into());
        }
        let fields: Vec<(String, String)> = v
            .fields
            .iter()
            .flatten()
            .map(|(k, p)| match p {
                toml::Value::String(p) => Ok((k.clone(), p.clone())),
                other => Err(format!("fields.{k}: a path string, not {other}")),
            })
            .collect::<Result<_, String>>()?;
        let mut m = Self::with_keys(
            v.at.as_deref(),
            v.key.as_deref(),
            v.keys.as_deref(),
            &fields,
            v.cite.as_deref(),
        )?;
        m.json_lines = v.json_lines;
        Ok(m)
    }

    fn with_keys(
        at: Option<&str>,
        key: Option<&str>,
        keys: Option<&[String]>,
        fields: &[(String, String)],
        cite: Option<&str>,
    ) -> Result<JsonMatch, String> {
        let at = parse_pointer(at.unwrap_or(""))?;
        if at.iter().any(|s| matches!(s, Seg::KeyOf(_))) {
            return Err("`{name}` belongs in a field, not in `at`".into());
        }
        let stars = at.iter().filter(|s| **s == Seg::Any).count();
        if key.is_some() && stars == 0 {
            return Err("`key` names the key a `*` of `at` stands for, and `at` has none".into());
        }
        let keys = match (key, keys) {
            (Some(_), Some(_)) => return Err("give `key` or `keys`, not both".into()),
            (Some(k), None) => {
                let mut v = vec![KeyCap::None; stars];
                v[stars - 1] = KeyCap::One(k.to_string());
                v
            }
            (None, Some(ks)) => {
                if ks.len() != stars {
                    return Err(format!(
                        "`keys` names {} key(s) and `at` has {stars} `*`",
                        ks.len()
                    ));
                }
                ks.iter()
                    .map(|k| match k.split_once(',') {
                        _ if k.is_empty() => KeyCap::None,
                        Some((a, b)) => KeyCap::Split(a.to_string(), b.to_string()),
                        None => KeyCap::One(k.clone()),
                    })
                    .collect()
            }
            (None, None) => vec![KeyCap::None; stars],
        };
        if fields.is_empty() {
            return Err("a json variant needs `fields`".into());
        }
        let fields = fields
            .iter()
            .map(|(name, p)| {
                let (from_root, p) = match p.strip_prefix('$') {
                    Some(rest) => (true, rest),
                    None => (false, p.as_str()),
                };
                let segs = parse_pointer(p).map_err(|e| format!("fields.{name}: {e}"))?;
                for s in &segs {
                    if let Seg::KeyOf(k) = s
                        && !keys.iter().any(|c| match c {
                            KeyCap::One(a) => a == k,
                            KeyCap::Split(a, b) => a == k || b == k,
                            KeyCap::None => false,
                        })
                    {
                        return Err(format!("fields.{name}: {{{k}}} names no key of `keys`"));
                    }
                }
                Ok((name.clone(), Path { from_root, segs }))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let cite = match cite {
            None => None,
            Some(c) => Some(
                fields
                    .iter()
                    .position(|(n, _)| n == c)
                    .ok_or_else(|| format!("cite: no field named {c}"))?,
            ),
        };
        Ok(JsonMatch {
            at,
            keys,
            json_lines: false,
            fields,
            cite,
        })
    }

    /// What it reads, by field, for `packs show`.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let pointer = |segs: &[Seg]| -> String {
            segs.iter()
                .map(|s| match s {
                    Seg::Any => "/*".to_string(),
                    Seg::KeyOf(k) => format!("/{{{k}}}"),
                    Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
                })
                .collect()
        };
        let mut out = vec![("at", pointer(&self.at))];
        for (name, p) in &self.fields {
            let root = if p.from_root { "$" } else { "" };
            out.push(("field", format!("{name} = {root}{}", pointer(&p.segs))));
        }
        for k in &self.keys {
            match k {
                KeyCap::None => {}
                KeyCap::One(k) => out.push(("key", k.clone())),
                KeyCap::Split(a, b) => out.push(("key", format!("{a},{b}"))),
            }
        }
        if self.json_lines {
            out.push(("json_lines", "true".into()));
        }
        if let Some(i) = self.cite {
            out.push(("cite", self.fields[i].0.clone()));
        }
        out
    }

    /// The capture names this variant can record.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.keys
            .iter()
            .flat_map(|k| match k {
                KeyCap::None => vec![],
                KeyCap::One(a) => vec![a.as_str()],
                KeyCap::Split(a, b) => vec![a.as_str(), b.as_str()],
            })
            .chain(self.fields.iter().map(|(n, _)| n.as_str()))
    }

    /// Records of one document: every object at `at` that holds at least
    /// one of the fields (or, with `key`, every object at all).
    pub fn hits(
        &self,
        doc: &ast::Value<'_>,
        text: &str,
        types: &BTreeMap<String, CapType>,
        out: &mut Vec<JsonHit>,
    ) {
        let mut found = Vec::new();
        objects_at(doc, &self.at, &mut Vec::new(), &mut found);
        'object: for (node, key) in found {
            let mut caps = Map::new();
            let mut cite_at = None;
            for (i, (name, path)) in self.fields.iter().enumerate() {
                let base = if path.from_root { doc } else { node };
                if path
                    .segs
                    .iter()
                    .any(|s| matches!(s, Seg::KeyOf(_) | Seg::Any))
                {
                    if let Some(list) = self.list(base, &path.segs, &key, text, types.get(name)) {
                        caps.insert(name.clone(), list);
                    }
                    continue;
                }
                let Some(v) = walk(base, &path.segs) else {
                    continue;
                };
                let value = match typed(v, text, types.get(name)) {
                    Some(value) => value,
                    // The cited field written as `null` (a metric the writer
                    // could not compute) still makes the record, without a
                    // value: bad evidence to report, not nothing.
                    None if self.cite == Some(i) => Value::Null,
                    None => continue,
                };
                if self.cite == Some(i) {
                    cite_at = Some(start_of(v));
                }
                caps.insert(name.clone(), value);
            }
            // With `cite`, the cited field is what makes an object one of
            // the rule's (a result without `tput_per_gpu` is no point).
            if caps.is_empty() || (self.cite.is_some() && cite_at.is_none()) {
                continue;
            }
            for (k, cap) in key.into_iter().zip(&self.keys) {
                match cap {
                    KeyCap::None => {}
                    KeyCap::One(name) => {
                        caps.insert(name.clone(), Value::String(k));
                    }
                    KeyCap::Split(a, b) => {
                        let Some((ka, kb)) = k.split_once(',') else {
                            continue 'object;
                        };
                        caps.insert(a.clone(), Value::String(ka.to_string()));
                        caps.insert(b.clone(), Value::String(kb.to_string()));
                    }
                }
            }
            let offset = cite_at.unwrap_or_else(|| start_of(node));
            out.push(JsonHit {
                offset,
                captures: caps,
            });
        }
    }
}

impl JsonMatch {
    /// A field with `{name}` or `*`: `{name}` replaced by the record's key,
    /// the values at the path as a list where it has a `*` (none: no
    /// field), else the one value.
    fn list(
        &self,
        base: &ast::Value<'_>,
        segs: &[Seg],
        key: &[String],
        text: &str,
        ty: Option<&CapType>,
    ) -> Option<Value> {
        let key_of = |name: &str| -> Option<String> {
            key.iter().zip(&self.keys).find_map(|(k, c)| match c {
                KeyCap::One(a) if a == name => Some(k.clone()),
                KeyCap::Split(a, b) => {
                    let (ka, kb) = k.split_once(',')?;
                    (a == name)
                        .then(|| ka.to_string())
                        .or_else(|| (b == name).then(|| kb.to_string()))
                }
                _ => None,
            })
        };
        let segs = segs
            .iter()
            .map(|s| match s {
                Seg::KeyOf(n) => key_of(n).map(Seg::Key),
                other => Some(other.clone()),
            })
            .collect::<Option<Vec<Seg>>>()?;
        if !segs.contains(&Seg::Any) {
            return typed(walk(base, &segs)?, text, ty);
        }
        let mut found = Vec::new();
        objects_at(base, &segs, &mut Vec::new(), &mut found);
        let values: Vec<Value> = found
            .into_iter()
            .filter_map(|(v, _)| typed(v, text, ty))
            .collect();
        (!values.is_empty()).then_some(Value::Array(values))
    }
}

/// The nodes at `path` (with `*` any key or index), with the keys or
/// indexes each `*` stood for.
fn objects_at<'a, 'b>(
    node: &'b ast::Value<'a>,
    path: &[Seg],
    key: &mut Vec<String>,
    out: &mut Vec<(&'b ast::Value<'a>, Vec<String>)>,
) {
    let Some((first, rest)) = path.split_first() else {
        out.push((node, key.clone()));
        return;
    };
    match (first, node) {
        (Seg::Any, ast::Value::Object(o)) => {
            for p in &o.properties {
                key.push(prop_name(p));
                objects_at(&p.value, rest, key, out);
                key.pop();
            }
        }
        (Seg::Any, ast::Value::Array(a)) => {
            for (i, e) in a.elements.iter().enumerate() {
                key.push(i.to_string());
                objects_at(e, rest, key, out);
                key.pop();
            }
        }
        (Seg::Key(k), _) => {
            if let Some(v) = child(node, k) {
                objects_at(v, rest, key, out);
            }
        }
        _ => {}
    }
}

fn prop_name(p: &ast::ObjectProp<'_>) -> String {
    match &p.name {
        ast::ObjectPropName::String(s) => s.value.to_string(),
        ast::ObjectPropName::Word(w) => w.value.to_string(),
    }
}

/// A member of an object by name, or an element of an array by index.
fn child<'a, 'b>(node: &'b ast::Value<'a>, k: &str) -> Option<&'b ast::Value<'a>> {
    match node {
        // The last of a repeated name, as Python's json and serde_json read it.
        ast::Value::Object(o) => o
            .properties
            .iter()
            .rev()
            .find(|p| prop_name(p) == k)
            .map(|p| &p.value),
        ast::Value::Array(a) => k.parse::<usize>().ok().and_then(|i| a.elements.get(i)),
        _ => None,
    }
}

fn walk<'a, 'b>(node: &'b ast::Value<'a>, segs: &[Seg]) -> Option<&'b ast::Value<'a>> {
    segs.iter().try_fold(node, |n, s| match s {
        Seg::Key(k) => child(n, k),
        Seg::Any | Seg::KeyOf(_) => None,
    })
}

fn start_of(v: &ast::Value<'_>) -> usize {
    use jsonc_parser::common::Ranged;
    v.start()
}

/// A field's value as a capture: converted by its declared type, else as
/// JSON has it (objects and arrays as their JSON text). `null` is no value.
fn typed(v: &ast::Value<'_>, text: &str, ty: Option<&CapType>) -> Option<Value> {
    use jsonc_parser::common::Ranged;
    let raw = || text.get(v.start()..v.end()).unwrap_or_default().to_string();
    let s = match v {
        ast::Value::NullKeyword(_) => return None,
        ast::Value::StringLit(s) => s.value.to_string(),
        ast::Value::BooleanLit(b) => b.value.to_string(),
        ast::Value::NumberLit(n) => n.value.to_string(),
        _ => raw(),
    };
    Some(match (ty, v) {
        // A number written as a string is not the number a result file
        // holds (a point "12.5" is bad evidence, not a point).
        (Some(CapType::Float), ast::Value::StringLit(_)) => Value::Null,
        (Some(t), _) => t.convert(&s),
        (None, ast::Value::NumberLit(_)) => serde_json::from_str::<serde_json::Number>(&s)
            .map(Value::Number)
            .unwrap_or(Value::String(s)),
        (None, ast::Value::BooleanLit(b)) => Value::Bool(b.value),
        (None, _) => Value::String(s),
    })
}

/// Parses a document; `Err` with the parser's message when it is not JSON.
pub(crate) fn parse(text: &str) -> Result<Option<ast::Value<'_>>, String> {
    let opts = jsonc_parser::ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        ..Default::default()
    };
    jsonc_parser::parse_to_ast(text, &Default::default(), &opts)
        .map(|r| r.value)
        .map_err(|e| e.to_string())
}

/// The documents of a member's text, each with where it begins in `text`:
/// the text as one document, or with `json_lines` each line its own. The
/// error says why (the rest of) the member is not what its variants read:
/// the documents before it were read.
pub(crate) fn documents<'t>(
    text: &'t str,
    lines: impl Iterator<Item = (usize, &'t str)>,
    json_lines: bool,
) -> (Vec<(usize, ast::Value<'t>)>, Option<String>) {
    let whole = match parse(text) {
        Ok(Some(value)) => return (vec![(0, value)], None),
        // Empty or blank: a file written and never filled, or cut at 0.
        Ok(None) => return (Vec::new(), Some("empty: no JSON document".into())),
        Err(whole) => whole,
    };
    let mut docs = Vec::new();
    for (start, line) in lines {
        match parse(line) {
            Ok(Some(value)) => docs.push((start, value)),
            Ok(None) => {}
            Err(_) => return (docs, Some(format!("not JSON ({whole})"))),
        }
    }
    if json_lines {
        (docs, None)
    } else {
        // Every line a document: JSON Lines where one document belongs.
        let why = format!(
            "JSON Lines ({} documents), not one JSON document",
            docs.len()
        );
        (Vec::new(), Some(why))
    }
}

impl KindDef for JsonMatch {
    const NAME: &'static str = "json";
    const KEYS: &'static [&'static str] = &["at", "key", "keys", "fields", "cite", "json_lines"];
    /// Documents are read whole at the member's end.
    const LINES: bool = false;
    /// The member's text where a json rule reads it (at its end).
    type State = Option<JsonDoc>;

    /// A json variant as the pack gives it.
    fn compile(v: &VariantDef, re: &mut Regexes<'_>) -> Result<JsonMatch, String> {
        let m = JsonMatch::from_def(v)?;
        re.names.extend(m.names().map(str::to_string));
        Ok(m)
    }

    fn names(&self) -> Vec<&str> {
        JsonMatch::names(self).collect()
    }

    fn patterns(&self) -> Vec<(&'static str, String)> {
        self.describe()
    }

    fn aggregated(&mut self, _fields: &[&str], _prefilter: &[String]) -> Result<(), String> {
        Err("a json rule cannot aggregate".into())
    }
}

/// A member is kept (every line of it) only where a json variant reads it.
impl KindState for Option<JsonDoc> {
    fn new(variants: &[Variant], active: &[bool]) -> Option<JsonDoc> {
        active
            .iter()
            .zip(variants)
            .any(|(a, v)| *a && JsonMatch::of(&v.kind).is_some())
            .then(JsonDoc::default)
    }

    /// A json rule reads every line of the members it names.
    fn every_line(&self) -> bool {
        self.is_some()
    }

    #[inline]
    fn each_line<'s, O: Out<'s>>(&mut self, line: &Line<'_>, _text: &[u8], _out: &mut O) {
        if let Some(doc) = self {
            doc.push(line);
        }
    }

    fn append<'s, O: Out<'s>>(&mut self, later: Option<JsonDoc>, _later_out: &mut O) {
        if let (Some(doc), Some(more)) = (self, later) {
            doc.append(more);
        }
    }

    /// Runs the json rules over the member's text: one document, or JSON
    /// Lines. What cannot be read is a coverage error on the member, so no
    /// absence is claimed from it.
    fn end<'s, O: Out<'s>>(&mut self, out: &mut O, coverage: &mut Coverage) {
        if let Some(doc) = self.take() {
            read(&doc, out, coverage);
        }
    }
}

/// The member's documents, read by its active json variants.
fn read<'s, O: Out<'s>>(doc: &JsonDoc, out: &mut O, coverage: &mut Coverage) {
    let set = out.set();
    let json_rules = {
        let mut ids: Vec<&str> = (0..set.variants.len())
            .filter(|&v| out.active(v) && JsonMatch::of(&set.variants[v].kind).is_some())
            .map(|v| set.rules[set.variants[v].rule].id.as_str())
            .collect();
        ids.dedup();
        ids.join(", ")
    };
    if let Some(cut) = &doc.cut {
        let msg = format!("not read as JSON ({cut}) by {}", json_rules);
        coverage.error(out.members(), ErrorKind::Limit, msg);
        return;
    }
    let Ok(text) = std::str::from_utf8(&doc.text) else {
        let msg = format!("not UTF-8, so not read as JSON by {}", json_rules);
        coverage.error(out.members(), ErrorKind::Corrupt, msg);
        return;
    };
    // JSON Lines only where a variant reading the member says so.
    let json_lines = (0..set.variants.len()).any(|v| {
        out.active(v) && JsonMatch::of(&set.variants[v].kind).is_some_and(|m| m.json_lines)
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
        emitted |= json_hits(doc, value, &text[*base..end], *base, &mut hits, out);
    }
    if let Some(why) = error {
        let msg = format!("{why}, so not read by {json_rules}");
        coverage.error(out.members(), ErrorKind::Corrupt, msg);
    }
    if emitted {
        out.sort_by_line();
    }
}

/// Records of the json variants in one document (`text`, at `base` in
/// the member's kept text); the first variant of a rule that finds any
/// wins, as on lines.
fn json_hits<'s, O: Out<'s>>(
    doc: &JsonDoc,
    value: &ast::Value<'_>,
    text: &str,
    base: usize,
    hits: &mut Vec<JsonHit>,
    out: &mut O,
) -> bool {
    let set = out.set();
    let mut done = Vec::new();
    let mut any = false;
    for (vi, v) in set.variants.iter().enumerate() {
        let Some(m) = JsonMatch::of(&v.kind) else {
            continue;
        };
        if !out.active(vi) || done.contains(&v.rule) {
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
            out.emit(vi, &line, raw, at - start, caps);
            any = true;
        }
    }
    any
}

/// Most bytes of one document the json rules read: past it the member
/// gets a `limit` error (result files are kilobytes).
pub(crate) const MAX_JSON_BYTES: usize = 16 << 20;

/// A member a json rule reads: its lines, kept until the member ends.
#[derive(Debug, Default)]
pub(crate) struct JsonDoc {
    pub(crate) text: Vec<u8>,
    /// Per line: its number, its offset in the member, and where it
    /// begins in `text`.
    pub(crate) lines: Vec<(u64, u64, usize)>,
    /// Why the document cannot be read whole (too big, a line cut short).
    pub(crate) cut: Option<String>,
}

impl JsonDoc {
    pub(crate) fn push(&mut self, line: &Line<'_>) {
        if self.cut.is_some() {
            return;
        }
        if line.truncated {
            self.cut = Some(format!("line {} is longer than --max-line", line.number));
            return;
        }
        let raw = line.raw.strip_suffix(b"\r").unwrap_or(line.raw);
        if self.text.len() + raw.len() + 1 > MAX_JSON_BYTES {
            self.cut = Some(format!("larger than {} MiB", MAX_JSON_BYTES >> 20));
            return;
        }
        self.lines.push((line.number, line.offset, self.text.len()));
        self.text.extend_from_slice(raw);
        self.text.push(b'\n');
    }

    /// Appends the document's next part (of a member split across threads).
    pub(crate) fn append(&mut self, later: JsonDoc) {
        if self.cut.is_some() {
            return;
        }
        if later.cut.is_some() || self.text.len() + later.text.len() > MAX_JSON_BYTES {
            self.cut = later
                .cut
                .or_else(|| Some(format!("larger than {} MiB", MAX_JSON_BYTES >> 20)));
            return;
        }
        let base = self.text.len();
        self.lines
            .extend(later.lines.into_iter().map(|(n, o, at)| (n, o, at + base)));
        self.text.extend_from_slice(&later.text);
    }

    /// The line holding byte `at` of the text: its index in `lines`.
    pub(crate) fn line_at(&self, at: usize) -> usize {
        self.lines.partition_point(|l| l.2 <= at).saturating_sub(1)
    }

    /// The text of line `i` (without its end).
    pub(crate) fn line_text(&self, i: usize) -> &[u8] {
        let start = self.lines[i].2;
        let end = self.lines.get(i + 1).map_or(self.text.len(), |l| l.2);
        self.text[start..end]
            .strip_suffix(b"\n")
            .unwrap_or(&self.text[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(m: &JsonMatch, text: &str) -> Vec<(usize, String)> {
        let doc = parse(text).unwrap().unwrap();
        let mut out = Vec::new();
        m.hits(&doc, text, &BTreeMap::new(), &mut out);
        out.into_iter()
            .map(|h| (h.offset, Value::Object(h.captures).to_string()))
            .collect()
    }

    fn fields(f: &[(&str, &str)]) -> Vec<(String, String)> {
        f.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn fields_of_the_document() {
        let m = JsonMatch::new(
            None,
            None,
            &fields(&[("conc", "/conc"), ("hw", "/hw")]),
            None,
        )
        .unwrap();
        let text = "{\n  \"hw\": \"mi355x\",\n  \"conc\": 4\n}";
        // Cited where the object begins, without `cite`.
        let hits = run(&m, text);
        assert_eq!(hits, vec![(0, r#"{"conc":4,"hw":"mi355x"}"#.into())]);
    }

    #[test]
    fn each_object_of_an_array_and_keys_of_an_object() {
        let m = JsonMatch::new(Some("/*"), None, &fields(&[("conc", "/conc")]), None).unwrap();
        let hits = run(&m, r#"[{"conc": 1}, {"x": 2}, {"conc": 8}]"#);
        assert_eq!(hits.len(), 2, "the object without the field is no record");
        let m = JsonMatch::new(
            Some("/results/*"),
            Some("task"),
            &fields(&[
                ("strict", "/exact_match,strict-match"),
                ("model", "$/model"),
            ]),
            Some("strict"),
        )
        .unwrap();
        let text = r#"{"results": {"gsm8k": {"exact_match,strict-match": 0.97}, "x~1y": {}}, "model": "m"}"#;
        let hits = run(&m, text);
        // The object without the cited field is no record.
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].1, r#"{"model":"m","strict":0.97,"task":"gsm8k"}"#);
        assert_eq!(hits[0].0, text.find("0.97").unwrap());
    }

    /// lm-eval's `results.<task>.<metric>,<filter>`: a key per `*`, the
    /// second split at its comma; `alias` (no comma) is no record.
    #[test]
    fn keys_of_every_star_and_a_split_key() {
        let m = JsonMatch::with_keys(
            Some("/results/*/*"),
            None,
            Some(&["task".to_string(), "metric,filter".to_string()]),
            &fields(&[("value", "")]),
            Some("value"),
        )
        .unwrap();
        let text = r#"{"results": {"gsm8k": {"alias": "gsm8k", "exact_match,strict-match": 0.12, "exact_match,flexible-extract": 0.41}}}"#;
        let hits = run(&m, text);
        assert_eq!(
            hits.iter().map(|h| h.1.as_str()).collect::<Vec<_>>(),
            vec![
                r#"{"filter":"strict-match","metric":"exact_match","task":"gsm8k","value":0.12}"#,
                r#"{"filter":"flexible-extract","metric":"exact_match","task":"gsm8k","value":0.41}"#,
            ]
        );
        assert!(
            JsonMatch::with_keys(Some("/a/*"), None, Some(&[]), &fields(&[("v", "")]), None)
                .is_err()
        );
        assert!(
            JsonMatch::with_keys(
                Some("/*"),
                Some("k"),
                Some(&["k".into()]),
                &fields(&[("v", "")]),
                None
            )
            .is_err()
        );
    }

    #[test]
    fn pointer_escapes_and_bad_paths() {
        let m = JsonMatch::new(None, None, &fields(&[("v", "/a~1b/c~0d")]), None).unwrap();
        assert_eq!(run(&m, r#"{"a/b": {"c~d": true}}"#)[0].1, r#"{"v":true}"#);
        assert!(JsonMatch::new(None, None, &fields(&[("v", "a")]), None).is_err());
        assert!(JsonMatch::new(None, Some("k"), &fields(&[("v", "/a")]), None).is_err());
        // `*` in a field lists every value there; `{name}` must name a key
        // of `keys` and belongs in fields only.
        let m = JsonMatch::new(None, None, &fields(&[("v", "/a/*/m")]), None).unwrap();
        assert_eq!(
            run(&m, r#"{"a": [{"m": "x"}, {"n": 1}, {"m": "y"}]}"#)[0].1,
            r#"{"v":["x","y"]}"#
        );
        assert!(JsonMatch::new(None, None, &fields(&[("v", "/{t}")]), None).is_err());
        assert!(
            JsonMatch::with_keys(
                Some("/{t}/*"),
                None,
                Some(&["t".into()]),
                &fields(&[("v", "")]),
                None
            )
            .is_err()
        );
        assert!(JsonMatch::new(None, None, &[], None).is_err());
        assert!(JsonMatch::new(None, None, &fields(&[("v", "/a")]), Some("w")).is_err());
    }

    #[test]
    fn python_nan_and_null_and_types() {
        let m = JsonMatch::new(
            None,
            None,
            &fields(&[("a", "/a"), ("b", "/b"), ("c", "/c"), ("d", "/d")]),
            None,
        )
        .unwrap();
        let mut types = BTreeMap::new();
        types.insert("a".to_string(), CapType::Float);
        types.insert("c".to_string(), CapType::Int);
        let text = r#"{"a": NaN, "b": null, "c": "12", "d": [1, 2]}"#;
        let doc = parse(text).unwrap().unwrap();
        let mut out = Vec::new();
        m.hits(&doc, text, &types, &mut out);
        assert_eq!(
            Value::Object(out[0].captures.clone()).to_string(),
            r#"{"a":null,"c":12,"d":"[1, 2]"}"#
        );
        assert!(parse("{\"a\": 1,}").is_err());
        assert!(parse("{\"a\": 1}\n{\"a\": 2}").is_err());
    }
}
