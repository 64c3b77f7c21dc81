//! Reading results back: what an earlier audit knew of each artifact, and
//! rows as the records the scan and the checks wrote (never a default for
//! a value this build cannot read: [`RowError`]).

use super::write::FingerprintRow;
use crate::Location;
use crate::check::Verdict;
use crate::domain::{Aggregate, Evidence, Stats};
use crate::output::CoverageRecord;
use crate::scan::{ArtifactScan, Record};
use crate::source::{Coverage, ErrorKind, MemberError, Note};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

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
        // A file found gone and back is scanned again (its row made current).
        "SELECT path, size, mtime_ns, sha256, fingerprint, hashed_ns, run_id, unit, run_dir FROM artifacts WHERE superseded_ns IS NULL",
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
    citation: crate::domain::Citation,
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
        path: path.into(),
        members: key.json::<Vec<String>>(r, "members")?.into(),
        group: key.json(r, "group_key")?,
        count: key.count(r, "count")?,
        stats: stats.into_iter().collect(),
        first: r.get::<_, String>("first")?.into(),
        last: r.get::<_, String>("last")?.into(),
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
/// The stored scan of `path`: its coverage, and its records (evidence and
/// aggregates, in scan order) of the rules `keep` accepts, so that judging
/// a run holds only what its checks read.
pub(crate) fn load_scan(
    conn: &Connection,
    path: &str,
    keep: impl Fn(&str) -> bool,
) -> anyhow::Result<ArtifactScan> {
    let (sha256, coverage) = load_coverage(conn, path)?;
    let chains = load_chains(conn, path)?;
    let shared_path: Arc<str> = path.into();
    let mut stmt = conn.prepare_cached(
        "SELECT seq, rule, pack, chain, line, byte_offset, col, text, text_start, lossy, truncated, \
         captures, rank, id FROM evidence_rows WHERE path = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([path])?;
    // (seq, record): evidence and aggregates share the scan's sequence.
    let mut records: Vec<(i64, Record)> = Vec::new();
    while let Some(r) = rows.next()? {
        if !keep(r.get_ref("rule")?.as_str()?) {
            continue;
        }
        let seq: i64 = r.get("seq")?;
        let key = RowKey {
            table: "evidence_rows",
            path,
            seq: Some(seq),
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
        let citation = crate::domain::Citation::new(cite.clone(), key.count(r, "line")?);
        let e = evidence_record(&key, r, shared_path.clone(), members.clone(), citation)?;
        records.push((seq, Record::Evidence(Box::new(e))));
    }
    drop(rows);
    // Aggregates too, where the scan put them among the evidence: a check
    // judges them as `check` does (an aggregated rule's lines make a claim
    // apply).
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {AGGREGATE_COLS} FROM aggregates WHERE path = ?1 ORDER BY seq"
    ))?;
    let evidence = records.len();
    let mut rows = stmt.query([path])?;
    while let Some(r) = rows.next()? {
        if !keep(r.get_ref("rule")?.as_str()?) {
            continue;
        }
        let a = aggregate_from_row(conn, path, r)?;
        records.push((r.get("seq")?, Record::Aggregate(Box::new(a))));
    }
    if records.len() > evidence {
        records.sort_by_key(|(seq, _)| *seq);
    }
    Ok(ArtifactScan {
        records: records.into_iter().map(|(_, r)| r).collect(),
        coverage,
        sha256,
        counts: BTreeMap::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::store::memory_store;
    use crate::check::Status;
    use crate::source::NoteKind;

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
        let c = memory_store();
        coverage(&c, "long_name", "skipped");
        let (_, cov) = load_coverage(&c, "runs/a.zip").unwrap();
        assert_eq!(cov.notes[0].kind, NoteKind::LongName);
        assert_eq!(cov.errors[0].kind, ErrorKind::Skipped);
        assert_eq!(cov.errors[0].members, ["a.log"]);
    }

    #[test]
    fn an_unknown_error_kind_is_an_error_naming_the_row() {
        let c = memory_store();
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
        let c = memory_store();
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
        let v = verdict(&memory_store(), "not_applicable").unwrap();
        assert_eq!(v.status, Status::NotApplicable);
        assert_eq!(v.evidence[0].citation, "runs/a.zip!a.log:3");
        let e = verdict(&memory_store(), "maybe").unwrap_err().to_string();
        for part in ["table verdicts", "runs/a.zip", "column status", "maybe"] {
            assert!(e.contains(part), "{part} not in {e}");
        }
    }

    #[test]
    fn report_status_is_typed() {
        let c = memory_store();
        verdict(&c, "maybe").unwrap_err();
        let mut stmt = c.prepare("SELECT status FROM verdicts").unwrap();
        let mut rows = stmt.query([]).unwrap();
        let e = verdict_status(rows.next().unwrap().unwrap(), "runs/a.zip")
            .unwrap_err()
            .to_string();
        assert!(e.contains("column status") && e.contains("maybe"), "{e}");
        let c = memory_store();
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
        let c = memory_store();
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
