//! What ran in each run, for the lines under the verifier's rows: the
//! image(s) and their org (Check 6 asks for upstream images), engine and
//! version, model, hardware, topology, spec mode, dates and number of
//! points, each with a citation; and the `Note:` facts a reviewer would
//! otherwise dig for (runs mixed in one folder, an extracted copy that
//! differs from its zip, points without a server log, results with an
//! empty image).
//!
//! The seam: [`RunFacts::record`] reads one evidence record of the run
//! (by rule id) and [`what_ran`] turns a run's facts into its lines and
//! notes. Facts from other readers (per-role launch records, a crash's
//! measurement window, Pareto points left out of a curve) are added as a
//! field here, a case in `record`, and a line or note in `what_ran`.
//!
//! Memory: a few distinct values per field, and per result stem a flag,
//! so linear in the artifacts, never in the lines.

use crate::domain::Evidence;
use regex::Regex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// The rules what ran reads (scanned by `check` whatever its checks).
pub(crate) const RULES: [&str; 6] = [
    "result.point",
    "launch.role",
    "version.framework",
    "sglang.server_args",
    "vllm.non_default_args",
    "server.lifecycle",
];

/// Distinct values kept per field; more are counted.
const KEEP: usize = 4;
/// Dates kept per run (a run spans a few days at most).
const DATES: usize = 32;

/// Distinct values of one field, each with where it was first seen.
#[derive(Debug, Default, Clone)]
pub(crate) struct Values {
    seen: Vec<(String, String)>,
    more: u64,
}

impl Values {
    fn add(&mut self, value: &str, cite: &str) {
        if self.seen.iter().any(|(v, _)| v == value) {
            return;
        }
        if self.seen.len() < KEEP {
            self.seen.push((value.to_string(), cite.to_string()));
        } else {
            self.more += 1;
        }
    }

    fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    fn merge(&mut self, other: &Values) {
        for (v, c) in &other.seen {
            self.add(v, c);
        }
        self.more += other.more;
    }
}

/// One copy of a results file (extracted, or inside its zip): its rows'
/// hash (order-free) and count.
#[derive(Debug, Default, Clone)]
struct Copy {
    hash: u64,
    rows: u64,
    cite: String,
}

/// What one run's records say about what ran.
#[derive(Debug, Default, Clone)]
pub(crate) struct RunFacts {
    pub images: Values,
    pub empty_images: u64,
    empty_image_cite: Option<String>,
    results: u64,
    pub engines: Values,
    pub models: Values,
    /// Each role's launch (`prefill sglang.launch_server`), from
    /// `launch.role`: the command itself is in the JSON records.
    pub launches: Values,
    pub hardware: Values,
    pub topology: Values,
    pub spec: Values,
    /// Dates seen in logs (`2026-06-03`, or vLLM's year-less `06-03`).
    dates: BTreeMap<String, String>,
    /// Result points read from per-point result artifacts, and from
    /// aggregate results (`agg_bmk.json`).
    points: u64,
    agg_rows: u64,
    /// Result stems with a point, and with a server log.
    point_stems: BTreeMap<String, String>,
    log_stems: BTreeSet<String>,
    /// Per results file (artifact stem and member), its extracted copy
    /// and its copy inside the zip.
    copies: BTreeMap<String, [Option<Copy>; 2]>,
    /// The models and dates this artifact's records name, for telling
    /// runs in one folder apart (`run_id::split_folder`).
    pub marks: crate::check::run_id::Marks,
}

/// Engines whose version says what served (not the stack's libraries).
const ENGINES: [&str; 8] = [
    "sglang",
    "vllm",
    "tensorrt_llm",
    "tensorrt-llm",
    "trtllm",
    "dynamo",
    "ai-dynamo",
    "lmcache",
];

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    // SGLang `[2026-06-03 17:28:00 TP0]`, ISO stamps; vLLM `INFO 06-04 05:05:34`.
    Regex::new(r"\b(20\d\d-[01]\d-[0-3]\d)[ T][0-2]\d:[0-5]\d|\b(?:INFO|WARNING|ERROR|DEBUG) ([01]\d-[0-3]\d) [0-2]\d:[0-5]\d:[0-5]\d").expect("regex")
});

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        v => Some(v.to_string()),
    }
}

/// The artifact stem and result stem of the record's place, and whether
/// it was read inside an archive.
fn place(e: &Evidence) -> (String, bool) {
    let path = &*e.location.path;
    let members = &e.location.members;
    if members.is_empty() {
        // An extracted artifact: `<artifact folder>/<file>`.
        let mut parts = path.rsplit('/');
        let file = parts.next().unwrap_or(path);
        let dir = parts.next().unwrap_or("");
        (format!("{dir}/{file}"), false)
    } else {
        let zip = path.rsplit('/').next().unwrap_or(path);
        (
            format!("{}/{}", crate::names::stem(zip), members.join("/")),
            true,
        )
    }
}

/// The result stem (`<exp>_..._conc16_mi355x-amds_08`) of the artifact
/// at `path` (a folder or zip in the path naming it), without its kind.
pub(crate) fn result_stem(e: &Evidence) -> Option<String> {
    let path = &*e.location.path;
    path.split('/')
        .chain(e.location.members.iter().map(String::as_str))
        .filter_map(|part| {
            let f = crate::names::parse_name(part)?;
            let kind = f.kind?;
            let stem = crate::names::stem(part);
            Some(stem.strip_prefix(&format!("{kind}_"))?.to_string())
        })
        .next_back()
}

impl RunFacts {
    /// Reads one evidence record of the run.
    pub(crate) fn record(&mut self, e: &Evidence) {
        let cite = e.citation.to_string();
        let caps = e.captures.as_ref();
        let cap = |k: &str| caps.and_then(|c| text(c.get(k)));
        match e.rule.as_str() {
            "result.point" => self.point(e, &cite, &cap),
            "version.framework" => {
                if let (Some(n), Some(v)) = (cap("name"), cap("version"))
                    && ENGINES.contains(&n.to_ascii_lowercase().as_str())
                {
                    self.engines.add(&format!("{n} {v}"), &cite);
                }
            }
            "sglang.server_args" => {
                if let Some(m) = cap("model_path") {
                    self.models.add(&m, &cite);
                    self.marks.model(&m, &cite);
                }
            }
            "vllm.non_default_args" => {
                if let Some(m) = cap("model") {
                    self.models.add(&m, &cite);
                    self.marks.model(&m, &cite);
                }
            }
            "launch.role" => {
                if let (Some(role), Some(engine)) = (cap("role"), cap("engine")) {
                    self.launches.add(&format!("{role} {engine}"), &cite);
                }
            }
            _ => {}
        }
        // A log's lines (not a result JSON's image tag, which
        // version.framework also reads) say a server log is there, and when.
        let file = e
            .location
            .members
            .last()
            .map_or(&*e.location.path, String::as_str);
        if (e.rule.starts_with("server.")
            || e.rule.ends_with(".server_args")
            || e.rule == "version.framework"
            || e.rule == "vllm.non_default_args")
            && !file.ends_with(".json")
        {
            if let Some(s) = result_stem(e) {
                self.log_stems.insert(s);
            }
            if self.dates.len() < DATES
                && let Some(c) = DATE.captures(&e.text)
                && let Some(d) = c.get(1).or_else(|| c.get(2))
            {
                self.marks.date(d.as_str(), &cite);
                self.dates.entry(d.as_str().to_string()).or_insert(cite);
            }
        }
    }

    /// A server log read at `path` (a file of an artifact): its stem has
    /// one, whether or not a rule matched in it.
    pub(crate) fn file(&mut self, path: &str) {
        let name = path.rsplit('/').next().unwrap_or(path);
        if !(name.contains("server") && (name.ends_with(".log") || name.ends_with(".out"))) {
            return;
        }
        for part in path.split('/') {
            if let Some(f) = crate::names::parse_name(part)
                && let Some(kind) = f.kind
                && let Some(s) = crate::names::stem(part).strip_prefix(&format!("{kind}_"))
            {
                self.log_stems.insert(s.to_string());
            }
        }
    }

    fn point(&mut self, e: &Evidence, cite: &str, cap: &dyn Fn(&str) -> Option<String>) {
        self.results += 1;
        match cap("image").filter(|i| !i.trim().is_empty()) {
            Some(i) => self.images.add(&i, cite),
            None => {
                self.empty_images += 1;
                self.empty_image_cite
                    .get_or_insert_with(|| cite.to_string());
            }
        }
        if let Some(m) = cap("model") {
            self.marks.result_model(&m, cite);
        }
        for (field, into) in [
            ("model", &mut self.models),
            ("hw", &mut self.hardware),
            ("spec_decoding", &mut self.spec),
        ] {
            if let Some(v) = cap(field) {
                into.add(&v, cite);
            }
        }
        let mut topo = Vec::new();
        for (k, label) in [("tp", "TP"), ("ep", "EP")] {
            if let Some(v) = cap(k) {
                topo.push(format!("{label}{v}"));
            }
        }
        if cap("dp_attention").is_some_and(|v| v == "true") {
            topo.push("DP attention".into());
        }
        match cap("disagg").as_deref() {
            Some("true") => topo.push("disaggregated".into()),
            Some("false") => topo.push("aggregated".into()),
            _ => {}
        }
        if cap("is_multinode").is_some_and(|v| v == "true") {
            topo.push("multinode".into());
        }
        if !topo.is_empty() {
            self.topology.add(&topo.join(" "), cite);
        }
        let (key, zipped) = place(e);
        let file = key.rsplit('/').next().unwrap_or("");
        if file.starts_with("agg_") {
            self.agg_rows += 1;
        } else {
            self.points += 1;
            if let Some(s) = result_stem(e) {
                self.point_stems
                    .entry(s)
                    .or_insert_with(|| cite.to_string());
            }
        }
        // Order-free hash of the rows' captures: a copy edited by hand
        // differs from its zip in some value.
        let row = caps_text(e);
        let copy =
            self.copies.entry(key).or_default()[usize::from(zipped)].get_or_insert_with(|| Copy {
                cite: cite.to_string(),
                ..Copy::default()
            });
        copy.hash = copy.hash.wrapping_add(fnv(&row));
        copy.rows += 1;
    }
}

fn caps_text(e: &Evidence) -> String {
    e.captures
        .as_ref()
        .map(|c| serde_json::to_string(c).unwrap_or_default())
        .unwrap_or_default()
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Facts per run and, within it, per artifact, as files are scanned.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    runs: super::by_run::ByRun<super::by_run::ByRun<RunFacts>>,
}

impl Facts {
    /// One scanned file of `run` at `path` and its records.
    pub(crate) fn records(&mut self, run: &str, path: &str, records: &[crate::scan::Record]) {
        let artifact = super::run_id::artifact_of(run, path);
        let f = self
            .runs
            .entry(run, Default::default)
            .entry(&artifact, || RunFacts {
                marks: super::run_id::Marks::of(&artifact),
                ..RunFacts::default()
            });
        f.file(path);
        for r in records {
            if let crate::scan::Record::Evidence(e) = r {
                f.record(e);
            }
        }
    }

    /// The facts of `run`'s artifacts, if any of its files was scanned.
    pub(crate) fn artifacts(&self, run: &str) -> Option<&super::by_run::ByRun<RunFacts>> {
        self.runs.get(run)
    }

    /// The facts of `run` (all its artifacts), if any of its files was
    /// scanned.
    pub(crate) fn get(&self, run: &str) -> Option<RunFacts> {
        self.artifacts(run)
            .map(|a| merged(a.iter().map(|(_, f)| f)))
    }
}

/// One run's facts from its artifacts' facts.
pub(crate) fn merged<'a>(parts: impl IntoIterator<Item = &'a RunFacts>) -> RunFacts {
    let mut m = RunFacts::default();
    for f in parts {
        m.images.merge(&f.images);
        m.empty_images += f.empty_images;
        if m.empty_image_cite.is_none() {
            m.empty_image_cite.clone_from(&f.empty_image_cite);
        }
        m.results += f.results;
        m.engines.merge(&f.engines);
        m.models.merge(&f.models);
        m.launches.merge(&f.launches);
        m.hardware.merge(&f.hardware);
        m.topology.merge(&f.topology);
        m.spec.merge(&f.spec);
        for (d, c) in &f.dates {
            if m.dates.len() < DATES {
                m.dates.entry(d.clone()).or_insert_with(|| c.clone());
            }
        }
        m.points += f.points;
        m.agg_rows += f.agg_rows;
        for (s, c) in &f.point_stems {
            m.point_stems.entry(s.clone()).or_insert_with(|| c.clone());
        }
        m.log_stems.extend(f.log_stems.iter().cloned());
        // An extracted results folder and its zip are two artifacts: their
        // copies meet here.
        for (k, [a, b]) in &f.copies {
            let slot = m.copies.entry(k.clone()).or_default();
            for (into, from) in slot.iter_mut().zip([a, b]) {
                if into.is_none() {
                    into.clone_from(from);
                }
            }
        }
        for (from, into) in [
            (&f.marks.models, &mut m.marks.models),
            (&f.marks.results, &mut m.marks.results),
        ] {
            for (k, (v, c)) in from {
                into.entry(k.clone())
                    .or_insert_with(|| (v.clone(), c.clone()));
            }
        }
        if let Some((a, b)) = &f.marks.dates {
            m.marks.date(&a.0, &a.1);
            m.marks.date(&b.0, &b.1);
        }
    }
    m
}

/// A run's what-ran lines and notes, in Markdown (artifact text in code
/// spans).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct WhatRan {
    pub lines: Vec<String>,
    pub notes: Vec<String>,
}

/// A value or citation in a code span it cannot leave (citations are
/// already escaped as `artiscan cite` reads them).
fn code(s: &str) -> String {
    crate::escape::md_code(s)
}

/// `a` (`cite`), `b` (`cite`), and N more.
fn listed(v: &Values, show: impl Fn(&str) -> String) -> String {
    let mut parts: Vec<String> = v
        .seen
        .iter()
        .map(|(val, cite)| format!("{} ({})", show(val), code(cite)))
        .collect();
    if v.more > 0 {
        parts.push(format!("and {} more", v.more));
    }
    parts.join(", ")
}

/// The org of an image (`lmsysorg/sglang-rocm:v0.5` → `lmsysorg`; an image
/// without one is Docker Hub's official `library`).
pub(crate) fn image_org(image: &str) -> &str {
    let parts: Vec<&str> = image.split('/').collect();
    // A first part with a dot or port is a registry (`nvcr.io/nvidia/...`).
    let registry = parts.len() > 1
        && (parts[0].contains('.') || parts[0].contains(':') || parts[0] == "localhost");
    let rest = if registry { &parts[1..] } else { &parts[..] };
    match rest {
        [_] => "library",
        [org, ..] => org,
        [] => "",
    }
}

/// What ran in `facts`' run, and what a reviewer must know about it.
pub(crate) fn what_ran(facts: &RunFacts) -> WhatRan {
    let mut w = WhatRan::default();
    let f = facts;
    if !f.images.is_empty() {
        w.lines.push(format!(
            "image: {}",
            listed(&f.images, |i| format!(
                "{} (org {})",
                code(i),
                code(image_org(i))
            ))
        ));
    }
    for (label, v) in [
        ("engine", &f.engines),
        ("model", &f.models),
        ("launched", &f.launches),
    ] {
        if !v.is_empty() {
            w.lines.push(format!("{label}: {}", listed(v, code)));
        }
    }
    let shape = [
        ("hardware", &f.hardware),
        ("topology", &f.topology),
        ("spec mode", &f.spec),
    ];
    // One value each, from the same results: one line, one citation.
    let one = shape.iter().all(|(_, v)| v.seen.len() == 1 && v.more == 0)
        && shape
            .iter()
            .all(|(_, v)| v.seen[0].1 == f.hardware.seen[0].1);
    if one {
        let parts: Vec<String> = shape
            .iter()
            .map(|(label, v)| format!("{label} {}", code(&v.seen[0].0)))
            .collect();
        w.lines.push(format!(
            "{} ({})",
            parts.join(", "),
            code(&f.hardware.seen[0].1)
        ));
    } else {
        for (label, v) in shape {
            if !v.is_empty() {
                w.lines.push(format!("{label}: {}", listed(v, code)));
            }
        }
    }
    if let (Some((first, c1)), Some((last, c2))) =
        (f.dates.first_key_value(), f.dates.last_key_value())
    {
        w.lines.push(if first == last {
            format!("dates: {} ({})", code(first), code(c1))
        } else {
            format!(
                "dates: {} ({}) to {} ({})",
                code(first),
                code(c1),
                code(last),
                code(c2)
            )
        });
    }
    if f.points + f.agg_rows > 0 {
        // A point's result read twice (its zip and the extracted copy) is one.
        let points = if f.point_stems.is_empty() {
            f.points
        } else {
            f.point_stems.len() as u64
        };
        let mut s = format!("points: {points} result file(s)");
        if f.agg_rows > 0 {
            s.push_str(&format!(", {} aggregated row(s)", f.agg_rows));
        }
        w.lines.push(s);
    }
    // Notes.
    // Logs' paths with logs' paths, results' ids with results' ids: a
    // server may load a folder not named as the id the results give.
    let two = [&f.marks.models, &f.marks.results]
        .into_iter()
        .find(|m| m.len() > 1)
        .map(|m| m.values().take(2).collect::<Vec<_>>());
    if let Some(two) = two {
        let v = [
            (two[0].0.as_str(), two[0].1.as_str()),
            (two[1].0.as_str(), two[1].1.as_str()),
        ];
        w.notes.push(format!(
            "runs mixed in one folder: the model path differs ({} at {}; {} at {}): its verdicts are judged together; give each run's artifacts separately to judge them apart",
            code(v[0].0),
            code(v[0].1),
            code(v[1].0),
            code(v[1].1)
        ));
    }
    for (key, [extracted, zipped]) in &f.copies {
        if let (Some(a), Some(b)) = (extracted, zipped)
            && (a.hash != b.hash || a.rows != b.rows)
        {
            w.notes.push(format!(
                "the extracted {} differs from the copy in its zip ({} vs {}): it was changed after download; the zip's copy is the CI's",
                code(key),
                code(&a.cite),
                code(&b.cite)
            ));
        }
    }
    if !f.point_stems.is_empty() {
        let without: Vec<&String> = f
            .point_stems
            .iter()
            .filter(|(s, _)| !f.log_stems.contains(*s))
            .map(|(_, c)| c)
            .collect();
        if !without.is_empty() {
            w.notes.push(format!(
                "{} of {} points have no server log in the download (e.g. {})",
                without.len(),
                f.point_stems.len(),
                code(without[0])
            ));
        }
    }
    if f.empty_images > 0 {
        w.notes.push(format!(
            "{} of {} result rows have an empty image (e.g. {})",
            f.empty_images,
            f.results,
            code(f.empty_image_cite.as_deref().unwrap_or(""))
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Citation, Quote};
    use crate::location::Location;
    use std::sync::Arc;

    pub(crate) fn ev(
        rule: &str,
        path: &str,
        members: &[&str],
        line: &str,
        caps: Value,
    ) -> Evidence {
        let members: Vec<String> = members.iter().map(|s| s.to_string()).collect();
        let location = Location {
            path: Arc::from(path),
            members: Arc::from(members),
            line: 3,
            byte_offset: 0,
            column: None,
        };
        Evidence {
            rule: rule.into(),
            pack: None,
            citation: Citation::from(&location),
            location,
            text: Quote::whole(Arc::from(line)),
            text_start: None,
            lossy: false,
            truncated: false,
            captures: caps.as_object().cloned(),
            rank: None,
            id: None,
        }
    }

    const RF: &str = "glm5.1_tp2_conc16_offloadnone_fp4_sglang_tp2-ep1-dpafalse_disagg-false_spec-none_conc16_mi355x-amds_05";

    fn point(path: &str, members: &[&str], image: &str, tput: f64) -> Evidence {
        ev(
            "result.point",
            path,
            members,
            "",
            serde_json::json!({"image": image, "model": "amd/GLM-5.1-MXFP4", "hw": "mi355x",
                "tp": 2, "ep": 1, "dp_attention": "false", "disagg": false, "is_multinode": false,
                "spec_decoding": "none", "conc": 16, "tput_per_gpu": tput}),
        )
    }

    #[test]
    fn what_ran_from_real_shaped_records() {
        let mut f = RunFacts::default();
        // Lines as SGLang and the InferenceX results print them (the real
        // run 0604-glm5.1-fp4-mi355x-sglang-agentic-hicache).
        f.record(&point(
            &format!("r/bmk_agentic_{RF}/{RF}.json"),
            &[],
            "lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260529",
            6329.9,
        ));
        f.record(&ev(
            "version.framework",
            &format!("r/agentic_{RF}/server.log"),
            &[],
            "[2026-06-03 17:28:00 TP0] sglang is using nccl==2.27.7",
            serde_json::json!({"name": "nccl", "version": "2.27.7"}),
        ));
        f.record(&ev(
            "version.framework",
            &format!("r/server_logs_{RF}/server.log"),
            &[],
            "[2026-06-04 01:02:03] sglang 0.5.12.post1",
            serde_json::json!({"name": "sglang", "version": "0.5.12.post1"}),
        ));
        f.record(&point("r/results_bmk/agg_bmk.json", &[], "", 1.0));
        let w = what_ran(&f);
        let all = w.lines.join("\n");
        assert!(all.contains("image: `lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260529` (org `lmsysorg`) (`r/bmk_agentic_"), "{all}");
        assert!(all.contains("engine: `sglang 0.5.12.post1`"), "{all}");
        assert!(!all.contains("nccl"), "{all}");
        assert!(all.contains("model: `amd/GLM-5.1-MXFP4`"), "{all}");
        assert!(all.contains("hardware `mi355x`, topology `TP2 EP1 aggregated`, spec mode `none` (`r/bmk_agentic_"), "{all}");
        assert!(all.contains("dates: `2026-06-03` ("), "{all}");
        assert!(all.contains("to `2026-06-04`"), "{all}");
        assert!(
            all.contains("points: 1 result file(s), 1 aggregated row(s)"),
            "{all}"
        );
        // The point has a server log; the aggregated row's empty image is noted.
        assert_eq!(w.notes.len(), 1, "{:?}", w.notes);
        assert!(
            w.notes[0].starts_with(
                "1 of 2 result rows have an empty image (e.g. `r/results_bmk/agg_bmk.json:3`)"
            ),
            "{:?}",
            w.notes
        );
    }

    #[test]
    fn notes_for_what_a_reviewer_would_dig_for() {
        let mut f = RunFacts::default();
        let img = "vllm/vllm-openai-rocm:v0.22.0";
        for conc in [4, 8] {
            let rf = RF.replace("conc16", &format!("conc{conc}"));
            f.record(&point(
                &format!("r/bmk_agentic_{rf}/{rf}.json"),
                &[],
                img,
                1.0,
            ));
        }
        // Only conc4 has a server log (read, though no rule matched in it).
        f.file(&format!(
            "r/server_logs_{}/server.log",
            RF.replace("conc16", "conc4")
        ));
        // agg_bmk.json extracted and edited by hand beside its zip.
        f.record(&point("r/results_bmk/agg_bmk.json", &[], img, 2.0));
        f.record(&point("r/results_bmk.zip", &["agg_bmk.json"], img, 1.0));
        let w = what_ran(&f);
        let notes = w.notes.join("\n");
        assert!(notes.contains("1 of 2 points have no server log in the download (e.g. `r/bmk_agentic_glm5.1_tp2_conc8"), "{notes}");
        assert!(notes.contains("the extracted `results_bmk/agg_bmk.json` differs from the copy in its zip (`r/results_bmk/agg_bmk.json:3` vs `r/results_bmk.zip!agg_bmk.json:3`)"), "{notes}");
        assert!(!notes.contains("mixed"), "{notes}");
        // The same copy unedited: no note.
        let mut g = RunFacts::default();
        g.record(&point("r/results_bmk/agg_bmk.json", &[], img, 1.0));
        g.record(&point("r/results_bmk.zip", &["agg_bmk.json"], img, 1.0));
        assert!(what_ran(&g).notes.is_empty(), "{:?}", what_ran(&g).notes);
        // Two model paths: runs mixed, said on what, both cited.
        let mut m = RunFacts::default();
        m.record(&point(&format!("r/bmk_{RF}/a.json"), &[], img, 1.0));
        let mut other = point(&format!("r/bmk_{RF}/b.json"), &[], img, 1.0);
        other
            .captures
            .as_mut()
            .unwrap()
            .insert("model".into(), "zai-org/GLM-5.1-FP8".into());
        m.record(&other);
        let notes = what_ran(&m).notes.join("\n");
        assert!(
            notes.contains(
                "runs mixed in one folder: the model path differs (`zai-org/GLM-5.1-FP8` at `r/bmk_"
            ),
            "{notes}"
        );
        assert!(
            notes.contains("; `amd/GLM-5.1-MXFP4` at `r/bmk_"),
            "{notes}"
        );
    }

    #[test]
    fn each_roles_launch_is_said_and_cited() {
        let mut f = RunFacts::default();
        for (role, engine, member) in [
            ("prefill", "sglang.launch_server", "./n1_prefill_w0.out"),
            ("decode", "sglang.launch_server", "./n2_decode_w0.out"),
            ("decode", "sglang.launch_server", "./n3_decode_w1.out"),
            ("router", "sglang_router.launch_router", "./router.out"),
        ] {
            f.record(&ev(
                "launch.role",
                "l.tar.gz",
                &[member],
                "+ python3 -m sglang.launch_server --model-path m",
                serde_json::json!({"role": role, "engine": engine}),
            ));
        }
        let lines = what_ran(&f).lines.join("\n");
        assert!(
            lines.contains("launched: `prefill sglang.launch_server` (`l.tar.gz!./n1_prefill_w0.out:3`), `decode sglang.launch_server` (`l.tar.gz!./n2_decode_w0.out:3`), `router sglang_router.launch_router`"),
            "{lines}"
        );
    }

    #[test]
    fn one_model_by_its_id_its_folder_or_its_cache_is_not_runs_mixed() {
        let mut f = RunFacts::default();
        for (m, at) in [
            ("amd/GLM-5.1-MXFP4", "a/server.log:3"),
            ("/models/amd/GLM-5.1-MXFP4/", "b/server.log:3"),
            (
                "/root/.cache/huggingface/hub/models--amd--GLM-5.1-MXFP4/snapshots/0a1b2c",
                "c/server.log:3",
            ),
        ] {
            f.marks.model(m, at);
        }
        let notes = what_ran(&f).notes.join("\n");
        assert!(!notes.contains("mixed"), "{notes}");
        // The results' hub id beside a log's local folder of another name
        // (a cluster's alias): one model, never compared across kinds.
        let mut alias = RunFacts::default();
        alias
            .marks
            .result_model("deepseek-ai/DeepSeek-R1-0528", "e/results.json:1");
        alias.marks.model("/models/dsr1-fp8", "e/server.log:3");
        let notes = what_ran(&alias).notes.join("\n");
        assert!(!notes.contains("mixed"), "{notes}");
        let mut f = RunFacts::default();
        f.marks.model("amd/GLM-5.1-MXFP4", "a/server.log:3");
        f.marks
            .result_model("amd/GLM-5.1-MXFP4", "a/results.json:1");
        // Another model is two runs, whichever spelling came first.
        f.marks.model("/data/MiniMax-M2.5", "d/server.log:3");
        let notes = what_ran(&f).notes.join("\n");
        assert!(notes.contains("runs mixed in one folder"), "{notes}");
        assert!(notes.contains("MiniMax-M2.5"), "{notes}");
    }

    #[test]
    fn image_orgs() {
        assert_eq!(image_org("lmsysorg/sglang:v0.5"), "lmsysorg");
        assert_eq!(
            image_org("nvcr.io/nvidia/tensorrt-llm/release:1.0"),
            "nvidia"
        );
        assert_eq!(image_org("localhost:5000/x:1"), "library");
        assert_eq!(image_org("ubuntu:22.04"), "library");
        assert_eq!(image_org("rocm/sgl-dev:v0.5"), "rocm");
    }
}
