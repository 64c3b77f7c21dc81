//! Artifact names parsed into fields, so that reports group by run and
//! configuration. Names follow the InferenceX convention (the README's
//! "Scope" section; the tests below hold real names): a result stem
//! `<exp>_<precision>_<framework>_tp<T>-pp<P>-dcp<D>-pcp<C>-ep<E>-dpa<bool>_disagg-<bool>_spec-<method>_conc<N>_<runner>`
//! behind a kind prefix (`server_logs_`, `eval_<task>_`, ...), optionally
//! followed by a storage backup's `_<n>_<id>`. A name that does not follow it
//! still audits, with the fields empty.

use regex::Regex;
use std::sync::LazyLock;

/// Fields of one artifact name. `None` where the name does not say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NameFields {
    pub kind: Option<String>,
    pub eval_task: Option<String>,
    pub exp: Option<String>,
    pub precision: Option<String>,
    pub framework: Option<String>,
    pub tp: Option<i64>,
    pub pp: Option<i64>,
    pub dcp: Option<i64>,
    pub pcp: Option<i64>,
    pub ep: Option<i64>,
    pub dpa: Option<bool>,
    pub disagg: Option<bool>,
    pub spec: Option<String>,
    pub conc: Option<i64>,
    pub runner: Option<String>,
    pub backup_n: Option<i64>,
    pub artifact_id: Option<i64>,
    pub run_id: Option<String>,
}

const RF: &str = r"(?P<precision>[^_]+)_(?P<framework>[^_]+)_tp(?P<tp>\d+)(?:-pp(?P<pp>\d+))?(?:-dcp(?P<dcp>\d+))?(?:-pcp(?P<pcp>\d+))?-ep(?P<ep>\d+)-dpa-?(?P<dpa>true|false)_disagg-?(?P<disagg>true|false)_spec-(?P<spec>[^_]+)_conc(?P<conc>\d+)_(?P<runner>.+?)(?:_(?P<n>\d+)_(?P<id>\d+))?";

/// `eval_<task>_<RF>`: the task may hold underscores, the experiment may not.
static EVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?P<kind>eval)_(?P<task>.+)_(?P<exp>[^_]+)_{RF}$"
    ))
    .expect("regex")
});

/// `<kind>_<RF>`: the experiment may hold underscores.
static OTHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?P<kind>eval_server_logs|multinode_server_logs|server_logs|bmk_agentic|bmk|agentic)_(?P<exp>.+)_{RF}$"
    ))
    .expect("regex")
});

/// GitHub job logs: `logs_<run id>.zip`.
static JOB_LOGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^logs_(?P<run>\d+)(?:_(?P<n>\d+)_(?P<id>\d+))?$").expect("regex")
});

/// A folder naming a run: `12345678`, `run_12345678`, `run-12345678`.
static RUN_DIR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:run[-_]?)?(?P<run>\d+)$").expect("regex"));

/// The run id a folder name gives (`123`, `run_123`, `run-123`), if any.
pub(crate) fn run_folder(name: &str) -> Option<String> {
    // By hand, not RUN_DIR's captures: `audit plan` asks this of every
    // folder of millions of listing entries.
    let digits = name
        .strip_prefix("run")
        .map(|r| r.strip_prefix(['-', '_']).unwrap_or(r))
        .unwrap_or(name);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.to_string())
}

/// The name without archive extensions and without the ` (N)` a browser
/// adds to a second download: `x.tar.gz` → `x`, `x (1).zip` → `x`.
pub(crate) fn stem(name: &str) -> &str {
    strip_copy_suffix(crate::formats::strip_archive_suffixes(name))
}

/// `name (3)` → `name`: the suffix browsers and file managers give a copy.
fn strip_copy_suffix(s: &str) -> &str {
    let Some(inner) = s.strip_suffix(')') else {
        return s;
    };
    match inner.rsplit_once(" (") {
        Some((head, n))
            if !head.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
        {
            head
        }
        _ => s,
    }
}

/// Whether a file name says it is an archive, i.e. an artifact of its own
/// when it lies in a folder (a zip as downloaded, a tarball), as opposed to
/// one compressed log (`server.log.gz`).
pub(crate) fn is_archive_name(name: &str) -> bool {
    crate::formats::is_container_name(name)
}

/// Parses one artifact name (file or folder name, extensions allowed).
pub(crate) fn parse_name(name: &str) -> Option<NameFields> {
    let stem = stem(name);
    if let Some(c) = JOB_LOGS.captures(stem) {
        return Some(NameFields {
            kind: Some("logs".into()),
            run_id: Some(c["run"].to_string()),
            backup_n: c.name("n").and_then(|m| m.as_str().parse().ok()),
            artifact_id: c.name("id").and_then(|m| m.as_str().parse().ok()),
            ..NameFields::default()
        });
    }
    // `eval_server_logs_<RF>` is not `eval_<task>_<RF>` with task `server_logs`.
    let c = OTHER.captures(stem).or_else(|| EVAL.captures(stem))?;
    let s = |k: &str| c.name(k).map(|m| m.as_str().to_string());
    let i = |k: &str| c.name(k).and_then(|m| m.as_str().parse::<i64>().ok());
    let b = |k: &str| c.name(k).map(|m| m.as_str() == "true");
    Some(NameFields {
        kind: s("kind"),
        eval_task: s("task"),
        exp: s("exp"),
        precision: s("precision"),
        framework: s("framework"),
        tp: i("tp"),
        pp: i("pp"),
        dcp: i("dcp"),
        pcp: i("pcp"),
        ep: i("ep"),
        dpa: b("dpa"),
        disagg: b("disagg"),
        spec: s("spec"),
        conc: i("conc"),
        runner: s("runner"),
        backup_n: i("n"),
        artifact_id: i("id"),
        run_id: None,
    })
}

/// Fields of an artifact at `path` (as walked): its own name, or for a plain
/// file inside an unzipped artifact folder (`gh run download`), the nearest
/// folder whose name parses; the run id from `run_id` if given, else the
/// nearest folder named by a number, else a `logs_<id>` name.
pub(crate) fn fields_for(path: &str, run_id: Option<&str>) -> NameFields {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let Some((file, dirs)) = parts.split_last() else {
        return NameFields::default();
    };
    let folder_run = dirs
        .iter()
        .rev()
        .find_map(|d| RUN_DIR.captures(d).map(|c| c["run"].to_string()));
    let mut fields = parse_name(file)
        .or_else(|| {
            // Stop at the run folder: names above it are not this artifact's.
            dirs.iter()
                .rev()
                .take_while(|d| !RUN_DIR.is_match(d))
                .find_map(|d| parse_name(d))
        })
        .unwrap_or_default();
    if let Some(r) = run_id.map(str::to_string).or(folder_run) {
        fields.run_id = Some(r);
    }
    fields
}

/// The folder holding the artifact: the scope of run checks (as `check` does it).
pub(crate) fn run_dir(path: &str) -> String {
    path.rsplit_once('/')
        .map_or(".", |(dir, _)| dir)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RF1: &str = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

    #[test]
    fn server_logs() {
        let f = parse_name(&format!("server_logs_{RF1}.zip")).unwrap();
        assert_eq!(f.kind.as_deref(), Some("server_logs"));
        assert_eq!(f.exp.as_deref(), Some("dsv4"));
        assert_eq!(f.precision.as_deref(), Some("fp8"));
        assert_eq!(f.framework.as_deref(), Some("sglang"));
        assert_eq!(
            (f.tp, f.pp, f.dcp, f.pcp, f.ep),
            (Some(8), Some(1), Some(1), Some(1), Some(8))
        );
        assert_eq!((f.dpa, f.disagg), (Some(false), Some(false)));
        assert_eq!(f.spec.as_deref(), Some("mtp"));
        assert_eq!(f.conc, Some(64));
        assert_eq!(f.runner.as_deref(), Some("mi355x-amds_03"));
        assert_eq!((f.backup_n, f.artifact_id), (None, None));
    }

    #[test]
    fn kinds_and_backup_suffix() {
        let f = parse_name(&format!("multinode_server_logs_{RF1}_2_4455667788.zip")).unwrap();
        assert_eq!(f.kind.as_deref(), Some("multinode_server_logs"));
        assert_eq!(f.runner.as_deref(), Some("mi355x-amds_03"));
        assert_eq!((f.backup_n, f.artifact_id), (Some(2), Some(4455667788)));
        let f = parse_name(&format!("eval_server_logs_{RF1}")).unwrap();
        assert_eq!(f.kind.as_deref(), Some("eval_server_logs"));
        let f = parse_name(&format!("bmk_agentic_{RF1}.zip")).unwrap();
        assert_eq!(f.kind.as_deref(), Some("bmk_agentic"));
        let f = parse_name(&format!("bmk_{RF1}.zip")).unwrap();
        assert_eq!(f.kind.as_deref(), Some("bmk"));
        let f = parse_name(&format!("eval_gsm8k_{RF1}.zip")).unwrap();
        assert_eq!(
            (f.kind.as_deref(), f.eval_task.as_deref(), f.exp.as_deref()),
            (Some("eval"), Some("gsm8k"), Some("dsv4"))
        );
        let f = parse_name(&format!("eval_gsm8k_cot_{RF1}_1_99.zip")).unwrap();
        assert_eq!(f.eval_task.as_deref(), Some("gsm8k_cot"));
        assert_eq!((f.backup_n, f.artifact_id), (Some(1), Some(99)));
        let f = parse_name("server_logs_dsr1_fp4_trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-none_conc512_b200_1_77.zip").unwrap();
        assert_eq!(
            (f.runner.as_deref(), f.backup_n, f.artifact_id),
            (Some("b200"), Some(1), Some(77))
        );
        assert_eq!(
            (f.dpa, f.disagg, f.spec.as_deref()),
            (Some(true), Some(true), Some("none"))
        );
    }

    #[test]
    fn older_forms_copies_and_agentic() {
        // The older stem (no pp/dcp/pcp), as real 2026-06 InferenceX runs name them.
        let old = "glm5.1_tp2_conc16_offloadhicache_fp4_sglang_tp2-ep1-dpafalse_disagg-false_spec-none_conc16_mi355x-amds_08";
        for (name, kind) in [
            (format!("agentic_{old}"), "agentic"),
            (format!("server_logs_{old}"), "server_logs"),
            (format!("bmk_agentic_{old}"), "bmk_agentic"),
            (format!("server_logs_{old} (1).zip"), "server_logs"),
            (format!("server_logs_{old}_2_4455.zip"), "server_logs"),
        ] {
            let f = parse_name(&name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(f.kind.as_deref(), Some(kind), "{name}");
            assert_eq!((f.tp, f.pp, f.ep), (Some(2), None, Some(1)), "{name}");
            assert_eq!(f.exp.as_deref(), Some("glm5.1_tp2_conc16_offloadhicache"));
            assert_eq!(f.runner.as_deref(), Some("mi355x-amds_08"), "{name}");
        }
        assert_eq!(stem("results_bmk (1).zip"), "results_bmk");
        assert_eq!(stem("a (x).zip"), "a (x)");
        assert_eq!(stem(" (1)"), " (1)");
        let f = parse_name(&format!("server_logs_{RF1} (2)")).unwrap();
        assert_eq!(f.conc, Some(64));
    }

    #[test]
    fn unparseable_and_job_logs() {
        assert_eq!(parse_name(&format!("cut_server_logs_{RF1}.zip")), None);
        assert_eq!(parse_name("trtllm_logs.tar.zst"), None);
        let f = parse_name("logs_12345678.zip").unwrap();
        assert_eq!(
            (f.kind.as_deref(), f.run_id.as_deref()),
            (Some("logs"), Some("12345678"))
        );
    }

    #[test]
    fn run_ids_and_folders() {
        let f = fields_for(&format!("runs/18001/server_logs_{RF1}_1_5.zip"), None);
        assert_eq!(f.run_id.as_deref(), Some("18001"));
        assert_eq!(f.conc, Some(64));
        let f = fields_for(
            &format!("runs/run_18001/server_logs_{RF1}/server.log"),
            None,
        );
        assert_eq!(
            (f.run_id.as_deref(), f.kind.as_deref()),
            (Some("18001"), Some("server_logs"))
        );
        let f = fields_for("runs/x/other.zip", Some("42"));
        assert_eq!((f.run_id.as_deref(), f.kind), (Some("42"), None));
        let f = fields_for("logs_777.zip", None);
        assert_eq!(f.run_id.as_deref(), Some("777"));
        assert_eq!(run_dir("runs/1/a.zip"), "runs/1");
        assert_eq!(run_dir("a.zip"), ".");
        for (name, run) in [
            ("123", Some("123")),
            ("run_123", Some("123")),
            ("run-123", Some("123")),
            ("run123", Some("123")),
            ("run", None),
            ("run_", None),
            ("run__1", None),
            ("x123", None),
            ("12a", None),
        ] {
            assert_eq!(run_folder(name).as_deref(), run, "{name}");
            assert_eq!(RUN_DIR.is_match(name), run.is_some(), "{name}");
        }
    }
}
