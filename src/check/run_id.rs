//! Which run an artifact belongs to, written once for every command that
//! groups by run (check's run-scope claims and Pareto curves, the verdict
//! rows and Markdown tables). A run is the folder `gh run download` made:
//! the folder that holds the artifact. An archive given by itself (a zip
//! of a whole run folder) is its own run, named by the archive, never `.`.
//! Files that are not CI artifacts (charts, scripts, notes) are read like
//! any file but never form a run of their own.

use std::collections::BTreeMap;

/// The run of the artifact named `unit` (a folder or file path as walked).
pub(crate) fn run_of_artifact(unit: &str) -> String {
    match unit.rsplit_once('/') {
        Some(("", _)) => "/".to_string(),
        Some((dir, _)) => dir.to_string(),
        // An artifact's zip given by name (`server_logs_<RF>.zip`) belongs
        // to the folder it sits in, with its siblings.
        None if crate::names::parse_name(unit).is_some() => ".".to_string(),
        // Any other archive given by itself is a whole run's download.
        None => unit.to_string(),
    }
}

/// The artifact (as a verdict's scope names it) of a file at `path` in
/// `run` (as [`run_of_artifact`] gave it): the run's entry that holds the
/// file (`<run>/<artifact folder or zip>`), or the run itself for a lone
/// archive.
pub(crate) fn artifact_of(run: &str, path: &str) -> String {
    let rest = match run {
        "." => Some(path.strip_prefix("./").unwrap_or(path)),
        "/" => path.strip_prefix('/'),
        _ => path.strip_prefix(run).and_then(|r| r.strip_prefix('/')),
    };
    match rest
        .and_then(|r| r.split('/').next())
        .filter(|c| !c.is_empty())
    {
        Some(first) if run == "." => first.to_string(),
        Some(first) if run == "/" => format!("/{first}"),
        Some(first) => format!("{run}/{first}"),
        None => run.to_string(),
    }
}

/// A run as a path names it: the run's folder, and its id where a folder
/// names one (`runs/123/...`, `run_123`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RunRef {
    pub folder: String,
    pub id: Option<String>,
}

impl RunRef {
    /// One key per run: the id alone when known (`backup/123/a.zip` and
    /// `runs/123/b.zip` are one run), else the folder.
    pub(crate) fn key(&self) -> String {
        match &self.id {
            Some(id) => format!("run:{id}"),
            None => format!("dir:{}", self.folder),
        }
    }
}

/// The run of any path of a download (an artifact's zip, a file inside an
/// extracted artifact folder, a member path): the folder holding the
/// innermost component named as an artifact (`server_logs_<RF>`), else the
/// folder holding the file; and the id of the nearest folder named by a
/// number. For `audit` and any command that has paths, not walked units.
pub(crate) fn run_of_path(path: &str) -> RunRef {
    let parts: Vec<&str> = path.split('/').collect();
    let (dirs, _file) = parts.split_at(parts.len().saturating_sub(1));
    // The innermost artifact-named component, the file itself included.
    let artifact = parts
        .iter()
        .rposition(|p| crate::names::parse_name(p).is_some());
    let folder = match artifact {
        Some(0) => ".".to_string(),
        Some(at) => parts[..at].join("/"),
        None if dirs.is_empty() => ".".to_string(),
        None => dirs.join("/"),
    };
    let id = folder.rsplit('/').find_map(crate::names::run_folder);
    RunRef {
        folder: if folder.is_empty() {
            "/".into()
        } else {
            folder
        },
        id,
    }
}

/// Whether a file is a CI artifact or part of one, by its name: charts,
/// pictures, documents and scripts are not (a reviewer's download may hold
/// `combined_pareto_tokens.png` beside the artifacts).
pub(crate) fn is_ci_artifact(unit: &str) -> bool {
    let name = unit.rsplit('/').next().unwrap_or(unit).to_ascii_lowercase();
    const NOT: [&str; 12] = [
        ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".html", ".py", ".sh", ".ipynb", ".md",
        ".webp",
    ];
    !NOT.iter().any(|e| name.ends_with(e))
}

/// Models by [`model_key`]: each as first written and its citation.
pub(crate) type Models = BTreeMap<String, (String, String)>;

/// Which of an artifact's models: the logs' or the results'.
type Kind = fn(&Marks) -> &Models;

/// What one artifact's own records say of the run it came from, for
/// telling runs apart in one folder: the models it names (by
/// [`model_key`], each with a citation) and its first and last log date.
#[derive(Clone, Debug, Default)]
pub(crate) struct Marks {
    /// The model prefix the artifact's name gives (`glm5.1` of
    /// `agentic_glm5.1_tp2_..._<RF>`): one run sweeps several models.
    pub config: Option<String>,
    /// The model paths its server logs loaded.
    pub models: Models,
    /// The models its results name (the hub id InferenceX writes). Never
    /// compared with the logs' paths: a server may load a local folder
    /// whose name is not the id's (`/models/dsr1-fp8` for
    /// `deepseek-ai/DeepSeek-R1-0528`), one model either way.
    pub results: Models,
    pub dates: Option<((String, String), (String, String))>,
}

impl Marks {
    /// The marks of the artifact named `artifact` (its path), empty.
    pub(crate) fn of(artifact: &str) -> Marks {
        let name = artifact.rsplit('/').next().unwrap_or(artifact);
        Marks {
            config: crate::names::parse_name(name)
                .and_then(|f| f.exp)
                .map(|e| e.split('_').next().unwrap_or(&e).to_ascii_lowercase()),
            ..Marks::default()
        }
    }

    /// Whether the artifact names no model and no date: it cannot be
    /// placed in one of a folder's runs.
    pub(crate) fn is_empty(&self) -> bool {
        self.models.is_empty() && self.results.is_empty() && self.dates.is_none()
    }

    /// A model path a server log loaded (`value` as written) at `cite`.
    pub(crate) fn model(&mut self, value: &str, cite: &str) {
        self.models
            .entry(model_key(value))
            .or_insert_with(|| (value.to_string(), cite.to_string()));
    }

    /// A model a result names (`value` as written) at `cite`.
    pub(crate) fn result_model(&mut self, value: &str, cite: &str) {
        self.results
            .entry(model_key(value))
            .or_insert_with(|| (value.to_string(), cite.to_string()));
    }

    fn logged(&self) -> &Models {
        &self.models
    }

    fn resulted(&self) -> &Models {
        &self.results
    }

    /// A date (`2026-06-03`, or vLLM's year-less `06-03`) at `cite`.
    pub(crate) fn date(&mut self, date: &str, cite: &str) {
        let d = (date.to_string(), cite.to_string());
        match &mut self.dates {
            None => self.dates = Some((d.clone(), d)),
            Some((first, last)) => {
                if earlier(date, &first.0) {
                    *first = d;
                } else if earlier(&last.0, date) {
                    *last = d;
                }
            }
        }
    }
}

/// How a folder's artifacts divide into runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Split {
    /// One run (nothing differs, or nothing says).
    One,
    /// Several runs, told apart `on` (`the model`, `the dates`): per run
    /// what tells it (the value, a citation) and its artifacts' indices;
    /// `rest`: artifacts whose records cannot place them (they name no
    /// model or several; no date): kept apart in the folder, never guessed.
    Apart {
        on: &'static str,
        runs: Vec<(String, String, Vec<usize>)>,
        rest: Vec<usize>,
    },
    /// The evidence differs but cannot decide (one artifact holds both):
    /// why, to be said; judged as one run.
    Undecided(String),
}

/// Days between runs' log dates that make them two runs (a sweep runs for
/// a day or two).
const APART_DAYS: i64 = 2;

/// Divides one folder's artifacts (their [`Marks`]) into runs: by the model
/// where artifacts of one model prefix name different models (one run
/// sweeps several models, each its own prefix), else by their log dates
/// where they fall into groups more than [`APART_DAYS`] apart. Downloads
/// carry no run id; artifact name suffixes (`_05`, `_06`: the runner)
/// never decide alone: a point retried on another runner is the same run
/// (the real minimaxm2.5-lmcache run holds conc4 as `_05` and `_06`, an
/// hour apart).
pub(crate) fn split_folder(marks: &[Marks]) -> Split {
    // The logs' model paths first, then the results' ids: each compared
    // only with its own kind.
    let kinds: [(Kind, Kind); 2] = [
        (Marks::logged, Marks::resulted),
        (Marks::resulted, Marks::logged),
    ];
    for (of, other) in kinds {
        if let Some(split) = by_model(marks, of, other) {
            return split;
        }
    }
    // vLLM's lines carry no year: where any date lacks it, all are
    // compared by month and day.
    let yearless = marks
        .iter()
        .filter_map(|m| m.dates.as_ref())
        .any(|(a, b)| a.0.len() == 5 || b.0.len() == 5);
    let day = |d: &str| day(if yearless { month_day(d) } else { d });
    let mut dated: Vec<(i64, i64, usize)> = marks
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let (a, b) = m.dates.as_ref()?;
            Some((day(&a.0)?, day(&b.0)?, i))
        })
        .collect();
    dated.sort_unstable();
    let mut groups: Vec<(i64, Vec<usize>)> = Vec::new();
    for &(first, last, i) in &dated {
        match groups.last_mut() {
            Some((end, g)) if first - *end <= APART_DAYS => {
                *end = (*end).max(last);
                g.push(i);
            }
            _ => groups.push((last, vec![i])),
        }
    }
    if groups.len() < 2 {
        return match dated.iter().find(|(a, b, _)| b - a > APART_DAYS) {
            Some(&(a, b, i)) => Split::Undecided(format!(
                "the logs' dates are {} days apart ({} and {}) within one artifact",
                b - a,
                marks[i].dates.as_ref().map_or("", |d| d.0.0.as_str()),
                marks[i].dates.as_ref().map_or("", |d| d.1.0.as_str())
            )),
            None => Split::One,
        };
    }
    let rest: Vec<usize> = (0..marks.len())
        .filter(|i| marks[*i].dates.is_none())
        .collect();
    let runs = groups
        .into_iter()
        .map(|(_, g)| {
            let (first, last) = marks[g[0]].dates.clone().expect("dated");
            let end = g
                .iter()
                .filter_map(|&i| marks[i].dates.as_ref())
                .map(|d| &d.1)
                .max_by_key(|d| day(&d.0))
                .unwrap_or(&last);
            let label = if end.0 == first.0 {
                first.0.clone()
            } else {
                format!("{} to {}", first.0, end.0)
            };
            (label, first.1, g)
        })
        .collect();
    Split::Apart {
        on: "the dates",
        runs,
        rest,
    }
}

/// The split on the model of kind `of` (logs or results), where
/// artifacts of one model prefix name different models of that kind; an
/// artifact naming none of that kind is placed by the one model of the
/// `other` kind it names where that is one of the runs' models (a results
/// id and a log path of one name), else kept apart.
fn by_model(marks: &[Marks], of: Kind, other: Kind) -> Option<Split> {
    let mut models: BTreeMap<&str, (String, String, Vec<usize>)> = BTreeMap::new();
    let mut unplaced = Vec::new();
    let mut configs: BTreeMap<Option<&str>, BTreeMap<&str, &str>> = BTreeMap::new();
    for (i, m) in marks.iter().enumerate() {
        for (k, (v, _)) in of(m) {
            configs
                .entry(m.config.as_deref())
                .or_default()
                .entry(k)
                .or_insert(v);
        }
        match of(m).len() {
            1 => {
                let (k, (v, c)) = of(m).iter().next().expect("one");
                models
                    .entry(k)
                    .or_insert_with(|| (v.clone(), c.clone(), Vec::new()))
                    .2
                    .push(i);
            }
            // An artifact naming no model, or several (an aggregate of
            // both runs): where it belongs cannot be told.
            _ => unplaced.push(i),
        }
    }
    let differing = configs.values().find(|m| m.len() > 1)?;
    // Any model prefix naming a model of either kind counts as beside.
    let prefixes: std::collections::BTreeSet<Option<&str>> = marks
        .iter()
        .filter(|m| !of(m).is_empty() || !other(m).is_empty())
        .map(|m| m.config.as_deref())
        .collect();
    if prefixes.len() > 1 {
        // Other models' artifacts beside: which run each belongs to the
        // names cannot say.
        let v: Vec<&str> = differing.values().take(2).copied().collect();
        return Some(Split::Undecided(format!(
            "artifacts of one model name different model paths ({} and {}) beside other models' artifacts",
            v[0], v[1]
        )));
    }
    let mut rest = Vec::new();
    for i in unplaced {
        let o = other(&marks[i]);
        match o.keys().next() {
            Some(k)
                if of(&marks[i]).is_empty() && o.len() == 1 && models.contains_key(k.as_str()) =>
            {
                models.get_mut(k.as_str()).expect("a run's model").2.push(i);
            }
            _ => rest.push(i),
        }
    }
    for (_, _, members) in models.values_mut() {
        members.sort_unstable();
    }
    Some(Split::Apart {
        on: "the model",
        runs: models.into_values().collect(),
        rest,
    })
}

/// Whether date `a` is before `b`, by month and day where either has no
/// year.
fn earlier(a: &str, b: &str) -> bool {
    if a.len() == 5 || b.len() == 5 {
        month_day(a) < month_day(b)
    } else {
        a < b
    }
}

/// `06-03` of `2026-06-03` (or of `06-03`).
fn month_day(d: &str) -> &str {
    d.get(d.len().saturating_sub(5)..).unwrap_or(d)
}

/// A date's day number (`2026-06-03`, or year-less `06-03` taken in one
/// year): for gaps, not calendars.
fn day(d: &str) -> Option<i64> {
    let (y, md) = match d.len() {
        10 => (d.get(0..4)?.parse::<i64>().ok()?, d.get(5..)?),
        5 => (0, d),
        _ => return None,
    };
    let m: i64 = md.get(0..2)?.parse().ok()?;
    let dd: i64 = md.get(3..5)?.parse().ok()?;
    Some(y * 372 + m * 31 + dd)
}

/// The model a path names, for telling runs apart: a Hugging Face id
/// (`amd/GLM-5.1-MXFP4`), the local folder it was downloaded to
/// (`/models/amd/GLM-5.1-MXFP4`, `/data/GLM-5.1-MXFP4/`) and the hub
/// cache's snapshot (`.../models--amd--GLM-5.1-MXFP4/snapshots/<rev>`) are
/// one model: its last name, case aside.
pub(crate) fn model_key(path: &str) -> String {
    let path = path.trim().trim_end_matches('/');
    let name = match path.find("models--") {
        Some(i) => {
            let repo = path[i + "models--".len()..].split('/').next().unwrap_or("");
            repo.rsplit("--").next().unwrap_or(repo)
        }
        None => path.rsplit('/').next().unwrap_or(path),
    };
    name.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_the_folder_and_a_lone_archive_is_its_own() {
        assert_eq!(run_of_artifact("runs/1/server_logs_x"), "runs/1");
        assert_eq!(run_of_artifact("/x.zip"), "/");
        assert_eq!(run_of_artifact("run-1234.zip"), "run-1234.zip");
        let artifact = "server_logs_glm5.1_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02.zip";
        assert_eq!(run_of_artifact(artifact), ".");
        assert!(!is_ci_artifact("runs/1/combined_pareto_tokens.png"));
        // A file's artifact is the run's entry holding it, as the unit is named.
        assert_eq!(
            artifact_of("runs/1", "runs/1/server_logs_x/a/server.log"),
            "runs/1/server_logs_x"
        );
        assert_eq!(artifact_of("runs/1", "runs/1/x.zip"), "runs/1/x.zip");
        assert_eq!(artifact_of("run-1234.zip", "run-1234.zip"), "run-1234.zip");
        assert_eq!(artifact_of(".", artifact), artifact);
    }

    #[test]
    fn a_path_names_its_run_folder_and_id() {
        let rf = "server_logs_glm5.1_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";
        // A file inside an extracted artifact belongs to the folder above
        // the artifact, not to the artifact folder.
        let r = run_of_path(&format!("dl/x/{rf}/server.log"));
        assert_eq!(r.folder, "dl/x");
        assert_eq!(r.key(), "dir:dl/x");
        assert_eq!(run_of_path(&format!("dl/x/{rf}.zip")), r);
        // A truncated multinode download: per-concurrency folders inside one
        // artifact are one run.
        let mn = "multinode_server_logs_dsr1_fp4_dynamo-trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-mtp_conc64_gb200-nv_01";
        let a = run_of_path(&format!("dl/{mn}/conc64/logs/w0.out"));
        let b = run_of_path(&format!("dl/{mn}/conc128/logs/w0.out"));
        assert_eq!((a.folder.as_str(), &a), ("dl", &b));
        // A numbered folder gives the id, which alone keys the run.
        let r = run_of_path("backup/123/a.zip");
        assert_eq!(
            (r.folder.as_str(), r.id.as_deref()),
            ("backup/123", Some("123"))
        );
        assert_eq!(
            r.key(),
            run_of_path(&format!("runs/run_123/{rf}/server.log")).key()
        );
        assert_eq!(run_of_path("a.zip").folder, ".");
        assert!(is_ci_artifact("runs/1/server_logs_x.zip"));
    }
}

#[cfg(test)]
mod split_tests {
    use super::*;

    fn marks(model: Option<&str>, dates: &[&str]) -> Marks {
        let mut m = Marks::of(
            "dl/agentic_glm5.1_tp8_conc16_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02",
        );
        assert_eq!(m.config.as_deref(), Some("glm5.1"));
        if let Some(v) = model {
            m.model(v, &format!("{v}:1"));
        }
        for d in dates {
            m.date(d, &format!("{d}:1"));
        }
        m
    }

    #[test]
    fn a_results_id_and_a_logs_alias_of_one_model_are_one_run() {
        // The server loaded an alias folder; the results give the hub id.
        let mut logs = marks(Some("/models/dsr1-fp8"), &[]);
        logs.result_model("deepseek-ai/DeepSeek-R1-0528", "bmk/r.json:1");
        let mut bmk = marks(None, &[]);
        bmk.result_model("deepseek-ai/DeepSeek-R1-0528", "bmk2/r.json:1");
        assert_eq!(split_folder(&[logs, bmk]), Split::One);
        // Two runs told apart by the logs: a results-only artifact goes
        // with the run whose log path has its id's name, else stays apart.
        let mut one = vec![
            marks(Some("/models/GLM-5.1-FP8"), &[]),
            marks(Some("/models/GLM-5.1-MXFP4"), &[]),
            marks(None, &[]),
            marks(None, &[]),
        ];
        one[2].result_model("amd/GLM-5.1-MXFP4", "r2/r.json:1");
        one[3].result_model("deepseek-ai/DeepSeek-R1-0528", "r3/r.json:1");
        let Split::Apart { on, runs, rest } = split_folder(&one) else {
            panic!("{:?}", split_folder(&one));
        };
        assert_eq!(on, "the model");
        let members: Vec<&[usize]> = runs.iter().map(|r| r.2.as_slice()).collect();
        assert_eq!(members, [&[0][..], &[1, 2][..]]);
        assert_eq!(rest, [3]);
    }

    #[test]
    fn a_folder_splits_on_the_model_and_keeps_what_names_none_apart() {
        // Results name the HF id, logs the local folder: one model.
        let one = [
            marks(Some("amd/GLM-5.1-MXFP4"), &[]),
            marks(Some("/models/GLM-5.1-MXFP4/"), &["2026-06-03"]),
        ];
        assert_eq!(split_folder(&one), Split::One);
        let two = [
            marks(Some("amd/GLM-5.1-MXFP4"), &["2026-06-03"]),
            marks(Some("/data/MiniMax-M2.5"), &["2026-06-04"]),
            marks(None, &[]),
            marks(Some("/models/GLM-5.1-MXFP4"), &[]),
        ];
        let Split::Apart { on, runs, rest } = split_folder(&two) else {
            panic!("{:?}", split_folder(&two))
        };
        assert_eq!(on, "the model");
        let got: Vec<(&str, &[usize])> = runs
            .iter()
            .map(|(v, _, g)| (v.as_str(), g.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("amd/GLM-5.1-MXFP4", &[0, 3][..]),
                ("/data/MiniMax-M2.5", &[1][..])
            ]
        );
        assert_eq!(rest, [2]);
        // One run sweeping two models (each its own prefix): not split.
        let mut sweep = two.clone();
        sweep[1].config = Some("minimaxm2.5".into());
        sweep[1].dates = sweep[0].dates.clone();
        assert_eq!(split_folder(&sweep[..2]), Split::One);
        // Beside another model's artifacts, a prefix naming two models
        // cannot be placed: said, not split.
        let mut mixed = two.to_vec();
        mixed.push(marks(Some("/data/GLM-5.1-MXFP4-v2"), &[]));
        mixed[1].config = Some("minimaxm2.5".into());
        assert!(
            matches!(split_folder(&mixed), Split::Undecided(ref w) if w.contains("amd/GLM-5.1-MXFP4 and /data/GLM-5.1-MXFP4-v2")),
            "{:?}",
            split_folder(&mixed)
        );
    }

    #[test]
    fn a_folder_splits_on_dates_far_apart_and_says_when_one_artifact_spans_them() {
        let two = [
            marks(None, &["2026-06-01", "2026-06-02"]),
            marks(None, &["2026-06-09"]),
            marks(None, &["2026-06-03"]),
            marks(None, &[]),
        ];
        let Split::Apart { on, runs, rest } = split_folder(&two) else {
            panic!("{:?}", split_folder(&two))
        };
        assert_eq!(on, "the dates");
        let got: Vec<(&str, &[usize])> = runs
            .iter()
            .map(|(v, _, g)| (v.as_str(), g.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("2026-06-01 to 2026-06-03", &[0, 2][..]),
                ("2026-06-09", &[1][..])
            ]
        );
        assert_eq!(rest, [3]);
        // A retry on another runner an hour later (vLLM's year-less dates,
        // LMCache's full ones): one run.
        let retry = [
            marks(None, &["06-04"]),
            marks(None, &["2026-06-04", "06-05"]),
        ];
        assert_eq!(split_folder(&retry), Split::One);
        // One artifact's own logs span the gap: undecided, said, not split.
        let span = [
            marks(None, &["2026-06-01", "2026-06-09"]),
            marks(None, &["2026-06-05"]),
        ];
        assert_eq!(
            split_folder(&span),
            Split::Undecided(
                "the logs' dates are 8 days apart (2026-06-01 and 2026-06-09) within one artifact"
                    .into()
            )
        );
    }
}
