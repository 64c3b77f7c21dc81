//! Turning command-line inputs into artifacts: files as given, folders
//! walked recursively in byte order of names, `-` for stdin. A path that is
//! not a regular file (`/dev/stdin`, `<(...)`, a FIFO, a device) is read
//! as a stream like stdin. What cannot be read inside a folder becomes an
//! artifact whose coverage holds the error, so every output shows it.

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
    /// A regular file (mapped).
    File(PathBuf),
    Stdin,
    /// A pipe, FIFO or device named on the command line: read once, as a
    /// stream, within the limits; never hashed.
    Stream(PathBuf),
    /// An entry of a folder that could not be listed or typed: reading it
    /// records this `io` error.
    Unreadable(String),
}

/// Expands inputs into artifacts. Inputs that do not exist come back as
/// errors beside the artifacts; they do not stop the walk.
pub(crate) fn walk(inputs: &[String]) -> (Vec<Artifact>, Vec<(String, io::Error)>) {
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
            Ok(m) if m.is_dir() => walk_dir(input.trim_end_matches('/'), path, &mut out),
            Ok(m) if m.is_file() => out.push(Artifact {
                path: input.clone(),
                kind: ArtifactKind::File(path.to_path_buf()),
            }),
            Ok(_) => out.push(Artifact {
                path: input.clone(),
                kind: ArtifactKind::Stream(path.to_path_buf()),
            }),
            Err(e) => errors.push((input.clone(), e)),
        }
    }
    (out, errors)
}

fn unreadable(out: &mut Vec<Artifact>, shown: String, e: &io::Error) {
    out.push(Artifact {
        path: shown,
        kind: ArtifactKind::Unreadable(e.to_string()),
    });
}

fn walk_dir(shown: &str, dir: &Path, out: &mut Vec<Artifact>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => return unreadable(out, shown.to_string(), &e),
    };
    let mut listed = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => listed.push(e),
            Err(e) => unreadable(out, shown.to_string(), &e),
        }
    }
    listed.sort_by_key(|e| e.file_name());
    for entry in listed {
        // Not UTF-8: kept byte for byte (cited `%XX`), never lossily, so
        // that two names never share a citation and `cite` reopens each.
        let name = crate::location::name_from_bytes(entry.file_name().as_encoded_bytes());
        let shown = if shown.is_empty() {
            format!("/{name}")
        } else {
            format!("{shown}/{name}")
        };
        // Symlinks inside folders are not followed (as ripgrep does), nor
        // are pipes or devices read.
        let ft = match entry.file_type() {
            Ok(ft) => ft,
            Err(e) => {
                unreadable(out, shown, &e);
                continue;
            }
        };
        if ft.is_dir() {
            walk_dir(&shown, &entry.path(), out);
        } else if ft.is_file() {
            out.push(Artifact {
                path: shown,
                kind: ArtifactKind::File(entry.path()),
            });
        }
    }
}
