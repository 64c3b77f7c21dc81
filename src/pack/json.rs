//! The `json` rule kind: fields of a JSON document (or of each line of a
//! JSON Lines file) read by path, each object found one record, cited to
//! the line its cited field is on.
//!
//! Paths are JSON Pointers (RFC 6901: `/results/gsm8k`, `~1` for `/`,
//! `~0` for `~`) with `*` for any key or index. `at` says where the
//! records' objects are (default: the document itself); `fields` are paths
//! below each object, or from the document's root when they begin with
//! `$` (`$/config/model`).

use super::CapType;
use jsonc_parser::ast;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Any,
}

#[derive(Debug, Clone)]
struct Path {
    from_root: bool,
    segs: Vec<Seg>,
}

/// How a `json` variant reads a document.
#[derive(Debug)]
pub struct JsonMatch {
    at: Vec<Seg>,
    /// Capture name for the key (or index) the last `*` of `at` stood for.
    key: Option<String>,
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
        let at = parse_pointer(at.unwrap_or(""))?;
        if key.is_some() && !at.contains(&Seg::Any) {
            return Err("`key` names the key a `*` of `at` stands for, and `at` has none".into());
        }
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
                if segs.contains(&Seg::Any) {
                    return Err(format!(
                        "fields.{name}: `*` belongs in `at`, not in a field"
                    ));
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
            key: key.map(str::to_string),
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
                    Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
                })
                .collect()
        };
        let mut out = vec![("at", pointer(&self.at))];
        for (name, p) in &self.fields {
            let root = if p.from_root { "$" } else { "" };
            out.push(("field", format!("{name} = {root}{}", pointer(&p.segs))));
        }
        if let Some(k) = &self.key {
            out.push(("key", k.clone()));
        }
        if let Some(i) = self.cite {
            out.push(("cite", self.fields[i].0.clone()));
        }
        out
    }

    /// The capture names this variant can record.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.key
            .iter()
            .map(String::as_str)
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
        objects_at(doc, &self.at, None, &mut found);
        for (node, key) in found {
            let mut caps = Map::new();
            let mut cite_at = None;
            for (i, (name, path)) in self.fields.iter().enumerate() {
                let base = if path.from_root { doc } else { node };
                let Some(v) = walk(base, &path.segs) else {
                    continue;
                };
                let Some(value) = typed(v, text, types.get(name)) else {
                    continue;
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
            if let (Some(k), Some(name)) = (key, &self.key) {
                caps.insert(name.clone(), Value::String(k));
            }
            let offset = cite_at.unwrap_or_else(|| start_of(node));
            out.push(JsonHit {
                offset,
                captures: caps,
            });
        }
    }
}

/// The nodes at `path` (with `*` any key or index), with the key or index
/// the last `*` stood for.
fn objects_at<'a, 'b>(
    node: &'b ast::Value<'a>,
    path: &[Seg],
    key: Option<String>,
    out: &mut Vec<(&'b ast::Value<'a>, Option<String>)>,
) {
    let Some((first, rest)) = path.split_first() else {
        out.push((node, key));
        return;
    };
    match (first, node) {
        (Seg::Any, ast::Value::Object(o)) => {
            for p in &o.properties {
                objects_at(&p.value, rest, Some(prop_name(p)), out);
            }
        }
        (Seg::Any, ast::Value::Array(a)) => {
            for (i, e) in a.elements.iter().enumerate() {
                objects_at(e, rest, Some(i.to_string()), out);
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
        Seg::Any => None,
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

    #[test]
    fn pointer_escapes_and_bad_paths() {
        let m = JsonMatch::new(None, None, &fields(&[("v", "/a~1b/c~0d")]), None).unwrap();
        assert_eq!(run(&m, r#"{"a/b": {"c~d": true}}"#)[0].1, r#"{"v":true}"#);
        assert!(JsonMatch::new(None, None, &fields(&[("v", "a")]), None).is_err());
        assert!(JsonMatch::new(None, Some("k"), &fields(&[("v", "/a")]), None).is_err());
        assert!(JsonMatch::new(None, None, &fields(&[("v", "/*")]), None).is_err());
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
