//! The SQLite store: opening and migrating it, writing one artifact's results
//! (all of them, replacing the old ones, in the caller's transaction), and
//! reading results back as the scan's records.

use super::names::NameFields;
use crate::Location;
use crate::check::VerdictRecord;
use crate::output::{AggregateRecord, CoverageRecord, EvidenceRecord, Stats};
use crate::scan::{ArtifactScan, Record};
use crate::source::{Coverage, ErrorKind, MemberError, Note};
use rusqlite::ffi::{self, ErrorCode};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `PRAGMA user_version` of a store this build writes: the SQLite layout,
/// versioned apart from the JSON records ([`crate::output::SCHEMA_VERSION`]).
pub const STORE_SCHEMA_VERSION: i64 = 2;

/// The documented schema (`src/audit/schema.sql`).
pub const SCHEMA: &str = include_str!("schema.sql");

/// `MIGRATIONS[i]` upgrades a store from version `i + 1` to `i + 2`.
const MIGRATIONS: &[&str] = &[
    // 2: evidence text may be an excerpt of a long line.
    "ALTER TABLE evidence ADD COLUMN text_start INTEGER;",
];

/// Opens (and with `create`, creates) a store for writing, in WAL mode,
/// migrated to [`STORE_SCHEMA_VERSION`]. Errors say what is wrong in words
/// ([`explain`]): a read-only file or folder, a full disk, not a store.
pub fn open(path: &Path, create: bool) -> anyhow::Result<Connection> {
    if !create && !path.exists() {
        anyhow::bail!("{}: no such audit database", path.display());
    }
    check_writable(path)?;
    open_rw(path).map_err(|e| explain(e, path))
}

/// Opens a store to read it (`audit report`, `audit export`): as [`open`]
/// when it can be written, else read-only, so a store on a read-only file,
/// folder or file system can still be reported on. A read-only open creates
/// no file and changes nothing; it cannot migrate an older store.
pub fn open_for_reading(path: &Path) -> anyhow::Result<Connection> {
    if !path.exists() {
        anyhow::bail!("{}: no such audit database", path.display());
    }
    if check_writable(path).is_ok() {
        match open_rw(path) {
            // A read-only folder: SQLite cannot create the -wal/-shm files.
            Err(e)
                if matches!(
                    sqlite_code(&e),
                    Some((ErrorCode::ReadOnly | ErrorCode::CannotOpen, _, _))
                ) => {}
            r => return r.map_err(|e| explain(e, path)),
        }
    }
    open_read_only(path).map_err(|e| explain(e, path))
}

/// The store's `-wal` or `-shm` file.
pub fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Fails when the store, or its -wal/-shm files, exist but cannot be opened
/// for writing (permissions, a read-only file system). Checked before SQLite
/// opens them: SQLite would fall back to a read-only connection and leave
/// read-only -wal/-shm files behind that keep failing later writes even once
/// the store is writable again.
fn check_writable(path: &Path) -> anyhow::Result<()> {
    for p in [
        path.to_path_buf(),
        sidecar(path, "-wal"),
        sidecar(path, "-shm"),
    ] {
        if !p.is_file() {
            continue;
        }
        // Opening for writing (no truncation) changes neither bytes nor times.
        if let Err(e) = std::fs::OpenOptions::new().read(true).write(true).open(&p) {
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) {
                let what = if p == path {
                    "read-only".to_string()
                } else {
                    format!("{} is read-only", p.display())
                };
                anyhow::bail!("cannot write audit store {}: {what} ({e})", path.display());
            }
        }
    }
    Ok(())
}

fn open_rw(path: &Path) -> anyhow::Result<Connection> {
    let conn = Connection::open(path)?;
    set_up(&conn, path)?;
    Ok(conn)
}

/// WAL mode, the pragmas and the migration of a store just opened.
fn set_up(conn: &Connection, path: &Path) -> anyhow::Result<()> {
    conn.busy_timeout(Duration::from_secs(60))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        anyhow::bail!(
            "{}: cannot switch to WAL mode (journal_mode {mode})",
            path.display()
        );
    }
    // With WAL, NORMAL loses nothing a committed transaction wrote when the
    // process dies (kill -9); only a power cut can undo the last commits.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // A larger page cache and fewer, larger checkpoints: index pages are
    // copied from the WAL once per checkpoint, not once per few commits.
    conn.pragma_update(None, "cache_size", -65536)?;
    conn.pragma_update(None, "wal_autocheckpoint", 8192)?;
    // SQLite's errors get the path from `explain`; migrate's own need it here.
    migrate(conn).map_err(|e| match sqlite_code(&e) {
        Some(_) => e,
        None => e.context(path.display().to_string()),
    })
}

/// A read-only connection. Without a -wal file every committed transaction
/// is in the database file itself, and it is opened `immutable` (SQLite then
/// needs no -shm file, which a read-only folder could not hold); with one
/// (an audit running, or killed), SQLite reads the WAL as usual.
fn open_read_only(path: &Path) -> anyhow::Result<Connection> {
    let conn = Connection::open_with_flags(
        read_only_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(60))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == 0 {
        anyhow::bail!(
            "{}: not an artiscan audit store (no schema version)",
            path.display()
        );
    }
    if version != STORE_SCHEMA_VERSION {
        anyhow::bail!(
            "{}: store schema version {version}, this artiscan reads {STORE_SCHEMA_VERSION}; \
             a read-only store cannot be migrated (make it writable, or use a matching artiscan)",
            path.display()
        );
    }
    Ok(conn)
}

/// The `file:` URI that opens (or attaches) the store at `path` read-only,
/// as [`open_for_reading`] does when it cannot be written.
pub fn read_only_uri(path: &Path) -> String {
    if sidecar(path, "-wal").exists() {
        format!("file:{}?mode=ro", uri_path(path))
    } else {
        format!("file:{}?immutable=1", uri_path(path))
    }
}

/// A path as the path of a `file:` URI: every byte but unreserved ones and
/// `/` percent-encoded.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// SQLite's primary and extended result codes and message, from the first
/// SQLite error in `e`'s chain.
pub fn sqlite_code(e: &anyhow::Error) -> Option<(ErrorCode, i32, String)> {
    e.chain()
        .find_map(|c| match c.downcast_ref::<rusqlite::Error>()? {
            rusqlite::Error::SqliteFailure(f, msg) => Some((
                f.code,
                f.extended_code,
                msg.clone().unwrap_or_else(|| f.to_string()),
            )),
            _ => None,
        })
}

/// What went wrong with the store at `path`, in words, from SQLite's result
/// code: a full disk (or a file over the size limit), a failed write, a
/// read-only file or folder, a file that cannot be created or is not a
/// database. Other SQLite errors get the path as context; errors that are
/// not SQLite's are returned as they are.
pub fn explain(e: anyhow::Error, path: &Path) -> anyhow::Error {
    let Some((code, ext, msg)) = sqlite_code(&e) else {
        return e;
    };
    let p = path.display();
    let sqlite = format!("SQLite: {msg}, code {ext}");
    let write_codes = [
        ffi::SQLITE_IOERR_WRITE,
        ffi::SQLITE_IOERR_FSYNC,
        ffi::SQLITE_IOERR_DIR_FSYNC,
        ffi::SQLITE_IOERR_TRUNCATE,
        ffi::SQLITE_IOERR_SHMSIZE,
        ffi::SQLITE_IOERR_SHMMAP,
    ];
    match code {
        ErrorCode::DiskFull => anyhow::anyhow!(
            "cannot write audit store {p}: disk full, or the file size limit reached ({sqlite})"
        ),
        ErrorCode::SystemIoFailure if write_codes.contains(&ext) => anyhow::anyhow!(
            "cannot write audit store {p}: the write failed: disk full, the file size limit reached, or an I/O error ({sqlite})"
        ),
        ErrorCode::SystemIoFailure => {
            anyhow::anyhow!("cannot use audit store {p}: I/O error ({sqlite})")
        }
        ErrorCode::ReadOnly if ext == ffi::SQLITE_READONLY_DIRECTORY => anyhow::anyhow!(
            "cannot write audit store {p}: its folder is read-only (SQLite creates {p}-wal and {p}-shm beside it; {sqlite})"
        ),
        ErrorCode::ReadOnly => anyhow::anyhow!(
            "cannot write audit store {p}: read-only (permission denied on it or its -wal/-shm files, or a read-only file system; {sqlite})"
        ),
        ErrorCode::CannotOpen => anyhow::anyhow!(
            "cannot open audit store {p}: {msg} (a missing folder, or no permission to create it or its -wal/-shm files beside it)"
        ),
        ErrorCode::PermissionDenied => {
            anyhow::anyhow!("cannot open audit store {p}: permission denied ({sqlite})")
        }
        ErrorCode::NotADatabase => anyhow::anyhow!("{p}: not an SQLite database ({sqlite})"),
        ErrorCode::DatabaseCorrupt => {
            anyhow::anyhow!("audit store {p} is damaged ({sqlite})")
        }
        _ => e.context(format!("audit store {p}")),
    }
}

fn migrate(conn: &Connection) -> anyhow::Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > STORE_SCHEMA_VERSION {
        anyhow::bail!(
            "store schema version {version} is newer than this artiscan's ({STORE_SCHEMA_VERSION}); upgrade artiscan"
        );
    }
    if version == 0 {
        let tables: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        if tables > 0 {
            anyhow::bail!("not an artiscan audit database (it has tables but no schema version)");
        }
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;\n{SCHEMA}\nPRAGMA user_version = {STORE_SCHEMA_VERSION};\n\
             INSERT INTO meta VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));\nCOMMIT;"
        ))?;
        return Ok(());
    }
    for v in version..STORE_SCHEMA_VERSION {
        let step = MIGRATIONS[(v - 1) as usize];
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version = {};\nCOMMIT;",
            v + 1
        ))?;
    }
    Ok(())
}

/// What the store knows of an artifact from an earlier audit.
#[derive(Debug, Clone)]
pub struct Prior {
    pub size: i64,
    pub mtime_ns: i64,
    pub sha256: Option<String>,
    pub fingerprint: String,
    pub hashed_ns: i64,
    pub run_id: Option<String>,
}

pub fn load_prior(conn: &Connection) -> anyhow::Result<HashMap<String, Prior>> {
    let mut stmt = conn.prepare(
        "SELECT path, size, mtime_ns, sha256, fingerprint, hashed_ns, run_id FROM artifacts",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>("path")?,
            Prior {
                size: r.get::<_, Option<i64>>("size")?.unwrap_or(-1),
                mtime_ns: r.get::<_, Option<i64>>("mtime_ns")?.unwrap_or(-1),
                sha256: r.get("sha256")?,
                fingerprint: r.get("fingerprint")?,
                hashed_ns: r.get("hashed_ns")?,
                run_id: r.get("run_id")?,
            },
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn meta(conn: &Connection, key: &str) -> anyhow::Result<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?)
}

pub fn set_meta(conn: &Connection, key: &str, value: &str) -> anyhow::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        [key, value],
    )?;
    Ok(())
}

/// The provenance of a fingerprint (one `fingerprints` row).
#[derive(Debug, Clone)]
pub struct FingerprintRow {
    pub fingerprint: String,
    pub tool_version: String,
    pub pack_fingerprint: String,
    pub packs: String,
    pub checks: String,
    pub params: String,
    pub every_match: bool,
    pub limits: String,
}

pub fn put_fingerprint(conn: &Connection, f: &FingerprintRow) -> anyhow::Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO fingerprints VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        params![f.fingerprint, f.tool_version, f.pack_fingerprint, f.packs, f.checks, f.params, f.every_match, f.limits],
    )?;
    Ok(())
}

pub fn get_fingerprint(conn: &Connection, fp: &str) -> anyhow::Result<Option<FingerprintRow>> {
    Ok(conn
        .query_row(
            "SELECT fingerprint, tool_version, pack_fingerprint, packs, checks, params, every_match, limits \
             FROM fingerprints WHERE fingerprint = ?1",
            [fp],
            |r| {
                Ok(FingerprintRow {
                    fingerprint: r.get("fingerprint")?,
                    tool_version: r.get("tool_version")?,
                    pack_fingerprint: r.get("pack_fingerprint")?,
                    packs: r.get("packs")?,
                    checks: r.get("checks")?,
                    params: r.get("params")?,
                    every_match: r.get("every_match")?,
                    limits: r.get("limits")?,
                })
            },
        )
        .optional()?)
}

/// One artifact's results, ready to write (built on a worker thread so the
/// single writer only binds values).
#[derive(Debug)]
pub struct Prepared {
    pub path: String,
    pub artifact: String,
    pub run_dir: String,
    pub fields: NameFields,
    pub size: i64,
    pub mtime_ns: i64,
    pub sha256: Option<String>,
    pub scanned_ns: i64,
    pub scan_ms: i64,
    pub members: i64,
    pub bytes: i64,
    pub errors: Vec<MemberError>,
    pub notes_json: String,
    pub evidence: Vec<EvidenceRow>,
    pub aggregates: Vec<AggregateRow>,
    pub verdicts: Vec<VerdictRow>,
}

#[derive(Debug)]
pub struct EvidenceRow {
    pub seq: i64,
    pub rule: String,
    pub pack: Option<String>,
    pub citation: String,
    pub members: String,
    pub line: i64,
    pub byte_offset: i64,
    pub col: Option<i64>,
    pub text: String,
    pub text_start: Option<i64>,
    pub lossy: bool,
    pub truncated: bool,
    pub captures: Option<String>,
    pub rank: Option<String>,
    pub id: Option<String>,
}

#[derive(Debug)]
pub struct AggregateRow {
    pub seq: i64,
    pub rule: String,
    pub pack: String,
    pub members: String,
    pub group: String,
    pub count: i64,
    pub stats: String,
    pub stats_exact: Vec<(String, Stats)>,
    pub first: String,
    pub last: String,
}

#[derive(Debug)]
pub struct VerdictRow {
    pub check: String,
    pub run_scope: bool,
    pub scope_name: String,
    pub rule: String,
    pub status: String,
    pub reason: String,
    pub evidence: String,
    pub first_citation: Option<String>,
    pub missing: String,
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialize")
}

impl VerdictRow {
    pub fn new(v: &VerdictRecord, run_scope: bool) -> Self {
        VerdictRow {
            check: v.check.clone(),
            run_scope,
            scope_name: v.scope.clone(),
            rule: v.rule.clone(),
            status: v.status.as_str().to_string(),
            reason: v.reason.clone(),
            evidence: json(&v.evidence),
            first_citation: v.evidence.first().map(|c| c.citation.clone()),
            missing: json(&v.missing),
        }
    }
}

impl Prepared {
    /// Rows of a scan: records in scan order (evidence and aggregates share
    /// one sequence) and the artifact-scope verdicts.
    pub fn rows(
        scan: &ArtifactScan,
        verdicts: &[VerdictRecord],
    ) -> (Vec<EvidenceRow>, Vec<AggregateRow>, Vec<VerdictRow>) {
        let mut ev = Vec::new();
        let mut ag = Vec::new();
        for (seq, r) in scan.records.iter().enumerate() {
            let seq = seq as i64;
            match r {
                Record::Evidence(e) => ev.push(EvidenceRow {
                    seq,
                    rule: e.rule.clone(),
                    pack: e.pack.clone(),
                    citation: e.citation.to_string(),
                    members: json(&e.location.members),
                    line: e.location.line as i64,
                    byte_offset: e.location.byte_offset as i64,
                    col: e.location.column.map(|c| c as i64),
                    text: e.text.to_string(),
                    text_start: e.text_start.map(|s| s as i64),
                    lossy: e.lossy,
                    truncated: e.truncated,
                    captures: e.captures.as_ref().map(json),
                    rank: e.rank.as_ref().map(json),
                    id: e.id.clone(),
                }),
                Record::Aggregate(a) => ag.push(AggregateRow {
                    seq,
                    rule: a.rule.clone(),
                    pack: a.pack.clone(),
                    members: json(&a.members),
                    group: json(&a.group),
                    count: a.count as i64,
                    stats: json(&a.stats),
                    stats_exact: a.stats.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    first: a.first.clone(),
                    last: a.last.clone(),
                }),
            }
        }
        let vs = verdicts.iter().map(|v| VerdictRow::new(v, false)).collect();
        (ev, ag, vs)
    }
}

/// Fingerprint facts written with every artifact.
pub struct Stamp<'a> {
    pub tool_version: &'a str,
    pub pack_fingerprint: &'a str,
    pub fingerprint: &'a str,
}

pub const TABLES_BY_PATH: &[&str] = &[
    "evidence",
    "aggregates",
    "aggregate_stats",
    "coverage_errors",
    "coverage",
    "verdicts",
    "artifacts",
];

/// Replaces everything stored for `p.path` with `p`, and marks its run for
/// re-judging. Call inside a transaction.
pub fn write_artifact(conn: &Connection, p: &Prepared, stamp: &Stamp<'_>) -> anyhow::Result<()> {
    for t in TABLES_BY_PATH {
        conn.prepare_cached(&format!("DELETE FROM {t} WHERE path = ?1"))?
            .execute([&p.path])?;
    }
    let f = &p.fields;
    let complete = p.errors.is_empty();
    conn.prepare_cached(
        "INSERT INTO artifacts (path, artifact, run_dir, run_id, kind, eval_task, exp, precision, framework, \
         tp, pp, dcp, pcp, ep, dpa, disagg, spec, conc, runner, backup_n, artifact_id, size, mtime_ns, sha256, \
         scanned_at, scanned_ns, hashed_ns, scan_ms, tool_version, pack_fingerprint, fingerprint, complete, \
         evidence_count, aggregate_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, \
         ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, strftime('%Y-%m-%dT%H:%M:%fZ', ?25 / 1e9, 'unixepoch'), \
         ?25, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32)",
    )?
    .execute(params![
        p.path,
        p.artifact,
        p.run_dir,
        f.run_id,
        f.kind,
        f.eval_task,
        f.exp,
        f.precision,
        f.framework,
        f.tp,
        f.pp,
        f.dcp,
        f.pcp,
        f.ep,
        f.dpa,
        f.disagg,
        f.spec,
        f.conc,
        f.runner,
        f.backup_n,
        f.artifact_id,
        p.size,
        p.mtime_ns,
        p.sha256,
        p.scanned_ns,
        p.scan_ms,
        stamp.tool_version,
        stamp.pack_fingerprint,
        stamp.fingerprint,
        complete,
        p.evidence.len() as i64,
        p.aggregates.len() as i64,
    ])?;
    conn.prepare_cached("INSERT INTO coverage VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?
        .execute(params![
            p.path,
            p.sha256,
            complete,
            p.members,
            p.bytes,
            p.errors.len() as i64,
            p.notes_json
        ])?;
    let mut stmt =
        conn.prepare_cached("INSERT INTO coverage_errors VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    for (i, e) in p.errors.iter().enumerate() {
        stmt.execute(params![
            p.path,
            i as i64,
            Location::member_citation(&p.path, &e.members),
            json(&e.members),
            e.kind.as_str(),
            e.message
        ])?;
    }
    let mut stmt = conn.prepare_cached(
        "INSERT INTO evidence VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )?;
    for e in &p.evidence {
        stmt.execute(params![
            p.path,
            e.seq,
            f.run_id,
            p.artifact,
            e.rule,
            e.pack,
            e.citation,
            e.members,
            e.line,
            e.byte_offset,
            e.col,
            e.text,
            e.lossy,
            e.truncated,
            e.captures,
            e.rank,
            e.id,
            e.text_start
        ])?;
    }
    let mut stmt = conn.prepare_cached(
        "INSERT INTO aggregates VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    for a in &p.aggregates {
        stmt.execute(params![
            p.path, a.seq, f.run_id, p.artifact, a.rule, a.pack, a.members, a.group, a.count,
            a.stats, a.first, a.last
        ])?;
    }
    let mut stmt =
        conn.prepare_cached("INSERT INTO aggregate_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    for a in &p.aggregates {
        for (capture, s) in &a.stats_exact {
            stmt.execute(params![p.path, a.seq, capture, s.min, s.max, s.mean])?;
        }
    }
    for v in &p.verdicts {
        insert_verdict(
            conn,
            v,
            Some((&p.path, &p.artifact)),
            &p.run_dir,
            f.run_id.as_deref(),
        )?;
    }
    conn.prepare_cached("INSERT OR IGNORE INTO dirty_runs VALUES (?1)")?
        .execute([&p.run_dir])?;
    Ok(())
}

pub fn insert_verdict(
    conn: &Connection,
    v: &VerdictRow,
    artifact: Option<(&str, &str)>,
    run_dir: &str,
    run_id: Option<&str>,
) -> anyhow::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO verdicts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        v.check,
        if v.run_scope { "run" } else { "artifact" },
        v.scope_name,
        artifact.map(|a| a.0),
        artifact.map(|a| a.1),
        run_dir,
        run_id,
        v.rule,
        v.status,
        v.reason,
        v.evidence,
        v.first_citation,
        v.missing
    ])?;
    Ok(())
}

/// An unchanged artifact: remember that its hash was verified now (and a new
/// run id, if `--run-id` changed it).
pub fn touch(
    conn: &Connection,
    path: &str,
    size: i64,
    mtime_ns: i64,
    hashed_ns: Option<i64>,
    run_id: Option<Option<&str>>,
) -> anyhow::Result<()> {
    if let Some(h) = hashed_ns {
        conn.prepare_cached(
            "UPDATE artifacts SET size = ?2, mtime_ns = ?3, hashed_ns = ?4 WHERE path = ?1",
        )?
        .execute(params![path, size, mtime_ns, h])?;
    }
    if let Some(run_id) = run_id {
        for t in ["artifacts", "evidence", "aggregates", "verdicts"] {
            conn.prepare_cached(&format!("UPDATE {t} SET run_id = ?2 WHERE path = ?1"))?
                .execute(params![path, run_id])?;
        }
        let run_dir: String = conn.query_row(
            "SELECT run_dir FROM artifacts WHERE path = ?1",
            [path],
            |r| r.get(0),
        )?;
        conn.prepare_cached("INSERT OR IGNORE INTO dirty_runs VALUES (?1)")?
            .execute([&run_dir])?;
    }
    Ok(())
}

/// A stored row that does not read back as the record it was written
/// from: an enum name this build does not know, JSON that is not the
/// record's shape. Never mapped to a default, so that a damaged or foreign
/// store cannot turn, say, an `io` error into a note.
#[derive(Debug, thiserror::Error)]
#[error("audit store: table {table}, {row}: column {column}: {why}")]
pub struct RowError {
    pub table: &'static str,
    /// The row's key, e.g. `path samples/a.zip seq 3`.
    pub row: String,
    pub column: &'static str,
    pub why: String,
}

/// Which row is being read, for [`RowError`].
struct RowKey<'a> {
    table: &'static str,
    path: &'a str,
    seq: Option<i64>,
}

impl RowKey<'_> {
    fn err(&self, column: &'static str, why: impl std::fmt::Display) -> RowError {
        let row = match self.seq {
            Some(seq) => format!("path {} seq {seq}", crate::location::escape(self.path)),
            None => format!("path {}", crate::location::escape(self.path)),
        };
        RowError {
            table: self.table,
            row,
            column,
            why: why.to_string(),
        }
    }

    /// A text column holding an enum's serde name (`io`, `long_line`, `pass`).
    fn name<T: serde::de::DeserializeOwned>(
        &self,
        r: &Row<'_>,
        column: &'static str,
    ) -> anyhow::Result<T> {
        use serde::de::IntoDeserializer;
        let s: String = r.get(column)?;
        T::deserialize(s.as_str().into_deserializer())
            .map_err(|e: serde::de::value::Error| self.err(column, e).into())
    }

    /// A text column holding JSON (NULL when `T` is an `Option`).
    fn json<T: serde::de::DeserializeOwned>(
        &self,
        r: &Row<'_>,
        column: &'static str,
    ) -> anyhow::Result<T> {
        let s: Option<String> = r.get(column)?;
        serde_json::from_str(s.as_deref().unwrap_or("null")).map_err(|e| self.err(column, e).into())
    }

    /// A non-negative integer column (counts, lines, offsets).
    fn count(&self, r: &Row<'_>, column: &'static str) -> anyhow::Result<u64> {
        let n: i64 = r.get(column)?;
        u64::try_from(n).map_err(|_| self.err(column, format!("negative: {n}")).into())
    }
}

/// An evidence record as the scan printed it, from `SELECT EVIDENCE_COLS`
/// (read by column name, so a query may add columns).
pub const EVIDENCE_COLS: &str = "seq, rule, pack, citation, members, line, byte_offset, col, text, text_start, lossy, truncated, captures, rank, id";

pub fn evidence_from_row(path: &str, r: &Row<'_>) -> anyhow::Result<EvidenceRecord> {
    let key = RowKey {
        table: "evidence",
        path,
        seq: Some(r.get("seq")?),
    };
    let members: Vec<String> = key.json(r, "members")?;
    Ok(EvidenceRecord {
        kind: EvidenceRecord::KIND,
        rule: r.get("rule")?,
        pack: r.get("pack")?,
        citation: r.get::<_, String>("citation")?.into(),
        location: Location {
            path: path.into(),
            members: members.into(),
            line: key.count(r, "line")?,
            byte_offset: key.count(r, "byte_offset")?,
            column: match r.get::<_, Option<i64>>("col")? {
                Some(_) => Some(key.count(r, "col")?),
                None => None,
            },
        },
        text: r.get::<_, String>("text")?.into(),
        text_start: match r.get::<_, Option<i64>>("text_start")? {
            Some(_) => Some(key.count(r, "text_start")?),
            None => None,
        },
        lossy: r.get("lossy")?,
        truncated: r.get("truncated")?,
        captures: key.json::<Option<Map<String, Value>>>(r, "captures")?,
        rank: key.json::<Option<BTreeMap<String, u32>>>(r, "rank")?,
        id: r.get("id")?,
    })
}

pub const AGGREGATE_COLS: &str = "seq, rule, pack, members, group_key, count, first, last";

/// An aggregate record from `SELECT AGGREGATE_COLS` (stats from `aggregate_stats`).
pub fn aggregate_from_row(
    conn: &Connection,
    path: &str,
    r: &Row<'_>,
) -> anyhow::Result<AggregateRecord> {
    let seq: i64 = r.get("seq")?;
    let key = RowKey {
        table: "aggregates",
        path,
        seq: Some(seq),
    };
    let mut stmt = conn.prepare_cached(
        "SELECT capture, min, max, mean FROM aggregate_stats WHERE path = ?1 AND seq = ?2",
    )?;
    let stats = stmt
        .query_map(params![path, seq], |s| {
            Ok((
                s.get::<_, String>("capture")?,
                Stats {
                    min: s.get("min")?,
                    max: s.get("max")?,
                    mean: s.get("mean")?,
                },
            ))
        })?
        .collect::<Result<BTreeMap<_, _>, _>>()?;
    Ok(AggregateRecord {
        kind: AggregateRecord::KIND,
        rule: r.get("rule")?,
        pack: r.get("pack")?,
        path: path.to_string(),
        members: key.json(r, "members")?,
        group: key.json(r, "group_key")?,
        count: key.count(r, "count")?,
        stats,
        first: r.get("first")?,
        last: r.get("last")?,
    })
}

/// The coverage of an artifact as its scan found it.
pub fn load_coverage(conn: &Connection, path: &str) -> anyhow::Result<(Option<String>, Coverage)> {
    let key = RowKey {
        table: "coverage",
        path,
        seq: None,
    };
    let mut stmt =
        conn.prepare_cached("SELECT sha256, members, bytes, notes FROM coverage WHERE path = ?1")?;
    let mut rows = stmt.query([path])?;
    let Some(r) = rows.next()? else {
        return Err(key.err("path", "no coverage row for this artifact").into());
    };
    let sha256: Option<String> = r.get("sha256")?;
    let mut cov = Coverage {
        members: key.count(r, "members")?,
        bytes: key.count(r, "bytes")?,
        errors: Vec::new(),
        notes: key.json::<Vec<Note>>(r, "notes")?,
    };
    let mut stmt = conn.prepare_cached(
        "SELECT seq, members, kind, message FROM coverage_errors WHERE path = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([path])?;
    while let Some(r) = rows.next()? {
        let key = RowKey {
            table: "coverage_errors",
            path,
            seq: Some(r.get("seq")?),
        };
        cov.errors.push(MemberError {
            members: key.json(r, "members")?,
            kind: key.name::<ErrorKind>(r, "kind")?,
            message: r.get("message")?,
        });
    }
    Ok((sha256, cov))
}

/// The `status` column of a verdicts row, typed ([`RowError`] when unknown).
pub fn verdict_status(r: &Row<'_>, scope_name: &str) -> anyhow::Result<crate::check::Status> {
    RowKey {
        table: "verdicts",
        path: scope_name,
        seq: None,
    }
    .name(r, "status")
}

/// A verdict as judged, from `SELECT VERDICT_COLS FROM verdicts`
/// (`description` comes from the `checks` table).
pub const VERDICT_COLS: &str = "check_id, rule, scope_name, status, reason, evidence, missing";

pub fn verdict_from_row(r: &Row<'_>, description: &str) -> anyhow::Result<VerdictRecord> {
    let check: String = r.get("check_id")?;
    let scope: String = r.get("scope_name")?;
    let key = RowKey {
        table: "verdicts",
        path: &scope,
        seq: None,
    };
    let mut v = VerdictRecord::new(&check, description, &r.get::<_, String>("rule")?, &scope);
    v.status = key.name(r, "status")?;
    v.reason = r.get("reason")?;
    v.evidence = key.json(r, "evidence")?;
    v.missing = key.json(r, "missing")?;
    Ok(v)
}

pub fn coverage_record(conn: &Connection, path: &str) -> anyhow::Result<CoverageRecord> {
    let (sha256, cov) = load_coverage(conn, path)?;
    Ok(CoverageRecord::new(path, sha256, &cov))
}

/// The scan of an artifact rebuilt from the store: evidence in scan order
/// (aggregates left out: checks read evidence) and coverage.
pub fn load_scan(conn: &Connection, path: &str) -> anyhow::Result<ArtifactScan> {
    let (sha256, coverage) = load_coverage(conn, path)?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {EVIDENCE_COLS} FROM evidence WHERE path = ?1 ORDER BY seq"
    ))?;
    let mut rows = stmt.query([path])?;
    let mut records = Vec::new();
    while let Some(r) = rows.next()? {
        records.push(Record::Evidence(evidence_from_row(path, r)?));
    }
    Ok(ArtifactScan {
        records,
        coverage,
        sha256,
        counts: BTreeMap::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Status;
    use crate::source::NoteKind;

    fn store() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c
    }

    /// A store written by the previous layout (no evidence `text_start`)
    /// is migrated when opened, keeping its rows.
    #[test]
    fn a_version_1_store_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        let v1: String = SCHEMA
            .lines()
            .filter(|l| !l.trim_start().starts_with("text_start"))
            .collect::<Vec<_>>()
            .join("\n");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(&format!("{v1}\nPRAGMA user_version = 1;"))
                .unwrap();
            c.execute(
                "INSERT INTO evidence VALUES ('runs/a.zip', 0, NULL, 'a.zip', 'env.var', 'env', \
                 'runs/a.zip!a.log:3', '[\"a.log\"]', 3, 120, 7, 'X=1', 0, 0, NULL, NULL, 'id1')",
                [],
            )
            .unwrap();
        }
        let c = open(&path, false).unwrap();
        let version: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, STORE_SCHEMA_VERSION);
        let mut stmt = c
            .prepare(&format!("SELECT {EVIDENCE_COLS} FROM evidence"))
            .unwrap();
        let mut rows = stmt.query([]).unwrap();
        let e = evidence_from_row("runs/a.zip", rows.next().unwrap().unwrap()).unwrap();
        assert_eq!((&*e.text, e.text_start), ("X=1", None));
    }

    /// A coverage row with one note and one error of the given kinds.
    fn coverage(c: &Connection, note_kind: &str, error_kind: &str) {
        let notes = format!(r#"[{{"members":["a.log"],"kind":"{note_kind}","message":"n"}}]"#);
        c.execute(
            "INSERT INTO coverage VALUES ('runs/a.zip', NULL, 0, 1, 10, 1, ?1)",
            [notes],
        )
        .unwrap();
        c.execute(
            r#"INSERT INTO coverage_errors VALUES ('runs/a.zip', 0, 'runs/a.zip!a.log', '["a.log"]', ?1, 'cut')"#,
            [error_kind],
        )
        .unwrap();
    }

    #[test]
    fn coverage_reads_back_typed() {
        let c = store();
        coverage(&c, "long_name", "skipped");
        let (_, cov) = load_coverage(&c, "runs/a.zip").unwrap();
        assert_eq!(cov.notes[0].kind, NoteKind::LongName);
        assert_eq!(cov.errors[0].kind, ErrorKind::Skipped);
        assert_eq!(cov.errors[0].members, ["a.log"]);
    }

    #[test]
    fn an_unknown_error_kind_is_an_error_naming_the_row() {
        let c = store();
        coverage(&c, "long_line", "exploded");
        let e = load_coverage(&c, "runs/a.zip").unwrap_err().to_string();
        for part in [
            "coverage_errors",
            "runs/a.zip",
            "seq 0",
            "column kind",
            "exploded",
        ] {
            assert!(e.contains(part), "{part} not in {e}");
        }
    }

    #[test]
    fn an_unknown_note_kind_is_an_error_naming_the_row() {
        let c = store();
        coverage(&c, "sideways", "io");
        let e = load_coverage(&c, "runs/a.zip").unwrap_err().to_string();
        for part in ["table coverage,", "runs/a.zip", "column notes", "sideways"] {
            assert!(e.contains(part), "{part} not in {e}");
        }
    }

    fn verdict(c: &Connection, status: &str) -> anyhow::Result<VerdictRecord> {
        c.execute(
            "INSERT INTO verdicts VALUES ('c1', 'artifact', 'runs/a.zip', 'runs/a.zip', 'a.zip', \
             'runs', NULL, 'env.var', ?1, 'why', '[{\"citation\":\"runs/a.zip!a.log:3\"}]', NULL, '{}')",
            [status],
        )
        .unwrap();
        let mut stmt = c
            .prepare(&format!("SELECT {VERDICT_COLS} FROM verdicts"))
            .unwrap();
        let mut rows = stmt.query([]).unwrap();
        verdict_from_row(rows.next().unwrap().unwrap(), "d")
    }

    #[test]
    fn verdicts_read_back_typed_and_reject_an_unknown_status() {
        let v = verdict(&store(), "not_applicable").unwrap();
        assert_eq!(v.status, Status::NotApplicable);
        assert_eq!(v.evidence[0].citation, "runs/a.zip!a.log:3");
        let e = verdict(&store(), "maybe").unwrap_err().to_string();
        for part in ["table verdicts", "runs/a.zip", "column status", "maybe"] {
            assert!(e.contains(part), "{part} not in {e}");
        }
    }

    #[test]
    fn report_status_is_typed() {
        let c = store();
        verdict(&c, "maybe").unwrap_err();
        let mut stmt = c.prepare("SELECT status FROM verdicts").unwrap();
        let mut rows = stmt.query([]).unwrap();
        let e = verdict_status(rows.next().unwrap().unwrap(), "runs/a.zip")
            .unwrap_err()
            .to_string();
        assert!(e.contains("column status") && e.contains("maybe"), "{e}");
        let c = store();
        verdict(&c, "fail").unwrap();
        let mut stmt = c.prepare("SELECT status FROM verdicts").unwrap();
        let mut rows = stmt.query([]).unwrap();
        assert_eq!(
            verdict_status(rows.next().unwrap().unwrap(), "runs/a.zip").unwrap(),
            Status::Fail
        );
    }

    #[test]
    fn evidence_reads_by_column_name_and_rejects_bad_json() {
        let c = store();
        let insert = |rank: &str| {
            c.execute("DELETE FROM evidence", []).unwrap();
            c.execute(
                "INSERT INTO evidence VALUES ('runs/a.zip', 4, NULL, 'a.zip', 'env.var', 'env', \
                 'runs/a.zip!a.log:3', '[\"a.log\"]', 3, 120, 7, 'X=1', 0, 1, '{\"name\":\"X\"}', ?1, 'id1', NULL)",
                [rank],
            )
            .unwrap();
            // Columns in another order than the table's: read by name.
            let mut stmt = c
                .prepare("SELECT id, text_start, rank, captures, truncated, lossy, text, col, byte_offset, line, members, citation, pack, rule, seq FROM evidence")
                .unwrap();
            let mut rows = stmt.query([]).unwrap();
            evidence_from_row("runs/a.zip", rows.next().unwrap().unwrap())
        };
        let e = insert(r#"{"tp":3}"#).unwrap();
        assert_eq!(
            (
                e.location.line,
                e.location.byte_offset,
                e.location.column,
                e.truncated,
                e.lossy
            ),
            (3, 120, Some(7), true, false)
        );
        assert_eq!(e.rank.unwrap()["tp"], 3);
        assert_eq!(e.captures.unwrap()["name"], "X");
        let err = insert(r#"{"tp":-3}"#).unwrap_err().to_string();
        for part in ["table evidence", "seq 4", "column rank"] {
            assert!(err.contains(part), "{part} not in {err}");
        }
    }
}
