//! `artiscan grep`: user patterns, grep's flags, text or JSON Lines.

use crate::lines::{Line, LineSink, clean};
use crate::location::Location;
use crate::output::shared::Spill;
use crate::output::{self, ContextRecord, EvidenceRecord};
use regex::bytes::Regex;
use std::collections::VecDeque;
use std::io::Write;

#[derive(Debug, Clone, Default)]
pub struct GrepOptions {
    pub patterns: Vec<String>,
    pub fixed: bool,
    pub ignore_case: bool,
    pub word: bool,
    pub invert: bool,
    pub count: bool,
    pub files_with_matches: bool,
    pub before: usize,
    pub after: usize,
    pub json: bool,
    pub color: bool,
}

/// The compiled patterns. Matching runs over whole buffers to find
/// candidates, then confirms on the cleaned line.
pub struct GrepMatcher {
    re: Regex,
}

impl GrepMatcher {
    pub fn new(o: &GrepOptions) -> Result<GrepMatcher, regex::Error> {
        let alts: Vec<String> = o
            .patterns
            .iter()
            .map(|p| if o.fixed { regex::escape(p) } else { p.clone() })
            .map(|p| format!("(?:{p})"))
            .collect();
        let mut pat = alts.join("|");
        if o.word {
            pat = format!(r"\b(?:{pat})\b");
        }
        // Multi-line with CRLF: `^`/`$` work the same in a buffer of lines
        // as on one cleaned line.
        let flags = if o.ignore_case { "(?mRi)" } else { "(?mR)" };
        let re = regex::bytes::RegexBuilder::new(&format!("{flags}{pat}"))
            .size_limit(64 << 20)
            .build()?;
        Ok(GrepMatcher { re })
    }

    pub fn is_match(&self, line: &[u8]) -> bool {
        self.re.is_match(line)
    }
}

/// `grep --json -c` (every member read) or `-l` (members with a match;
/// reading stops at the first, so `count` is 1): one record per member.
#[derive(serde::Serialize)]
pub struct CountRecord<'a> {
    /// Always "count".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `path!member!member` (no line).
    pub citation: String,
    pub path: &'a str,
    pub members: &'a [String],
    /// Matching lines (selected lines with `-v`).
    pub count: u64,
}

/// Per-member grep state; output goes into the artifact's buffer.
pub struct GrepSink<'a> {
    pub matcher: &'a GrepMatcher,
    pub opts: &'a GrepOptions,
    pub path: &'a str,
    pub members: &'a [String],
    pub out: &'a mut dyn Spill,
    pub matches: u64,
    scratch: Vec<u8>,
    before: VecDeque<(u64, u64, Vec<u8>)>,
    after_left: usize,
    last_printed: u64,
}

impl<'a> GrepSink<'a> {
    pub fn new(
        matcher: &'a GrepMatcher,
        opts: &'a GrepOptions,
        path: &'a str,
        members: &'a [String],
        out: &'a mut dyn Spill,
    ) -> Self {
        GrepSink {
            matcher,
            opts,
            path,
            members,
            out,
            matches: 0,
            scratch: Vec::new(),
            before: VecDeque::new(),
            after_left: 0,
            last_printed: 0,
        }
    }

    fn every_line(&self) -> bool {
        self.opts.invert || self.opts.before > 0 || self.opts.after > 0
    }

    fn location(&self, number: u64, offset: u64) -> Location {
        Location {
            path: self.path.to_string(),
            members: self.members.to_vec(),
            line: number,
            byte_offset: offset,
            column: None,
        }
    }

    fn print(&mut self, number: u64, offset: u64, text: &[u8], is_match: bool, truncated: bool) {
        let loc = self.location(number, offset);
        if self.opts.json {
            let (text, lossy) = output::line_text(text);
            if is_match {
                let rec = EvidenceRecord {
                    kind: "evidence",
                    rule: "grep".into(),
                    pack: None,
                    citation: loc.to_string(),
                    location: loc,
                    text,
                    lossy,
                    truncated,
                    captures: None,
                    rank: None,
                    id: None,
                };
                output::write_jsonl(self.out.buf(), &rec);
            } else {
                let rec = ContextRecord {
                    kind: "context",
                    citation: loc.to_string(),
                    location: loc,
                    text,
                    lossy,
                };
                output::write_jsonl(self.out.buf(), &rec);
            }
        } else {
            if (self.opts.before > 0 || self.opts.after > 0)
                && self.last_printed != 0
                && number > self.last_printed + 1
            {
                self.out.buf().extend_from_slice(b"--\n");
            }
            let sep = if is_match { b':' } else { b'-' };
            let matcher = self.matcher;
            output::text::citation_line(self.out.buf(), &loc, sep, text, self.opts.color, |t| {
                if is_match && !self.opts.invert {
                    matcher
                        .re
                        .find_iter(t)
                        .map(|m| (m.start(), m.end()))
                        .collect()
                } else {
                    Vec::new()
                }
            });
        }
        self.last_printed = number;
    }

    /// Called once the member is done: `-c` prints its count.
    pub fn finish(&mut self) {
        if self.opts.count {
            if self.opts.json {
                self.count_record();
            } else {
                let cite = Location::member_citation(self.path, self.members);
                let _ = writeln!(self.out.buf(), "{cite}:{}", self.matches);
            }
        }
    }

    /// `--json` with `-c` or `-l`: JSON records only, never plain lines.
    fn count_record(&mut self) {
        let rec = CountRecord {
            kind: "count",
            citation: Location::member_citation(self.path, self.members),
            path: self.path,
            members: self.members,
            count: self.matches,
        };
        output::write_jsonl(self.out.buf(), &rec);
    }
}

impl LineSink for GrepSink<'_> {
    fn candidate(&mut self, hay: &[u8], _offset: u64) -> Option<usize> {
        if self.every_line() {
            return Some(0);
        }
        let m = self.matcher.re.find(hay).map(|m| m.start());
        // Lines with escape sequences are always looked at: a match may be
        // split by colour codes in the raw bytes.
        let upto = m.unwrap_or(hay.len());
        memchr::memchr(0x1b, &hay[..upto]).or(m)
    }

    fn line(&mut self, line: &Line<'_>) -> bool {
        let mut scratch = std::mem::take(&mut self.scratch);
        let text = clean(line.raw, &mut scratch);
        let hit = self.matcher.is_match(text) != self.opts.invert;
        if hit {
            self.matches += 1;
            if self.opts.files_with_matches {
                if self.opts.json {
                    self.count_record();
                } else {
                    let cite = Location::member_citation(self.path, self.members);
                    let _ = writeln!(self.out.buf(), "{cite}");
                }
                self.scratch = scratch;
                return false;
            }
            if !self.opts.count {
                let before: Vec<_> = self.before.drain(..).collect();
                for (n, off, t) in before {
                    if n > self.last_printed {
                        self.print(n, off, &t, false, false);
                    }
                }
                self.print(line.number, line.offset, text, true, line.truncated);
            }
            self.after_left = self.opts.after;
        } else {
            if self.after_left > 0 && !self.opts.count {
                self.after_left -= 1;
                self.print(line.number, line.offset, text, false, line.truncated);
            } else if self.opts.before > 0 {
                if self.before.len() == self.opts.before {
                    self.before.pop_front();
                }
                self.before
                    .push_back((line.number, line.offset, text.to_vec()));
            }
        }
        self.scratch = scratch;
        self.out.spill()
    }
}
