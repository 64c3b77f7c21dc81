//! Capture conditions of checks: equality or `{ eq, ne, gt, ge, lt, le, in,
//! not_in, regex, within }`, where a value may be a literal, `@capture` (another
//! capture of the same record) or `@param:key` (from `--param key=value`).

use crate::domain::Evidence;
use serde_json::Value;
use std::collections::BTreeMap;

/// `--param key=value` values (numbers when they parse as numbers), and
/// the thresholds file eval bars come from where no `--param` gives one.
#[derive(Debug, Clone, Default)]
pub struct Params(
    pub BTreeMap<String, Value>,
    pub Option<std::sync::Arc<super::thresholds::Thresholds>>,
);

impl Params {
    pub fn parse(pairs: &[String]) -> Result<Params, String> {
        let mut map = BTreeMap::new();
        for p in pairs {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("--param {p:?}: expected key=value"))?;
            map.insert(k.trim().to_string(), literal(v.trim()));
        }
        Ok(Params(map, None))
    }

    /// Rejects unknown names and non-numbers where a number is compared, so
    /// that a mistyped `--param` never passes silently. Lists the known ones.
    pub fn validate(&self, specs: &[ParamSpec]) -> Result<(), String> {
        let known = || {
            if specs.is_empty() {
                return "these checks take no parameters".to_string();
            }
            let list: Vec<String> = specs.iter().map(ParamSpec::to_string).collect();
            format!("known parameters: {}", list.join(", "))
        };
        for (k, v) in &self.0 {
            let Some(spec) = specs.iter().find(|s| names_match(&s.name, k)) else {
                return Err(format!(
                    "--param {k}: no check uses this parameter; {}",
                    known()
                ));
            };
            if spec.numeric && !num(v).is_some_and(f64::is_finite) {
                return Err(format!(
                    "--param {k}={}: not a finite number (it is compared as one); {}",
                    as_text(v),
                    known()
                ));
            }
            // A bar outside the range the value itself must lie in passes
            // or fails everything (gsm8k_min=-1, or 90 for 0.90).
            if let (Some((lo, hi)), Some(n)) = (spec.range, num(v))
                && !(lo..=hi).contains(&n)
            {
                return Err(format!(
                    "--param {k}={}: out of range: the values it bars lie in [{lo}, {hi}]",
                    as_text(v)
                ));
            }
        }
        Ok(())
    }

    pub fn with_defaults(&self, defaults: &toml::Table) -> Params {
        let mut map = self.0.clone();
        for (k, v) in defaults {
            map.entry(k.clone())
                .or_insert_with(|| serde_json::to_value(v).unwrap_or(Value::Null));
        }
        Params(map, self.1.clone())
    }

    /// Adds the bars of the thresholds file (`{task}_min`) for the model
    /// prefix of `prefixes` (the eval's meta_env.json), where no `--param`
    /// gives one; returns where each bar came from. Several prefixes in
    /// one scope give no bars from the file: which model's would be a
    /// guess.
    pub(super) fn with_thresholds(&mut self, prefixes: &[String]) -> BTreeMap<String, String> {
        let mut notes = BTreeMap::new();
        let Some(t) = self.1.clone() else {
            return notes;
        };
        let mut usable: Vec<&str> = prefixes
            .iter()
            .filter_map(|p| super::thresholds::usable_prefix(p))
            .collect();
        usable.sort_unstable();
        usable.dedup();
        for task in t.tasks() {
            let key = format!("{task}_min");
            if self.0.contains_key(&key) {
                notes.insert(key, "--param (wins over --thresholds)".to_string());
                continue;
            }
            if usable.len() > 1 {
                notes.insert(
                    key,
                    format!(
                        "none from {}: model prefixes {} in one scope",
                        t.file,
                        usable.join(", ")
                    ),
                );
                continue;
            }
            if let Some(bar) = t.bar(usable.first().copied(), task) {
                self.0.insert(key.clone(), Value::from(bar.value));
                notes.insert(key, bar.source);
            }
        }
        notes
    }

    /// The value of `@param:key`, if `s` is one and it was given.
    pub fn resolve_str(&self, s: &str) -> Option<Value> {
        let key = s.strip_prefix("@param:")?;
        self.0.get(key).cloned()
    }
}

/// A parameter the checks read.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    pub name: String,
    /// From the check file's `[params]`.
    pub default: Option<Value>,
    /// Compared as a number (gt/ge/lt/le/within, a rank count).
    pub numeric: bool,
    /// Where it is a bar of a value bounded by `range = [lo, hi]`: the
    /// bar must lie there too.
    pub range: Option<(f64, f64)>,
    /// Checks that read it.
    pub checks: Vec<String>,
}

impl std::fmt::Display for ParamSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)?;
        if self.numeric {
            write!(f, " (number")?;
        } else {
            write!(f, " (value")?;
        }
        match &self.default {
            Some(d) => write!(f, ", default {d})"),
            None => write!(f, ", no default: a bar; without it the check is unknown)"),
        }
    }
}

/// Merges the specs of several checks by name.
pub(crate) fn merge_specs(specs: impl IntoIterator<Item = ParamSpec>) -> Vec<ParamSpec> {
    let mut out: std::collections::BTreeMap<String, ParamSpec> = Default::default();
    for s in specs {
        match out.get_mut(&s.name) {
            Some(e) => {
                e.numeric |= s.numeric;
                e.range = e.range.or(s.range);
                if e.default.is_none() {
                    e.default = s.default;
                }
                e.checks.extend(s.checks);
            }
            None => {
                out.insert(s.name.clone(), s);
            }
        }
    }
    out.into_values().collect()
}

fn literal(s: &str) -> Value {
    s.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Value::from)
        .unwrap_or_else(|| Value::String(s.into()))
}

#[derive(Debug, Clone)]
enum Operand {
    Lit(Value),
    Capture(String),
    Param(String),
}

impl Operand {
    fn from(v: &toml::Value) -> Operand {
        match v {
            toml::Value::String(s) if s.starts_with("@param:") => {
                Operand::Param(s["@param:".len()..].to_string())
            }
            toml::Value::String(s) if s.starts_with('@') => Operand::Capture(s[1..].to_string()),
            other => Operand::Lit(serde_json::to_value(other).unwrap_or(Value::Null)),
        }
    }

    /// Ok(None): a capture the record lacks. Err: a parameter not given.
    fn value<'v>(&'v self, r: &'v Evidence, p: &'v Params) -> Result<Option<&'v Value>, String> {
        match self {
            Operand::Lit(v) => Ok(Some(v)),
            Operand::Capture(c) => Ok(capture(r, c)),
            Operand::Param(k) => {
                let key = param_key(k, r);
                p.0.get(&key).map(Some).ok_or(key)
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Eq(Operand),
    Ne(Operand),
    Gt(Operand),
    Ge(Operand),
    Lt(Operand),
    Le(Operand),
    In(Vec<Operand>),
    NotIn(Vec<Operand>),
    Regex(regex::Regex),
    Within(Operand, f64),
    /// The value lies in [lo, hi] (a score is a fraction: 45.0 is a
    /// percent, not a pass), and so must every `@param:` bar it is
    /// compared with.
    Range(f64, f64),
    /// Adds a constant to the value before the other operations compare it
    /// (TRT-LLM counts accepted draft tokens without the bonus token: its
    /// value + 1 is the acceptance length).
    Add(f64),
    /// `listed_in = ["@list", default...]`: the value is one of the
    /// non-empty strings of the record's `list` capture, or, where the
    /// record declares none, one of the defaults (lm-eval's
    /// `configs.<task>.metric_list`, else `exact_match`: validate_scores.py's
    /// metric_prefixes).
    ListedIn(String, Vec<Value>),
    /// `absent = true`: the record has no value for the capture (the field
    /// is missing or `null`); it stands alone.
    Absent,
}

/// All of its operations must hold.
#[derive(Debug, Clone)]
pub(super) struct Cond(Vec<Op>);

impl Cond {
    pub(super) fn parse(v: &toml::Value) -> Result<Cond, String> {
        let toml::Value::Table(t) = v else {
            return Ok(Cond(vec![Op::Eq(Operand::from(v))]));
        };
        let mut ops = Vec::new();
        for (k, v) in t {
            ops.push(match k.as_str() {
                "eq" => Op::Eq(Operand::from(v)),
                "ne" => Op::Ne(Operand::from(v)),
                "gt" => Op::Gt(Operand::from(v)),
                "ge" => Op::Ge(Operand::from(v)),
                "lt" => Op::Lt(Operand::from(v)),
                "le" => Op::Le(Operand::from(v)),
                "in" => match v {
                    toml::Value::Array(a) => Op::In(a.iter().map(Operand::from).collect()),
                    _ => return Err("`in` takes an array".into()),
                },
                "not_in" => match v {
                    toml::Value::Array(a) => Op::NotIn(a.iter().map(Operand::from).collect()),
                    _ => return Err("`not_in` takes an array".into()),
                },
                "regex" => match v {
                    toml::Value::String(s) => {
                        Op::Regex(regex::Regex::new(s).map_err(|e| e.to_string())?)
                    }
                    _ => return Err("`regex` takes a string".into()),
                },
                "within" => match v.as_array().map(|a| a.as_slice()) {
                    Some([target, tol]) => {
                        let tol = tol
                            .as_float()
                            .or(tol.as_integer().map(|i| i as f64))
                            .ok_or("within tolerance must be a number")?;
                        Op::Within(Operand::from(target), tol)
                    }
                    _ => return Err("`within` takes [value, tolerance]".into()),
                },
                "range" => match v.as_array().map(|a| a.as_slice()) {
                    Some([lo, hi]) => {
                        let n = |v: &toml::Value| v.as_float().or(v.as_integer().map(|i| i as f64));
                        match (n(lo), n(hi)) {
                            (Some(lo), Some(hi)) if lo <= hi => Op::Range(lo, hi),
                            _ => return Err("`range` takes [low, high], numbers".into()),
                        }
                    }
                    _ => return Err("`range` takes [low, high]".into()),
                },
                "add" => Op::Add(
                    v.as_float()
                        .or(v.as_integer().map(|i| i as f64))
                        .ok_or("`add` takes a number")?,
                ),
                "listed_in" => match v.as_array().map(|a| a.as_slice()) {
                    Some([toml::Value::String(list), defaults @ ..]) if list.starts_with('@') => {
                        Op::ListedIn(
                            list[1..].to_string(),
                            defaults
                                .iter()
                                .map(|d| serde_json::to_value(d).unwrap_or(Value::Null))
                                .collect(),
                        )
                    }
                    _ => return Err("`listed_in` takes [\"@capture\", default...]".into()),
                },
                "absent" => match v {
                    toml::Value::Boolean(true) => Op::Absent,
                    _ => return Err("`absent` takes true".into()),
                },
                other => return Err(format!("unknown condition {other:?}")),
            });
        }
        if ops.len() > 1 && ops.iter().any(|o| matches!(o, Op::Absent)) {
            return Err(
                "`absent` stands alone: a value that is not there has nothing to compare".into(),
            );
        }
        Ok(Cond(ops))
    }

    /// The literal text the condition pins its capture to (`name = "X"`),
    /// if it is one plain equality.
    pub(super) fn literal_text(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Op::Eq(Operand::Lit(Value::String(s)))] => Some(s),
            _ => None,
        }
    }

    /// The `@param:` keys used, with whether they are compared as numbers.
    pub(super) fn params(&self) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        let mut add = |o: &Operand, numeric: bool| {
            if let Operand::Param(k) = o {
                out.push((k.clone(), numeric));
            }
        };
        for op in &self.0 {
            match op {
                Op::Eq(o) | Op::Ne(o) => add(o, false),
                Op::Gt(o) | Op::Ge(o) | Op::Lt(o) | Op::Le(o) | Op::Within(o, _) => add(o, true),
                Op::In(os) | Op::NotIn(os) => os.iter().for_each(|o| add(o, false)),
                Op::Regex(_) | Op::Add(_) | Op::Range(..) | Op::ListedIn(..) | Op::Absent => {}
            }
        }
        out
    }

    /// The range the condition bounds the value to, if any: bars compared
    /// with the value must lie in it.
    pub(super) fn range(&self) -> Option<(f64, f64)> {
        self.0.iter().find_map(|op| match op {
            Op::Range(lo, hi) => Some((*lo, *hi)),
            _ => None,
        })
    }

    /// The condition with literal and `@param:` operands resolved, for
    /// the `expected` field of a verdict (`@capture` operands stay named).
    /// A templated bar (`{task}_min`) is shown by the name `records` give
    /// it, where they give one.
    pub(super) fn describe(&self, p: &Params, records: &[&Evidence]) -> Value {
        let show = |o: &Operand| match o {
            Operand::Lit(v) => v.clone(),
            Operand::Capture(c) => Value::String(format!("@{c}")),
            Operand::Param(k) => {
                let mut keys: Vec<String> = records.iter().map(|r| param_key(k, r)).collect();
                keys.sort_unstable();
                keys.dedup();
                let k = match keys.as_slice() {
                    [one] => one,
                    _ => k,
                };
                p.0.get(k)
                    .cloned()
                    .unwrap_or_else(|| Value::String(format!("@param:{k} (not given)")))
            }
        };
        let mut m = serde_json::Map::new();
        for op in &self.0 {
            let (k, v) = match op {
                Op::Eq(o) => ("eq", show(o)),
                Op::Ne(o) => ("ne", show(o)),
                Op::Gt(o) => ("gt", show(o)),
                Op::Ge(o) => ("ge", show(o)),
                Op::Lt(o) => ("lt", show(o)),
                Op::Le(o) => ("le", show(o)),
                Op::In(os) => ("in", Value::Array(os.iter().map(show).collect())),
                Op::NotIn(os) => ("not_in", Value::Array(os.iter().map(show).collect())),
                Op::Regex(re) => ("regex", Value::String(re.as_str().to_string())),
                Op::Within(o, tol) => ("within", serde_json::json!([show(o), tol])),
                Op::Add(a) => ("add", serde_json::json!(a)),
                Op::Range(lo, hi) => ("range", serde_json::json!([lo, hi])),
                Op::Absent => ("absent", Value::Bool(true)),
                Op::ListedIn(list, defaults) => {
                    let mut a = vec![Value::String(format!("@{list}"))];
                    a.extend(defaults.iter().cloned());
                    ("listed_in", Value::Array(a))
                }
            };
            m.insert(k.to_string(), v);
        }
        Value::Object(m)
    }

    fn holds(&self, got: Option<&Value>, r: &Evidence, p: &Params) -> Result<bool, String> {
        if matches!(self.0.as_slice(), [Op::Absent]) {
            return Ok(got.is_none_or(Value::is_null));
        }
        let Some(got) = got else { return Ok(false) };
        let add: f64 = self
            .0
            .iter()
            .map(|op| if let Op::Add(a) = op { *a } else { 0.0 })
            .sum();
        let shifted;
        let got = if add == 0.0 {
            got
        } else {
            // A value that is no number cannot be shifted: it holds nothing.
            let Some(n) = num(got) else { return Ok(false) };
            shifted = Value::from(n + add);
            &shifted
        };
        let mut missing = None;
        for op in &self.0 {
            let ok = match op {
                Op::Add(_) => true,
                // Alone, decided above.
                Op::Absent => false,
                Op::Range(lo, hi) => num(got).is_some_and(|n| n >= *lo && n <= *hi),
                Op::Regex(re) => re.is_match(&as_text(got)),
                Op::ListedIn(list, defaults) => {
                    let declared: Vec<&Value> = match capture(r, list) {
                        Some(Value::Array(a)) => a
                            .iter()
                            .filter(|v| v.as_str().is_some_and(|t| !t.is_empty()))
                            .collect(),
                        _ => Vec::new(),
                    };
                    if declared.is_empty() {
                        defaults.iter().any(|d| json_eq(Some(got), Some(d)))
                    } else {
                        declared.iter().any(|d| json_eq(Some(got), Some(d)))
                    }
                }
                Op::In(list) | Op::NotIn(list) => {
                    let mut any = false;
                    for o in list {
                        match o.value(r, p) {
                            Ok(Some(v)) => any |= json_eq(Some(got), Some(v)),
                            Ok(None) => {}
                            Err(k) => missing = Some(k),
                        }
                    }
                    any == matches!(op, Op::In(_))
                }
                Op::Eq(o)
                | Op::Ne(o)
                | Op::Gt(o)
                | Op::Ge(o)
                | Op::Lt(o)
                | Op::Le(o)
                | Op::Within(o, _) => {
                    let want = match o.value(r, p) {
                        Ok(Some(v)) => v,
                        Ok(None) => return Ok(false),
                        Err(k) => {
                            missing = Some(k);
                            continue;
                        }
                    };
                    match op {
                        Op::Eq(_) => json_eq(Some(got), Some(want)),
                        Op::Ne(_) => !json_eq(Some(got), Some(want)),
                        Op::Within(_, tol) => match (num(got), num(want)) {
                            (Some(a), Some(b)) => (a - b).abs() <= *tol + 1e-12,
                            _ => false,
                        },
                        _ => match (num(got), num(want)) {
                            (Some(a), Some(b)) => match op {
                                Op::Gt(_) => a > b,
                                Op::Ge(_) => a >= b,
                                Op::Lt(_) => a < b,
                                _ => a <= b,
                            },
                            _ => false,
                        },
                    }
                }
            };
            if !ok {
                return Ok(false);
            }
        }
        match missing {
            Some(k) => Err(k),
            None => Ok(true),
        }
    }
}

fn capture<'r>(r: &'r Evidence, name: &str) -> Option<&'r Value> {
    r.captures.as_ref()?.get(name)
}

pub(super) fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn as_text(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::String(s) => s.into(),
        other => other.to_string().into(),
    }
}

/// Equality that treats `3.77`, `"3.77"` and `3.770` alike.
pub(super) fn json_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => match (num(a), num(b)) {
            (Some(x), Some(y)) if !(a.is_string() && b.is_string()) => {
                (x - y).abs() <= 1e-9 * x.abs().max(1.0)
            }
            _ => a == b || as_text(a) == as_text(b),
        },
        (None, None) => true,
        _ => false,
    }
}

/// Whether every condition holds on `r`. A condition whose parameter was
/// not given is left out; `Err(key)` reports it when nothing failed.
pub(super) fn all_hold(conds: &[(String, Cond)], r: &Evidence, p: &Params) -> Result<bool, String> {
    let mut missing = None;
    for (cap, c) in conds {
        match c.holds(capture(r, cap), r, p) {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            Err(k) => missing = Some(k),
        }
    }
    match missing {
        Some(k) => Err(k),
        None => Ok(true),
    }
}

/// The parameters `conds` compare with that were not given; a templated
/// one (`{task}_min`) as each of `records` names it.
pub(super) fn skipped_params(
    conds: &[(String, Cond)],
    p: &Params,
    records: &[&Evidence],
) -> Vec<String> {
    param_keys(conds, records)
        .into_iter()
        .filter(|k| !p.0.contains_key(k))
        .collect()
}

/// Every parameter key `conds` compare with, a templated one as each of
/// `records` names it.
pub(super) fn param_keys(conds: &[(String, Cond)], records: &[&Evidence]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (k, _) in conds.iter().flat_map(|(_, c)| c.params()) {
        let keys: Vec<String> = if template(&k).is_some() {
            records.iter().map(|r| param_key(&k, r)).collect()
        } else {
            vec![k]
        };
        for key in keys {
            if !out.contains(&key) {
                out.push(key);
            }
        }
    }
    out
}

/// A templated parameter name split at its `{capture}`: (text before,
/// capture name, text after). `None` for a plain name.
fn template(k: &str) -> Option<(&str, &str, &str)> {
    let (prefix, rest) = k.split_once('{')?;
    let (name, suffix) = rest.split_once('}')?;
    Some((prefix, name, suffix))
}

/// A parameter name with its `{capture}` replaced by the record's value of
/// that capture (`{task}_min` -> `gpqa_diamond_min`): per-task bars.
/// Characters a `--param` name cannot hold become `_`.
fn param_key(k: &str, r: &Evidence) -> String {
    let Some((prefix, name, suffix)) = template(k) else {
        return k.to_string();
    };
    let value = capture(r, name).map(as_text).unwrap_or_default();
    let value: String = value
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{prefix}{value}{suffix}")
}

/// Whether a given `--param` name is one a check reads: the same name, or
/// one a templated name (`{task}_min`) makes.
fn names_match(spec: &str, given: &str) -> bool {
    let Some((prefix, _, suffix)) = template(spec) else {
        return spec == given;
    };
    given.len() > prefix.len() + suffix.len()
        && given.starts_with(prefix)
        && given.ends_with(suffix)
}
