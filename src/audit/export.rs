//! `artiscan audit export --format jsonl`: the stored results as the scan's
//! JSON Lines: per artifact (in path order) its evidence and aggregate
//! records in scan order, then its coverage record; with `verdicts`, the
//! verdict records after them. Readable by jq, DuckDB (`read_json_auto`) or
//! anything that reads `artiscan scan` output.

use super::report::Filter;
use super::store;
use crate::output::{AggregateRecord, EvidenceRecord, VerdictRecord, write_jsonl};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::io::Write;

/// Export formats (one for now).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Jsonl,
}

#[derive(Debug, Default)]
pub(crate) struct ExportCounts {
    pub artifacts: u64,
    pub evidence: u64,
    pub aggregates: u64,
    pub verdicts: u64,
}

pub(crate) fn export(
    conn: &Connection,
    filter: &Filter,
    verdicts: bool,
    out: &mut dyn Write,
) -> anyhow::Result<ExportCounts> {
    let (cond, params) = filter.sql(conn)?;
    let paths: Vec<String> = conn
        .prepare(&format!(
            "SELECT a.path FROM artifacts a WHERE {cond} ORDER BY a.path"
        ))?
        .query_map(rusqlite::params_from_iter(params.iter()), |r| r.get("path"))?
        .collect::<Result<_, _>>()?;
    let mut counts = ExportCounts::default();
    let mut ev = conn.prepare(&format!(
        "SELECT {} FROM evidence WHERE path = ?1 ORDER BY seq",
        store::EVIDENCE_COLS
    ))?;
    let mut ag = conn.prepare(&format!(
        "SELECT {} FROM aggregates WHERE path = ?1 ORDER BY seq",
        store::AGGREGATE_COLS
    ))?;
    let mut buf = Vec::with_capacity(1 << 16);
    for path in &paths {
        counts.artifacts += 1;
        // Evidence and aggregates share the scan's sequence: interleave them back.
        let mut records: Vec<(i64, Vec<u8>)> = Vec::new();
        let mut rows = ev.query([path])?;
        while let Some(r) = rows.next()? {
            let mut line = Vec::new();
            write_jsonl(
                &mut line,
                &EvidenceRecord::from(&store::evidence_from_row(path, r)?),
            );
            records.push((r.get("seq")?, line));
            counts.evidence += 1;
        }
        let mut rows = ag.query([path])?;
        while let Some(r) = rows.next()? {
            let mut line = Vec::new();
            write_jsonl(
                &mut line,
                &AggregateRecord::from(&store::aggregate_from_row(conn, path, r)?),
            );
            records.push((r.get("seq")?, line));
            counts.aggregates += 1;
        }
        records.sort_by_key(|(seq, _)| *seq);
        for (_, line) in records {
            buf.extend_from_slice(&line);
        }
        write_jsonl(&mut buf, &store::coverage_record(conn, path)?);
        if buf.len() > 1 << 20 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    if verdicts {
        counts.verdicts = export_verdicts(conn, &cond, &params, &mut buf)?;
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(counts)
}

fn export_verdicts(
    conn: &Connection,
    cond: &str,
    params: &[rusqlite::types::Value],
    buf: &mut Vec<u8>,
) -> anyhow::Result<u64> {
    let descriptions: BTreeMap<String, String> = conn
        .prepare("SELECT check_id, description FROM checks")?
        .query_map([], |r| Ok((r.get("check_id")?, r.get("description")?)))?
        .collect::<Result<_, _>>()?;
    // The store has no column for the verifier's check numbers: they come
    // from the check files kept with each fingerprint, the latest winning.
    let mut checklist: BTreeMap<String, u8> = BTreeMap::new();
    let sets: Vec<(String, String)> = conn
        .prepare("SELECT checks, params FROM fingerprints ORDER BY created_at")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (checks, params) in sets {
        if let Ok(set) = super::CheckSet::from_stored(&checks, &params) {
            for c in set.checks {
                if let Some(n) = c.checklist {
                    checklist.insert(c.id, n);
                }
            }
        }
    }
    let mut stmt = conn.prepare(&format!(
        "WITH sel AS (SELECT a.path, a.run_dir FROM artifacts a WHERE {cond})
         SELECT {} FROM verdicts v
         WHERE v.path IN (SELECT path FROM sel) OR (v.path IS NULL AND v.run_dir IN (SELECT run_dir FROM sel))
         ORDER BY v.check_id, v.scope_name",
        store::VERDICT_COLS
    ))?;
    let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
    let mut n = 0;
    while let Some(r) = rows.next()? {
        let check: String = r.get("check_id")?;
        let description = descriptions.get(&check).map_or("", String::as_str);
        let mut v = store::verdict_from_row(r, description)?;
        v.checklist = checklist.get(&check).copied();
        write_jsonl(buf, &VerdictRecord::from(&v));
        n += 1;
    }
    Ok(n)
}
