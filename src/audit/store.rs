//! The SQLite store: opening and migrating it, writing one artifact's results
//! (all of them, replacing the old ones, in the caller's transaction), and
//! reading results back as the scan's records.

use crate::Location;
use crate::check::{CheckScope, Verdict};
use crate::names::NameFields;
use crate::output::{Aggregate, CoverageRecord, Evidence, Stats};
use crate::scan::{ArtifactScan, Record};
use crate::source::{Coverage, ErrorKind, MemberError, Note};
use rusqlite::ffi::{self, ErrorCode};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// `PRAGMA user_version` of a store this build writes: the SQLite layout,
/// versioned apart from the JSON records ([`crate::output::SCHEMA_VERSION`]).
pub(crate) const STORE_SCHEMA_VERSION: i64 = 4;

/// The documented schema (`src/audit/schema.sql`).
pub(crate) const SCHEMA: &str = include_str!("schema.sql");

/// `MIGRATIONS[i]` upgrades a store from version `i + 1` to `i + 2`.
const MIGRATIONS: &[fn() -> String] = &[
    // 2: evidence text may be an excerpt of a long line.
    || "ALTER TABLE evidence ADD COLUMN text_start INTEGER;".into(),
    // 3: member chains stored once per artifact.
    migration_3,
    // 4: the artifact each file belongs to (a file of its own until it is
    // scanned again; a new version's fingerprint makes every file scanned).
    || "ALTER TABLE artifacts ADD COLUMN unit TEXT;\nUPDATE artifacts SET unit = path;".into(),
];

/// The statement of [`SCHEMA`] that creates `object` (e.g. `TABLE evidence_rows`),
/// comments removed: a migration creates exactly what a new store has, so
/// that `merge` finds a migrated store's schema identical to its own.
fn schema_statement(object: &str) -> String {
    let code: String = SCHEMA
        .lines()
        .map(|l| l.split_once("--").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let start = format!("CREATE {object} ");
    code.split(';')
        .map(str::trim)
        .find(|st| st.starts_with(&start))
        .unwrap_or_else(|| panic!("schema.sql has no CREATE {object}"))
        .to_string()
        + ";\n"
}

/// Layout 2 to 3: evidence, aggregates and coverage errors refer to their
/// member chain by id (`member_chains`) instead of repeating it per row; the
/// old table names become views with the old columns.
fn migration_3() -> String {
    let mut sql = schema_statement("TABLE member_chains");
    // Each distinct (path, members) once; its citation is the member part of
    // a row's citation (the text before `:line`).
    sql += "INSERT INTO member_chains (path, chain, members, citation)
SELECT path, row_number() OVER (PARTITION BY path ORDER BY members) - 1, members, citation FROM (
  SELECT path, members, min(cite) AS citation FROM (
    SELECT path, members, substr(citation, 1, length(citation) - length(CAST(line AS TEXT)) - 1) AS cite FROM evidence
    UNION ALL SELECT path, members, citation FROM coverage_errors
    UNION ALL SELECT path, members, substr(rtrim(first, '0123456789'), 1, length(rtrim(first, '0123456789')) - 1) FROM aggregates
  ) GROUP BY path, members
);\n";
    for t in ["coverage_error_rows", "evidence_rows", "aggregate_rows"] {
        sql += &schema_statement(&format!("TABLE {t}"));
    }
    // Rows find their chain by value: an index for that, dropped after.
    sql += "CREATE INDEX member_chains_by_members ON member_chains(path, members);\n";
    sql += "INSERT INTO coverage_error_rows (path, seq, chain, kind, message)
SELECT e.path, e.seq, c.chain, e.kind, e.message FROM coverage_errors e
JOIN member_chains c ON c.path = e.path AND c.members = e.members;
INSERT INTO evidence_rows (path, seq, run_id, artifact, rule, pack, chain, line, byte_offset, col, text, lossy, truncated, captures, rank, id, text_start)
SELECT e.path, e.seq, e.run_id, e.artifact, e.rule, e.pack, c.chain, e.line, e.byte_offset, e.col, e.text, e.lossy, e.truncated, e.captures, e.rank, e.id, e.text_start FROM evidence e
JOIN member_chains c ON c.path = e.path AND c.members = e.members;
INSERT INTO aggregate_rows (path, seq, run_id, artifact, rule, pack, chain, group_key, count, stats, first_line, last_line)
SELECT a.path, a.seq, a.run_id, a.artifact, a.rule, a.pack, c.chain, a.group_key, a.count, a.stats,
  CAST(substr(a.first, length(rtrim(a.first, '0123456789')) + 1) AS INTEGER),
  CAST(substr(a.last, length(rtrim(a.last, '0123456789')) + 1) AS INTEGER) FROM aggregates a
JOIN member_chains c ON c.path = a.path AND c.members = a.members;
DROP TABLE coverage_errors;
DROP TABLE evidence;
DROP TABLE aggregates;
DROP INDEX member_chains_by_members;\n";
    for o in [
        "VIEW coverage_errors",
        "INDEX evidence_rule",
        "INDEX evidence_env_name",
        "VIEW evidence",
        "INDEX aggregates_rule",
        "VIEW aggregates",
    ] {
        sql += &schema_statement(o);
    }
    sql
}

/// Opens a store for writing, creating it when missing, in WAL mode,
/// migrated to [`STORE_SCHEMA_VERSION`]. Errors say what is wrong in words
/// ([`explain`]): a read-only file or folder, a full disk, not a store.
pub(crate) fn open(path: &Path) -> anyhow::Result<Connection> {
    check_writable(path)?;
    open_rw(path).map_err(|e| explain(e, path))
}

/// Opens a store to read it (`audit report`, `audit export`): as [`open`]
/// when it can be written, else read-only, so a store on a read-only file,
/// folder or file system can still be reported on. A read-only open creates
/// no file and changes nothing; it cannot migrate an older store.
pub(crate) fn open_for_reading(path: &Path) -> anyhow::Result<Connection> {
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
pub(crate) fn sidecar(path: &Path, suffix: &str) -> PathBuf {
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
    // Switching to WAL needs the file to itself; SQLite answers "locked"
    // at once, without the busy timeout, while another audit opens it.
    let mut tries = 0;
    let mode: String = loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == ErrorCode::DatabaseBusy && tries < 600 =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            r => break r?,
        }
    };
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
pub(crate) fn read_only_uri(path: &Path) -> String {
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
pub(crate) fn sqlite_code(e: &anyhow::Error) -> Option<(ErrorCode, i32, String)> {
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
pub(crate) fn explain(e: anyhow::Error, path: &Path) -> anyhow::Error {
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
    if version == STORE_SCHEMA_VERSION {
        return Ok(());
    }
    // The version is read again under the write lock: two audits that
    // start at once on a new store both saw 0, and only one may create it.
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let out = migrate_locked(conn);
    conn.execute_batch(if out.is_ok() { "COMMIT" } else { "ROLLBACK" })?;
    out
}

/// [`migrate`] inside its transaction.
fn migrate_locked(conn: &Connection) -> anyhow::Result<()> {
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
            "{SCHEMA}\nPRAGMA user_version = {STORE_SCHEMA_VERSION};\n\
             INSERT INTO meta VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));"
        ))?;
        return Ok(());
    }
    for v in version..STORE_SCHEMA_VERSION {
        let step = MIGRATIONS[(v - 1) as usize]();
        conn.execute_batch(&format!("{step}\nPRAGMA user_version = {};", v + 1))?;
    }
    Ok(())
}

/// What the store knows of an artifact from an earlier audit.
#[derive(Debug, Clone)]
pub(crate) struct Prior {
    pub size: i64,
    pub mtime_ns: i64,
    pub sha256: Option<String>,
    pub fingerprint: String,
    pub hashed_ns: i64,
    pub run_id: Option<String>,
    /// The artifact the file belonged to, and its run folder.
    pub unit: Option<String>,
    pub run_dir: String,
}

pub(crate) fn load_prior(conn: &Connection) -> anyhow::Result<HashMap<String, Prior>> {
    let mut stmt = conn.prepare(
        "SELECT path, size, mtime_ns, sha256, fingerprint, hashed_ns, run_id, unit, run_dir FROM artifacts",
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
                unit: r.get("unit")?,
                run_dir: r.get("run_dir")?,
            },
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn meta(conn: &Connection, key: &str) -> anyhow::Result<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?)
}

pub(crate) fn set_meta(conn: &Connection, key: &str, value: &str) -> anyhow::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        [key, value],
    )?;
    Ok(())
}

/// The provenance of a fingerprint (one `fingerprints` row).
#[derive(Debug, Clone)]
pub(crate) struct FingerprintRow {
    pub fingerprint: String,
    pub tool_version: String,
    pub pack_fingerprint: String,
    pub packs: String,
    pub checks: String,
    pub params: String,
    pub every_match: bool,
    pub limits: String,
}

pub(crate) fn put_fingerprint(conn: &Connection, f: &FingerprintRow) -> anyhow::Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO fingerprints VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        params![f.fingerprint, f.tool_version, f.pack_fingerprint, f.packs, f.checks, f.params, f.every_match, f.limits],
    )?;
    Ok(())
}

pub(crate) fn get_fingerprint(
    conn: &Connection,
    fp: &str,
) -> anyhow::Result<Option<FingerprintRow>> {
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
pub(crate) struct Prepared {
    pub path: String,
    pub artifact: String,
    pub run_dir: String,
    /// The artifact the file belongs to (`artifacts.unit`).
    pub unit: String,
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
    pub rows: Rows,
}

/// The rows of one artifact's scan ([`Prepared::rows`]).
#[derive(Debug)]
pub(crate) struct Rows {
    /// Each distinct member chain once; the rows below refer to it by id.
    pub chains: Vec<ChainRow>,
    /// The chain of each coverage error, in the order of `errors`.
    pub error_chains: Vec<i64>,
    pub evidence: Vec<EvidenceRow>,
    pub aggregates: Vec<AggregateRow>,
    pub verdicts: Vec<VerdictRow>,
}

/// A `member_chains` row.
#[derive(Debug)]
pub(crate) struct ChainRow {
    pub chain: i64,
    pub members: String,
    pub citation: String,
}

#[derive(Debug)]
pub(crate) struct EvidenceRow {
    pub seq: i64,
    pub rule: String,
    pub pack: Option<String>,
    pub chain: i64,
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
pub(crate) struct AggregateRow {
    pub seq: i64,
    pub rule: String,
    pub pack: String,
    pub chain: i64,
    pub group: String,
    pub count: i64,
    pub stats: String,
    pub stats_exact: Vec<(String, Stats)>,
    pub first_line: i64,
    pub last_line: i64,
}

/// Gives each distinct member chain of an artifact one id and one
/// [`ChainRow`]. Records of one member share their chain (`Arc`), so the
/// pointer finds it without hashing the names; equal chains in other
/// allocations (an aggregate's, an error's) are found by value.
struct Chains<'a> {
    path: &'a str,
    /// Keyed by the `Arc`'s address; the scan keeps every record (so every
    /// address) alive while the rows are built.
    by_ptr: HashMap<usize, i64>,
    by_value: HashMap<Arc<[String]>, i64>,
    rows: Vec<ChainRow>,
}

impl<'a> Chains<'a> {
    fn new(path: &'a str) -> Self {
        Chains {
            path,
            by_ptr: HashMap::new(),
            by_value: HashMap::new(),
            rows: Vec::new(),
        }
    }

    fn shared(&mut self, members: &Arc<[String]>) -> i64 {
        let addr = Arc::as_ptr(members) as *const String as usize;
        if let Some(&id) = self.by_ptr.get(&addr) {
            return id;
        }
        let id = self.by_value.get(&**members).copied().unwrap_or_else(|| {
            let id = self.add(members);
            self.by_value.insert(members.clone(), id);
            id
        });
        self.by_ptr.insert(addr, id);
        id
    }

    fn of(&mut self, members: &[String]) -> i64 {
        if let Some(&id) = self.by_value.get(members) {
            return id;
        }
        let id = self.add(members);
        self.by_value.insert(members.into(), id);
        id
    }

    fn add(&mut self, members: &[String]) -> i64 {
        let id = self.rows.len() as i64;
        self.rows.push(ChainRow {
            chain: id,
            members: json(&members),
            citation: Location::member_citation(self.path, members),
        });
        id
    }
}

/// The line of an aggregate's `first`/`last` citation (built by the scan
/// from the member's citation, so it always parses).
fn cited_line(citation: &str) -> i64 {
    Location::parse(citation).map_or(0, |l| l.line as i64)
}

#[derive(Debug)]
pub(crate) struct VerdictRow {
    pub check: String,
    pub scope: CheckScope,
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
    pub(crate) fn new(v: &Verdict, scope: CheckScope) -> Self {
        VerdictRow {
            check: v.check.clone(),
            scope,
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
    pub(crate) fn rows(path: &str, scan: &ArtifactScan, verdicts: &[Verdict]) -> Rows {
        let mut chains = Chains::new(path);
        let mut ev = Vec::new();
        let mut ag = Vec::new();
        for (seq, r) in scan.records.iter().enumerate() {
            let seq = seq as i64;
            match r {
                Record::Evidence(e) => ev.push(EvidenceRow {
                    seq,
                    rule: e.rule.clone(),
                    pack: e.pack.clone(),
                    chain: chains.shared(&e.location.members),
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
                    chain: chains.of(&a.members),
                    group: json(&a.group),
                    count: a.count as i64,
                    stats: json(&a.stats),
                    stats_exact: a.stats.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    first_line: cited_line(&a.first),
                    last_line: cited_line(&a.last),
                }),
            }
        }
        let error_chains = scan
            .coverage
            .errors
            .iter()
            .map(|e| chains.of(&e.members))
            .collect();
        Rows {
            chains: chains.rows,
            error_chains,
            evidence: ev,
            aggregates: ag,
            verdicts: verdicts
                .iter()
                .map(|v| VerdictRow::new(v, CheckScope::Artifact))
                .collect(),
        }
    }
}

/// Fingerprint facts written with every artifact.
pub(crate) struct Stamp<'a> {
    pub tool_version: &'a str,
    pub pack_fingerprint: &'a str,
    pub fingerprint: &'a str,
}

/// Replaces everything stored for `p.path` with `p`, and marks its run (and
/// the one it was in before) for re-judging. Call inside a transaction.
pub(crate) fn write_artifact(
    conn: &Connection,
    p: &Prepared,
    stamp: &Stamp<'_>,
) -> anyhow::Result<()> {
    // The run the file was in is judged again too (its folder artifact or
    // run lost a file when the file moved).
    conn.prepare_cached(
        "INSERT OR IGNORE INTO dirty_runs SELECT run_dir FROM artifacts WHERE path = ?1",
    )?
    .execute([&p.path])?;
    // Rows before the artifact they belong to.
    let by_path: Vec<&str> = super::tables::names(|t| t.by_path).collect();
    for t in by_path.iter().rev() {
        conn.prepare_cached(&format!("DELETE FROM {t} WHERE path = ?1"))?
            .execute([&p.path])?;
    }
    let f = &p.fields;
    let complete = p.errors.is_empty();
    conn.prepare_cached(
        "INSERT INTO artifacts (path, artifact, run_dir, run_id, kind, eval_task, exp, precision, framework, \
         tp, pp, dcp, pcp, ep, dpa, disagg, spec, conc, runner, backup_n, artifact_id, size, mtime_ns, sha256, \
         scanned_at, scanned_ns, hashed_ns, scan_ms, tool_version, pack_fingerprint, fingerprint, complete, \
         evidence_count, aggregate_count, unit) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, \
         ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, strftime('%Y-%m-%dT%H:%M:%fZ', ?25 / 1e9, 'unixepoch'), \
         ?25, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)",
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
        p.rows.evidence.len() as i64,
        p.rows.aggregates.len() as i64,
        p.unit,
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
    let mut stmt = conn.prepare_cached("INSERT INTO member_chains VALUES (?1, ?2, ?3, ?4)")?;
    for c in &p.rows.chains {
        stmt.execute(params![p.path, c.chain, c.members, c.citation])?;
    }
    let mut stmt =
        conn.prepare_cached("INSERT INTO coverage_error_rows VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (i, (e, chain)) in p.errors.iter().zip(&p.rows.error_chains).enumerate() {
        stmt.execute(params![p.path, i as i64, chain, e.kind.as_str(), e.message])?;
    }
    let mut stmt = conn.prepare_cached(
        "INSERT INTO evidence_rows VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    )?;
    for e in &p.rows.evidence {
        stmt.execute(params![
            p.path,
            e.seq,
            f.run_id,
            p.artifact,
            e.rule,
            e.pack,
            e.chain,
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
        "INSERT INTO aggregate_rows VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    for a in &p.rows.aggregates {
        stmt.execute(params![
            p.path,
            a.seq,
            f.run_id,
            p.artifact,
            a.rule,
            a.pack,
            a.chain,
            a.group,
            a.count,
            a.stats,
            a.first_line,
            a.last_line
        ])?;
    }
    let mut stmt =
        conn.prepare_cached("INSERT INTO aggregate_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    for a in &p.rows.aggregates {
        for (capture, s) in &a.stats_exact {
            stmt.execute(params![p.path, a.seq, capture, s.min, s.max, s.mean])?;
        }
    }
    for v in &p.rows.verdicts {
        insert_verdict(
            conn,
            v,
            Some(&p.path),
            Some(&p.artifact),
            &p.run_dir,
            f.run_id.as_deref(),
        )?;
    }
    conn.prepare_cached("INSERT OR IGNORE INTO dirty_runs VALUES (?1)")?
        .execute([&p.run_dir])?;
    Ok(())
}

/// Inserts one verdict: `path` is the artifact's file (none for a folder
/// artifact and a run), `artifact` its file or folder name (none for a run).
pub(crate) fn insert_verdict(
    conn: &Connection,
    v: &VerdictRow,
    path: Option<&str>,
    artifact: Option<&str>,
    run_dir: &str,
    run_id: Option<&str>,
) -> anyhow::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO verdicts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        v.check,
        v.scope.as_str(),
        v.scope_name,
        path,
        artifact,
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
pub(crate) fn touch(
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
        for t in ["artifacts", "evidence_rows", "aggregate_rows", "verdicts"] {
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
pub(crate) struct RowError {
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
pub(crate) const EVIDENCE_COLS: &str = "seq, rule, pack, citation, members, line, byte_offset, col, text, text_start, lossy, truncated, captures, rank, id";

pub(crate) fn evidence_from_row(path: &str, r: &Row<'_>) -> anyhow::Result<Evidence> {
    let key = RowKey {
        table: "evidence",
        path,
        seq: Some(r.get("seq")?),
    };
    let members: Vec<String> = key.json(r, "members")?;
    let citation = r.get::<_, String>("citation")?.into();
    evidence_record(&key, r, path.into(), members.into(), citation)
}

/// An evidence record from a row of `evidence` or `evidence_rows`, with its
/// path, members and citation given (shared, or read from the row).
fn evidence_record(
    key: &RowKey<'_>,
    r: &Row<'_>,
    path: Arc<str>,
    members: Arc<[String]>,
    citation: crate::output::Citation,
) -> anyhow::Result<Evidence> {
    Ok(Evidence {
        rule: r.get("rule")?,
        pack: r.get("pack")?,
        citation,
        location: Location {
            path,
            members,
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

pub(crate) const AGGREGATE_COLS: &str = "seq, rule, pack, members, group_key, count, first, last";

/// An aggregate record from `SELECT AGGREGATE_COLS` (stats from `aggregate_stats`).
pub(crate) fn aggregate_from_row(
    conn: &Connection,
    path: &str,
    r: &Row<'_>,
) -> anyhow::Result<Aggregate> {
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
    Ok(Aggregate {
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

/// The member chains of an artifact by id: members and the citation's
/// member part, each read once.
type ChainMap = HashMap<i64, (Arc<[String]>, Arc<str>)>;

fn load_chains(conn: &Connection, path: &str) -> anyhow::Result<ChainMap> {
    let mut stmt =
        conn.prepare_cached("SELECT chain, members, citation FROM member_chains WHERE path = ?1")?;
    let mut rows = stmt.query([path])?;
    let mut chains = HashMap::new();
    while let Some(r) = rows.next()? {
        let chain: i64 = r.get("chain")?;
        let key = RowKey {
            table: "member_chains",
            path,
            seq: Some(chain),
        };
        let members: Vec<String> = key.json(r, "members")?;
        let cite: String = r.get("citation")?;
        chains.insert(chain, (members.into(), cite.into()));
    }
    Ok(chains)
}

/// The coverage of an artifact as its scan found it.
pub(crate) fn load_coverage(
    conn: &Connection,
    path: &str,
) -> anyhow::Result<(Option<String>, Coverage)> {
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
pub(crate) fn verdict_status(
    r: &Row<'_>,
    scope_name: &str,
) -> anyhow::Result<crate::check::Status> {
    RowKey {
        table: "verdicts",
        path: scope_name,
        seq: None,
    }
    .name(r, "status")
}

/// A verdict as judged, from `SELECT VERDICT_COLS FROM verdicts`
/// (`description` comes from the `checks` table).
pub(crate) const VERDICT_COLS: &str =
    "check_id, rule, scope_name, status, reason, evidence, missing";

pub(crate) fn verdict_from_row(r: &Row<'_>, description: &str) -> anyhow::Result<Verdict> {
    let check: String = r.get("check_id")?;
    let scope: String = r.get("scope_name")?;
    let key = RowKey {
        table: "verdicts",
        path: &scope,
        seq: None,
    };
    let mut v = Verdict::new(&check, description, &r.get::<_, String>("rule")?, &scope);
    v.status = key.name(r, "status")?;
    v.reason = r.get("reason")?;
    v.evidence = key.json(r, "evidence")?;
    v.missing = key.json(r, "missing")?;
    Ok(v)
}

pub(crate) fn coverage_record(conn: &Connection, path: &str) -> anyhow::Result<CoverageRecord> {
    let (sha256, cov) = load_coverage(conn, path)?;
    Ok(CoverageRecord::new(path, sha256, &cov))
}

/// The scan of an artifact rebuilt from the store: evidence in scan order
/// (aggregates left out: checks read evidence) and coverage.
/// Each chain is read once and shared (`Arc`) by the records of its member,
/// as in the scan itself.
pub(crate) fn load_scan(conn: &Connection, path: &str) -> anyhow::Result<ArtifactScan> {
    let (sha256, coverage) = load_coverage(conn, path)?;
    let chains = load_chains(conn, path)?;
    let shared_path: Arc<str> = path.into();
    let mut stmt = conn.prepare_cached(
        "SELECT seq, rule, pack, chain, line, byte_offset, col, text, text_start, lossy, truncated, \
         captures, rank, id FROM evidence_rows WHERE path = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([path])?;
    let mut records = Vec::new();
    while let Some(r) = rows.next()? {
        let key = RowKey {
            table: "evidence_rows",
            path,
            seq: Some(r.get("seq")?),
        };
        let chain: i64 = r.get("chain")?;
        let Some((members, cite)) = chains.get(&chain) else {
            return Err(key
                .err(
                    "chain",
                    format!("no member_chains row {chain} for this path"),
                )
                .into());
        };
        let citation = crate::output::Citation::new(cite.clone(), key.count(r, "line")?);
        records.push(Record::Evidence(evidence_record(
            &key,
            r,
            shared_path.clone(),
            members.clone(),
            citation,
        )?));
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

    /// Two audits that create one store at once both get it (one of
    /// them exited with "table meta already exists" or "database is
    /// locked" about half the time). Each round is a race; every round
    /// must succeed, whoever wins it.
    #[test]
    fn two_opens_of_a_new_store_at_once_both_succeed() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..20 {
            let path = dir.path().join(format!("s{round}.db"));
            let barrier = std::sync::Barrier::new(2);
            std::thread::scope(|s| {
                let opened: Vec<_> = (0..2)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            open(&path).map(|_| ()).map_err(|e| format!("{e:#}"))
                        })
                    })
                    .collect();
                for o in opened {
                    assert_eq!(o.join().unwrap(), Ok(()), "round {round}");
                }
            });
            let c = open(&path).unwrap();
            let v: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(v, STORE_SCHEMA_VERSION);
        }
    }

    /// Layout 2, frozen (the tests start older stores from it).
    const SCHEMA_V2: &str = include_str!("schema_v2.sql");

    /// A store of layout `version` (1 or 2) holding one artifact with two
    /// members: evidence on both, an aggregate and a coverage error.
    fn old_store(path: &Path, version: i64) {
        let schema: String = SCHEMA_V2
            .lines()
            .filter(|l| version > 1 || !l.trim_start().starts_with("text_start"))
            .collect::<Vec<_>>()
            .join("\n");
        let c = Connection::open(path).unwrap();
        c.execute_batch(&format!("{schema}\nPRAGMA user_version = {version};"))
            .unwrap();
        let cols = "path, seq, run_id, artifact, rule, pack, citation, members, line, byte_offset, col, text, lossy, truncated, captures, rank, id";
        for (seq, cite, members, line) in [
            (0, "runs/a.zip!a.log:3", r#"["a.log"]"#, 3),
            (
                1,
                "runs/a.zip!in%21ner.tgz!b.log:12",
                r#"["in!ner.tgz","b.log"]"#,
                12,
            ),
            (3, "runs/a.zip!a.log:40", r#"["a.log"]"#, 40),
        ] {
            c.execute(
                &format!("INSERT INTO evidence ({cols}) VALUES ('runs/a.zip', ?1, NULL, 'a.zip', 'env.var', 'env', \
                 ?2, ?3, ?4, 120, 7, 'X=1', 0, 0, '{{\"name\":\"X\"}}', NULL, 'id1')"),
                params![seq, cite, members, line],
            )
            .unwrap();
        }
        c.execute(
            "INSERT INTO aggregates VALUES ('runs/a.zip', 2, NULL, 'a.zip', 'spec.accept_len', 'spec', \
             '[\"in!ner.tgz\",\"b.log\"]', '{}', 5, '{}', 'runs/a.zip!in%21ner.tgz!b.log:7', 'runs/a.zip!in%21ner.tgz!b.log:1009')",
            [],
        )
        .unwrap();
        c.execute(
            "INSERT INTO coverage VALUES ('runs/a.zip', NULL, 0, 2, 10, 1, '[]')",
            [],
        )
        .unwrap();
        c.execute(
            r#"INSERT INTO coverage_errors VALUES ('runs/a.zip', 0, 'runs/a.zip!c.log', '["c.log"]', 'io', 'cut')"#,
            [],
        )
        .unwrap();
    }

    /// Every row of `table` (a view in layout 3), as text.
    fn dump(c: &Connection, table: &str) -> Vec<String> {
        let mut stmt = c
            .prepare(&format!("SELECT * FROM {table} ORDER BY path, seq"))
            .unwrap();
        let n = stmt.column_count();
        stmt.query_map([], |r| {
            Ok((0..n)
                .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                .collect::<Vec<_>>()
                .join("|"))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    /// Stores of layouts 1 and 2 are migrated when opened: their rows read
    /// back the same through the views (the old columns), each chain is
    /// stored once, and the schema is exactly a new store's (so `merge`
    /// takes a migrated store).
    #[test]
    fn version_1_and_2_stores_are_migrated() {
        for version in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("old.sqlite");
            old_store(&path, version);
            let before: Vec<Vec<String>> = {
                let c = Connection::open(&path).unwrap();
                ["evidence", "aggregates", "coverage_errors"]
                    .iter()
                    .map(|t| dump(&c, t))
                    .collect()
            };
            let c = open(&path).unwrap();
            let v: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(v, STORE_SCHEMA_VERSION);
            let after: Vec<Vec<String>> = ["evidence", "aggregates", "coverage_errors"]
                .iter()
                .map(|t| dump(&c, t))
                .collect();
            // Layout 1 had no text_start: the view adds it as NULL.
            let strip = |rows: &Vec<String>| -> Vec<String> {
                rows.iter()
                    .map(|r| r.trim_end_matches("|Null").to_string())
                    .collect()
            };
            assert_eq!(strip(&before[0]), strip(&after[0]), "layout {version}");
            assert_eq!(before[1..], after[1..], "layout {version}");
            let chains: i64 = c
                .query_row("SELECT count(*) FROM member_chains", [], |r| r.get(0))
                .unwrap();
            assert_eq!(chains, 3, "a.log, in!ner.tgz!b.log, c.log");
            let fresh = store();
            assert_eq!(
                super::super::merge::objects(&c, "main").unwrap(),
                super::super::merge::objects(&fresh, "main").unwrap(),
                "layout {version}"
            );
            let scan = load_scan(&c, "runs/a.zip").unwrap();
            let cites: Vec<String> = scan
                .records
                .iter()
                .map(|r| match r {
                    Record::Evidence(e) => e.citation.to_string(),
                    Record::Aggregate(_) => unreachable!(),
                })
                .collect();
            assert_eq!(
                cites,
                [
                    "runs/a.zip!a.log:3",
                    "runs/a.zip!in%21ner.tgz!b.log:12",
                    "runs/a.zip!a.log:40"
                ]
            );
        }
    }

    /// Records of one member share one chain row, and `load_scan` gives them
    /// one shared `members` again.
    #[test]
    fn a_chain_is_written_once_and_read_back_shared() {
        let members: Arc<[String]> = vec!["x".repeat(1000), "b.log".to_string()].into();
        let path: Arc<str> = "runs/a.zip".into();
        let cite: Arc<str> = Location::member_citation(&path, &members).into();
        let record = |line: u64, members: Arc<[String]>| {
            Record::Evidence(Evidence {
                rule: "r".into(),
                pack: None,
                citation: crate::output::Citation::new(cite.clone(), line),
                location: Location {
                    path: path.clone(),
                    members,
                    line,
                    byte_offset: 0,
                    column: None,
                },
                text: "t".to_string().into(),
                text_start: None,
                lossy: false,
                truncated: false,
                captures: None,
                rank: None,
                id: None,
            })
        };
        // Two records share the Arc; a third holds an equal copy.
        let copy: Arc<[String]> = members.to_vec().into();
        let scan = ArtifactScan {
            records: vec![
                record(1, members.clone()),
                record(2, members.clone()),
                record(3, copy),
            ],
            coverage: Coverage::default(),
            sha256: None,
            counts: BTreeMap::new(),
        };
        let rows = Prepared::rows(&path, &scan, &[]);
        assert_eq!(rows.chains.len(), 1);
        assert_eq!(rows.chains[0].citation, &*cite);
        assert!(rows.evidence.iter().all(|e| e.chain == 0));
        let c = store();
        c.execute(
            "INSERT INTO coverage VALUES ('runs/a.zip', NULL, 1, 1, 10, 0, '[]')",
            [],
        )
        .unwrap();
        let ch = &rows.chains[0];
        c.execute(
            "INSERT INTO member_chains VALUES ('runs/a.zip', ?1, ?2, ?3)",
            params![ch.chain, ch.members, ch.citation],
        )
        .unwrap();
        for e in &rows.evidence {
            c.execute(
                "INSERT INTO evidence_rows (path, seq, artifact, rule, chain, line, byte_offset, text, lossy, truncated) \
                 VALUES ('runs/a.zip', ?1, 'a.zip', 'r', ?2, ?3, 0, 't', 0, 0)",
                params![e.seq, e.chain, e.line],
            )
            .unwrap();
        }
        let back = load_scan(&c, "runs/a.zip").unwrap();
        let ms: Vec<&Arc<[String]>> = back
            .records
            .iter()
            .map(|r| match r {
                Record::Evidence(e) => &e.location.members,
                Record::Aggregate(_) => unreachable!(),
            })
            .collect();
        assert!(Arc::ptr_eq(ms[0], ms[1]) && Arc::ptr_eq(ms[1], ms[2]));
        assert_eq!(&**ms[0], &*members);
        let json = |s: &ArtifactScan| -> Vec<String> {
            s.records
                .iter()
                .map(|r| match r {
                    Record::Evidence(e) => {
                        serde_json::to_string(&crate::output::EvidenceRecord::from(e)).unwrap()
                    }
                    Record::Aggregate(_) => unreachable!(),
                })
                .collect()
        };
        assert_eq!(json(&back), json(&scan));
        // A row whose chain is missing is an error, not a record dropped.
        c.execute("DELETE FROM member_chains", []).unwrap();
        let e = load_scan(&c, "runs/a.zip").unwrap_err().to_string();
        assert!(
            e.contains("member_chains") && e.contains("column chain"),
            "{e}"
        );
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
            r#"INSERT INTO member_chains VALUES ('runs/a.zip', 0, '["a.log"]', 'runs/a.zip!a.log')"#,
            [],
        )
        .unwrap();
        c.execute(
            "INSERT INTO coverage_error_rows VALUES ('runs/a.zip', 0, 0, ?1, 'cut')",
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

    fn verdict(c: &Connection, status: &str) -> anyhow::Result<Verdict> {
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
            c.execute("DELETE FROM evidence_rows", []).unwrap();
            c.execute("DELETE FROM member_chains", []).unwrap();
            c.execute(
                r#"INSERT INTO member_chains VALUES ('runs/a.zip', 5, '["a.log"]', 'runs/a.zip!a.log')"#,
                [],
            )
            .unwrap();
            c.execute(
                "INSERT INTO evidence_rows VALUES ('runs/a.zip', 4, NULL, 'a.zip', 'env.var', 'env', \
                 5, 3, 120, 7, 'X=1', 0, 1, '{\"name\":\"X\"}', ?1, 'id1', NULL)",
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
