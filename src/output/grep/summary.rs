//! A summary of each member instead of its lines: `-c`/`--count`/
//! `--count-matches` (its count), `-l` (its name if a line matched), `-L`
//! (its name if none did), `-q` (nothing: the exit code says). As in rg,
//! the summary kind is the printer's: it tells the searcher to stop at a
//! member's first match where that decides the summary.

use super::Member;
use crate::location::Location;
use crate::output::grep_json::{RgMember, RgStats};
use crate::output::records::CountRecord;
use crate::output::write_jsonl;
use crate::scan::grep::{GrepOptions, GrepPrinter, Hit, Tally};
use std::io::{self, Write};

/// What a member's summary is (rg's `SummaryKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SummaryKind {
    /// `-q`: nothing; the first match ends the member.
    Quiet,
    /// `-L` (and `--files`): the member's name when no line matched; the
    /// first match ends the member.
    PathWithoutMatch,
    /// `-l`: the member's name at its first match, which ends it.
    PathWithMatch,
    /// `-c`: the count of matching lines (of matches with
    /// `--count-matches`).
    Count,
}

impl SummaryKind {
    /// The summary the flags ask for, the first of `-q`, `-L`, `-l`, `-c`;
    /// None: lines are printed.
    pub(crate) fn of(o: &GrepOptions) -> Option<SummaryKind> {
        if o.quiet {
            Some(SummaryKind::Quiet)
        } else if o.files_without_match {
            Some(SummaryKind::PathWithoutMatch)
        } else if o.files_with_matches {
            Some(SummaryKind::PathWithMatch)
        } else if o.count {
            Some(SummaryKind::Count)
        } else {
            None
        }
    }
}

pub(crate) struct Summary<'a> {
    kind: SummaryKind,
    opts: &'a GrepOptions,
    member: Member<'a>,
    /// Matching lines seen.
    lines: u64,
    /// `--json`: rg's stats of the member (a summary prints no message).
    rg: Option<RgMember>,
}

impl<'a> Summary<'a> {
    pub(super) fn new(kind: SummaryKind, opts: &'a GrepOptions, member: Member<'a>) -> Self {
        let rg = opts.rg_json.then(|| RgMember::new(member.cite.clone()));
        Summary {
            kind,
            opts,
            member,
            lines: 0,
            rg,
        }
    }

    /// The member's stats for rg's summary (`--json`).
    pub(super) fn end(&mut self, bytes: u64) -> RgStats {
        match &mut self.rg {
            Some(rg) => rg.end(self.member.out.buf(), bytes),
            None => RgStats::default(),
        }
    }

    /// `-l`/`-L`: the member's whole citation (as grep's `-l`, whatever
    /// `-h` says: a list of members without their artifact names nothing
    /// for a plain file), ended by `\n`, or a NUL with `--null` (as rg, for
    /// `xargs -0`); with `--format jsonl` a count record.
    fn listed(&mut self, matches: u64) {
        if self.opts.json {
            self.count_record(matches);
            return;
        }
        let end = if self.opts.null { 0 } else { b'\n' };
        let out = self.member.out.buf();
        out.extend_from_slice(self.member.cite.as_bytes());
        out.push(end);
    }

    /// `--format jsonl` with `-c` or `-l`: JSON records only, never plain
    /// lines.
    fn count_record(&mut self, matches: u64) {
        let rec = CountRecord {
            kind: CountRecord::KIND,
            citation: Location::member_citation(self.member.path, self.member.members),
            path: self.member.path,
            members: self.member.members,
            count: matches,
        };
        write_jsonl(self.member.out.buf(), &rec);
    }
}

impl GrepPrinter for Summary<'_> {
    fn matched(&mut self, _: &Hit<'_>) -> io::Result<bool> {
        self.lines += 1;
        Ok(match self.kind {
            SummaryKind::Quiet | SummaryKind::PathWithoutMatch => false,
            SummaryKind::PathWithMatch => {
                self.listed(self.lines);
                false
            }
            SummaryKind::Count => true,
        })
    }

    fn context(&mut self, _: &Hit<'_>) -> io::Result<bool> {
        Ok(true)
    }

    fn finish(&mut self, tally: Tally) -> io::Result<()> {
        let opts = self.opts;
        let n = if opts.count_matches && !opts.invert {
            tally.matches
        } else {
            tally.lines
        };
        match self.kind {
            SummaryKind::Quiet => {}
            SummaryKind::PathWithoutMatch => {
                if n == 0 {
                    self.listed(0);
                }
            }
            // `-l` with `--count-matches` (which `-l` does not override)
            // prints the count after the name.
            SummaryKind::PathWithMatch | SummaryKind::Count => {
                if !opts.count || (opts.omit_zero && n == 0) {
                    return Ok(());
                }
                if opts.json {
                    self.count_record(n);
                } else if self.member.shown.is_empty() {
                    // `-h` on a plain file leaves no member to name: the
                    // count alone, as `grep -c -h`.
                    writeln!(self.member.out.buf(), "{n}")?;
                } else {
                    let sep = if opts.null { '\0' } else { ':' };
                    writeln!(self.member.out.buf(), "{}{sep}{n}", self.member.shown)?;
                }
            }
        }
        Ok(())
    }

    fn prints_lines(&self) -> bool {
        false
    }

    fn spill(&mut self) -> bool {
        self.member.out.spill()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary is the first of `-q`, `-L`, `-l`, `-c` given (the order
    /// the searcher stopped in before the printer decided); no summary
    /// flag prints lines.
    #[test]
    fn the_summary_is_the_first_of_q_l_and_c() {
        let o = |quiet, without, with, count| GrepOptions {
            quiet,
            files_without_match: without,
            files_with_matches: with,
            count,
            ..GrepOptions::default()
        };
        assert_eq!(SummaryKind::of(&o(false, false, false, false)), None);
        assert_eq!(
            SummaryKind::of(&o(true, true, true, true)),
            Some(SummaryKind::Quiet)
        );
        assert_eq!(
            SummaryKind::of(&o(false, true, true, true)),
            Some(SummaryKind::PathWithoutMatch)
        );
        // `-l --count-matches`: the name, then the count (see `finish`).
        assert_eq!(
            SummaryKind::of(&o(false, false, true, true)),
            Some(SummaryKind::PathWithMatch)
        );
        assert_eq!(
            SummaryKind::of(&o(false, false, false, true)),
            Some(SummaryKind::Count)
        );
    }
}
