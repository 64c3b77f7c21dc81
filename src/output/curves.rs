//! `check --curves PATH`: the input of InferenceX's own Check 14 helper
//! (`python -m infx.workflows.pareto_coverage < PATH`), written from the
//! points the Pareto checks read: a JSON array of `{"key": ..., "points":
//! [{"x": ..., "y": ...}]}`, one per curve, keys as the verifier's prompt
//! spells them (`<model/scenario/hwKey/precision/run/percentile/image>`).
//! Each curve's run, image, percentile and the points' citations are in
//! the Pareto verdicts' `observed.curves` of the JSON records.

use crate::domain::Verdict;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Default)]
pub(crate) struct Curves {
    /// key → points, in the order first seen.
    order: Vec<String>,
    points: BTreeMap<String, Vec<Value>>,
}

impl Curves {
    /// Takes the curves of a Pareto verdict (none from other verdicts).
    pub(crate) fn verdict(&mut self, v: &Verdict) {
        let Some(Value::Array(curves)) = v.observed.get("curves") else {
            return;
        };
        for c in curves {
            let (Some(key), Some(Value::Array(pts))) =
                (c.get("key").and_then(Value::as_str), c.get("points"))
            else {
                continue;
            };
            // The helper refuses a key given twice: one curve seen by two
            // checks (or scopes) is one curve, its points once each.
            let entry = self.points.entry(key.to_string()).or_insert_with(|| {
                self.order.push(key.to_string());
                Vec::new()
            });
            for p in pts {
                if !entry.contains(p) {
                    entry.push(p.clone());
                }
            }
        }
    }

    /// The helper's input, as JSON text.
    pub(crate) fn to_json(&self) -> String {
        let arr: Vec<Value> = self
            .order
            .iter()
            .map(|k| json!({"key": k, "points": self.points[k]}))
            .collect();
        serde_json::to_string_pretty(&Value::Array(arr)).unwrap_or_else(|_| "[]".into())
    }

    pub(crate) fn write(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_json() + "\n")
    }
}
