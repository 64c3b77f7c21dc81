//! Turning command-line inputs into artifacts: files as given, folders
//! walked recursively in byte order of names, `-` for stdin.

use std::io;
use std::path::{Path, PathBuf};

/// One input artifact: what is cited as its path, and where to read it.
#[derive(Clone, Debug)]
pub struct Artifact {
    /// As given on the command line, or joined under the folder given.
    pub path: String,
    pub kind: ArtifactKind,
}

#[derive(Clone, Debug)]
pub enum ArtifactKind {
    File(PathBuf),
    Stdin,
}

/// Expands inputs into artifacts. Unreadable inputs come back as errors
/// beside the artifacts; they do not stop the walk.
pub fn walk(inputs: &[String]) -> (Vec<Artifact>, Vec<(String, io::Error)>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        if input == "-" {
            out.push(Artifact {
                path: "-".into(),
                kind: ArtifactKind::Stdin,
            });
            continue;
        }
        let path = Path::new(input);
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                walk_dir(input.trim_end_matches('/'), path, &mut out, &mut errors)
            }
            Ok(_) => out.push(Artifact {
                path: input.clone(),
                kind: ArtifactKind::File(path.to_path_buf()),
            }),
            Err(e) => errors.push((input.clone(), e)),
        }
    }
    (out, errors)
}

fn walk_dir(
    shown: &str,
    dir: &Path,
    out: &mut Vec<Artifact>,
    errors: &mut Vec<(String, io::Error)>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            errors.push((shown.to_string(), e));
            return;
        }
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let shown = if shown.is_empty() {
            format!("/{name}")
        } else {
            format!("{shown}/{name}")
        };
        // Symlinks inside folders are not followed (as ripgrep does).
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            walk_dir(&shown, &entry.path(), out, errors);
        } else if ft.is_file() {
            out.push(Artifact {
                path: shown,
                kind: ArtifactKind::File(entry.path()),
            });
        }
    }
}
