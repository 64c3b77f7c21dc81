//! `artiscan audit merge OUT IN...`: combines stores (typically the shards of
//! one audit) into OUT. Per artifact path, the most recently scanned result
//! wins, all of its rows together; a result already in OUT is kept on a tie,
//! so merging the same input twice changes nothing. Run-scope checks are
//! judged again over the merged runs.
//!
//! An input is trusted for nothing it cannot show (`validate`): its schema
//! must be this artiscan's, object for object (tables where we have tables,
//! our views exactly; no triggers); every value must have its column's type;
//! JSON columns must parse, as must the check files it stored; every row
//! under a member chain must name a chain of its own artifact, whose
//! citation is the one its path and members make (`check_chains`); no
//! artifact may be scanned in the future (a forged `scanned_ns` would win
//! every later merge); and a
//! shard that declares its slice (`meta.shard`) may hold only artifacts of
//! that slice. An input that fails is refused whole (nothing of it is
//! taken, the others are merged, the exit code is 2). Each input's merge
//! also runs under a time budget linear in its size, so no input can make
//! it run forever.

use super::{CheckSet, Judged, Shard, judge_dirty_runs, store, tables};
use rusqlite::{Connection, OptionalExtension};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Counts of one merge.
#[derive(Debug, Default)]
pub(crate) struct MergeSummary {
    pub inputs: u64,
    /// Artifacts taken from the inputs (new, or newer than OUT's).
    pub taken: u64,
    /// Artifacts of the inputs that OUT already had as new or newer.
    pub kept: u64,
    pub judged: Judged,
    /// Inputs refused, with the reason.
    pub refused: Vec<(String, String)>,
    /// With `--shards N`: the slices (1-based) no merged input declared.
    pub missing: Vec<u64>,
}

/// Why an input was refused (its rows were not taken).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Refused(pub String);

/// A merge of one input may take this long, plus [`BUDGET_PER_MB`] per MB of
/// it, before it is stopped: far beyond an honest merge (tens of MB/s), and
/// finite whatever the input holds.
const BUDGET_BASE: Duration = Duration::from_secs(60);
const BUDGET_PER_MB: Duration = Duration::from_secs(2);

/// `ARTISCAN_MERGE_BUDGET_MS`: a shorter budget, for tests of the watchdog.
fn budget_override() -> Option<Duration> {
    std::env::var("ARTISCAN_MERGE_BUDGET_MS")
        .ok()?
        .parse()
        .ok()
        .map(Duration::from_millis)
}

/// Scanned more than this after now: a forged time.
const FUTURE_SLACK_NS: i64 = 24 * 3600 * 1_000_000_000;

/// Merges `inputs` into `out`. With `shards: Some(n)`, every input must
/// declare a slice of `n` (else it is refused), and the slices no input
/// brought are listed in [`MergeSummary::missing`].
pub(crate) fn merge(
    out: &Path,
    inputs: &[std::path::PathBuf],
    shards: Option<u64>,
    err: &mut dyn Write,
) -> anyhow::Result<MergeSummary> {
    let conn = store::open(out)?;
    let mut summary = MergeSummary::default();
    let mut seen = std::collections::BTreeSet::new();
    let out_canon = std::fs::canonicalize(out).ok();
    for input in inputs {
        if !input.exists() {
            anyhow::bail!("{}: no such audit database", input.display());
        }
        if std::fs::canonicalize(input).ok() == out_canon {
            writeln!(err, "artiscan: {}: is the output; skipped", input.display())?;
            continue;
        }
        // Opening migrates an older input (and checks it is a store at all);
        // one that cannot be written (a read-only file or folder) is read as
        // it is, without creating -wal/-shm files beside it.
        // A file that is no store of this artiscan (or a newer one) is
        // refused like any other bad input, not the end of the merge.
        let read_only = match store::open_for_reading(input)
            .and_then(|c| Ok(c.is_readonly(rusqlite::MAIN_DB)?))
        {
            Ok(r) => r,
            Err(e) => {
                refuse(&mut summary, input, &format!("{e:#}"), err)?;
                continue;
            }
        };
        let src = if read_only {
            store::read_only_uri(input)
        } else {
            input.display().to_string()
        };
        conn.execute("ATTACH DATABASE ?1 AS src", [src])?;
        let size: u64 = [input.to_path_buf(), store::sidecar(input, "-wal")]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        let budget = budget_override().unwrap_or(
            BUDGET_BASE + BUDGET_PER_MB * u32::try_from(size / 1_000_000).unwrap_or(u32::MAX / 4),
        );
        let deadline = Instant::now() + budget;
        let stopped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // A watchdog interrupts SQLite once the budget is spent (whatever
        // statement it is in); the merge then fails with "interrupted".
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let handle = conn.get_interrupt_handle();
        let flag = stopped.clone();
        let watchdog = std::thread::spawn(move || {
            // SQLite drops an interrupt that lands between statements, so
            // it is repeated until the merge gives up.
            let mut left = deadline.saturating_duration_since(Instant::now());
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(left) {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
                handle.interrupt();
                left = Duration::from_millis(1);
            }
        });
        let result = validate(&conn)
            .and_then(|()| expect_slice(&conn, shards))
            .and_then(|slice| {
                let r = merge_one(&conn, input, err)?;
                seen.extend(slice);
                Ok(r)
            });
        let _ = done.send(());
        let _ = watchdog.join();
        let detach = conn.execute_batch("DETACH DATABASE src");
        let result = match result {
            Err(_) if stopped.load(std::sync::atomic::Ordering::Relaxed) => {
                Err(anyhow::Error::new(Refused(format!(
                    "took longer than {} s, the budget for its size",
                    budget.as_secs()
                ))))
            }
            r => r,
        };
        match result {
            Ok((taken, kept)) => {
                summary.inputs += 1;
                summary.taken += taken;
                summary.kept += kept;
            }
            Err(e) => match e.downcast_ref::<Refused>() {
                Some(r) => refuse(&mut summary, input, &r.0, err)?,
                None => return Err(e.context(format!("merging {}", input.display()))),
            },
        }
        detach?;
    }
    if let Some(n) = shards {
        summary.missing = (1..=n).filter(|i| !seen.contains(i)).collect();
    }
    let checks = match store::meta(&conn, "fingerprint")? {
        Some(fp) => match store::get_fingerprint(&conn, &fp)? {
            Some(row) => {
                let checks = CheckSet::from_stored(&row.checks, &row.params)?;
                scope_reads_as_audited(&checks, &row.pack_fingerprint);
                checks
            }
            None => CheckSet::default(),
        },
        None => CheckSet::default(),
    };
    summary.judged = judge_dirty_runs(&conn, &checks)?;
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    Ok(summary)
}

/// Notes a refused input. The reason may quote the input (a check file's
/// text in a parse error): control characters are escaped.
fn refuse(
    summary: &mut MergeSummary,
    input: &Path,
    why: &str,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let why: String = why
        .chars()
        .flat_map(|c| {
            let esc: Vec<char> = if c.is_control()
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
            {
                c.escape_unicode().collect()
            } else {
                vec![c]
            };
            esc
        })
        .collect();
    writeln!(
        err,
        "artiscan: {}: refused, nothing of it merged: {why}",
        input.display()
    )?;
    summary.refused.push((input.display().to_string(), why));
    Ok(())
}

/// The schema objects (type, name, table, SQL) of `schema` (`main`, `src`),
/// sorted; SQLite's internal ones left out.
pub(super) fn objects(conn: &Connection, schema: &str) -> anyhow::Result<Vec<[Option<String>; 4]>> {
    let mut v: Vec<[Option<String>; 4]> = conn
        .prepare(&format!(
            "SELECT type, name, tbl_name, sql FROM {schema}.sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ))?
        .query_map([], |r| {
            let sql: Option<String> = r.get(3)?;
            Ok([r.get(0)?, r.get(1)?, r.get(2)?, sql.as_deref().map(normalize_sql)])
        })?
        .collect::<Result<_, _>>()?;
    v.sort();
    Ok(v)
}

/// SQL without `--` comments and with single spaces between tokens, so
/// that a comment edited in `schema.sql` does not make older stores foreign,
/// nor the text SQLite writes for `ALTER TABLE ADD COLUMN` (`NULL\n, unit
/// TEXT)`) a migrated one. (Our lines hold no quote before a `--`, so an
/// input whose text matches ours up to each `--` has its comments where we
/// have ours.)
fn normalize_sql(sql: &str) -> String {
    sql.lines()
        .map(|l| l.split_once("--").map_or(l, |(code, _)| code))
        .flat_map(|l| l.split_inclusive([',', '(', ')']))
        .flat_map(|part| {
            let (code, punct) = match part.char_indices().last() {
                Some((i, c @ (',' | '(' | ')'))) => (&part[..i], Some(c)),
                _ => (part, None),
            };
            code.split_whitespace()
                .map(str::to_string)
                .chain(punct.map(String::from))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `'a', 'b', ...` for an SQL `IN` list.
fn sql_names(names: impl Iterator<Item = &'static str>) -> String {
    names
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Further conditions a row must meet, per table (SQL on the row). The
/// allowed names come from the enums that write them, so a new status or
/// error kind is never refused by merge.
fn row_rules() -> Vec<(&'static str, String, &'static str)> {
    use crate::check::Status;
    use crate::source::ErrorKind;
    vec![
        (
            "verdicts",
            format!(
                "status IN ({})",
                sql_names(Status::ALL.iter().map(|s| s.as_str()))
            ),
            "a known verdict status",
        ),
        (
            "verdicts",
            "(scope = 'artifact' AND path = scope_name) OR (scope = 'run' AND path IS NULL)".into(),
            "an artifact verdict names its own artifact",
        ),
        (
            "coverage_error_rows",
            format!(
                "kind IN ({})",
                sql_names(ErrorKind::ALL.iter().map(|k| k.as_str()))
            ),
            "a known error kind",
        ),
        // A row whose chain is missing would drop out of the views (its
        // evidence unseen: a false pass); the chain is the row's own path's.
        (
            "evidence_rows",
            chain_exists("evidence_rows"),
            "a member chain of its own artifact",
        ),
        (
            "aggregate_rows",
            chain_exists("aggregate_rows"),
            "a member chain of its own artifact",
        ),
        (
            "coverage_error_rows",
            chain_exists("coverage_error_rows"),
            "a member chain of its own artifact",
        ),
        (
            "member_chains",
            "json_type(members) = 'array'".into(),
            "members a JSON array",
        ),
    ]
}

/// A row of `table` whose `(path, chain)` names a `member_chains` row of
/// the input (columns qualified: `member_chains` has a `path` too).
fn chain_exists(table: &str) -> String {
    format!(
        "EXISTS (SELECT 1 FROM src.member_chains c WHERE c.path = src.{table}.path AND c.chain = src.{table}.chain)"
    )
}

/// Refuses an input (attached as `src`) that this artiscan did not write as
/// it is: see the module documentation.
fn validate(conn: &Connection) -> anyhow::Result<()> {
    let refuse = |why: String| Err(anyhow::Error::new(Refused(why)));
    // The schema, object for object, as this build creates it: no views in
    // place of tables, no triggers, no extra or retyped columns.
    let reference = Connection::open_in_memory()?;
    reference.execute_batch(store::SCHEMA)?;
    let (want, have) = (objects(&reference, "main")?, objects(conn, "src")?);
    if want != have {
        let diff = have
            .iter()
            .find(|o| !want.contains(o))
            .map(|o| {
                format!(
                    "unexpected {} {:?}",
                    o[0].as_deref().unwrap_or("?"),
                    o[1].as_deref().unwrap_or("?")
                )
            })
            .or_else(|| {
                want.iter().find(|o| !have.contains(o)).map(|o| {
                    format!(
                        "no {} {:?} as this artiscan defines it",
                        o[0].as_deref().unwrap_or("?"),
                        o[1].as_deref().unwrap_or("?")
                    )
                })
            })
            .unwrap_or_default();
        return refuse(format!(
            "not an artiscan audit store of this schema: {diff}"
        ));
    }
    check_types(conn, &tables::names(|t| t.small).collect::<Vec<_>>(), "")?;
    let future: Option<String> = conn
        .query_row(
            "SELECT path FROM src.artifacts WHERE scanned_ns > ?1 LIMIT 1",
            [super::now_ns().saturating_add(FUTURE_SLACK_NS)],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(p) = future {
        return refuse(format!(
            "artifact {p:?} was scanned in the future (scanned_ns)"
        ));
    }
    let unknown: Option<String> = conn
        .query_row(
            "SELECT path FROM src.artifacts WHERE fingerprint NOT IN (SELECT fingerprint FROM src.fingerprints) LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(p) = unknown {
        return refuse(format!(
            "artifact {p:?} names a fingerprint the store does not hold"
        ));
    }
    // Check text: a merge judges run checks from it, now and later.
    let mut stmt = conn.prepare("SELECT fingerprint, checks, params FROM src.fingerprints")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (fp, checks, params): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        if let Err(e) = CheckSet::from_stored(&checks, &params) {
            return refuse(format!(
                "fingerprint {fp:?}: its check files do not parse: {e:#}"
            ));
        }
    }
    if let Some(fp) = conn
        .query_row(
            "SELECT value FROM src.meta WHERE key = 'fingerprint'",
            [],
            |r| r.get::<_, String>(0),
        )
        .optional()?
    {
        let known: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM src.fingerprints WHERE fingerprint = ?1)",
            [&fp],
            |r| r.get(0),
        )?;
        if !known {
            return refuse(format!("its fingerprint {fp:?} has no fingerprints row"));
        }
    }
    // The declared slice: a shard holds only its own artifacts.
    let declared: Option<String> = conn
        .query_row("SELECT value FROM src.meta WHERE key = 'shard'", [], |r| {
            r.get(0)
        })
        .optional()?;
    if let Some(d) = declared {
        let Some(shard) = Shard::from_meta(&d) else {
            return refuse(format!("its declared shard {d:?} does not parse"));
        };
        // An artifact's files fall in its slice together: by the artifact
        // (the file, or its folder).
        let mut stmt = conn.prepare("SELECT path, coalesce(unit, path) FROM src.artifacts")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (p, unit): (String, String) = (r.get(0)?, r.get(1)?);
            if !shard.contains(&unit) {
                return refuse(format!(
                    "artifact {p:?} is outside its declared shard {shard}"
                ));
            }
        }
    }
    Ok(())
}

/// Refuses rows of `tables` (those `rows` selects, a `WHERE` on the table or
/// empty) whose values do not have their column's type, JSON columns that do
/// not parse, and the [`row_rules`]; one pass over each table.
fn check_types(conn: &Connection, tables: &[&str], rows: &str) -> anyhow::Result<()> {
    // Types: every value of the type its column declares (SQLite itself
    // stores anything anywhere), NOT NULL and primary-key columns not null.
    let refuse = |why: String| Err(anyhow::Error::new(Refused(why)));
    let reference = Connection::open_in_memory()?;
    reference.execute_batch(store::SCHEMA)?;
    for t in tables {
        let cols: Vec<(String, String, bool)> = reference
            .prepare(&format!("PRAGMA table_info({t})"))?
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)? || r.get::<_, i64>(5)? > 0,
                ))
            })?
            .collect::<Result<_, _>>()?;
        let mut cases = Vec::new();
        for (name, ty, required) in &cols {
            let mut allowed = match ty.as_str() {
                "INTEGER" => vec!["'integer'"],
                "REAL" => vec!["'real'", "'integer'"],
                _ => vec!["'text'"],
            };
            if !required {
                allowed.push("'null'");
            }
            cases.push(format!(
                "WHEN typeof({name}) NOT IN ({}) THEN 'column {name} holds ' || typeof({name}) || ', not {ty}'",
                allowed.join(", ")
            ));
        }
        for (table, columns) in tables::TABLES.iter().map(|t| (t.name, t.json)) {
            if table == *t {
                for c in columns {
                    cases.push(format!(
                        "WHEN {c} IS NOT NULL AND NOT json_valid({c}) THEN 'column {c} is not JSON'"
                    ));
                }
            }
        }
        for (table, rule, what) in row_rules() {
            if table == *t {
                cases.push(format!("WHEN NOT ({rule}) THEN 'not: {what}'"));
            }
        }
        let sql = format!(
            "SELECT bad FROM (SELECT CASE {} END AS bad FROM src.{t} {rows}) WHERE bad IS NOT NULL LIMIT 1",
            cases.join(" ")
        );
        let bad: Option<String> = conn.query_row(&sql, [], |r| r.get(0)).optional()?;
        if let Some(bad) = bad {
            return refuse(format!("table {t}: {bad}"));
        }
    }
    Ok(())
}

/// Refuses a member chain (of the artifacts taken) whose citation is not
/// the one its path and members make: every evidence citation of the chain
/// would cite another place. Checked here, not in SQL: the escaping of a
/// citation is [`crate::Location::member_citation`]'s.
fn check_chains(conn: &Connection) -> anyhow::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT path, chain, members, citation FROM src.member_chains \
         WHERE path IN (SELECT path FROM temp.take)",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (path, chain, members, citation): (String, i64, String, String) =
            (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
        let Ok(members) = serde_json::from_str::<Vec<String>>(&members) else {
            return Err(anyhow::Error::new(Refused(format!(
                "member chain {chain} of artifact {path:?}: members are not a JSON array of strings"
            ))));
        };
        if citation != crate::Location::member_citation(&path, &members) {
            return Err(anyhow::Error::new(Refused(format!(
                "member chain {chain} of artifact {path:?}: its citation is not its members' citation"
            ))));
        }
    }
    Ok(())
}

/// With `shards: Some(n)`: the input's declared slice, which must be one of
/// `n` (a store that declares none, or `1/1`, could hold anything).
fn expect_slice(conn: &Connection, shards: Option<u64>) -> anyhow::Result<Option<u64>> {
    let Some(n) = shards else {
        return Ok(None);
    };
    let declared: Option<String> = conn
        .query_row("SELECT value FROM src.meta WHERE key = 'shard'", [], |r| {
            r.get(0)
        })
        .optional()?;
    match declared.as_deref().and_then(Shard::from_meta) {
        Some(s) if s.count == n => Ok(Some(s.index)),
        Some(s) => Err(anyhow::Error::new(Refused(format!(
            "it declares shard {s}, not one of {n}"
        )))),
        None => Err(anyhow::Error::new(Refused(format!(
            "it declares no shard, --shards {n} expects one"
        )))),
    }
}

fn merge_one(
    conn: &rusqlite::Connection,
    input: &Path,
    err: &mut dyn Write,
) -> anyhow::Result<(u64, u64)> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = (|| -> anyhow::Result<(u64, u64)> {
        conn.execute_batch(
            "DROP TABLE IF EXISTS temp.take;
             CREATE TEMP TABLE take AS
               SELECT s.path AS path, s.run_dir AS run_dir FROM src.artifacts s
               LEFT JOIN main.artifacts m ON m.path = s.path
               WHERE m.path IS NULL OR m.scanned_ns < s.scanned_ns;
             CREATE INDEX temp.take_path ON take(path);
             INSERT OR IGNORE INTO main.fingerprints SELECT * FROM src.fingerprints;",
        )?;
        // A path is a file's key, its sha256 says which content: two hosts
        // whose copies of one file differ (a re-download, a hand edit) keep
        // the later audit's, and say so rather than drop one in silence.
        {
            let mut differ = conn.prepare(
                "SELECT s.path, s.sha256, m.sha256, s.scanned_ns > m.scanned_ns
                 FROM src.artifacts s JOIN main.artifacts m ON m.path = s.path
                 WHERE s.sha256 <> m.sha256
                   AND s.superseded_ns IS NULL AND m.superseded_ns IS NULL
                 ORDER BY s.path",
            )?;
            let rows = differ.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })?;
            for row in rows {
                let (path, theirs, ours, taken) = row?;
                let short = |h: &str| h.get(..12).unwrap_or(h).to_string();
                writeln!(
                    err,
                    "artiscan: {}: {}: two contents under one path (sha256 {}… there, {}… here); kept {}",
                    input.display(),
                    crate::escape::text(&path),
                    short(&theirs),
                    short(&ours),
                    if taken {
                        "theirs, the later audit"
                    } else {
                        "this store's, the later audit"
                    }
                )?;
            }
        }
        check_types(
            conn,
            &tables::names(|t| t.by_path && !t.small).collect::<Vec<_>>(),
            "WHERE path IN (SELECT path FROM temp.take)",
        )?;
        check_chains(conn)?;
        let taken: i64 = conn.query_row("SELECT count(*) FROM temp.take", [], |r| r.get(0))?;
        let total: i64 = conn.query_row("SELECT count(*) FROM src.artifacts", [], |r| r.get(0))?;
        for t in tables::names(|t| t.by_path) {
            conn.execute(
                &format!("DELETE FROM main.{t} WHERE path IN (SELECT path FROM temp.take)"),
                [],
            )?;
        }
        for t in tables::names(|t| t.merged) {
            conn.execute(
                &format!("INSERT INTO main.{t} SELECT * FROM src.{t} WHERE path IN (SELECT path FROM temp.take)"),
                [],
            )?;
        }
        // Artifact-scope verdicts travel with their artifact; run-scope ones
        // are judged again below, over the merged run.
        conn.execute(
            "INSERT INTO main.verdicts SELECT * FROM src.verdicts WHERE scope = 'artifact' AND path IN (SELECT path FROM temp.take)",
            [],
        )?;
        conn.execute(
            "INSERT OR IGNORE INTO main.dirty_runs SELECT DISTINCT run_dir FROM temp.take",
            [],
        )?;
        conn.execute(
            "INSERT OR IGNORE INTO main.checks SELECT * FROM src.checks",
            [],
        )?;
        let theirs = conn
            .query_row(
                "SELECT value FROM src.meta WHERE key = 'fingerprint'",
                [],
                |r| r.get::<_, String>(0),
            )
            .ok();
        match (store::meta(conn, "fingerprint")?, theirs) {
            (None, Some(fp)) => store::set_meta(conn, "fingerprint", &fp)?,
            (Some(ours), Some(fp)) if ours != fp => writeln!(
                err,
                "artiscan: {}: audited with another pack/check set (fingerprint {fp}, here {ours}); \
                 the next audit with the current set re-scans its artifacts",
                input.display()
            )?,
            _ => {}
        }
        // OUT no longer holds one slice only once another's rows are in it.
        let (ours, theirs): (Option<String>, Option<String>) = (
            store::meta(conn, "shard")?,
            conn.query_row("SELECT value FROM src.meta WHERE key = 'shard'", [], |r| {
                r.get(0)
            })
            .optional()?,
        );
        if taken > 0 && ours.is_some() && ours != theirs {
            conn.execute("DELETE FROM main.meta WHERE key = 'shard'", [])?;
        }
        conn.execute_batch("DROP TABLE temp.take")?;
        Ok((taken as u64, (total - taken) as u64))
    })();
    match result {
        Ok(v) => {
            conn.execute_batch("COMMIT")?;
            Ok(v)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Looks up what members the stored checks' rules read (as the audit
/// that wrote the shards did, `check::scope_reads`), when the built-in
/// packs are the rules it ran (`pack_fingerprint` equal): a run judged
/// again here then costs an unread member what the shards' verdicts did.
/// With other packs the rules are not known here and every unread part
/// costs every claim (never a PASS the shards could not give).
fn scope_reads_as_audited(checks: &CheckSet, pack_fingerprint: &str) {
    if checks.checks.is_empty() {
        return;
    }
    let rules = crate::pack::load_rules(
        &[],
        &crate::pack::compile::Selection {
            with: crate::check::selected_rules(&checks.checks)
                .into_iter()
                .collect(),
            ..Default::default()
        },
        crate::pack::Builtin::Included,
    );
    if let Ok(rules) = rules
        && rules.fingerprint == pack_fingerprint
    {
        crate::check::scope_reads(&checks.checks, &rules);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_spacing_do_not_count_but_code_does() {
        let ours = "CREATE TABLE t (\n    a INTEGER, -- count\n    b TEXT     -- name\n)";
        let edited = "CREATE TABLE t (\n  a INTEGER,   -- how many\n  b TEXT\n)";
        assert_eq!(normalize_sql(ours), normalize_sql(edited));
        let retyped = "CREATE TABLE t (\n    a TEXT, -- count\n    b TEXT\n)";
        assert_ne!(normalize_sql(ours), normalize_sql(retyped));
        let generated = "CREATE TABLE t (\n    a INTEGER, -- count\n    b TEXT AS ('x')\n)";
        assert_ne!(normalize_sql(ours), normalize_sql(generated));
        // What SQLite writes for a column added by a migration.
        let fresh = "CREATE TABLE t (\n    a INTEGER, -- count\n    b TEXT,\n    c TEXT -- new\n)";
        let altered = "CREATE TABLE t (\n    a INTEGER, -- count\n    b TEXT\n, c TEXT)";
        assert_eq!(normalize_sql(fresh), normalize_sql(altered));
    }
}
