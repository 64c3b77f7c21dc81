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
        assert!(is_ci_artifact("runs/1/server_logs_x.zip"));
    }
}
