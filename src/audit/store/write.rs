//! Writing one artifact's results: the rows prepared from a scan (each
//! member chain interned once), written in the caller's transaction, and
//! the store's meta and fingerprint rows.

use crate::Location;
use crate::check::{CheckScope, Verdict};
use crate::domain::Stats;
use crate::names::NameFields;
use crate::scan::{ArtifactScan, Record};
use crate::source::Coverage;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::sync::Arc;

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
    /// None for a file of a folder artifact that could not be read.
    pub size: Option<i64>,
    pub mtime_ns: Option<i64>,
    pub sha256: Option<String>,
    pub scanned_ns: i64,
    pub scan_ms: i64,
    /// What the scan read: members, bytes, coverage errors and notes.
    pub coverage: Coverage,
    /// `coverage.notes` as stored.
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

impl Rows {
    /// Bytes the rows hold: their structs and their strings, which the
    /// quoted lines and captures of an env dump make most of it.
    pub(crate) fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
        let evidence: usize = self
            .evidence
            .iter()
            .map(|e| {
                size_of::<EvidenceRow>()
                    + e.rule.capacity()
                    + opt(&e.pack)
                    + e.text.capacity()
                    + opt(&e.captures)
                    + opt(&e.rank)
                    + opt(&e.id)
            })
            .sum();
        let aggregates: usize = self
            .aggregates
            .iter()
            .map(|a| {
                size_of::<AggregateRow>()
                    + a.rule.capacity()
                    + a.pack.capacity()
                    + a.group.capacity()
                    + a.stats.capacity()
                    + a.stats_exact.len() * size_of::<(String, Stats)>()
            })
            .sum();
        let verdicts: usize = self
            .verdicts
            .iter()
            .map(|v| size_of::<VerdictRow>() + v.reason.capacity() + v.evidence.capacity())
            .sum();
        let chains: usize = self
            .chains
            .iter()
            .map(|c| size_of::<ChainRow>() + c.members.capacity() + c.citation.capacity())
            .sum();
        evidence + aggregates + verdicts + chains
    }
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
                    first_line: a.first.line_number().unwrap_or(0) as i64,
                    last_line: a.last.line_number().unwrap_or(0) as i64,
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
    let by_path: Vec<&str> = crate::audit::tables::names(|t| t.by_path).collect();
    for t in by_path.iter().rev() {
        conn.prepare_cached(&format!("DELETE FROM {t} WHERE path = ?1"))?
            .execute([&p.path])?;
    }
    let f = &p.fields;
    let complete = p.coverage.complete();
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
            p.coverage.members as i64,
            p.coverage.bytes as i64,
            p.coverage.errors.len() as i64,
            p.notes_json
        ])?;
    let mut stmt = conn.prepare_cached("INSERT INTO member_chains VALUES (?1, ?2, ?3, ?4)")?;
    for c in &p.rows.chains {
        stmt.execute(params![p.path, c.chain, c.members, c.citation])?;
    }
    let mut stmt =
        conn.prepare_cached("INSERT INTO coverage_error_rows VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (i, (e, chain)) in p
        .coverage
        .errors
        .iter()
        .zip(&p.rows.error_chains)
        .enumerate()
    {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::store::{load_scan, memory_store};
    use crate::domain::Evidence;
    use crate::source::Coverage;
    use std::collections::BTreeMap;

    /// Records of one member share one chain row, and `load_scan` gives them
    /// one shared `members` again.
    #[test]
    fn a_chain_is_written_once_and_read_back_shared() {
        let members: Arc<[String]> = vec!["x".repeat(1000), "b.log".to_string()].into();
        let path: Arc<str> = "runs/a.zip".into();
        let cite: Arc<str> = Location::member_citation(&path, &members).into();
        let record = |line: u64, members: Arc<[String]>| {
            Record::Evidence(Box::new(Evidence {
                rule: "r".into(),
                pack: None,
                citation: crate::domain::Citation::new(cite.clone(), line),
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
            }))
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
        let c = memory_store();
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
        let back = load_scan(&c, "runs/a.zip", |_| true).unwrap();
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
                        serde_json::to_string(&crate::output::EvidenceRecord::from(&**e)).unwrap()
                    }
                    Record::Aggregate(_) => unreachable!(),
                })
                .collect()
        };
        assert_eq!(json(&back), json(&scan));
        // A row whose chain is missing is an error, not a record dropped.
        c.execute("DELETE FROM member_chains", []).unwrap();
        let e = load_scan(&c, "runs/a.zip", |_| true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("member_chains") && e.contains("column chain"),
            "{e}"
        );
    }
}
