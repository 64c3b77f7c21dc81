//! Eval bars from InferenceX's thresholds file (`--thresholds PATH`), read
//! and picked as `utils/evals/validate_scores.py` reads and picks them
//! (`load_config`, `detect_model_prefix`, `resolve_threshold`).
//!
//! The file is the verifier's checkout's, never a copy shipped here: bars
//! change with the repository, and a stale bar passes what CI fails.
//! Forms read: JSON text (the file's form since 2026), the YAML of before
//! (a mapping of mappings of numbers: `default:` and `models: <prefix>:`),
//! and the older flat form (the whole mapping is the per-task default).

use sha2::Digest;
use std::collections::BTreeMap;

/// A thresholds file that cannot be used as bars.
#[derive(Debug, thiserror::Error)]
#[error("--thresholds {file}: {message}")]
pub struct ThresholdsError {
    pub file: String,
    pub message: String,
}

/// Bars per task: the default ones and those of each model prefix.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    /// The file's name as given, for verdicts.
    pub file: String,
    /// The file's sha256, hex: which version of the file gave the bar.
    pub sha256: String,
    pub default: BTreeMap<String, f64>,
    pub models: BTreeMap<String, BTreeMap<String, f64>>,
}

/// One bar and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub value: f64,
    /// `models.qwen3.5 = 0.94 (thresholds.yaml, sha256 …)`.
    pub source: String,
}

impl Thresholds {
    pub fn load(path: &std::path::Path) -> Result<Thresholds, ThresholdsError> {
        let file = path.display().to_string();
        let err = |message: String| ThresholdsError {
            file: file.clone(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|e| err(e.to_string()))?;
        let text = std::str::from_utf8(&bytes).map_err(|_| err("not UTF-8 text".into()))?;
        let name = path
            .file_name()
            .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
        Thresholds::parse(&name, text).map_err(err)
    }

    pub fn parse(name: &str, text: &str) -> Result<Thresholds, String> {
        let sha256 = hex(&sha2::Sha256::digest(text.as_bytes()));
        // JSON is YAML: validate_scores.py reads either with yaml.safe_load.
        let tree = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => Tree::from_json(&v)?,
            Err(_) => parse_yaml(text)?,
        };
        let Tree::Map(top) = tree else {
            return Err("thresholds config must be a mapping".into());
        };
        let (default, models) = if !top.contains_key("default") && !top.contains_key("models") {
            // Legacy flat format: the whole object is the per-task default.
            (bars("", &top)?, BTreeMap::new())
        } else {
            let default = match top.get("default") {
                None => BTreeMap::new(),
                Some(Tree::Map(m)) => bars("default.", m)?,
                Some(_) => return Err("`default` must map tasks to bars".into()),
            };
            let mut models = BTreeMap::new();
            match top.get("models") {
                None => {}
                Some(Tree::Map(m)) => {
                    for (prefix, t) in m {
                        let Tree::Map(t) = t else {
                            return Err(format!("models.{prefix} must map tasks to bars"));
                        };
                        models.insert(prefix.clone(), bars(&format!("models.{prefix}."), t)?);
                    }
                }
                Some(_) => return Err("`models` must map model prefixes to bars".into()),
            }
            (default, models)
        };
        Ok(Thresholds {
            file: name.to_string(),
            sha256,
            default,
            models,
        })
    }

    /// The bar of `task` for a model prefix, as `resolve_threshold` picks
    /// it: the model's own, else the default. `None`: the file has no bar
    /// for the task (CI then falls back to its `--min-score`, which is the
    /// workflow's, not the file's: no bar here).
    pub fn bar(&self, prefix: Option<&str>, task: &str) -> Option<Bar> {
        let short = &self.sha256[..12.min(self.sha256.len())];
        if let Some(p) = prefix
            && let Some(v) = self.models.get(p).and_then(|m| m.get(task))
        {
            return Some(Bar {
                value: *v,
                source: format!("models.{p}.{task} = {v} ({}, sha256 {short})", self.file),
            });
        }
        let v = self.default.get(task)?;
        let why = match prefix {
            Some(p) => format!("model prefix {p} has no bar of its own"),
            None => "model prefix unknown".to_string(),
        };
        Some(Bar {
            value: *v,
            source: format!(
                "default.{task} = {v} ({}, sha256 {short}): {why}",
                self.file
            ),
        })
    }

    /// Every task the file has a bar for.
    pub fn tasks(&self) -> std::collections::BTreeSet<&str> {
        self.default
            .keys()
            .chain(self.models.values().flat_map(|m| m.keys()))
            .map(String::as_str)
            .collect()
    }
}

/// `meta_env.json`'s `infmax_model_prefix` as `detect_model_prefix` takes
/// it: empty and `unknown` are no prefix.
pub(crate) fn usable_prefix(p: &str) -> Option<&str> {
    let p = p.trim();
    (!p.is_empty() && p != "unknown").then_some(p)
}

use crate::hash::hex;

/// A bar must be a score a result can have: a finite number in [0, 1]
/// (validate_scores.py compares `val < bar`, so a NaN or -inf bar passes
/// everything, a bar of 45 fails everything).
fn bars(path: &str, m: &BTreeMap<String, Tree>) -> Result<BTreeMap<String, f64>, String> {
    let mut out = BTreeMap::new();
    for (task, v) in m {
        let n = match v {
            Tree::Num(n) => *n,
            other => return Err(format!("{path}{task}: not a number ({})", other.kind())),
        };
        if !n.is_finite() || !(0.0..=1.0).contains(&n) {
            return Err(format!(
                "{path}{task} = {n}: a bar is a score between 0 and 1"
            ));
        }
        out.insert(task.clone(), n);
    }
    Ok(out)
}

/// The little of YAML/JSON the file holds.
#[derive(Debug, Clone, PartialEq)]
enum Tree {
    Map(BTreeMap<String, Tree>),
    Num(f64),
    Other(&'static str),
}

impl Tree {
    fn kind(&self) -> &'static str {
        match self {
            Tree::Map(_) => "a mapping",
            Tree::Num(_) => "a number",
            Tree::Other(k) => k,
        }
    }

    fn from_json(v: &serde_json::Value) -> Result<Tree, String> {
        use serde_json::Value;
        Ok(match v {
            Value::Object(o) => Tree::Map(
                o.iter()
                    .map(|(k, v)| Ok((k.clone(), Tree::from_json(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Value::Number(n) => Tree::Num(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(_) => Tree::Other("a string"),
            Value::Array(_) => Tree::Other("a list"),
            Value::Bool(_) => Tree::Other("a boolean"),
            Value::Null => Tree::Other("null"),
        })
    }
}

/// Block-style YAML mappings (`key: value`, nested by indentation, `#`
/// comments). Anything else (flow style, lists, anchors, multi-line
/// scalars) is refused by line, never guessed.
fn parse_yaml(text: &str) -> Result<Tree, String> {
    // (indent, key, value) of each significant line.
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = match raw.find(" #") {
            Some(c) => &raw[..c],
            None if raw.trim_start().starts_with('#') => "",
            None => raw,
        };
        if line.trim().is_empty() || line.trim() == "---" {
            continue;
        }
        if line.contains('\t') {
            return Err(format!("line {n}: a tab in YAML indentation"));
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim();
        let Some((k, v)) = body.split_once(':') else {
            return Err(format!(
                "line {n}: not `key: value` ({body:?}); give the JSON form"
            ));
        };
        let k = k.trim().trim_matches(|c| c == '"' || c == '\'');
        if k.is_empty() || k.starts_with(['-', '{', '[', '&', '*', '!', '?']) {
            return Err(format!(
                "line {n}: unsupported YAML ({body:?}); give the JSON form"
            ));
        }
        lines.push((n, indent, k.to_string(), v.trim().to_string()));
    }
    let mut pos = 0;
    let tree = yaml_map(&lines, &mut pos, 0)?;
    if let Some((n, ..)) = lines.get(pos) {
        return Err(format!("line {n}: indented less than its mapping"));
    }
    Ok(tree)
}

fn yaml_map(
    lines: &[(usize, usize, String, String)],
    pos: &mut usize,
    indent: usize,
) -> Result<Tree, String> {
    let mut map = BTreeMap::new();
    while let Some((n, ind, k, v)) = lines.get(*pos) {
        if *ind < indent {
            break;
        }
        if *ind > indent {
            return Err(format!("line {n}: unexpected indentation"));
        }
        *pos += 1;
        let value = if v.is_empty() {
            match lines.get(*pos) {
                Some((_, deeper, ..)) if *deeper > indent => yaml_map(lines, pos, *deeper)?,
                _ => Tree::Other("null"),
            }
        } else {
            yaml_scalar(*n, v)?
        };
        if map.insert(k.clone(), value).is_some() {
            return Err(format!("line {n}: {k} given twice"));
        }
    }
    Ok(Tree::Map(map))
}

fn yaml_scalar(n: usize, v: &str) -> Result<Tree, String> {
    if v.starts_with(['{', '[', '&', '*', '!', '|', '>']) {
        return Err(format!(
            "line {n}: unsupported YAML value {v:?}; give the JSON form"
        ));
    }
    let lower = v.to_ascii_lowercase();
    Ok(match lower.as_str() {
        ".nan" => Tree::Num(f64::NAN),
        ".inf" | "+.inf" => Tree::Num(f64::INFINITY),
        "-.inf" => Tree::Num(f64::NEG_INFINITY),
        "null" | "~" => Tree::Other("null"),
        "true" | "false" => Tree::Other("a boolean"),
        _ => match v.parse::<f64>() {
            // YAML 1.1 (PyYAML) reads `inf`/`nan` as strings, not numbers.
            Ok(f) if !lower.contains("inf") && !lower.contains("nan") => Tree::Num(f),
            _ => Tree::Other("a string"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// utils/evals/thresholds.yaml of InferenceX (2026-08), byte for byte
    /// in form (bars abridged).
    const YAML: &str = "# Model thresholds override task defaults.\ndefault:\n  gsm8k: 0.90\n  gpqa_diamond_cot_n_shot: 0.30\nmodels:\n  glm5.1:\n    gsm8k: 0.93\n  qwen3.5:\n    gsm8k: 0.94\n";

    #[test]
    fn yaml_json_and_flat_forms_give_the_same_bars() {
        let y = Thresholds::parse("thresholds.yaml", YAML).unwrap();
        let j = Thresholds::parse(
            "thresholds.yaml",
            r#"{"default": {"gsm8k": 0.90, "gpqa_diamond_cot_n_shot": 0.30}, "models": {"glm5.1": {"gsm8k": 0.93}, "qwen3.5": {"gsm8k": 0.94}}}"#,
        )
        .unwrap();
        assert_eq!((&y.default, &y.models), (&j.default, &j.models));
        let flat = Thresholds::parse("t.yaml", "gsm8k: 0.85\n").unwrap();
        assert_eq!(flat.default.get("gsm8k"), Some(&0.85));
        assert!(flat.models.is_empty());
    }

    #[test]
    fn bars_are_picked_as_validate_scores_picks_them() {
        let t = Thresholds::parse("thresholds.yaml", YAML).unwrap();
        let b = t.bar(Some("qwen3.5"), "gsm8k").unwrap();
        assert_eq!(b.value, 0.94);
        assert!(
            b.source
                .starts_with("models.qwen3.5.gsm8k = 0.94 (thresholds.yaml, sha256 "),
            "{}",
            b.source
        );
        let b = t.bar(Some("dsr1"), "gsm8k").unwrap();
        assert_eq!(b.value, 0.90);
        assert!(
            b.source.contains("model prefix dsr1 has no bar of its own"),
            "{}",
            b.source
        );
        let b = t.bar(None, "gsm8k").unwrap();
        assert!(b.source.ends_with("model prefix unknown"), "{}", b.source);
        assert_eq!(
            t.bar(Some("qwen3.5"), "gpqa_diamond_cot_n_shot")
                .unwrap()
                .value,
            0.30
        );
        assert!(t.bar(Some("qwen3.5"), "mmlu").is_none());
        assert_eq!(usable_prefix("unknown"), None);
        assert_eq!(usable_prefix(""), None);
        assert_eq!(usable_prefix("glm5"), Some("glm5"));
    }

    #[test]
    fn bad_bars_and_unsupported_yaml_are_errors() {
        for bad in [
            "default:\n  gsm8k: .nan\n",
            "default:\n  gsm8k: -.inf\n",
            "default:\n  gsm8k: 90\n",
            "default:\n  gsm8k: -0.1\n",
            "default:\n  gsm8k: high\n",
            "default: {gsm8k: 0.9}\n",
            "- gsm8k\n",
            r#"{"default": {"gsm8k": 1.5}}"#,
            "[1, 2]",
        ] {
            assert!(Thresholds::parse("t", bad).is_err(), "{bad:?}");
        }
    }
}
