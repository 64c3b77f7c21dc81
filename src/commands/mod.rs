//! The commands behind the CLI, callable without a process.

pub mod audit;
pub mod check;
pub mod cite;
pub mod grep;
pub mod ls;
pub mod packs;
pub mod scan;
pub mod show;

use crate::limits::ReadLimits;
use crate::location::Location;
use crate::output::escape;
use std::io::{self, Write};

/// Prints the inputs that could not be walked (a missing path, an
/// unreadable folder), escaped, one line each, on stderr.
pub fn report_walk_errors(err: &mut dyn Write, errors: &[(String, io::Error)]) -> io::Result<()> {
    use crate::output::escape::text;
    for (path, e) in errors {
        writeln!(err, "artiscan: {}: {}", text(path), text(&e.to_string()))?;
    }
    Ok(())
}

/// What a command found, for the exit code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    pub found: bool,
    /// Any reported coverage error (damage, limits, unreadable inputs).
    pub errors: bool,
    /// An input that could not be read: see [`unreadable`].
    pub unreadable: bool,
}

impl Found {
    /// grep's convention: 0 found, 1 nothing found, 2 an input could not be
    /// read (whatever the others held, as grep and rg) or an error and
    /// nothing found. A damaged member alone does not hide matches.
    pub fn exit_code(self) -> i32 {
        match (self.found, self.errors, self.unreadable) {
            (_, _, true) => 2,
            (true, _, false) => 0,
            (false, false, false) => 1,
            (false, true, false) => 2,
        }
    }
}

/// An artifact, or a member, that could not be read at all (`io`: a file
/// that cannot be opened or read, an unreadable folder entry;
/// `not_an_archive`: a page saved in place of a download): grep's exit 2,
/// unlike damage inside an archive that was read.
pub fn unreadable(coverage: &crate::source::Coverage) -> bool {
    use crate::source::ErrorKind;
    coverage
        .errors
        .iter()
        .any(|e| matches!(e.kind, ErrorKind::Io | ErrorKind::NotAnArchive))
}

/// Most worker threads: more only cost memory (each worker holds its
/// artifact's buffers) and `-j 1000000` would abort creating them.
pub const MAX_THREADS: usize = 256;

/// Limits and threads shared by every command that reads artifacts. The
/// limit flags, their help and defaults are declared on the limits
/// structs themselves ([`ReadLimits`]), flattened in here.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// Worker threads (default: number of cores)
    #[arg(short = 'j', long = "threads")]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub limits: ReadLimits,
}

/// `-g/--member GLOB` for the commands that search (grep, scan, check).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MemberArgs {
    /// Read only members whose path matches GLOB; `!GLOB` leaves them out.
    /// Repeatable; the last glob that matches decides, as in rg -g. Matched
    /// against the member's path inside its innermost container
    /// (`logs/n1_agg_w0.out`, no `./`); a glob without `/` against its base
    /// name; a plain file by its file name; `.gz`/`.zst`/... looked through.
    /// Left-out members are not read: coverage lists them as `excluded`, and
    /// nothing is claimed absent from an artifact with one
    #[arg(
        short = 'g',
        long = "member",
        visible_alias = "glob",
        alias = "include",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub globs: Vec<String>,
}

impl MemberArgs {
    /// `limits` with the member globs set.
    pub fn apply(
        &self,
        mut limits: ReadLimits,
    ) -> Result<ReadLimits, crate::member_glob::MemberGlobError> {
        limits.source.members =
            crate::member_glob::MemberGlobs::new(&self.globs)?.map(std::sync::Arc::new);
        Ok(limits)
    }
}

/// Coverage errors worth a message and an error exit: all but `excluded`
/// (members the user left out with `-g` on purpose).
pub fn reported(e: &crate::source::MemberError) -> bool {
    e.kind != crate::source::ErrorKind::Excluded
}

/// Adds one artifact's coverage to a summary (`grep` and `scan`).
pub(crate) fn count_artifact(
    summary: &mut crate::output::SummaryRecord,
    coverage: &crate::source::Coverage,
) {
    summary.artifacts += 1;
    summary.members += coverage.members;
    summary.bytes += coverage.bytes;
    summary.errors += coverage.errors.iter().filter(|e| reported(e)).count() as u64;
    summary.incomplete += u64::from(!coverage.complete());
}

/// Errors of one kind shown per artifact on stderr; the coverage record
/// (JSON) lists them all.
const SHOWN_PER_KIND: usize = 20;

/// An artifact's coverage errors on stderr, escaped, at most
/// `SHOWN_PER_KIND` of each kind, then how many more there are (an
/// artifact past the record cap has one per member).
pub fn report_coverage_errors(
    err: &mut dyn Write,
    path: &str,
    coverage: &crate::source::Coverage,
) -> io::Result<()> {
    let mut shown: Vec<(crate::source::ErrorKind, usize)> = Vec::new();
    for e in coverage.errors.iter().filter(|e| reported(e)) {
        let n = match shown.iter_mut().find(|(k, _)| *k == e.kind) {
            Some((_, n)) => n,
            None => {
                shown.push((e.kind, 0));
                &mut shown.last_mut().expect("pushed").1
            }
        };
        *n += 1;
        if *n <= SHOWN_PER_KIND {
            let cite = Location::member_citation(path, &e.members);
            writeln!(
                err,
                "artiscan: {cite}: {:?}: {}",
                e.kind,
                escape::text(&e.message)
            )?;
        }
    }
    for (kind, n) in shown.into_iter().filter(|(_, n)| *n > SHOWN_PER_KIND) {
        writeln!(
            err,
            "artiscan: {}: {} more {kind:?} error(s) not shown; the coverage record lists them all",
            crate::location::escape(path),
            n - SHOWN_PER_KIND
        )?;
    }
    Ok(())
}

impl InputArgs {
    pub fn limits(&self) -> ReadLimits {
        self.limits.clone()
    }

    /// `-j`, or the number of cores, clamped to `1..=MAX_THREADS`.
    pub fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(crate::engine::default_threads)
            .clamp(1, MAX_THREADS)
    }

    /// The message for a `-j` that [`InputArgs::threads`] clamps.
    pub fn clamp_note(&self) -> Option<String> {
        let j = self.threads?;
        (j > MAX_THREADS).then(|| format!("-j {j} is more than {MAX_THREADS}: using {MAX_THREADS}"))
    }
}

/// The built-in check sets' names (`check --set` completes them).
pub fn check_set_names() -> Vec<&'static str> {
    crate::check::builtin_set_names()
}
