//! Batch audit of historical runs into an embedded SQLite store
//! (`artiscan audit`): every artifact under some folders is scanned with all
//! rules and judged by the checks, and the results land in one SQLite file
//! that SQL, `audit report` and `audit export` read.
//!
//! - **Incremental**: an artifact is skipped when its sha256 and the
//!   pack/check-set fingerprint are those stored. Unchanged
//!   size and modification time (older than the last hash by a margin, as git
//!   does it) stand in for the hash; `--rehash` always hashes.
//! - **Resumable**: artifacts are scanned on a worker pool and one writer (the
//!   calling thread) commits each artifact's rows (old rows removed) in one
//!   transaction, in WAL mode: a killed audit leaves whole artifacts only, and
//!   the next run skips them.
//! - **Sharded**: `--shard i/n` (or `auto`, from the scheduler) keeps the
//!   artifacts whose path or run hash falls in slice i ([`shard`]); [`merge`]
//!   combines shard stores, validating each.
//! - **Artifacts as `check` finds them**: files are grouped by
//!   [`crate::check::scope::walk_units`] (a zip or lone log is an artifact;
//!   an extracted artifact folder is one artifact of many files). Each file
//!   is stored and skipped on its own; a folder's verdicts are judged over
//!   all its files.
//! - Run-scope checks (`scope = "run"`), and the checks of folder artifacts,
//!   are judged from the store once a run's files are written ([`store`]'s
//!   `dirty_runs`), so they see every file of the run, also across shards
//!   after a merge.

pub(crate) mod current;
pub(crate) mod export;
pub(crate) mod merge;
pub(crate) mod report;
pub(crate) mod shard;
pub(crate) mod store;
pub(crate) mod tables;
mod write;

pub(crate) use shard::Shard;
pub(crate) use write::{AuditSink, Judged, judge_dirty_runs};
use write::{Commit, declare_shard, write_checks};

use crate::check::load::{judge, judge_units_where};
use crate::check::scope::Unit;
use crate::check::{self, Check, CheckParams, CheckScope, Status};
use crate::domain::Tally;
use crate::drive;
use crate::limits::ReadLimits;
use crate::pack::RuleSet;
use crate::scan::{ArtifactScan, ScanOptions, scan_artifact};
use crate::source::{Artifact, ArtifactKind};
use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use store::{Prepared, Stamp, VerdictRow};

/// Bumped when what the store holds for the same inputs changes meaning
/// (forces a full re-scan, like a pack change).
const AUDIT_FORMAT: &str = "audit-2";

/// A file modified less than this before its hash was taken may have changed
/// within the same timestamp tick: its size and mtime are not trusted.
const RACY_NS: i64 = 2_000_000_000;

/// The checks an audit judges, with their source text (stored, so that a
/// merge can judge run-scope checks again) and `--param` values.
#[derive(Debug, Clone, Default)]
pub(crate) struct CheckSet {
    pub checks: Vec<Check>,
    /// (file name, text) of every check file and built-in set.
    pub sources: Vec<(String, String)>,
    pub params: CheckParams,
}

impl CheckSet {
    pub(crate) fn load(
        files: &[PathBuf],
        sets: &[String],
        params: &[String],
    ) -> anyhow::Result<CheckSet> {
        let sources = crate::check::load::check_sources(files, sets)?;
        let params = CheckParams::parse(params).map_err(anyhow::Error::msg)?;
        CheckSet::from_sources(sources, params)
    }

    pub(crate) fn from_sources(
        sources: Vec<(String, String)>,
        params: CheckParams,
    ) -> anyhow::Result<CheckSet> {
        let mut checks = Vec::new();
        for (name, src) in &sources {
            checks.extend(check::parse_checks(name, src)?);
        }
        Ok(CheckSet {
            checks,
            sources,
            params,
        })
    }

    /// From a `fingerprints` row (merge).
    pub(crate) fn from_stored(checks_json: &str, params_json: &str) -> anyhow::Result<CheckSet> {
        let files: Vec<serde_json::Value> = serde_json::from_str(checks_json)?;
        let sources = files
            .iter()
            .map(|f| {
                (
                    f["file"].as_str().unwrap_or("").to_string(),
                    f["source"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        let params = CheckParams(serde_json::from_str(params_json)?, None);
        CheckSet::from_sources(sources, params)
    }

    fn sources_json(&self) -> String {
        let v: Vec<_> = self
            .sources
            .iter()
            .map(|(f, s)| serde_json::json!({"file": f, "source": s}))
            .collect();
        serde_json::to_string(&v).expect("json")
    }

    fn params_json(&self) -> String {
        serde_json::to_string(&self.params.0).expect("json")
    }

    /// Whether the audit stores every line of aggregating rules
    /// (`every_match`): see [`check::needs_every_match`].
    pub(crate) fn needs_every_match(&self, rules: &RuleSet) -> bool {
        check::needs_every_match(&self.checks, rules)
    }
}

/// What `artiscan audit PATHS` does.
#[derive(Debug, Clone)]
pub(crate) struct AuditOptions {
    pub db: PathBuf,
    pub paths: Vec<String>,
    /// Entries of `--listing` files: audited at their path, keyed by it.
    pub listed: Vec<String>,
    pub shard: Option<Shard>,
    /// Run id for every artifact (else from folder names).
    pub run_id: Option<String>,
    /// Hash every artifact even when size and mtime are unchanged.
    pub rehash: bool,
    /// How folders map to artifacts (as `check` groups them).
    pub layout: crate::check::scope::Layout,
    pub threads: usize,
    pub limits: ReadLimits,
}

/// The fingerprint of an audit: everything that decides the stored results
/// for given artifact bytes.
pub(crate) fn fingerprint(
    rules: &RuleSet,
    checks: &CheckSet,
    every_match: bool,
    limits: &ReadLimits,
) -> store::FingerprintRow {
    let packs: BTreeMap<&str, &str> = rules
        .rules
        .iter()
        .map(|r| (r.pack.as_str(), r.pack_version.as_str()))
        .collect();
    let limits = limits.stored_json();
    let (checks_json, params_json) = (checks.sources_json(), checks.params_json());
    // The checks' text, not their file names: the same file given by
    // another path is the same check set.
    let texts: Vec<&str> = checks
        .sources
        .iter()
        .map(|(_, text)| text.as_str())
        .collect();
    let texts = serde_json::to_string(&texts).expect("json");
    let mut h = Sha256::new();
    for part in [
        AUDIT_FORMAT,
        env!("CARGO_PKG_VERSION"),
        &rules.fingerprint,
        &texts,
        &params_json,
        if every_match {
            "every_match"
        } else {
            "aggregate"
        },
        &limits,
    ] {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    store::FingerprintRow {
        fingerprint: crate::hash::hex(&h.finalize()[..8]),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        pack_fingerprint: rules.fingerprint.clone(),
        packs: serde_json::to_string(&packs).expect("json"),
        checks: checks_json,
        params: params_json,
        every_match,
        limits,
    }
}

/// Counts of one audit, printed as its last line: the artifacts scanned
/// tallied as every command tallies them ([`drive::Stats`]), beside what
/// only an audit counts.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    /// Artifacts found by the walk (in the shard, with `--shard`).
    pub artifacts: u64,
    /// Artifacts outside the shard.
    pub other_shards: u64,
    /// The artifacts scanned, as `scan` tallies its own: how many
    /// (`artifacts`), those with coverage errors (`incomplete`: damaged,
    /// truncated, limits), decompressed bytes read (`bytes`), evidence
    /// records (`matches`). Its `errors`, the coverage errors, are not the
    /// audit's [`Summary::errors`]: damage makes an artifact incomplete.
    pub scanned: drive::Stats,
    pub unchanged: u64,
    /// Unchanged, but hashed to be sure.
    pub rehashed: u64,
    /// Inputs that could not be opened or read (walk or stat errors, and
    /// files whose scan could not read them, as `check` counts them): exit 2.
    pub errors: u64,
    /// Stored files found gone under the folders audited: superseded.
    pub gone: u64,
    /// Verdicts by status: the scanned artifacts', then the judged runs'.
    pub verdicts: Tally,
    pub runs_judged: u64,
    /// File bytes of the scanned artifacts.
    pub file_bytes: u64,
    pub elapsed_s: f64,
    pub fingerprint: String,
    pub shard: Option<Shard>,
    pub db: String,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shard = self
            .shard
            .map(|s| format!(" (shard {s}; {} in other shards)", self.other_shards))
            .unwrap_or_default();
        // Bytes read per second, as `scan` counts them (decompressed), so
        // the two rates compare on the same inputs.
        let read_bytes = self.scanned.bytes;
        let mbs = read_bytes as f64 / 1e6 / self.elapsed_s.max(1e-9);
        write!(
            f,
            "audit: {} artifacts{shard}: {} scanned, {} unchanged, {} incomplete, {} errors; {} evidence, {} verdicts ({} fail, {} unknown); {} runs judged; {} bytes read from {} bytes of files in {:.2} s, {:.1} MB/s; fingerprint {}; {}",
            self.artifacts,
            self.scanned.artifacts,
            self.unchanged,
            self.scanned.incomplete,
            self.errors,
            self.scanned.matches,
            self.verdicts.total(),
            self.verdicts.fail,
            self.verdicts.unknown,
            self.runs_judged,
            read_bytes,
            self.file_bytes,
            self.elapsed_s,
            mbs,
            self.fingerprint,
            self.db
        )
    }
}

impl Summary {
    /// Counts one artifact's outcome.
    fn take(&mut self, outcome: &ArtifactWork) {
        match outcome {
            ArtifactWork::Aborted => {}
            ArtifactWork::Failed(_) => self.errors += 1,
            ArtifactWork::Unchanged { hashed_ns, .. } => {
                self.unchanged += 1;
                self.rehashed += u64::from(hashed_ns.is_some());
            }
            ArtifactWork::Scanned(p) => {
                // Unreadable as `check` has it (its exit 2): an error, not
                // only an incomplete artifact.
                self.errors += u64::from(drive::unreadable(&p.coverage));
                self.scanned.artifact(&p.coverage);
                self.scanned.matches += p.rows.evidence.len() as u64;
                self.file_bytes += p.size.unwrap_or(0) as u64;
                // Stored names: each is one of `Status::ALL` (`VerdictRow::new`).
                for v in &p.rows.verdicts {
                    if let Some(s) = Status::ALL.into_iter().find(|s| s.as_str() == v.status) {
                        self.verdicts.add(s);
                    }
                }
            }
        }
    }
}

/// The key of an artifact: its path as walked, without `./` steps and
/// doubled slashes, so `./runs` and `runs` name the same artifacts.
fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// The store key of an artifact: its path as walked (`normalize`d), from
/// the bytes the file system gave. A path that is not valid UTF-8 (or holds
/// U+FFFD itself) is escaped so that no two paths share a key: each invalid
/// byte becomes `\u{FFFD}x` and two hex digits, each U+FFFD `\u{FFFD}u`.
/// A key with no U+FFFD is a path as it is; one with U+FFFD is decoded by
/// the letter after each. (A lossy conversion would give `a\xff` and `a\xfe`
/// one key, so one artifact's verdict would overwrite the other's.)
pub(crate) fn artifact_key(a: &Artifact) -> String {
    let ArtifactKind::File(p) = &a.kind else {
        return normalize(&a.path);
    };
    normalize(&escape_path_bytes(p.as_os_str().as_encoded_bytes()))
}

fn escape_path_bytes(bytes: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.contains('\u{FFFD}') {
            return s.to_string();
        }
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\u{FFFD}' {
                out.push_str("\u{FFFD}u");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\u{FFFD}x{b:02X}"));
        }
    }
    out
}

/// The store's files (database, WAL, shared memory, journal), to leave out of
/// an audit of a folder that holds them.
struct StoreFiles {
    name: String,
    canonical: Vec<PathBuf>,
}

impl StoreFiles {
    fn new(db: &Path) -> StoreFiles {
        let name = db
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let canonical = ["", "-wal", "-shm", "-journal"]
            .iter()
            .filter_map(|suffix| {
                let mut p = db.as_os_str().to_owned();
                p.push(suffix);
                std::fs::canonicalize(PathBuf::from(p)).ok()
            })
            .collect();
        StoreFiles { name, canonical }
    }

    fn contains(&self, a: &Artifact) -> bool {
        let ArtifactKind::File(p) = &a.kind else {
            return false;
        };
        let named = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&self.name));
        named && std::fs::canonicalize(p).is_ok_and(|c| self.canonical.contains(&c))
    }
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct FileStat {
    size: i64,
    mtime_ns: i64,
}

fn stat(path: &Path) -> std::io::Result<FileStat> {
    let m = std::fs::metadata(path)?;
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    Ok(FileStat {
        size: m.len() as i64,
        mtime_ns,
    })
}

impl drive::Held for ArtifactWork {
    fn held_bytes(&self) -> usize {
        match self {
            ArtifactWork::Scanned(p) => p.rows.held_bytes(),
            _ => 0,
        }
    }
}

/// What became of one artifact of an audit, worked out on a worker thread
/// (scanned, judged and made into rows there, so that the one writer only
/// writes) and handed to the [`AuditSink`].
pub(crate) enum ArtifactWork {
    /// Same bytes and fingerprint: nothing to scan. `stat` as found now;
    /// `hashed_ns` when the hash was taken now; `run_id` when the stored run
    /// id is to be replaced.
    Unchanged {
        stat: FileStat,
        hashed_ns: Option<i64>,
        run_id: Option<Option<String>>,
    },
    Scanned(Box<Prepared>),
    /// Could not be opened (a stat error): why.
    Failed(String),
    /// The writer stopped (a database error); nothing was done.
    Aborted,
}

/// Commits after this many artifacts or this long, whichever comes first:
/// every artifact is whole inside one transaction, and few commits keep the
/// single writer ahead of the scanners.
const BATCH_ARTIFACTS: usize = 64;
const BATCH_MS: u128 = 200;

/// `artiscan audit PATHS --db FILE`: scans new and changed artifacts into the
/// store and judges the checks.
///
/// A store that cannot be written (read-only, disk full) fails the audit with
/// an error naming it ([`store::explain`]); what was committed before stays,
/// whole artifacts only, and the next audit resumes from there.
pub(crate) fn audit(
    opts: &AuditOptions,
    rules: &RuleSet,
    checks: &CheckSet,
    progress: &dyn drive::Progress,
    err: &mut dyn Write,
) -> anyhow::Result<Summary> {
    let start = Instant::now();
    let conn = store::open(&opts.db)?;
    audit_into(&conn, start, opts, rules, checks, progress, err)
        .map_err(|e| store::explain(e, &opts.db))
}

fn audit_into(
    conn: &Connection,
    start: Instant,
    opts: &AuditOptions,
    rules: &RuleSet,
    checks: &CheckSet,
    progress: &dyn drive::Progress,
    err: &mut dyn Write,
) -> anyhow::Result<Summary> {
    let every_match = checks.needs_every_match(rules);
    let fp = fingerprint(rules, checks, every_match, &opts.limits);
    stamp_store(conn, &fp, checks, opts.shard)?;
    let mut summary = Summary {
        fingerprint: fp.fingerprint.clone(),
        shard: opts.shard,
        db: opts.db.display().to_string(),
        ..Summary::default()
    };
    let plan = plan(opts, &mut summary, err)?;
    let work = Work {
        rules,
        checks,
        artifact_checks: checks
            .checks
            .iter()
            .filter(|c| c.scope == CheckScope::Artifact)
            .cloned()
            .collect(),
        scan_opts: ScanOptions {
            every_match,
            skip_prefilter: false,
        },
        opts,
        prior: store::load_prior(conn)?,
        fp: &fp,
        units: plan.units,
        stats: plan.stats,
        abort: AtomicBool::new(false),
    };
    let mut sink = Commit::new(conn, &fp);
    take_all(
        &plan.artifacts,
        &work,
        &mut sink,
        &mut summary,
        opts.threads,
        progress,
        err,
    )?;
    summary.gone = current::supersede_gone(
        conn,
        &plan.roots,
        &work.units.keys().cloned().collect(),
        &plan.blocked,
        opts.shard,
        now_ns(),
    )?;
    if summary.gone > 0 {
        writeln!(
            err,
            "artiscan: {} files stored earlier are gone from the folders audited: kept as history (superseded), left out of verdicts and reports",
            summary.gone
        )?;
    }
    let judged = judge_dirty_runs(conn, checks)?;
    summary.runs_judged = judged.runs;
    summary.verdicts += judged.verdicts;
    // Keep the WAL short for readers that copy the file. When the disk fills
    // up here, every result is still committed, in the WAL.
    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
        let e = store::explain(e.into(), &opts.db);
        writeln!(
            err,
            "artiscan: warning: {e:#}; every result is committed, in {}-wal until SQLite can fold it into the store: keep the two files together",
            opts.db.display()
        )?;
    }
    summary.elapsed_s = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Stamps the store with what this audit is: its fingerprint, tool
/// version, checks and shard.
fn stamp_store(
    conn: &Connection,
    fp: &store::FingerprintRow,
    checks: &CheckSet,
    shard: Option<Shard>,
) -> anyhow::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    store::put_fingerprint(conn, fp)?;
    store::set_meta(conn, "fingerprint", &fp.fingerprint)?;
    store::set_meta(conn, "tool_version", env!("CARGO_PKG_VERSION"))?;
    write_checks(conn, checks)?;
    declare_shard(conn, shard)?;
    conn.execute_batch("COMMIT")?;
    Ok(())
}

/// What an audit will read: the files of this shard's artifacts (keyed as
/// the store keys them), the artifact each belongs to, and their file stats.
struct Plan {
    artifacts: Vec<Artifact>,
    units: HashMap<String, UnitOf>,
    stats: HashMap<String, Result<FileStat, String>>,
    roots: Vec<current::Root>,
    /// Keys of inputs the walk could not read: nothing under them is gone.
    blocked: Vec<String>,
}

/// The artifact a file belongs to (`check`'s grouping: the file itself, or
/// the folder of an extracted artifact) and the run folder holding it.
#[derive(Clone, Debug)]
struct UnitOf {
    unit: String,
    run_dir: String,
}

/// Walks `opts.paths` into a [`Plan`], grouping files into artifacts as
/// `check` does: inputs that cannot be walked or are not files are errors,
/// download junk is noted, the store's own files and other shards' artifacts
/// are left out (an artifact's files all fall in one shard).
fn plan(opts: &AuditOptions, summary: &mut Summary, err: &mut dyn Write) -> anyhow::Result<Plan> {
    let inputs: Vec<String> = opts.paths.iter().chain(&opts.listed).cloned().collect();
    let walked = crate::check::scope::walk_units(&inputs, opts.layout);
    let roots = current::roots(&opts.paths, &opts.listed);
    let blocked = walked
        .errors
        .iter()
        .map(|(p, _)| current::key(&roots, &normalize(p)))
        .collect();
    drive::report_walk_errors(err, &walked.errors)?;
    summary.errors += walked.errors.len() as u64;
    for (j, why) in &walked.junk {
        writeln!(
            err,
            "artiscan: {}: set aside as download junk ({why}), not part of any artifact: not audited",
            crate::escape::text(j)
        )?;
    }
    let mut artifacts = Vec::with_capacity(walked.files.len());
    let mut units = HashMap::new();
    let store_files = StoreFiles::new(&opts.db);
    let mut files: Vec<Option<Artifact>> = walked.files.into_iter().map(Some).collect();
    for u in &walked.units {
        let whole_file =
            u.files.len() == 1 && files[u.files[0]].as_ref().is_some_and(|a| a.path == u.name);
        for &i in &u.files {
            let Some(mut a) = files[i].take() else {
                continue;
            };
            // The key is also the path scanned, so that citations name the
            // artifact as the store does.
            a.path = current::key(&roots, &artifact_key(&a));
            if units.contains_key(&a.path) {
                continue; // given twice
            }
            let unit = if whole_file {
                a.path.clone()
            } else {
                current::key(&roots, &normalize(&u.name))
            };
            let unreadable = !matches!(a.kind, ArtifactKind::File(_));
            if unreadable && whole_file {
                let what = match &a.kind {
                    ArtifactKind::Unreadable(e) | ArtifactKind::Skipped(e) => e.as_str(),
                    _ => "audit reads files and folders, not stdin or streams",
                };
                drive::report_input_error(err, &a.path, what)?;
                summary.errors += 1;
            } else if store_files.contains(&a) {
                // The store itself (and its WAL) when it lies under the folders audited.
            } else if opts.shard.is_none_or(|s| s.contains(&unit)) {
                // A file of a folder artifact that cannot be read is stored
                // as such (its coverage error says why, on stderr too), so
                // that the folder's claims are unknown, as `check` has them.
                // One not a file (a FIFO) is counted here; one that could
                // not be opened, by its scan's `io` error.
                summary.errors += u64::from(matches!(a.kind, ArtifactKind::Skipped(_)));
                let run_dir = crate::names::run_dir(&unit);
                units.insert(a.path.clone(), UnitOf { unit, run_dir });
                artifacts.push(a);
            } else {
                summary.other_shards += 1;
            }
        }
    }
    summary.artifacts = artifacts.len() as u64;
    let stats = artifacts
        .iter()
        .map(|a| {
            let st = match &a.kind {
                ArtifactKind::File(p) => stat(p).map_err(|e| e.to_string()),
                _ => Err("not a readable file".to_string()),
            };
            (a.path.clone(), st)
        })
        .collect();
    Ok(Plan {
        artifacts,
        units,
        stats,
        roots,
        blocked,
    })
}

/// What the workers share: how to scan and judge one artifact, and what
/// the store already holds.
struct Work<'a> {
    rules: &'a RuleSet,
    checks: &'a CheckSet,
    artifact_checks: Vec<Check>,
    scan_opts: ScanOptions,
    opts: &'a AuditOptions,
    prior: HashMap<String, store::Prior>,
    fp: &'a store::FingerprintRow,
    units: HashMap<String, UnitOf>,
    stats: HashMap<String, Result<FileStat, String>>,
    /// Set by the writer when it stops: the workers do nothing more.
    abort: AtomicBool,
}

impl Work<'_> {
    /// One artifact: unchanged (same bytes and fingerprint), or scanned,
    /// judged and prepared as rows (on a worker thread).
    fn artifact(&self, a: &Artifact) -> ArtifactWork {
        let (opts, fp) = (self.opts, self.fp);
        if self.abort.load(Ordering::Relaxed) {
            return ArtifactWork::Aborted;
        }
        let of = &self.units[a.path.as_str()];
        let st = match (&self.stats[a.path.as_str()], &a.kind) {
            (Ok(st), ArtifactKind::File(file)) => Some((*st, file)),
            // A file of a folder artifact is stored unread: the scan below
            // records why, and the folder's claims are unknown.
            (Err(_), _) if of.unit != a.path => None,
            (Err(e), _) => return ArtifactWork::Failed(e.clone()),
            (Ok(_), _) => unreachable!("only files are stat'ed"),
        };
        let mut fields = crate::names::fields_for(&a.path, opts.run_id.as_deref());
        // A run folder not named by a number (`glm5.1-fp4-...-hicache`, as a
        // person names a download) is named by its path, as the report
        // names it: never NULL in the tables.
        fields.run_id.get_or_insert_with(|| of.run_dir.clone());
        // A file now grouped otherwise (files added beside it) is scanned
        // again, so that its rows and its artifact's verdicts move with it.
        if let Some(((st, file), p)) = st.zip(self.prior.get(&a.path)).filter(|(_, p)| {
            p.fingerprint == fp.fingerprint
                && p.sha256.is_some()
                && p.unit.as_deref() == Some(of.unit.as_str())
                && p.run_dir == of.run_dir
        }) {
            let run_id = (p.run_id != fields.run_id).then(|| fields.run_id.clone());
            if !opts.rehash
                && p.size == st.size
                && p.mtime_ns == st.mtime_ns
                && st.mtime_ns < p.hashed_ns - RACY_NS
            {
                return ArtifactWork::Unchanged {
                    stat: st,
                    hashed_ns: None,
                    run_id,
                };
            }
            let hashed_at = now_ns();
            if drive::sha256_file(file).ok() == p.sha256 {
                return ArtifactWork::Unchanged {
                    stat: st,
                    hashed_ns: Some(hashed_at),
                    run_id,
                };
            }
        }
        let scanned_ns = now_ns();
        let t = Instant::now();
        let scan = scan_artifact(self.rules, a, &opts.limits, self.scan_opts);
        // A file of a folder artifact is judged with the folder's other files,
        // from the store, once they are all written (`judge_dirty_runs`).
        let (scan, verdicts) = if of.unit == a.path {
            judge_one(&self.artifact_checks, &a.path, scan, &self.checks.params)
        } else {
            (scan, Vec::new())
        };
        let rows = Prepared::rows(&a.path, &scan, &verdicts);
        ArtifactWork::Scanned(Box::new(Prepared {
            path: a.path.clone(),
            artifact: a.path.rsplit('/').next().unwrap_or(&a.path).to_string(),
            run_dir: of.run_dir.clone(),
            unit: of.unit.clone(),
            fields,
            size: st.map(|(st, _)| st.size),
            mtime_ns: st.map(|(st, _)| st.mtime_ns),
            sha256: scan.sha256.clone(),
            scanned_ns,
            scan_ms: t.elapsed().as_millis() as i64,
            notes_json: serde_json::to_string(&scan.coverage.notes).expect("json"),
            coverage: scan.coverage,
            rows,
        }))
    }
}

/// Works out each artifact on `threads` workers and hands its outcome to
/// `sink` on the calling thread, in input order; then counts it and prints
/// its errors. The first error (the sink's, or stderr's) stops the audit:
/// the workers do nothing more, and the sink is abandoned.
fn take_all(
    artifacts: &[Artifact],
    work: &Work<'_>,
    sink: &mut dyn AuditSink,
    summary: &mut Summary,
    threads: usize,
    progress: &dyn drive::Progress,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut failed = None;
    drive::run(
        artifacts,
        threads,
        progress,
        |_, a| work.artifact(a),
        |_, a, outcome| {
            let taken = sink.artifact(&a.path, &outcome).and_then(|()| {
                summary.take(&outcome);
                Ok(report(&a.path, &outcome, progress, err)?)
            });
            match taken {
                Ok(()) => std::ops::ControlFlow::Continue(()),
                Err(e) => {
                    work.abort.store(true, Ordering::Relaxed);
                    failed = Some(e);
                    std::ops::ControlFlow::Break(())
                }
            }
        },
    );
    match failed {
        Some(e) => {
            sink.abandon();
            Err(e)
        }
        None => sink.finish(),
    }
}

/// Prints an artifact's errors, the progress bar out of the way: why it
/// could not be opened, or the coverage errors of its scan.
fn report(
    path: &str,
    outcome: &ArtifactWork,
    progress: &dyn drive::Progress,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let mut r = Ok(());
    match outcome {
        ArtifactWork::Failed(why) => {
            progress.suspend(&mut || r = drive::report_input_error(err, path, why));
        }
        ArtifactWork::Scanned(p) if !p.coverage.complete() => {
            progress
                .suspend(&mut || r = drive::report_coverage_errors(err, path, &p.coverage.errors));
        }
        _ => {}
    }
    r
}

/// Artifact-scope verdicts of one scan.
fn judge_one(
    checks: &[Check],
    path: &str,
    scan: ArtifactScan,
    params: &CheckParams,
) -> (ArtifactScan, Vec<check::Verdict>) {
    if checks.is_empty() {
        return (scan, Vec::new());
    }
    let mut scans = vec![(path.to_string(), scan)];
    let verdicts = judge(checks, &scans, params);
    (scans.pop().expect("scan").1, verdicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Quiet;

    impl drive::Progress for Quiet {
        fn start(&self, _: u64, _: usize) {}
        fn advance(&self, _: u64, _: usize, _: usize) {}
        fn suspend(&self, print: &mut dyn FnMut()) {
            print()
        }
        fn finish(&self) {}
    }

    /// A sink that keeps what it is handed, and fails at `fail_at`.
    #[derive(Default)]
    struct Recorder {
        handed: Vec<(String, &'static str)>,
        fail_at: Option<usize>,
        end: Option<&'static str>,
    }

    impl AuditSink for Recorder {
        fn artifact(&mut self, path: &str, outcome: &ArtifactWork) -> anyhow::Result<()> {
            if self.fail_at == Some(self.handed.len()) {
                anyhow::bail!("disk full");
            }
            let kind = match outcome {
                ArtifactWork::Unchanged { .. } => "unchanged",
                ArtifactWork::Scanned(_) => "scanned",
                ArtifactWork::Failed(_) => "failed",
                ArtifactWork::Aborted => "aborted",
            };
            self.handed.push((path.to_string(), kind));
            Ok(())
        }
        fn finish(&mut self) -> anyhow::Result<()> {
            self.end = Some("finished");
            Ok(())
        }
        fn abandon(&mut self) {
            self.end = Some("abandoned");
        }
    }

    /// Plan, work and tallies run with another sink than the store's, and
    /// with no store at all: the sink is handed each artifact in input
    /// order, and its first error stops the audit.
    #[test]
    fn another_sink_is_handed_every_artifact() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("runs/1");
        std::fs::create_dir_all(&run).unwrap();
        for f in ["a.log", "b.log", "c.log"] {
            std::fs::write(run.join(f), "hello\n").unwrap();
        }
        let opts = AuditOptions {
            db: dir.path().join("audit.db"),
            paths: vec![dir.path().join("runs").display().to_string()],
            listed: Vec::new(),
            shard: None,
            run_id: None,
            rehash: false,
            layout: crate::check::scope::Layout::Files,
            threads: 1,
            limits: ReadLimits::default(),
        };
        let rules = crate::pack::load_rules(
            &[],
            &crate::pack::compile::Selection::default(),
            crate::pack::Builtin::Included,
        )
        .unwrap();
        let checks = CheckSet::default();
        let fp = fingerprint(&rules, &checks, false, &opts.limits);
        let audit = |sink: &mut Recorder| {
            let mut summary = Summary::default();
            let mut err = Vec::new();
            let plan = plan(&opts, &mut summary, &mut err).unwrap();
            let work = Work {
                rules: &rules,
                checks: &checks,
                artifact_checks: Vec::new(),
                scan_opts: ScanOptions::default(),
                opts: &opts,
                prior: HashMap::new(),
                fp: &fp,
                units: plan.units,
                stats: plan.stats,
                abort: AtomicBool::new(false),
            };
            let r = take_all(
                &plan.artifacts,
                &work,
                sink,
                &mut summary,
                1,
                &Quiet,
                &mut err,
            );
            (r, summary)
        };

        let mut sink = Recorder::default();
        let (r, summary) = audit(&mut sink);
        r.unwrap();
        let kinds: Vec<&str> = sink.handed.iter().map(|(_, k)| *k).collect();
        assert_eq!(kinds, ["scanned"; 3]);
        assert!(
            sink.handed[0].0.ends_with("runs/1/a.log"),
            "{:?}",
            sink.handed
        );
        assert_eq!(sink.end, Some("finished"));
        assert_eq!(
            (
                summary.artifacts,
                summary.scanned.artifacts,
                summary.file_bytes
            ),
            (3, 3, 18)
        );
        assert_eq!(summary.scanned.bytes, 18);

        let mut sink = Recorder {
            fail_at: Some(1),
            ..Recorder::default()
        };
        let (r, summary) = audit(&mut sink);
        assert_eq!(r.unwrap_err().to_string(), "disk full");
        assert_eq!(sink.handed.len(), 1);
        assert_eq!(sink.end, Some("abandoned"));
        // Counted as handed: the one the sink refused is not.
        assert_eq!(summary.scanned.artifacts, 1);
    }

    #[test]
    fn paths_normalized() {
        assert_eq!(normalize("./runs//1/./a.zip"), "runs/1/a.zip");
        assert_eq!(normalize("runs/1/a.zip"), "runs/1/a.zip");
        assert_eq!(normalize("/data//runs/a.zip"), "/data/runs/a.zip");
        assert_eq!(normalize("./"), ".");
    }

    #[test]
    fn keys_keep_invalid_utf8_paths_apart() {
        let k = |b: &[u8]| escape_path_bytes(b);
        assert_eq!(k(b"runs/1/a.zip"), "runs/1/a.zip");
        let (ff, fe) = (k(b"runs/a\xff.zip"), k(b"runs/a\xfe.zip"));
        assert_ne!(ff, fe);
        assert_eq!(ff, "runs/a\u{FFFD}xFF.zip");
        // Neither collides with a valid name spelled like the escape, nor
        // with the lossy conversion.
        assert_ne!(k("runs/a\u{FFFD}xFF.zip".as_bytes()), ff);
        assert_ne!(k("runs/a\u{FFFD}.zip".as_bytes()), k(b"runs/a\xff.zip"));
        assert_ne!(k(b"\xff\xfe"), k(b"\xfe\xff"));
    }
}
