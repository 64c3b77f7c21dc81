//! What a verdict speaks about. The artifact is the scope however it
//! arrives: a zip, a bare archive or log, or a folder holding one extracted
//! artifact (what `gh run download` makes). Run scope groups the artifacts
//! of one folder. Within an artifact, ranks belong to a server: one worker
//! log (`.out` and `.err` of one srt-slurm worker together).

use super::member_cost::{self, Reads};
use crate::domain::Evidence;
use crate::location::Location;
use crate::scan::ArtifactScan;
use crate::source::{Artifact, ArtifactKind, NoteKind, walk};
use std::collections::HashMap;
use std::io;
use std::path::Path;

/// How folders map to artifacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    /// By structure, names only label: a folder whose name parses as an
    /// artifact name (`server_logs_<RF>`, `eval_<exp>_<RF>`, ...) is one
    /// artifact; a folder of folders is a run (what `gh run download RUN -D
    /// DIR` makes), each folder in it one artifact whatever its name (a folder
    /// of run folders, or one holding zips, is looked into the same way); a folder of plain files
    /// is one artifact; an archive file (`.zip`, `.tar*`) is one artifact;
    /// a plain file beside folders or archives is one of its own. Download junk
    /// (`*:Zone.Identifier`, `.DS_Store`) is noted, not judged.
    #[default]
    Auto,
    /// Each folder given is one extracted artifact (`gh run download -n NAME`
    /// extracts into the current folder, whatever its name).
    Artifact,
    /// Each folder given is a set of artifacts: each folder directly inside is
    /// one artifact, each file directly inside is one.
    Artifacts,
    /// Every file is its own artifact.
    Files,
}

/// One artifact: its name (a file, or a folder) and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unit {
    pub name: String,
    /// Indices into the walked files.
    pub files: Vec<usize>,
}

impl Unit {
    /// The run the artifact belongs to: the folder that holds it.
    pub(crate) fn run(&self) -> String {
        super::run_id::run_of_artifact(&self.name)
    }
}

/// Whether a file or folder name is an artifact name.
pub(crate) fn is_artifact_name(name: &str) -> bool {
    crate::names::parse_name(name).is_some()
}

/// What walking the inputs found, grouped into artifacts.
pub(crate) struct Walked {
    pub files: Vec<Artifact>,
    pub units: Vec<Unit>,
    pub errors: Vec<(String, io::Error)>,
    /// Download junk left out of every artifact (a `x:Zone.Identifier`
    /// whose bytes are one), with why.
    pub junk: Vec<(String, &'static str)>,
}

/// Walks the inputs (as `source::walk`) and groups the files into artifacts
/// by `layout`. Units keep the walk order of their first file; each file
/// (but junk) is in exactly one unit.
pub(crate) fn walk_units(inputs: &[String], layout: Layout) -> Walked {
    let mut w = Walked {
        files: Vec::new(),
        units: Vec::new(),
        errors: Vec::new(),
        junk: Vec::new(),
    };
    let mut by_name: std::collections::HashMap<String, usize> = Default::default();
    let mut folders = Folders::default();
    for input in inputs {
        let (found, errs) = walk(std::slice::from_ref(input));
        w.errors.extend(errs);
        let is_dir = input != "-" && std::fs::metadata(input).is_ok_and(|m| m.is_dir());
        let root = input.trim_end_matches('/');
        for a in found {
            let junk = match &a.kind {
                ArtifactKind::File(p) if is_dir => {
                    crate::source::junk::set_aside(p, base_name(&a.path))
                }
                _ => None,
            };
            if let Some(why) = junk {
                w.junk.push((a.path, why));
                continue;
            }
            let name = if is_dir {
                unit_of(input, root, &a.path, layout, &mut folders)
            } else {
                a.path.clone()
            };
            let i = w.files.len();
            w.files.push(a);
            match by_name.get(&name) {
                Some(&u) => w.units[u].files.push(i),
                None => {
                    by_name.insert(name.clone(), w.units.len());
                    w.units.push(Unit {
                        name,
                        files: vec![i],
                    });
                }
            }
        }
    }
    w
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// What a folder holds, download junk left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Listing {
    folders: usize,
    /// Files that are not archives.
    plain: usize,
    archives: usize,
    /// Of the archives, zips.
    zips: usize,
}

/// Folder listings, each read once.
#[derive(Default)]
struct Folders(std::collections::HashMap<String, Listing>);

impl Folders {
    fn get(&mut self, dir: &str) -> Listing {
        if let Some(l) = self.0.get(dir) {
            return *l;
        }
        let mut l = Listing::default();
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if crate::source::junk::set_aside(&e.path(), &name).is_some() {
                    continue;
                }
                // Follows links as the walk does (a link out of the folder
                // is a skipped artifact of its own there).
                match std::fs::metadata(e.path()) {
                    Ok(m) if m.is_dir() => l.folders += 1,
                    _ if crate::names::is_archive_name(&name) => {
                        l.archives += 1;
                        l.zips += usize::from(name.to_ascii_lowercase().ends_with(".zip"));
                    }
                    _ => l.plain += 1,
                }
            }
        }
        self.0.insert(dir.to_string(), l);
        l
    }
}

/// The artifact a walked file belongs to.
fn unit_of(input: &str, root: &str, path: &str, layout: Layout, folders: &mut Folders) -> String {
    let rel = path
        .strip_prefix(root)
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(path);
    let comps: Vec<&str> = rel.split('/').collect();
    let (file, dirs) = comps.split_last().unwrap_or((&"", &[]));
    let join = |n: usize| {
        let mut s = root.to_string();
        for c in &dirs[..n] {
            s.push('/');
            s.push_str(c);
        }
        s
    };
    match layout {
        Layout::Files => path.to_string(),
        Layout::Artifact => root.to_string(),
        Layout::Artifacts => {
            if dirs.is_empty() {
                path.to_string()
            } else {
                join(1)
            }
        }
        Layout::Auto => {
            if is_artifact_name(&folder_name(input)) {
                return root.to_string();
            }
            if let Some(i) = dirs.iter().position(|f| is_artifact_name(f)) {
                return join(i + 1);
            }
            // By structure: go down through folders of folders (runs, and
            // folders of runs) to the folder that is the artifact.
            let mut d = 0;
            loop {
                if d == dirs.len() {
                    // The file sits in the folder given. Only a folder of
                    // plain files alone is one artifact; beside folders or
                    // archives (a run's zips), each file is its own.
                    let here = folders.get(&join(d));
                    let own = crate::names::is_archive_name(file)
                        || here.folders > 0
                        || here.archives > 0
                        || here.plain <= 1;
                    return if own { path.to_string() } else { join(d) };
                }
                // A folder holding zips is a folder of downloaded artifacts
                // (an extracted artifact holds no zip: GitHub zips it once).
                let child = folders.get(&join(d + 1));
                if child.zips == 0 && (child.plain + child.archives > 0 || d + 1 == dirs.len()) {
                    return join(d + 1);
                }
                d += 1;
            }
        }
    }
}

/// The name of a folder given on the command line (`.` is named by its
/// real path).
fn folder_name(input: &str) -> String {
    let p = Path::new(input);
    let named = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n != "." && n != "..");
    named
        .or_else(|| {
            std::fs::canonicalize(p)
                .ok()?
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// The artifacts of one scope, scanned.
pub struct Scope<'a> {
    /// The artifact, or with `scope = "run"` the run's folder.
    pub name: String,
    /// The artifacts in the scope (names as in `Unit`).
    pub artifacts: Vec<String>,
    /// Every scanned file of those artifacts, by its walked path.
    pub scans: Vec<(&'a str, &'a ArtifactScan)>,
    /// The records by rule, in order, made at the first
    /// [`Scope::records_of`]: each check asks for a few rules, and an env
    /// dump's scope holds a hundred thousand records of one.
    by_rule: std::sync::OnceLock<HashMap<&'a str, Vec<&'a Evidence>>>,
}

impl<'a> Scope<'a> {
    /// The artifact (as walked) a record at `path` lies in: the longest
    /// artifact name that is the path or a folder above it; the path itself
    /// where none is.
    pub(crate) fn artifact_of<'p>(&'p self, path: &'p str) -> &'p str {
        self.artifacts
            .iter()
            .filter(|a| {
                path == a.as_str()
                    || path
                        .strip_prefix(a.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .max_by_key(|a| a.len())
            .map_or(path, String::as_str)
    }

    pub fn new(
        name: String,
        artifacts: Vec<String>,
        scans: Vec<(&'a str, &'a ArtifactScan)>,
    ) -> Scope<'a> {
        Scope {
            name,
            artifacts,
            scans,
            by_rule: Default::default(),
        }
    }

    pub fn records(&self) -> impl Iterator<Item = &'a Evidence> + '_ {
        self.scans.iter().flat_map(|(_, s)| s.evidence())
    }

    pub fn records_of<'r>(&'r self, rule: &str) -> impl Iterator<Item = &'a Evidence> + 'r {
        let by_rule = self.by_rule.get_or_init(|| {
            let mut m: HashMap<&'a str, Vec<&'a Evidence>> = HashMap::new();
            for e in self.records() {
                m.entry(e.rule.as_str()).or_default().push(e);
            }
            m
        });
        by_rule.get(rule).into_iter().flatten().copied()
    }

    /// Parts not read completely, each as `member (kind)` or `member (N
    /// line(s) longer than --max-line ..., the first is line L)`, binary
    /// members included: an absence cannot be claimed while any is listed.
    pub fn incomplete(&self) -> Vec<String> {
        self.incomplete_for(&Reads::Every)
    }

    /// [`Scope::incomplete`] for a claim whose rules read only the members
    /// `reads` names: a part confined to one member they cannot read (a
    /// binary `trace.bin` for an `agg_eval_*.json` claim) costs it nothing.
    pub(crate) fn incomplete_for(&self, reads: &Reads) -> Vec<String> {
        let mut out = Vec::new();
        let costs = |path: &str, members: &[String], confined: bool| {
            !confined || reads.could_read(member_cost::part_name(path, members))
        };
        for (path, s) in &self.scans {
            for e in &s.coverage.errors {
                if costs(path, &e.members, member_cost::confined_error(e.kind)) {
                    let at = Location::member_citation(path, &e.members);
                    out.push(format!("{at} ({})", e.kind.as_str()));
                }
            }
            for n in &s.coverage.notes {
                // A binary member was not searched: it could hold anything.
                let unread = n.kind == NoteKind::LongLine
                    || (n.kind == NoteKind::Binary
                        && !s.coverage.errors.iter().any(|e| e.members == n.members));
                if unread && costs(path, &n.members, member_cost::confined_note(n.kind)) {
                    let at = Location::member_citation(path, &n.members);
                    out.push(format!("{at} ({})", n.message));
                }
            }
        }
        out
    }
}

/// The server a record belongs to: `(key, short name)`. A server is one
/// worker log: the member with compression and `.out`/`.err`/`.log`/`.txt`
/// suffixes dropped, and srt-slurm's `<host>_` dropped from
/// `<host>_{prefill,decode,agg}_w<n>` (one worker may span nodes, and srun
/// may write each node's share to its own file).
pub(crate) fn server_of(r: &Evidence) -> (String, String) {
    let loc = &r.location;
    let (prefix, last) = match loc.members.split_last() {
        Some((last, rest)) => (Location::member_citation(&loc.path, rest), last.as_str()),
        None => match loc.path.rsplit_once('/') {
            Some((dir, f)) => (dir.to_string(), f),
            None => (String::new(), &*loc.path),
        },
    };
    let (dir, file) = match last.rsplit_once('/') {
        Some((d, f)) => (Some(d), f),
        None => (None, last),
    };
    let short = server_name(file);
    let mut key = prefix;
    key.push('!');
    if let Some(d) = dir {
        key.push_str(d);
        key.push('/');
    }
    key.push_str(&short);
    (key, short)
}

pub(crate) fn server_name(file: &str) -> String {
    let mut s = crate::formats::strip_compression(file).map_or(file, |(rest, _)| rest);
    for ext in [".out", ".err", ".log", ".txt"] {
        if let Some(t) = s.strip_suffix(ext) {
            s = t;
            break;
        }
    }
    for role in ["_prefill_w", "_decode_w", "_agg_w"] {
        if let Some(i) = s.find(role) {
            let tail = &s[i + role.len()..];
            if i > 0 && !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                return s[i + 1..].to_string();
            }
        }
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_logs_of_one_server_share_a_name() {
        assert_eq!(server_name("gb200-node01_decode_w0.out"), "decode_w0");
        assert_eq!(server_name("gb200-node03_decode_w0.err.gz"), "decode_w0");
        assert_eq!(server_name("gb200-node02_prefill_w1.out"), "prefill_w1");
        assert_eq!(server_name("b200-7_agg_w0.out"), "agg_w0");
        assert_eq!(server_name("server.log"), "server");
        assert_eq!(
            server_name("decode_gb200-node01.log"),
            "decode_gb200-node01"
        );
        assert_eq!(server_name("x_decode_wx.out"), "x_decode_wx");
    }

    #[test]
    fn units_follow_the_layout() {
        let root = "dl";
        let mut folders = Folders::default();
        let mut f = |p: &str, l| unit_of(root, root, p, l, &mut folders);
        let rf = "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
        let p = format!("dl/{rf}/logs/server.log");
        assert_eq!(f(&p, Layout::Auto), format!("dl/{rf}"));
        assert_eq!(f(&p, Layout::Artifacts), format!("dl/{rf}"));
        assert_eq!(f(&p, Layout::Artifact), "dl");
        assert_eq!(f(&p, Layout::Files), p);
        // A folder inside a run is an artifact whatever its name.
        assert_eq!(f("dl/renamed/x.log", Layout::Auto), "dl/renamed");
        assert_eq!(f("dl/renamed/x.log", Layout::Artifacts), "dl/renamed");
        assert_eq!(f("dl/a.zip", Layout::Artifacts), "dl/a.zip");
        let u = Unit {
            name: format!("runs/1/{rf}"),
            files: vec![],
        };
        assert_eq!(u.run(), "runs/1");
    }
}
