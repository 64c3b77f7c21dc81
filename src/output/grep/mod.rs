//! grep's printers: the lines `scan::grep` finds, printed as grep and rg
//! print them ([`standard`]: `citation:line:text`, context with `-`, `--`
//! between groups, `-o`, `-b`, `-0`, `-N`, `--column`, `--vimgrep`,
//! colour), as rg's JSON messages ([`rg`], `--json`), as artiscan's JSON
//! Lines records ([`records`], `--format jsonl`: `evidence` with `rule` =
//! "grep", `context`), or as a summary of the member ([`summary`]: `-c`,
//! `-l`, `-L`, `-q`).
//!
//! ripgrep's grep-printer is the model: the printer, not the searcher,
//! decides what a match means for the output (a line to print, or a count
//! or a name, which may end the member at its first match); the searcher
//! hands each line to it through [`GrepPrinter`], whose answer says whether
//! to read on.

mod records;
mod rg;
mod standard;
mod summary;

pub(crate) use summary::SummaryKind;

use super::grep_json::RgStats;
use super::shared::Spill;
use crate::location::Location;
use crate::scan::grep::{GrepMatcher, GrepOptions, GrepPrinter, Hit, Tally};
use std::io;

/// The member being printed: where it is and the output it goes to.
struct Member<'a> {
    path: &'a str,
    members: &'a [String],
    out: &'a mut dyn Spill,
    /// Its whole citation (`a.zip!x.tar.gz!server.log`).
    cite: String,
    /// What text output prints before `:line`: the citation, or with `-h`
    /// the member chain alone.
    shown: String,
}

/// One member's printer, chosen by the flags: an enum, not a boxed trait
/// object, as the searcher calls it once per line and the set is closed.
pub(crate) enum GrepPrint<'a> {
    Standard(standard::Standard<'a>),
    Records(records::Records<'a>),
    Rg(rg::Rg<'a>),
    Summary(summary::Summary<'a>),
}

impl<'a> GrepPrint<'a> {
    pub(crate) fn new(
        matcher: &'a GrepMatcher,
        opts: &'a GrepOptions,
        path: &'a str,
        members: &'a [String],
        out: &'a mut dyn Spill,
    ) -> Self {
        let member = Member {
            path,
            members,
            out,
            cite: Location::member_citation(path, members),
            shown: if opts.no_filename {
                Location::members_citation(members)
            } else {
                Location::member_citation(path, members)
            },
        };
        if let Some(kind) = SummaryKind::of(opts) {
            GrepPrint::Summary(summary::Summary::new(kind, opts, member))
        } else if opts.rg_json {
            GrepPrint::Rg(rg::Rg::new(matcher, opts, member))
        } else if opts.json {
            GrepPrint::Records(records::Records::new(member))
        } else {
            GrepPrint::Standard(standard::Standard::new(matcher, opts, member))
        }
    }

    /// The member is done, `bytes` of it searched: with `--json`, its
    /// `end` message and its stats for the summary.
    pub(crate) fn end(&mut self, bytes: u64) -> RgStats {
        match self {
            GrepPrint::Rg(p) => p.end(bytes),
            GrepPrint::Summary(p) => p.end(bytes),
            GrepPrint::Standard(_) | GrepPrint::Records(_) => RgStats::default(),
        }
    }
}

/// A printer of lines (standard, records, rg's JSON): a match and a context
/// line alike are printed, the member's output says when to stop reading;
/// only the summary printer decides per line.
trait LinePrinter {
    fn line(&mut self, hit: &Hit<'_>);
    /// Between lines: false once the output is gone.
    fn output_open(&mut self) -> bool;
}

impl<T: LinePrinter> GrepPrinter for T {
    fn matched(&mut self, hit: &Hit<'_>) -> io::Result<bool> {
        self.line(hit);
        Ok(true)
    }

    fn context(&mut self, hit: &Hit<'_>) -> io::Result<bool> {
        self.line(hit);
        Ok(true)
    }

    fn finish(&mut self, _: Tally) -> io::Result<()> {
        Ok(())
    }

    fn prints_lines(&self) -> bool {
        true
    }

    fn spill(&mut self) -> bool {
        self.output_open()
    }
}

/// Calls the chosen printer.
macro_rules! each {
    ($self:ident, $p:ident => $e:expr) => {
        match $self {
            GrepPrint::Standard($p) => $e,
            GrepPrint::Records($p) => $e,
            GrepPrint::Rg($p) => $e,
            GrepPrint::Summary($p) => $e,
        }
    };
}

impl GrepPrinter for GrepPrint<'_> {
    fn matched(&mut self, hit: &Hit<'_>) -> io::Result<bool> {
        each!(self, p => p.matched(hit))
    }

    fn context(&mut self, hit: &Hit<'_>) -> io::Result<bool> {
        each!(self, p => p.context(hit))
    }

    fn finish(&mut self, tally: Tally) -> io::Result<()> {
        each!(self, p => p.finish(tally))
    }

    fn prints_lines(&self) -> bool {
        each!(self, p => p.prints_lines())
    }

    fn spill(&mut self) -> bool {
        each!(self, p => p.spill())
    }
}
