//! The store as the files are now: what a file is called in the store
//! (its key, whatever spelling of its folder was audited), and which stored
//! files are gone.
//!
//! - **Keys**: a file's key is its path relative to the argument it was
//!   found under, after the argument's key: a relative argument as given
//!   (`./` steps dropped), so citations reopen from where the audit ran; an
//!   absolute one (or `.`, `..`, `../x`: no stable spelling) by its own
//!   name. `runs/1/x.zip` whether `runs`, `./runs/`, `/data/runs` or `.`
//!   inside `runs` was audited, so one run is one run however the argument
//!   was spelled, and shards audited on hosts that mount the runs elsewhere
//!   merge. A listing's entry is keyed by its object name.
//! - **Gone**: a stored file under a folder audited now that the walk did
//!   not find (deleted, or moved to another artifact) is marked superseded:
//!   its rows stay as history, but its run is judged again without it, and
//!   reports leave it out unless `--history`.

use super::Shard;
use rusqlite::{Connection, params};
use std::collections::HashSet;

/// One argument of an audit: how the walk spells its files, and the key
/// they get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Root {
    /// The argument, normalized (`./runs/` → `runs`).
    walked: String,
    /// What stands for `walked` in keys.
    key: String,
    /// A folder: the stored files under it that the walk does not find
    /// are gone.
    folder: bool,
}

/// The roots of `paths` (command-line arguments) and `listed` (listing
/// entries, keyed as named).
pub(crate) fn roots(paths: &[String], listed: &[String]) -> Vec<Root> {
    let mut out: Vec<Root> = paths
        .iter()
        .map(|p| {
            let walked = super::normalize(p);
            let folder = std::fs::metadata(p).is_ok_and(|m| m.is_dir());
            let stable =
                !walked.starts_with('/') && walked != "." && !walked.split('/').any(|c| c == "..");
            Root {
                key: if stable {
                    walked.clone()
                } else {
                    own_name(&walked)
                },
                walked,
                folder,
            }
        })
        .chain(listed.iter().map(|p| {
            let walked = super::normalize(p);
            Root {
                key: walked.clone(),
                walked,
                folder: false,
            }
        }))
        .collect();
    // The longest first: an argument inside another keys its own files.
    out.sort_by_key(|r| std::cmp::Reverse(r.walked.len()));
    out
}

/// The last step of a normalized path; for `.`, `..` and `/` (no name of
/// their own), the name of the folder they resolve to.
fn own_name(walked: &str) -> String {
    let last = walked.rsplit('/').next().unwrap_or(walked);
    if !last.is_empty() && last != "." && last != ".." {
        return last.to_string();
    }
    std::fs::canonicalize(walked)
        .ok()
        .and_then(|c| c.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| walked.to_string())
}

/// The key of `path` (normalized, as walked): the key of the argument it
/// was found under, then the rest of it.
pub(crate) fn key(roots: &[Root], path: &str) -> String {
    for r in roots {
        if path == r.walked {
            return r.key.clone();
        }
        let rest = if r.walked == "." {
            (!path.starts_with('/')).then_some(path)
        } else if r.walked == "/" {
            path.strip_prefix('/')
        } else {
            path.strip_prefix(r.walked.as_str())
                .and_then(|p| p.strip_prefix('/'))
        };
        if let Some(rest) = rest {
            return format!("{}/{rest}", r.key);
        }
    }
    path.to_string()
}

/// Marks as superseded the stored files under the folder arguments (in
/// this shard) that are not in `present`, except under `blocked` (keys of
/// inputs the walk could not read: their files were not looked for), and
/// marks their runs to be judged again. One transaction; returns how many.
pub(crate) fn supersede_gone(
    conn: &Connection,
    roots: &[Root],
    present: &HashSet<String>,
    blocked: &[String],
    shard: Option<Shard>,
    now_ns: i64,
) -> anyhow::Result<u64> {
    let under = |path: &str, dir: &str| {
        path.strip_prefix(dir)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    // Under its key, and under the path as walked: a store written when
    // keys were paths as walked (`/data/runs/...`) has those rows
    // superseded by the keyed ones, not listed twice.
    let folders: Vec<&str> = roots
        .iter()
        .filter(|r| r.folder)
        .flat_map(|r| [r.key.as_str(), r.walked.as_str()])
        .collect();
    if folders.is_empty() {
        return Ok(0);
    }
    let stored: Vec<(String, String)> = conn
        .prepare("SELECT path, coalesce(unit, path) FROM artifacts WHERE superseded_ns IS NULL")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let gone: Vec<&String> = stored
        .iter()
        .filter(|(path, unit)| {
            !present.contains(path)
                && folders.iter().any(|f| under(path, f))
                && !blocked.iter().any(|b| under(path, b))
                && shard.is_none_or(|s| s.contains(unit))
        })
        .map(|(path, _)| path)
        .collect();
    if gone.is_empty() {
        return Ok(0);
    }
    conn.execute_batch("BEGIN IMMEDIATE")?;
    for path in &gone {
        conn.prepare_cached(
            "INSERT OR IGNORE INTO dirty_runs SELECT run_dir FROM artifacts WHERE path = ?1",
        )?
        .execute([path])?;
        conn.prepare_cached("UPDATE artifacts SET superseded_ns = ?2 WHERE path = ?1")?
            .execute(params![path, now_ns])?;
    }
    conn.execute_batch("COMMIT")?;
    Ok(gone.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_key_however_the_folder_is_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        std::fs::create_dir_all(runs.join("1")).unwrap();
        let abs = runs.display().to_string();
        let r = roots(std::slice::from_ref(&abs), &[]);
        assert_eq!(key(&r, &format!("{abs}/1/x.zip")), "runs/1/x.zip");
        let r = roots(&["runs".into()], &[]);
        assert_eq!(key(&r, "runs/1/x.zip"), "runs/1/x.zip");
        let r = roots(&[format!("{abs}/1/..")], &[]);
        assert_eq!(
            key(&r, &super::super::normalize(&format!("{abs}/1/../1/x.zip"))),
            "runs/1/x.zip"
        );
        // A listing's entries keep their object names.
        let r = roots(&[], &["2026/wf/x.zip".into()]);
        assert_eq!(key(&r, "2026/wf/x.zip"), "2026/wf/x.zip");
    }
}
