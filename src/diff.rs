//! What two runs ran and measured, side by side, for a PR's run against a
//! baseline (Checks 3 and 15 compare the effective configuration with a
//! recipe and with the PR's claims): the image, engine versions, launch
//! arguments and environment, eval scores, acceptance length and Pareto
//! points. Each side keeps, per key, the first value its records give and
//! where; only keys whose values differ (or that one side lacks) are
//! reported, each side cited.
//!
//! Per-role launch records (prefill/decode workers) key by role once their
//! records carry it: a case in [`Side::record`].

use crate::domain::Evidence;
use serde_json::Value;
use std::collections::BTreeMap;

/// Keys one side keeps at most (a launch has some hundred arguments and
/// env vars; a sweep some tens of points).
const MAX_KEYS: usize = 4096;

/// One run's facts: per key, the first value and its citation.
#[derive(Debug, Default)]
pub(crate) struct Side {
    facts: BTreeMap<String, (String, String)>,
    /// Keys past [`MAX_KEYS`], not compared.
    pub dropped: u64,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        v => Some(v.to_string()),
    }
}

/// Launch arguments that differ between any two launches and say nothing
/// about the configuration.
const NOISE: [&str; 4] = ["host", "port", "kv_transfer_config", "random_seed"];

/// Engines whose version is what served (not the stack's libraries).
const ENGINES: [&str; 7] = [
    "sglang",
    "vllm",
    "tensorrt_llm",
    "tensorrt-llm",
    "trtllm",
    "dynamo",
    "lmcache",
];

impl Side {
    fn put(&mut self, key: String, value: String, cite: &str) {
        if self.facts.contains_key(&key) {
            return;
        }
        if self.facts.len() >= MAX_KEYS {
            self.dropped += 1;
            return;
        }
        self.facts.insert(key, (value, cite.to_string()));
    }

    /// Reads one evidence record of the run.
    pub(crate) fn record(&mut self, e: &Evidence) {
        let Some(caps) = e.captures.as_ref() else {
            return;
        };
        let cite = e.citation.to_string();
        let get = |k: &str| caps.get(k).and_then(text);
        match e.rule.as_str() {
            "result.point" => {
                for k in [
                    "image",
                    "model",
                    "hw",
                    "framework",
                    "precision",
                    "spec_decoding",
                    "tp",
                    "ep",
                    "dp_attention",
                    "disagg",
                    "is_multinode",
                ] {
                    if let Some(v) = get(k) {
                        self.put(format!("run {k}"), v, &cite);
                    }
                }
                // A point of the curve: its concurrency and offload mode.
                let mut point = format!("point conc={}", get("conc").unwrap_or_default());
                if let Some(o) = get("offloading") {
                    point.push_str(&format!(" offloading={o}"));
                }
                for m in ["tput_per_gpu", "median_e2el", "p90_e2el"] {
                    if let Some(v) = get(m) {
                        self.put(format!("{point} {m}"), v, &cite);
                    }
                }
            }
            "version.framework" => {
                if let (Some(n), Some(v)) = (get("name"), get("version"))
                    && ENGINES.contains(&n.to_ascii_lowercase().as_str())
                {
                    self.put(format!("engine {n}"), v, &cite);
                }
            }
            "sglang.server_args" | "vllm.non_default_args" | "trtllm.engine_args" => {
                let at = point_of(e);
                for (k, v) in caps {
                    if let Some(v) = text(v)
                        && !NOISE.contains(&k.as_str())
                    {
                        self.put(format!("launch{at} {k}"), v, &cite);
                    }
                }
            }
            "env.var" => {
                if let (Some(n), Some(v)) = (get("name"), get("value")) {
                    self.put(format!("env{} {n}", point_of(e)), v, &cite);
                }
            }
            "eval.score" => {
                if let Some(v) = get("value") {
                    let what = [get("task"), get("metric"), get("filter")]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" ");
                    self.put(format!("eval {what}"), v, &cite);
                }
            }
            "result.eval" => {
                if let (Some(t), Some(v)) = (get("task"), get("score")) {
                    self.put(format!("eval {t} score"), v, &cite);
                }
            }
            "spec.accept_len" => {
                if let Some(v) = get("value") {
                    self.put("acceptance length (first logged)".into(), v, &cite);
                }
            }
            _ => {}
        }
    }
}

/// The point a launch belongs to, from its artifact's name
/// (` [glm5.1_tp2_conc16_offloadnone conc16]`): a sweep launches once per
/// point, and two runs are compared point by point, never the first
/// launch of one against another point's. Empty where no name says.
fn point_of(e: &Evidence) -> String {
    let f = crate::names::fields_for(&e.location.path, None);
    match (f.exp, f.conc) {
        (Some(exp), Some(conc)) => format!(" [{exp} conc{conc}]"),
        _ => String::new(),
    }
}

/// One key whose values differ: each side's value and citation, `None`
/// where that side has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Difference {
    pub key: String,
    pub a: Option<(String, String)>,
    pub b: Option<(String, String)>,
}

/// The keys whose values differ between `a` and `b`, in key order.
pub(crate) fn differences(a: &Side, b: &Side) -> Vec<Difference> {
    let mut keys: Vec<&String> = a.facts.keys().chain(b.facts.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (a.facts.get(k), b.facts.get(k));
            (x.map(|v| &v.0) != y.map(|v| &v.0)).then(|| Difference {
                key: k.clone(),
                a: x.cloned(),
                b: y.cloned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Citation, Quote};
    use crate::location::Location;
    use std::sync::Arc;

    fn ev(rule: &str, path: &str, caps: Value) -> Evidence {
        let location = Location {
            path: Arc::from(path),
            members: Arc::from(Vec::<String>::new()),
            line: 7,
            byte_offset: 0,
            column: None,
        };
        Evidence {
            rule: rule.into(),
            pack: None,
            citation: Citation::from(&location),
            location,
            text: Quote::whole(Arc::from("")),
            text_start: None,
            lossy: false,
            truncated: false,
            captures: caps.as_object().cloned(),
            rank: None,
            id: None,
        }
    }

    #[test]
    fn only_what_differs_each_side_cited() {
        let mut a = Side::default();
        let mut b = Side::default();
        for (side, image, tp, port, sim) in [
            (&mut a, "lmsysorg/sglang:v0.5.11", 2, 8000, None),
            (&mut b, "lmsysorg/sglang:v0.5.12", 2, 8001, Some("3.39")),
        ] {
            side.record(&ev(
                "result.point",
                "r/x.json",
                serde_json::json!({"image": image, "tp": tp, "conc": 16, "tput_per_gpu": 100.0}),
            ));
            side.record(&ev(
                "sglang.server_args",
                "r/server.log",
                serde_json::json!({"tp_size": tp, "port": port}),
            ));
            if let Some(v) = sim {
                side.record(&ev(
                    "env.var",
                    "r/server.log",
                    serde_json::json!({"name": "SGLANG_SIMULATE_ACC_LEN", "value": v}),
                ));
            }
        }
        let d = differences(&a, &b);
        let keys: Vec<&str> = d.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, ["env SGLANG_SIMULATE_ACC_LEN", "run image"], "{d:?}");
        assert_eq!(d[0].a, None);
        assert_eq!(
            d[0].b,
            Some(("3.39".to_string(), "r/server.log:7".to_string()))
        );
        assert_eq!(
            d[1].a.as_ref().map(|x| x.0.as_str()),
            Some("lmsysorg/sglang:v0.5.11")
        );
        assert!(differences(&a, &a).is_empty());
    }
}
