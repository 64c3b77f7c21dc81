//! `artiscan audit`: batch audit of historical runs into an SQLite store
//! (see `crate::audit` and `docs/audit.md`).
//!
//! ```text
//! artiscan audit PATHS... --db FILE [--shard I/N|auto [--shard-by path|run]] [--listing FILE] [--set NAME] [--checks FILE] [--param K=V] [--pack P] [-j N]
//! artiscan audit plan --shard I/N|auto [--shard-by path|run] LISTING...
//! artiscan audit merge OUT IN...
//! artiscan audit report --db FILE [--format text|markdown|csv|jsonl] [--since X] [--where FIELD=VALUE]
//! artiscan audit export --db FILE [--format jsonl] [--verdicts] [--since X] [--where FIELD=VALUE]
//! ```

use crate::audit::export::ExportFormat;
use crate::audit::report::{Filter, ReportFormat};
use crate::audit::shard::{self as shards, ShardBy};
use crate::audit::{self, AuditOptions, CheckSet, Shard};
use crate::escape;
use crate::pack::compile::Selection;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Arguments of `artiscan audit` (and its subcommands).
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct AuditArgs {
    #[command(subcommand)]
    pub command: Option<AuditCommand>,
    /// Folders (recursive) or artifact files to audit
    #[arg(required_unless_present = "listings")]
    pub paths: Vec<String>,
    /// A file listing artifacts, one per line (`-`: stdin), e.g. `audit plan` output;
    /// `scheme://bucket/` is dropped from each (the object's path in the bucket)
    #[arg(long = "listing", value_name = "FILE")]
    pub listings: Vec<PathBuf>,
    /// The SQLite store (created if missing)
    #[arg(long, required = true)]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub shard: ShardArgs,
    /// A built-in check set (repeatable; default: inferencex)
    #[arg(long = "set")]
    pub sets: Vec<String>,
    /// A check file (repeatable), judged in addition to the sets
    #[arg(long = "checks")]
    pub checks: Vec<PathBuf>,
    /// Judge no built-in set (only --checks files)
    #[arg(long)]
    pub no_builtin_checks: bool,
    /// A parameter referenced as "@param:KEY" in check files
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// A TOML file of parameters, one `KEY = VALUE` each; --param wins
    #[arg(long = "params", value_name = "FILE")]
    pub param_files: Vec<PathBuf>,
    /// Extra pack file or folder
    #[arg(long = "pack")]
    pub packs: Vec<PathBuf>,
    /// Run id of every artifact (default: the nearest folder named by a number)
    #[arg(long)]
    pub run_id: Option<String>,
    /// Hash every artifact, even when its size and modification time are unchanged
    #[arg(long)]
    pub rehash: bool,
    /// How folders map to artifacts, as in `check` (auto: by structure)
    #[arg(long, value_enum, default_value_t = crate::check::scope::Layout::Auto)]
    pub layout: crate::check::scope::Layout,
    #[command(flatten)]
    pub limits: super::InputArgs,
}

/// `--shard`, `--shard-by`, `--shard-count`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ShardArgs {
    /// Only slice I of N (1-based), by a hash of each artifact's path or run; `auto`: from
    /// the scheduler (Slurm array, Kubernetes Indexed Job, Cloud Batch, Cloud Run)
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<String>,
    /// What a slice is computed from: the artifact's path, or its run (a run's artifacts together)
    #[arg(long, value_enum, default_value = "path")]
    pub shard_by: ShardBy,
    /// The number of shards for --shard auto where the scheduler does not say (Kubernetes)
    #[arg(long, value_name = "N")]
    pub shard_count: Option<u64>,
}

impl ShardArgs {
    /// The shard, saying on `err` where `auto` found it.
    fn resolve(&self, err: &mut dyn Write) -> anyhow::Result<Option<Shard>> {
        let Some(arg) = &self.shard else {
            return Ok(None);
        };
        let (shard, said) = Shard::resolve(arg, self.shard_count, self.shard_by)?;
        if let Some(said) = said {
            writeln!(err, "artiscan: {said}")?;
        }
        Ok(Some(shard))
    }
}

/// The entries of listing files (`-`: stdin), in order.
fn read_listings(files: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for f in files {
        let bytes = if f.as_os_str() == "-" {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b)?;
            b
        } else {
            std::fs::read(f).map_err(|e| anyhow::anyhow!("listing {}: {e}", f.display()))?
        };
        let text = String::from_utf8_lossy(&bytes);
        out.extend(shards::listing_entries(&text).map(str::to_string));
    }
    Ok(out)
}

/// `--since` and `--where`: which artifacts a report or export covers.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FilterArgs {
    /// Runs with an id >= this, or artifact files modified on or after this date (YYYY-MM-DD)
    #[arg(long)]
    pub since: Option<String>,
    /// FIELD=VALUE on parsed name fields (kind, exp, precision, framework, tp, ep, dpa, disagg, spec,
    /// conc, runner, run_id, ...); VALUE may be a,b (any), a glob, or empty (null); repeatable (all hold)
    #[arg(long = "where", value_name = "FIELD=VALUE")]
    pub wheres: Vec<String>,
    /// Also files found gone since they were audited (deleted or moved: kept as history,
    /// marked superseded), and their verdicts
    #[arg(long)]
    pub history: bool,
}

impl FilterArgs {
    fn filter(&self) -> Filter {
        Filter {
            since: self.since.clone(),
            wheres: self.wheres.clone(),
            history: self.history,
        }
    }
}

#[derive(clap::Subcommand, Debug)]
pub enum AuditCommand {
    /// Print the entries of a listing (one artifact path or object name per line) that a
    /// shard owns, to download only those
    Plan {
        /// Listing files (`-`: stdin)
        #[arg(required = true)]
        listings: Vec<PathBuf>,
        #[command(flatten)]
        shard: ShardArgs,
    },
    /// Combine stores (e.g. shards) into OUT; idempotent
    Merge {
        /// The store to merge into (created if missing)
        out: PathBuf,
        /// Stores to merge from
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Expect the N shards of one audit: refuse inputs that declare no slice of N, and
        /// fail (exit 2) when a slice is missing
        #[arg(long, value_name = "N")]
        shards: Option<u64>,
    },
    /// Pass/fail/unknown per run and per check, failing artifacts with their first citation
    Report {
        /// The SQLite store to report on
        #[arg(long)]
        db: PathBuf,
        /// Output format (default: text on a terminal, else jsonl)
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        #[command(flatten)]
        filter: FilterArgs,
    },
    /// The stored evidence in the scan's JSON Lines format
    Export {
        /// The SQLite store to export
        #[arg(long)]
        db: PathBuf,
        #[arg(long, value_enum, default_value = "jsonl")]
        format: ExportFormat,
        /// Also write verdict records (after the evidence)
        #[arg(long)]
        verdicts: bool,
        #[command(flatten)]
        filter: FilterArgs,
    },
}

pub fn run(args: AuditArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    match args.command {
        Some(AuditCommand::Merge {
            out: target,
            inputs,
            shards,
        }) => {
            let s = audit::merge::merge(&target, &inputs, shards, err)?;
            if !s.missing.is_empty() {
                let list: Vec<String> = s
                    .missing
                    .iter()
                    .map(|i| format!("{i}/{}", shards.unwrap_or(0)))
                    .collect();
                writeln!(
                    err,
                    "artiscan: no input holds shard {}: their artifacts are not in {}",
                    list.join(", "),
                    target.display()
                )?;
            }
            writeln!(
                err,
                "audit merge: {} inputs: {} artifacts taken, {} already present; {} refused; {} runs judged; {}",
                s.inputs,
                s.taken,
                s.kept,
                s.refused.len(),
                s.judged.runs,
                target.display()
            )?;
            Ok(if s.refused.is_empty() && s.missing.is_empty() {
                0
            } else {
                2
            })
        }
        Some(AuditCommand::Report { db, format, filter }) => {
            let conn = audit::store::open_for_reading(&db)?;
            let report = audit::report::build(&conn, &db.display().to_string(), &filter.filter())
                .map_err(|e| audit::store::explain(e, &db))?;
            let format = format.unwrap_or(if std::io::stdout().is_terminal() {
                ReportFormat::Text
            } else {
                ReportFormat::Jsonl
            });
            audit::report::write(&report, format, out)?;
            Ok(0)
        }
        Some(AuditCommand::Export {
            db,
            format: ExportFormat::Jsonl,
            verdicts,
            filter,
        }) => {
            let conn = audit::store::open_for_reading(&db)?;
            audit::export::export(&conn, &filter.filter(), verdicts, out)
                .map_err(|e| audit::store::explain(e, &db))?;
            Ok(0)
        }
        Some(AuditCommand::Plan { listings, shard }) => {
            let Some(shard) = shard.resolve(err)? else {
                anyhow::bail!("audit plan needs --shard I/N or --shard auto");
            };
            plan(&listings, shard, out, err)
        }
        None => audit_paths(args, err),
    }
}

/// `audit plan`: the listing entries `shard` owns, streamed line by line
/// (a listing of millions of objects is never held whole).
fn plan(
    listings: &[PathBuf],
    shard: Shard,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    use std::io::BufRead;
    let (mut total, mut mine, mut refused) = (0u64, 0u64, 0u64);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let mut line = Vec::new();
    for f in listings {
        let mut reader: Box<dyn BufRead> = if f.as_os_str() == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            let file = std::fs::File::open(f)
                .map_err(|e| anyhow::anyhow!("listing {}: {e}", f.display()))?;
            Box::new(std::io::BufReader::with_capacity(1 << 16, file))
        };
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let Some(e) = shards::listing_entry(text.strip_suffix('\n').unwrap_or(&text)) else {
                continue;
            };
            total += 1;
            // Plan output is pasted into download commands and shown on
            // terminals: a name with control characters, bidi overrides or
            // invisible controls is not passed on, nor one that is not
            // UTF-8 (read lossily, it would name another object).
            let unsafe_char = e.chars().any(|c| c.is_control() || escape::is_unsafe(c));
            if unsafe_char || matches!(text, std::borrow::Cow::Owned(_)) {
                let why = if unsafe_char {
                    "control or invisible characters in the name"
                } else {
                    "the name is not UTF-8"
                };
                writeln!(
                    err,
                    "artiscan: listing entry {}: {why}; left out of every shard",
                    escape::text(&format!("{e:?}"))
                )?;
                refused += 1;
            } else if shard.contains(e) {
                out.write_all(e.as_bytes())?;
                out.write_all(b"\n")?;
                mine += 1;
            }
        }
    }
    out.flush()?;
    writeln!(
        err,
        "audit plan: shard {shard}: {mine} of {total} entries; {refused} refused"
    )?;
    Ok(if refused > 0 { 2 } else { 0 })
}

fn audit_paths(args: AuditArgs, err: &mut dyn Write) -> anyhow::Result<i32> {
    let Some(db) = args.db.clone() else {
        anyhow::bail!("audit needs --db FILE");
    };
    let mut sets = args.sets.clone();
    if sets.is_empty() && !args.no_builtin_checks {
        sets.push("inferencex".into());
    }
    let pairs = crate::check::load::param_pairs(&args.param_files, &args.params)?;
    let checks = CheckSet::load(&args.checks, &sets, &pairs)?;
    // Every built-in rule (evidence for SQL), plus extra packs; opt-in rules
    // where a check needs them (its rule, `within` or applicability), as
    // `check` selects them.
    let rules = crate::pack::load_rules(
        &args.packs,
        &Selection {
            with: crate::check::selected_rules(&checks.checks)
                .into_iter()
                .collect(),
            ..Selection::default()
        },
        crate::pack::Builtin::Included,
    )?;
    for c in &checks.checks {
        if rules.rule(&c.rule).is_none() {
            anyhow::bail!("check {}: no rule {:?} in the packs", c.id, c.rule);
        }
    }
    // As `check` does (`rules_for`): an unread member costs only the
    // claims whose rules could read it.
    crate::check::scope_reads(&checks.checks, &rules);
    // A listing names objects; each is audited at its path in the bucket.
    let listed = read_listings(&args.listings)?
        .iter()
        .map(|e| shards::object_path(e))
        .collect();
    let opts = AuditOptions {
        db,
        paths: args.paths.clone(),
        listed,
        shard: args.shard.resolve(err)?,
        run_id: args.run_id.clone(),
        rehash: args.rehash,
        layout: args.layout,
        threads: args.limits.threads(),
        limits: args.limits.limits(),
    };
    let summary = audit::audit(&opts, &rules, &checks, &super::Bar::new(true), err)?;
    writeln!(err, "{summary}")?;
    Ok(if summary.errors > 0 { 2 } else { 0 })
}
