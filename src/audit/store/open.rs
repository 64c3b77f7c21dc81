//! Opening a store: creating it, the pragmas of WAL mode, migrating an
//! older layout, a read-only open, and SQLite's errors in words.

use rusqlite::ffi::{self, ErrorCode};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `PRAGMA user_version` of a store this build writes: the SQLite layout,
/// versioned apart from the JSON records ([`crate::output::SCHEMA_VERSION`]).
pub(crate) const STORE_SCHEMA_VERSION: i64 = 5;

/// The documented schema (`src/audit/schema.sql`).
pub(crate) const SCHEMA: &str = include_str!("../schema.sql");

/// `MIGRATIONS[i]` upgrades a store from version `i + 1` to `i + 2`.
const MIGRATIONS: &[fn() -> String] = &[
    // 2: evidence text may be an excerpt of a long line.
    || "ALTER TABLE evidence ADD COLUMN text_start INTEGER;".into(),
    // 3: member chains stored once per artifact.
    migration_3,
    // 4: the artifact each file belongs to (a file of its own until it is
    // scanned again; a new version's fingerprint makes every file scanned).
    || "ALTER TABLE artifacts ADD COLUMN unit TEXT;\nUPDATE artifacts SET unit = path;".into(),
    // 5: files found gone are kept, marked superseded.
    || "ALTER TABLE artifacts ADD COLUMN superseded_ns INTEGER;".into(),
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
    // Fewer, larger checkpoints: index pages are copied from the WAL once
    // per checkpoint, not once per few commits. An 8 MiB page cache (4x
    // SQLite's default): 64 MiB was no faster on a run of 186,000 evidence
    // rows or on a real run folder, and held 70 MiB more.
    conn.pragma_update(None, "cache_size", -8192)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::store::{load_scan, memory_store};
    use crate::scan::Record;
    use rusqlite::params;

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
    const SCHEMA_V2: &str = include_str!("../schema_v2.sql");

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
            let fresh = memory_store();
            assert_eq!(
                crate::audit::merge::objects(&c, "main").unwrap(),
                crate::audit::merge::objects(&fresh, "main").unwrap(),
                "layout {version}"
            );
            let scan = load_scan(&c, "runs/a.zip", |_| true).unwrap();
            let cites: Vec<String> = scan
                .records
                .iter()
                .map(|r| match r {
                    Record::Evidence(e) => e.citation.to_string(),
                    Record::Aggregate(a) => format!("{}..{} x{}", a.first, a.last, a.count),
                })
                .collect();
            // In the scan's order, the aggregate among the evidence.
            assert_eq!(
                cites,
                [
                    "runs/a.zip!a.log:3",
                    "runs/a.zip!in%21ner.tgz!b.log:12",
                    "runs/a.zip!in%21ner.tgz!b.log:7..runs/a.zip!in%21ner.tgz!b.log:1009 x5",
                    "runs/a.zip!a.log:40"
                ]
            );
        }
    }
}
