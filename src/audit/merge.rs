//! `artiscan audit merge OUT IN...`: combines stores (typically the shards of
//! one audit) into OUT. Per artifact path, the most recently scanned result
//! wins, all of its rows together; a result already in OUT is kept on a tie,
//! so merging the same input twice changes nothing. Run-scope checks are
//! judged again over the merged runs.

use super::{CheckSet, Judged, judge_dirty_runs, store};
use std::io::Write;
use std::path::Path;

/// Counts of one merge.
#[derive(Debug, Default)]
pub struct MergeSummary {
    pub inputs: u64,
    /// Artifacts taken from the inputs (new, or newer than OUT's).
    pub taken: u64,
    /// Artifacts of the inputs that OUT already had as new or newer.
    pub kept: u64,
    pub judged: Judged,
}

/// Tables keyed by artifact path, copied row for row (same schema version).
const TABLES: &[&str] = &[
    "artifacts",
    "coverage",
    "coverage_errors",
    "evidence",
    "aggregates",
    "aggregate_stats",
];

pub fn merge(
    out: &Path,
    inputs: &[std::path::PathBuf],
    err: &mut dyn Write,
) -> anyhow::Result<MergeSummary> {
    let conn = store::open(out, true)?;
    let mut summary = MergeSummary::default();
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
        let read_only = store::open_for_reading(input)?.is_readonly(rusqlite::MAIN_DB)?;
        let src = if read_only {
            store::read_only_uri(input)
        } else {
            input.display().to_string()
        };
        conn.execute("ATTACH DATABASE ?1 AS src", [src])?;
        let result = merge_one(&conn, input, err);
        let detach = conn.execute_batch("DETACH DATABASE src");
        let (taken, kept) = result?;
        detach?;
        summary.inputs += 1;
        summary.taken += taken;
        summary.kept += kept;
    }
    let checks = match store::meta(&conn, "fingerprint")? {
        Some(fp) => match store::get_fingerprint(&conn, &fp)? {
            Some(row) => CheckSet::from_stored(&row.checks, &row.params)?,
            None => CheckSet::default(),
        },
        None => CheckSet::default(),
    };
    summary.judged = judge_dirty_runs(&conn, &checks)?;
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    Ok(summary)
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
        let taken: i64 = conn.query_row("SELECT count(*) FROM temp.take", [], |r| r.get(0))?;
        let total: i64 = conn.query_row("SELECT count(*) FROM src.artifacts", [], |r| r.get(0))?;
        for t in super::store::TABLES_BY_PATH {
            conn.execute(
                &format!("DELETE FROM main.{t} WHERE path IN (SELECT path FROM temp.take)"),
                [],
            )?;
        }
        for t in TABLES {
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
            Err(e.context(format!("merging {}", input.display())))
        }
    }
}
