//! Store writes: the one writer's sink ([`Commit`]: each artifact's rows
//! in batched transactions), the store's checks and slice, and judging the
//! run folders marked dirty from what the store holds. What to read and
//! which artifacts are due is the plan's business, in the parent module.

use super::*;

/// Where an audit's artifacts go, as scan's records go to a `RecordSink`:
/// each artifact's outcome, in input order, on the one thread that writes,
/// then [`AuditSink::finish`]. The store's sink is [`Commit`]; the tallies
/// and messages are the audit's own ([`take_all`](super::take_all)), so
/// another sink (a test's, a dry run) only does what it will with what it
/// is handed.
///
/// Not a `RecordSink`: the store takes rows made on the workers (evidence,
/// aggregates, verdicts, member chains) and outcomes that are no scan
/// (unchanged, not opened); making them from records on this one thread
/// would slow the audit down.
pub(crate) trait AuditSink {
    /// One artifact's outcome. An error stops the audit: nothing more is
    /// handed, and the sink is abandoned.
    fn artifact(&mut self, path: &str, outcome: &ArtifactWork) -> anyhow::Result<()>;
    /// Every artifact was handed.
    fn finish(&mut self) -> anyhow::Result<()>;
    /// The audit stopped at an error: drop what is not finished.
    fn abandon(&mut self);
}

/// The store's sink, the one writer: each artifact's rows (or, unchanged,
/// its new stat, hash time and run id) in transactions of a batch of
/// artifacts, each artifact whole in one.
pub(super) struct Commit<'a> {
    conn: &'a Connection,
    stamp: Stamp<'a>,
    /// The open transaction: since when, and how many artifacts it holds.
    tx_open: Option<(Instant, usize)>,
}

impl<'a> Commit<'a> {
    pub(super) fn new(conn: &'a Connection, fp: &'a store::FingerprintRow) -> Commit<'a> {
        Commit {
            conn,
            stamp: Stamp {
                tool_version: &fp.tool_version,
                pack_fingerprint: &fp.pack_fingerprint,
                fingerprint: &fp.fingerprint,
            },
            tx_open: None,
        }
    }
}

impl AuditSink for Commit<'_> {
    fn artifact(&mut self, path: &str, outcome: &ArtifactWork) -> anyhow::Result<()> {
        let conn = self.conn;
        match outcome {
            ArtifactWork::Aborted | ArtifactWork::Failed(_) => {}
            ArtifactWork::Unchanged {
                stat,
                hashed_ns,
                run_id,
            } => {
                if hashed_ns.is_some() || run_id.is_some() {
                    begin(conn, &mut self.tx_open)?;
                    store::touch(
                        conn,
                        path,
                        stat.size,
                        stat.mtime_ns,
                        *hashed_ns,
                        run_id.as_ref().map(|r| r.as_deref()),
                    )?;
                    self.tx_open.as_mut().expect("tx").1 += 1;
                }
            }
            ArtifactWork::Scanned(p) => {
                begin(conn, &mut self.tx_open)?;
                store::write_artifact(conn, p, &self.stamp)?;
                self.tx_open.as_mut().expect("tx").1 += 1;
            }
        }
        let full = self.tx_open.is_some_and(|(since, n)| {
            n >= BATCH_ARTIFACTS || since.elapsed().as_millis() >= BATCH_MS
        });
        if full {
            conn.execute_batch("COMMIT")?;
            self.tx_open = None;
        }
        Ok(())
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        if self.tx_open.take().is_some() {
            self.conn.execute_batch("COMMIT")?;
        }
        Ok(())
    }

    fn abandon(&mut self) {
        self.tx_open = None;
        let _ = self.conn.execute_batch("ROLLBACK");
    }
}

/// Records the slice a store holds (`meta.shard`, `I/N path|run`), which
/// `merge` holds its rows to. A store that already holds other artifacts
/// than the slice (another slice, an unsharded audit) declares none.
pub(super) fn declare_shard(conn: &Connection, shard: Option<Shard>) -> anyhow::Result<()> {
    let declared = store::meta(conn, "shard")?;
    let empty: bool = conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM artifacts)", [], |r| {
        r.get(0)
    })?;
    match shard.map(|s| s.to_meta()) {
        Some(now) if empty || declared.as_deref() == Some(now.as_str()) => {
            store::set_meta(conn, "shard", &now)?
        }
        _ => {
            conn.execute("DELETE FROM meta WHERE key = 'shard'", [])?;
        }
    }
    Ok(())
}

fn begin(conn: &Connection, tx: &mut Option<(Instant, usize)>) -> anyhow::Result<()> {
    if tx.is_none() {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        *tx = Some((Instant::now(), 0));
    }
    Ok(())
}

/// The current checks, for reports.
pub(super) fn write_checks(conn: &Connection, checks: &CheckSet) -> anyhow::Result<()> {
    conn.execute("DELETE FROM checks", [])?;
    for c in &checks.checks {
        conn.execute(
            "INSERT OR REPLACE INTO checks VALUES (?1, ?2, ?3, ?4)",
            params![c.id, c.description, c.rule, c.scope.as_str()],
        )?;
    }
    Ok(())
}

#[derive(Debug, Default)]
pub(crate) struct Judged {
    /// Runs whose run-scope checks were judged.
    pub runs: u64,
    pub verdicts: Tally,
}

/// Judges, for every run folder marked dirty, from the stored evidence of
/// its files: the run-scope checks over the whole run, and the
/// artifact-scope checks of each folder artifact over its files (a file
/// that is an artifact of its own was judged when it was scanned). One
/// transaction per run.
pub(crate) fn judge_dirty_runs(conn: &Connection, checks: &CheckSet) -> anyhow::Result<Judged> {
    let of_scope = |scope: CheckScope| -> Vec<Check> {
        checks
            .checks
            .iter()
            .filter(|c| c.scope == scope)
            .cloned()
            .collect()
    };
    let (run_checks, artifact_checks) = (of_scope(CheckScope::Run), of_scope(CheckScope::Artifact));
    // What judging reads: a file of a folder artifact is judged with its
    // folder and its run, a file that is an artifact itself (judged when it
    // was scanned) with its run only. Reading back nothing else keeps a run
    // of env dumps from being held whole.
    let run_rules = crate::check::judged_rules(&run_checks);
    let folder_rules: HashSet<String> = crate::check::judged_rules(&artifact_checks)
        .union(&run_rules)
        .cloned()
        .collect();
    let runs: Vec<String> = conn
        .prepare("SELECT run_dir FROM dirty_runs ORDER BY run_dir")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut out = Judged::default();
    for run in runs {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        // Run verdicts and folder artifacts' verdicts: those without a file.
        conn.execute(
            "DELETE FROM verdicts WHERE path IS NULL AND run_dir = ?1",
            [&run],
        )?;
        let files: Vec<(String, Option<String>, String)> = conn
            .prepare(
                // Files found gone are history: judged without.
                "SELECT path, run_id, coalesce(unit, path) FROM artifacts WHERE run_dir = ?1 AND superseded_ns IS NULL ORDER BY path",
            )?
            .query_map([&run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        // Grouped by name through an index, so a run of many artifacts
        // costs linear time.
        let mut units: Vec<Unit> = Vec::new();
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, (_, _, unit)) in files.iter().enumerate() {
            let u = *by_name.entry(unit.as_str()).or_insert_with(|| {
                units.push(Unit {
                    name: unit.clone(),
                    files: Vec::new(),
                });
                units.len() - 1
            });
            units[u].files.push(i);
        }
        let is_folder = |u: &Unit| !(u.files.len() == 1 && files[u.files[0]].0 == u.name);
        // A file artifact with an empty server log is judged again here,
        // where its twins (other artifacts of its point) are at hand, as
        // `check` judges it: decided by a twin's complete copy, or unknown
        // once no twin holds one (a twin gone makes the run dirty).
        let mut twinned = vec![false; files.len()];
        for g in crate::check::twin::groups(&units) {
            for u in g {
                units[u].files.iter().for_each(|&f| twinned[f] = true);
            }
        }
        if !run_checks.is_empty() || !artifact_checks.is_empty() {
            let run_id = files.iter().find_map(|(_, r, _)| r.clone());
            let mut scans = Vec::with_capacity(files.len());
            for (i, (path, _, unit)) in files.iter().enumerate() {
                let file_unit = unit == path;
                let rules = if file_unit && !twinned[i] {
                    &run_rules
                } else {
                    &folder_rules
                };
                let mut scan = store::load_scan(conn, path, |rule: &str| rules.contains(rule))?;
                let empty = scan
                    .coverage
                    .errors
                    .iter()
                    .any(|e| e.kind == crate::source::ErrorKind::Empty);
                if file_unit && !twinned[i] && empty {
                    scan = store::load_scan(conn, path, |rule: &str| folder_rules.contains(rule))?;
                }
                scans.push((path.clone(), scan));
            }
            let rejudged = |u: usize| {
                is_folder(&units[u])
                    || crate::check::twin::has_empty(&units[u], &|i: usize| {
                        scans.get(i).map(|(p, s)| (p.as_str(), s))
                    })
            };
            let judged =
                judge_units_where(&artifact_checks, &scans, &units, &checks.params, rejudged)
                    .into_iter()
                    .map(|v| (v, CheckScope::Artifact))
                    .chain(
                        crate::check::load::judge_units(
                            &run_checks,
                            &scans,
                            &units,
                            &checks.params,
                        )
                        .into_iter()
                        .map(|v| (v, CheckScope::Run)),
                    );
            for (v, scope) in judged {
                out.verdicts.add(v.status);
                // A folder's verdict: its name, and the run id of its files.
                // A file artifact judged again keeps its path.
                let (name, run_id) = match scope {
                    CheckScope::Artifact => (
                        Some(v.scope.rsplit('/').next().unwrap_or(&v.scope)),
                        files
                            .iter()
                            .filter(|(_, _, unit)| *unit == v.scope)
                            .find_map(|(_, r, _)| r.as_deref()),
                    ),
                    CheckScope::Run => (None, run_id.as_deref()),
                };
                let path = files
                    .iter()
                    .find(|(p, _, unit)| {
                        scope == CheckScope::Artifact && *p == v.scope && *unit == v.scope
                    })
                    .map(|(p, _, _)| p.as_str());
                store::insert_verdict(conn, &VerdictRow::new(&v, scope), path, name, &run, run_id)?;
            }
        }
        conn.execute("DELETE FROM dirty_runs WHERE run_dir = ?1", [&run])?;
        conn.execute_batch("COMMIT")?;
        out.runs += u64::from(!run_checks.is_empty());
    }
    Ok(out)
}
