//! `artiscan grep`: user patterns, grep's flags, text or JSON Lines.

use crate::lines::{Line, LineSink, clean};
use crate::location::Location;
use crate::output::escape;
use crate::output::shared::Spill;
use crate::output::{self, Citation, ContextRecord, CountRecord, EvidenceRecord};
use regex::bytes::Regex;
use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

/// What a printed line is: a match, or context around one (`-A`/`-B`/`-C`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Match,
    Context,
}

#[derive(Debug, Clone, Default)]
pub struct GrepOptions {
    pub patterns: Vec<String>,
    pub fixed: bool,
    pub ignore_case: bool,
    /// `-S`: case-insensitive unless a pattern has an upper-case letter.
    pub smart_case: bool,
    pub word: bool,
    /// `-x`: the pattern must match the whole (cleaned) line.
    pub line: bool,
    pub invert: bool,
    pub count: bool,
    pub files_with_matches: bool,
    /// `-L`: print members with no matching line.
    pub files_without_match: bool,
    /// `-o`: print each match, not the whole line (text output).
    pub only_matching: bool,
    /// `-q`: print nothing; stop a member at its first match.
    pub quiet: bool,
    /// `-m NUM`: stop a member after NUM matching lines.
    pub max_count: Option<u64>,
    /// `-h`: citations without the artifact path (`member!member:line`).
    pub no_filename: bool,
    pub before: usize,
    pub after: usize,
    /// `-b`: text lines show the byte offset in the member (of the match
    /// with `-o`), as rg.
    pub byte_offset: bool,
    /// `-0/--null`: a NUL after the citation instead of `:`, as rg.
    pub null: bool,
    pub json: bool,
    pub color: bool,
}

/// rg's smart case: a pattern "has case" when a literal in it (outside
/// escapes and classes like `\W`) is upper case. Patterns that do not parse
/// have none here; compiling them reports the error.
fn has_uppercase(pattern: &str) -> bool {
    use regex_syntax::ast::{Ast, ClassSetItem, Literal, Visitor};
    struct Upper(bool);
    impl Upper {
        fn see(&mut self, l: &Literal) {
            self.0 |= l.c.is_uppercase();
        }
    }
    impl Visitor for Upper {
        type Output = bool;
        type Err = ();
        fn finish(self) -> Result<bool, ()> {
            Ok(self.0)
        }
        fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
            if let Ast::Literal(l) = ast {
                self.see(l);
            }
            Ok(())
        }
        fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), ()> {
            match item {
                ClassSetItem::Literal(l) => self.see(l),
                ClassSetItem::Range(r) => {
                    self.see(&r.start);
                    self.see(&r.end);
                }
                _ => {}
            }
            Ok(())
        }
    }
    regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .ok()
        .and_then(|ast| regex_syntax::ast::visit(&ast, Upper(false)).ok())
        .unwrap_or(false)
}

/// The regex crate's message without the expression it was given (ours,
/// with flags and groups the user never wrote).
fn syntax_message(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(n) => format!("compiles to more than {n} bytes"),
        regex::Error::Syntax(s) => s
            .lines()
            .rev()
            .find(|l| l.starts_with("error:"))
            .map(|l| l.trim_start_matches("error:").trim().to_string())
            .unwrap_or_else(|| s.clone()),
        e => e.to_string(),
    }
}

/// A pattern that does not compile.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GrepError {
    #[error("bad pattern {pattern:?}: {message}")]
    Pattern { pattern: String, message: String },
}

/// The compiled patterns. Matching runs over whole buffers to find
/// candidates, then confirms on the cleaned line.
pub(crate) struct GrepMatcher {
    re: Regex,
}

impl GrepMatcher {
    /// Compiles the patterns; an error names the user's pattern, not the
    /// combined expression built from them.
    pub(crate) fn new(o: &GrepOptions) -> Result<GrepMatcher, GrepError> {
        let patterns: Vec<String> = if o.fixed {
            o.patterns.iter().map(|p| regex::escape(p)).collect()
        } else {
            o.patterns.clone()
        };
        let insensitive =
            o.ignore_case || (o.smart_case && !patterns.iter().any(|p| has_uppercase(p)));
        let flags = if insensitive { "(?mRi)" } else { "(?mR)" };
        let mut alts = Vec::with_capacity(patterns.len());
        for p in patterns {
            // Each pattern alone first, so that an error quotes it.
            if let Err(e) = regex::bytes::Regex::new(&format!("{flags}{p}")) {
                return Err(GrepError::Pattern {
                    pattern: escape::text(&p).into_owned(),
                    message: syntax_message(&e),
                });
            }
            alts.push(format!("(?:{p})"));
        }
        let mut pat = alts.join("|");
        if o.word {
            pat = format!(r"\b(?:{pat})\b");
        }
        if o.line {
            pat = format!(r"^(?:{pat})$");
        }
        // Multi-line with CRLF (`flags` above): `^`/`$` work the same in a
        // buffer of lines as on one cleaned line.
        let re = regex::bytes::RegexBuilder::new(&format!("{flags}{pat}"))
            .size_limit(64 << 20)
            .build()
            .map_err(|e| GrepError::Pattern {
                pattern: escape::text(&o.patterns.join(" | ")).into_owned(),
                message: syntax_message(&e),
            })?;
        Ok(GrepMatcher { re })
    }

    pub(crate) fn is_match(&self, line: &[u8]) -> bool {
        self.re.is_match(line)
    }
}

/// Per-member grep state; output goes into the artifact's buffer.
pub(crate) struct GrepSink<'a> {
    pub matcher: &'a GrepMatcher,
    pub opts: &'a GrepOptions,
    pub path: &'a str,
    pub members: &'a [String],
    pub out: &'a mut dyn Spill,
    pub matches: u64,
    /// Path, members and their citation, built once per member.
    shared: (Arc<str>, Arc<[String]>, Arc<str>),
    /// What text output prints before `:line`: the citation, or with `-h`
    /// the member chain alone.
    shown: String,
    /// `-m` reached: only trailing context is printed now.
    maxed: bool,
    scratch: Vec<u8>,
    before: VecDeque<(u64, u64, Vec<u8>)>,
    after_left: usize,
    last_printed: u64,
}

impl<'a> GrepSink<'a> {
    pub(crate) fn new(
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
            maxed: false,
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
            path: self.shared.0.clone(),
            members: self.shared.1.clone(),
            line: number,
            byte_offset: offset,
            column: None,
        }
    }

    fn print(&mut self, number: u64, offset: u64, text: &[u8], role: Role, truncated: bool) {
        let is_match = role == Role::Match;
        let loc = self.location(number, offset);
        if self.opts.json {
            let (text, lossy) = output::line_text(text);
            let citation = Citation::new(self.shared.2.clone(), number);
            if is_match {
                let rec = EvidenceRecord {
                    kind: EvidenceRecord::KIND,
                    rule: "grep".into(),
                    pack: None,
                    citation,
                    location: loc,
                    text: text.into(),
                    text_start: None,
                    lossy,
                    truncated,
                    captures: None,
                    rank: None,
                    id: None,
                };
                output::write_jsonl(self.out.buf(), &rec);
            } else {
                let rec = ContextRecord::new(loc, citation, text, lossy);
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
            let (opts, color) = (self.opts, self.opts.color);
            let head = |line_offset: u64| output::text::Head {
                cite: &self.shown,
                line: number,
                offset: opts.byte_offset.then_some(line_offset),
                sep,
                null: opts.null,
            };
            if is_match && opts.only_matching && !opts.invert {
                for m in matcher.re.find_iter(text).filter(|m| !m.is_empty()) {
                    // The match's offset: exact unless escape sequences
                    // were cleaned out of the line before it.
                    let head = head(offset + m.start() as u64);
                    let piece = &text[m.start()..m.end()];
                    output::text::citation_line(self.out.buf(), &head, piece, color, |t| {
                        vec![(0, t.len())]
                    });
                }
                self.last_printed = number;
                return;
            }
            let head = head(offset);
            output::text::citation_line(self.out.buf(), &head, text, color, |t| {
                if is_match && !opts.invert {
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

    /// Called once the member is done: `-c` prints its count, `-L` the
    /// member if nothing matched.
    pub(crate) fn finish(&mut self) {
        if self.opts.quiet {
            return;
        }
        if self.opts.files_without_match {
            if self.matches == 0 && self.opts.json {
                self.count_record();
            } else if self.matches == 0 {
                self.name_line();
            }
            return;
        }
        if self.opts.count {
            if self.opts.json {
                self.count_record();
            } else {
                let sep = if self.opts.null { '\0' } else { ':' };
                let _ = writeln!(self.out.buf(), "{}{sep}{}", self.shown, self.matches);
            }
        }
    }

    /// `-l`/`-L`: the member's citation, ended by `\n`, or a NUL with
    /// `--null` (as rg, for `xargs -0`).
    fn name_line(&mut self) {
        let end = if self.opts.null { 0 } else { b'\n' };
        let out = self.out.buf();
        out.extend_from_slice(self.shown.as_bytes());
        out.push(end);
    }

    /// `--json` with `-c` or `-l`: JSON records only, never plain lines.
    fn count_record(&mut self) {
        let rec = CountRecord {
            kind: CountRecord::KIND,
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
        if self.opts.max_count == Some(0) {
            return false;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let text = clean(line.raw, &mut scratch);
        let hit = !self.maxed && self.matcher.is_match(text) != self.opts.invert;
        if hit {
            self.matches += 1;
            if self.opts.quiet || self.opts.files_without_match {
                self.scratch = scratch;
                return false;
            }
            if self.opts.files_with_matches {
                if self.opts.json {
                    self.count_record();
                } else {
                    self.name_line();
                }
                self.scratch = scratch;
                return false;
            }
            if !self.opts.count {
                let before: Vec<_> = self.before.drain(..).collect();
                for (n, off, t) in before {
                    if n > self.last_printed {
                        self.print(n, off, &t, Role::Context, false);
                    }
                }
                self.print(line.number, line.offset, text, Role::Match, line.truncated);
            }
            self.after_left = self.opts.after;
            if self.opts.max_count.is_some_and(|m| self.matches >= m) {
                self.maxed = true;
                if self.after_left == 0 || self.opts.count {
                    self.scratch = scratch;
                    return false;
                }
            }
        } else {
            if self.maxed && self.after_left <= 1 {
                if self.after_left == 1 {
                    self.print(
                        line.number,
                        line.offset,
                        text,
                        Role::Context,
                        line.truncated,
                    );
                }
                self.scratch = scratch;
                return false;
            }
            if self.after_left > 0 && !self.opts.count {
                self.after_left -= 1;
                self.print(
                    line.number,
                    line.offset,
                    text,
                    Role::Context,
                    line.truncated,
                );
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
