//! Which run an artifact belongs to, written once for every command that
//! groups by run (check's run-scope claims and Pareto curves, the verdict
//! rows and Markdown tables). A run is the folder `gh run download` made:
//! the folder that holds the artifact. An archive given by itself (a zip
//! of a whole run folder) is its own run, named by the archive, never `.`.
//! Files that are not CI artifacts (charts, scripts, notes) are read like
//! any file but never form a run of their own.

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
