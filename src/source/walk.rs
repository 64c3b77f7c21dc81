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
    /// A regular file: read whole, streamed, or (a big zip) read at
    /// offsets; never mapped.
    File(PathBuf),
    Stdin,
    /// A pipe, FIFO or device named on the command line: read once, as a
    /// stream, within the limits; never hashed.
    Stream(PathBuf),
    /// An entry of a folder that could not be listed or typed: reading it
    /// records this `io` error.
    Unreadable(String),
    /// An entry of a folder that is not read (a symbolic link out of the
    /// folder or to nothing, a FIFO, a socket, a device): reading it
    /// records this `skipped` error, so no absence is claimed over it.
    Skipped(String),
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
            Ok(m) if m.is_dir() => {
                let root = std::fs::canonicalize(path).ok();
                walk_dir(input.trim_end_matches('/'), path, root.as_deref(), &mut out)
            }
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

fn skipped(out: &mut Vec<Artifact>, shown: String, why: &str) {
    out.push(Artifact {
        path: shown,
        kind: ArtifactKind::Skipped(why.to_string()),
    });
}

/// Walks `dir`, shown as `shown`; `root` is the folder named on the command
/// line, resolved: links that stay inside it lead to what the walk reads
/// anyway.
fn walk_dir(shown: &str, dir: &Path, root: Option<&Path>, out: &mut Vec<Artifact>) {
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
        let ft = match entry.file_type() {
            Ok(ft) => ft,
            Err(e) => {
                unreadable(out, shown, &e);
                continue;
            }
        };
        if ft.is_dir() {
            walk_dir(&shown, &entry.path(), root, out);
        } else if ft.is_file() {
            out.push(Artifact {
                path: shown,
                kind: ArtifactKind::File(entry.path()),
            });
        } else if ft.is_symlink() {
            // Never followed (a link in a hostile artifact could name any
            // file on this machine). One that stays inside the folder leads
            // to what the walk reads anyway; any other hides content the
            // walk cannot vouch for, so it is a visible `skipped` entry.
            match std::fs::canonicalize(entry.path()) {
                Ok(target) if root.is_some_and(|r| target.starts_with(r)) => {}
                Ok(_) => skipped(
                    out,
                    shown,
                    "symbolic link out of the folder: not followed, so what it leads to is not searched",
                ),
                Err(_) => skipped(
                    out,
                    shown,
                    "symbolic link that leads nowhere (dangling or a loop): not read",
                ),
            }
        } else {
            skipped(out, shown, "FIFO, socket or device in a folder: not read");
        }
    }
}
