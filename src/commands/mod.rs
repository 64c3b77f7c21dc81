//! The commands behind the CLI, callable without a process.

pub mod audit;
pub mod check;
pub mod cite;
pub mod diff;
pub mod grep;
pub mod ls;
pub mod packs;
pub mod scan;
pub mod show;

use crate::limits::ReadLimits;

/// What a command found, for the exit code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    pub found: bool,
    /// Any reported coverage error (damage, limits, unreadable inputs).
    pub errors: bool,
    /// An input that could not be read at all (`io`, `not_an_archive`).
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
    /// `*`, `?` and `[...]` stay inside one path component, `**` crosses `/`
    /// (gitignore's and rg's dialect, also that of pack `members` globs).
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

/// The progress bar of `output::progress` as the driver's observer, drawn
/// when `enabled` (and stderr is a terminal, or `ARTISCAN_PROGRESS=lines`).
pub(crate) struct Bar {
    enabled: bool,
    bar: std::sync::OnceLock<indicatif::ProgressBar>,
}

impl Bar {
    pub(crate) fn new(enabled: bool) -> Bar {
        Bar {
            enabled,
            bar: std::sync::OnceLock::new(),
        }
    }
}

impl crate::drive::Progress for Bar {
    fn shows_sizes(&self) -> bool {
        crate::output::progress::shown(self.enabled)
    }
    fn start(&self, total_bytes: u64, artifacts: usize) {
        let _ = self.bar.set(crate::output::progress::bar(
            self.enabled,
            total_bytes,
            artifacts,
        ));
    }
    fn advance(&self, size: u64, done: usize, of: usize) {
        if let Some(pb) = self.bar.get() {
            crate::output::progress::advance(pb, size, done, of);
        }
    }
    fn suspend(&self, print: &mut dyn FnMut()) {
        match self.bar.get() {
            Some(pb) => pb.suspend(print),
            None => print(),
        }
    }
    fn finish(&self) {
        if let Some(pb) = self.bar.get() {
            pb.finish_and_clear()
        }
    }
}

/// The JSON summary record of a run's tallies.
pub(crate) fn summary_record(
    stats: &crate::drive::Stats,
    elapsed_s: f64,
) -> crate::output::SummaryRecord {
    crate::output::SummaryRecord {
        artifacts: stats.artifacts,
        incomplete: stats.incomplete,
        members: stats.members,
        bytes: stats.bytes,
        matches: stats.matches,
        errors: stats.errors,
        rules: stats.rules.clone(),
        elapsed_s,
        ..crate::output::SummaryRecord::new()
    }
}

impl InputArgs {
    /// The read limits, with the progress bar's observer of bytes read.
    pub fn limits(&self) -> ReadLimits {
        let mut limits = self.limits.clone();
        limits.source.observer = Some(crate::output::progress::observer());
        limits
    }

    /// `-j`, or the number of cores, clamped to `1..=MAX_THREADS`.
    pub fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(crate::drive::default_threads)
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
