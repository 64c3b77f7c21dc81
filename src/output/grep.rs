//! grep's printer: the lines `scan::grep` finds, printed as grep and rg
//! print them (`citation:line:text`, context with `-`, `--` between
//! groups, `-o`, `-b`, `-0`, `-N`, `--column`, `--vimgrep`, colour), as
//! rg's JSON messages (`--json`, in `grep_json`), or as artiscan's JSON
//! Lines records (`--format jsonl`: `evidence` with `rule` = "grep",
//! `context`, `count`).

use super::grep_json::{RgMember, RgStats};
use super::records::{ContextRecord, CountRecord, EvidenceRecord};
use super::shared::Spill;
use super::{text, write_jsonl};
use crate::domain::{Citation, Evidence, line_text};
use crate::location::Location;
use crate::scan::grep::{GrepMatcher, GrepOptions, GrepPrinter, Hit};
use std::io::Write;
use std::sync::Arc;

/// Prints one member's grep lines into its artifact's output.
pub(crate) struct GrepPrint<'a> {
    matcher: &'a GrepMatcher,
    opts: &'a GrepOptions,
    path: &'a str,
    members: &'a [String],
    out: &'a mut dyn Spill,
    /// Path, members and their citation, built once per member.
    shared: (Arc<str>, Arc<[String]>, Arc<str>),
    /// What text output prints before `:line`: the citation, or with `-h`
    /// the member chain alone.
    shown: String,
    /// `--json`: this member's rg messages.
    rg: Option<RgMember>,
}

impl<'a> GrepPrint<'a> {
    pub(crate) fn new(
        matcher: &'a GrepMatcher,
        opts: &'a GrepOptions,
        path: &'a str,
        members: &'a [String],
        out: &'a mut dyn Spill,
    ) -> Self {
        GrepPrint {
            matcher,
            opts,
            path,
            members,
            out,
            shared: (
                path.into(),
                members.into(),
                Location::member_citation(path, members).into(),
            ),
            shown: if opts.no_filename {
                Location::members_citation(members)
            } else {
                Location::member_citation(path, members)
            },
            rg: opts
                .rg_json
                .then(|| RgMember::new(Location::member_citation(path, members))),
        }
    }

    /// The member is done, `bytes` of it searched: with `--json`, its
    /// `end` message and its stats for the summary.
    pub(crate) fn end(&mut self, bytes: u64) -> RgStats {
        match &mut self.rg {
            Some(rg) => rg.end(self.out.buf(), bytes),
            None => RgStats::default(),
        }
    }

    /// The spans of the matches in a matching line (none with `-v`).
    fn spans(&self, is_match: bool, text: &[u8]) -> Vec<(usize, usize)> {
        if !is_match || self.opts.invert {
            return Vec::new();
        }
        let found = self.matcher.re.find_iter(text).filter(|m| !m.is_empty());
        found.map(|m| (m.start(), m.end())).collect()
    }

    /// `-l`/`-L`: the member's whole citation (as grep's `-l`, whatever
    /// `-h` says: a list of members without their artifact names nothing
    /// for a plain file), ended by `\n`, or a NUL with `--null` (as rg, for
    /// `xargs -0`).
    fn name_line(&mut self) {
        let end = if self.opts.null { 0 } else { b'\n' };
        let out = self.out.buf();
        out.extend_from_slice(self.shared.2.as_bytes());
        out.push(end);
    }

    /// `--json` with `-c` or `-l`: JSON records only, never plain lines.
    fn count_record(&mut self, matches: u64) {
        let rec = CountRecord {
            kind: CountRecord::KIND,
            citation: Location::member_citation(self.path, self.members),
            path: self.path,
            members: self.members,
            count: matches,
        };
        write_jsonl(self.out.buf(), &rec);
    }
}

impl GrepPrinter for GrepPrint<'_> {
    fn hit(&mut self, hit: &Hit<'_>) {
        let (number, offset, line) = (hit.number, hit.offset, hit.text);
        if self.rg.is_some() {
            let spans = self.spans(hit.is_match, line);
            let out = self.out.buf();
            if let Some(rg) = &mut self.rg {
                rg.line(out, hit.is_match, number, offset, line, &spans);
            }
            return;
        }
        let loc = Location {
            path: self.shared.0.clone(),
            members: self.shared.1.clone(),
            line: number,
            byte_offset: offset,
            column: None,
        };
        if self.opts.json {
            let (text, lossy) = line_text(line);
            let citation = Citation::new(self.shared.2.clone(), number);
            if hit.is_match {
                let rec = Evidence {
                    rule: "grep".into(),
                    pack: None,
                    citation,
                    location: loc,
                    text: text.into(),
                    text_start: None,
                    lossy,
                    truncated: hit.truncated,
                    captures: None,
                    rank: None,
                    id: None,
                };
                write_jsonl(self.out.buf(), &EvidenceRecord::from(&rec));
            } else {
                let rec = ContextRecord::new(loc, citation, text, lossy);
                write_jsonl(self.out.buf(), &rec);
            }
            return;
        }
        let opts = self.opts;
        if hit.after_gap {
            self.out.buf().extend_from_slice(b"--\n");
        }
        let sep = if hit.is_match { b':' } else { b'-' };
        let (re, color) = (&self.matcher.re, opts.color);
        let shown = &self.shown;
        let line_no = (!opts.no_line_number || opts.vimgrep).then_some(number);
        let head = |line_offset: u64, column: Option<u64>| text::Head {
            cite: shown,
            line: line_no,
            column,
            offset: opts.byte_offset.then_some(line_offset),
            sep,
            null: opts.null,
        };
        if hit.is_match && (opts.only_matching || opts.vimgrep) && !opts.invert {
            for m in re.find_iter(line).filter(|m| !m.is_empty()) {
                // The match's offset: exact unless escape sequences were
                // cleaned out of the line before it.
                let column = opts.vimgrep.then_some(m.start() as u64 + 1);
                if opts.vimgrep {
                    // rg's --vimgrep: the whole line, once per match.
                    let head = head(offset, column);
                    let span = (m.start(), m.end());
                    text::citation_line(self.out.buf(), &head, line, color, |_| vec![span]);
                    continue;
                }
                let head = head(offset + m.start() as u64, column);
                let piece = &line[m.start()..m.end()];
                text::citation_line(self.out.buf(), &head, piece, color, |t| vec![(0, t.len())]);
            }
            return;
        }
        let spans = self.spans(hit.is_match, line);
        // rg's --column: the first match's column; a context line has none.
        let column = opts
            .column
            .then(|| spans.first().map(|s| s.0 as u64 + 1))
            .flatten();
        let head = head(offset, column);
        text::citation_line(self.out.buf(), &head, line, color, |_| spans);
    }

    fn listed(&mut self, matches: u64) {
        if self.opts.json {
            self.count_record(matches);
        } else {
            self.name_line();
        }
    }

    fn finish(&mut self, matches: u64) {
        let opts = self.opts;
        if opts.quiet {
            return;
        }
        if opts.files_without_match {
            if matches == 0 {
                self.listed(0);
            }
            return;
        }
        if opts.count {
            if opts.omit_zero && matches == 0 {
                return;
            }
            if opts.json {
                self.count_record(matches);
            } else {
                // `-h` on a plain file leaves no member to name: the count
                // alone, as `grep -c -h`.
                if self.shown.is_empty() {
                    let _ = writeln!(self.out.buf(), "{matches}");
                } else {
                    let sep = if opts.null { '\0' } else { ':' };
                    let _ = writeln!(self.out.buf(), "{}{sep}{matches}", self.shown);
                }
            }
        }
    }

    fn spill(&mut self) -> bool {
        self.out.spill()
    }
}
