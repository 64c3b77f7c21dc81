//! `artiscan grep`: user patterns and grep's flags, matched line by line;
//! what matches goes to a [`GrepPrinter`] (`output::grep` prints it as
//! text, JSON Lines or a summary), as ripgrep's searcher hands matches to
//! its sink. The printer decides what `-c/-l/-L/-q` print and where they
//! stop; the searcher keeps matching, context and `-m`.

use crate::escape;
use crate::lines::{Line, LineSink, clean};
use crate::pack::prefilter::join::{Joins, first_join, join_bytes};
use regex::bytes::Regex;
use std::collections::VecDeque;

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
    /// `--format jsonl`: artiscan's records (evidence, context, count).
    pub json: bool,
    /// `--json`: rg's messages (begin, match, context, end, summary).
    pub rg_json: bool,
    pub color: bool,
    /// `-N`: text lines without the line number.
    pub no_line_number: bool,
    /// `--column`: the column (1-based byte) of the first match after the
    /// line number, as rg.
    pub column: bool,
    /// `--vimgrep`: one line per match, `citation:line:column:text`.
    pub vimgrep: bool,
    /// `--count-matches`: `-c` counts matches, not lines, as rg.
    pub count_matches: bool,
    /// `--stats`: totals after the results (text output).
    pub stats: bool,
    /// `--count` (rg's long flag): members with no match are not listed;
    /// `-c` lists them with 0, as GNU grep.
    pub omit_zero: bool,
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
    pub(crate) re: Regex,
    /// One case-sensitive literal without `-w`/`-x`: found with memmem,
    /// the same leftmost match as `re`, without a regex search's set-up
    /// and cache pool on every confirmed line (most of `grep -c -F INFO`
    /// on a log where most lines match).
    literal: Option<memchr::memmem::Finder<'static>>,
    /// When every pattern is a literal (and neither `-w` nor `-x` asks
    /// for boundaries that cleaning could make): the bytes a literal may
    /// have before a join (all its bytes but the last) and after one (all
    /// but the first), to tell which lines with escapes need cleaning.
    joins: Option<Box<Joins>>,
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
        let literal = |p: &String| o.fixed || regex::escape(p) == *p;
        let joins = (!o.word && !o.line && o.patterns.iter().all(literal)).then(|| {
            let lits: Vec<&str> = o.patterns.iter().map(String::as_str).collect();
            join_bytes(&lits, o.ignore_case)
        });
        let literal = match o.patterns.as_slice() {
            [p] if joins.is_some() && !insensitive => {
                Some(memchr::memmem::Finder::new(p.as_bytes()).into_owned())
            }
            _ => None,
        };
        Ok(GrepMatcher { re, literal, joins })
    }

    /// Whether the raw line surely matches once cleaned: the literal is in
    /// it where cleaning keeps it whole. `false` is "look at the cleaned
    /// line": a match split by escape sequences, or none at all.
    fn surely_matches_raw(&self, raw: &[u8]) -> bool {
        let Some(f) = &self.literal else {
            return false;
        };
        if f.needle().iter().any(|&b| b == 0x1b || b == b'\r') {
            return false;
        }
        f.find(raw).is_some_and(|at| {
            crate::pack::prefilter::join::kept_whole(raw, at, at + f.needle().len())
        })
    }

    /// The spans of the matches in a matching line (none with `-v`, nor
    /// in a context line).
    pub(crate) fn spans(
        &self,
        o: &GrepOptions,
        is_match: bool,
        text: &[u8],
    ) -> Vec<(usize, usize)> {
        if !is_match || o.invert {
            return Vec::new();
        }
        let found = self.re.find_iter(text).filter(|m| !m.is_empty());
        found.map(|m| (m.start(), m.end())).collect()
    }

    pub(crate) fn is_match(&self, line: &[u8]) -> bool {
        match &self.literal {
            Some(f) => f.find(line).is_some(),
            None => self.re.is_match(line),
        }
    }

    /// Start of the leftmost match in `hay`.
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match &self.literal {
            Some(f) => f.find(hay),
            None => self.re.find(hay).map(|m| m.start()),
        }
    }
}

/// What an earlier search of the raw bytes found, by member offset: a
/// search from a line start gives the leftmost match, so it still answers
/// for any later line start up to that match (`^` and `\b` see a line
/// start the same in either hay).
#[derive(Debug, Clone, Copy)]
enum Next {
    Unknown,
    Hit(u64),
    /// Searched up to here: no match.
    NoneBefore(u64),
}

impl Next {
    /// The index in `hay` (member offset `at`, a line start) of the first
    /// match in it, searching only when the last search does not tell.
    fn first(&mut self, matcher: &GrepMatcher, hay: &[u8], at: u64) -> Option<usize> {
        let end = at + hay.len() as u64;
        let known = match *self {
            Next::Hit(p) => p >= at,
            Next::NoneBefore(upto) => upto >= end,
            Next::Unknown => false,
        };
        if !known {
            *self = match matcher.find(hay) {
                Some(m) => Next::Hit(at + m as u64),
                None => Next::NoneBefore(end),
            };
        }
        match *self {
            Next::Hit(p) if p < end => Some((p - at) as usize),
            _ => None,
        }
    }
}

/// Bytes of cleaned lines searched in one piece.
const CLEANED_CHUNK: usize = 64 << 10;

/// The lines with escape sequences of a run of raw lines, each cleaned as
/// [`clean`] cleans the line the sink confirms on, joined by `\n`, so that
/// one search covers them all and each line is cleaned once.
#[derive(Debug, Default)]
struct Cleaned {
    /// Member offsets of the raw run: `[start, end)`.
    start: u64,
    end: u64,
    /// Per cleaned line: its raw line's member offset and where it starts
    /// in `text`.
    lines: Vec<(u64, usize)>,
    text: Vec<u8>,
    /// The last search: from line `.0` of `lines`, the first match is on
    /// line `.1` (`lines.len()`: none).
    searched: Option<(usize, usize)>,
}

impl Cleaned {
    /// Index in `hay` (member offset `at`) of the first line in
    /// `hay[from..until]` (whole lines) whose cleaned text may match.
    #[allow(clippy::too_many_arguments)]
    fn first(
        &mut self,
        re: &Regex,
        hay: &[u8],
        at: u64,
        mut from: usize,
        until: usize,
        max_line: usize,
        scratch: &mut Vec<u8>,
    ) -> Option<usize> {
        while from < until {
            let here = at + from as u64;
            if !(self.start..self.end).contains(&here) {
                self.fill(hay, at, from, until, max_line, scratch);
            }
            let i = self.lines.partition_point(|&(o, _)| o < here);
            let found = match self.searched {
                Some((s, f)) if s <= i && f >= i => f,
                _ => {
                    // A match past the last line's start is on the last line.
                    let f = match self.lines.get(i) {
                        Some(&(_, begin)) => {
                            re.find(&self.text[begin..]).map_or(self.lines.len(), |m| {
                                self.lines.partition_point(|l| l.1 <= begin + m.start()) - 1
                            })
                        }
                        None => self.lines.len(),
                    };
                    self.searched = Some((i, f));
                    f
                }
            };
            if let Some(&(o, _)) = self.lines.get(found) {
                let o = (o - at) as usize;
                return (o < until).then_some(o);
            }
            from = (self.end - at) as usize;
        }
        None
    }

    /// Cleans the lines with escapes of `hay[from..until]`, up to
    /// [`CLEANED_CHUNK`] bytes of them.
    fn fill(
        &mut self,
        hay: &[u8],
        at: u64,
        from: usize,
        until: usize,
        max_line: usize,
        scratch: &mut Vec<u8>,
    ) {
        self.lines.clear();
        self.text.clear();
        self.searched = None;
        self.start = at + from as u64;
        let mut p = from;
        while p < until && self.text.len() < CLEANED_CHUNK {
            let le = memchr::memchr(b'\n', &hay[p..until]).map_or(until, |j| p + j);
            // Cut where the reader cuts, so that the text is the one the
            // sink confirms on.
            let line = &hay[p..le.min(p.saturating_add(max_line))];
            if memchr::memchr(0x1b, line).is_some() {
                self.lines.push((at + p as u64, self.text.len()));
                let text = clean(line, scratch);
                self.text.extend_from_slice(text);
                self.text.push(b'\n');
            }
            p = le + 1;
        }
        self.end = at + p.min(until) as u64;
    }
}

/// One line grep hands its printer: a match, or context around one.
pub(crate) struct Hit<'a> {
    pub number: u64,
    /// Byte offset of the line in the member.
    pub offset: u64,
    /// The cleaned line.
    pub text: &'a [u8],
    pub is_match: bool,
    /// Longer than `--max-line`: `text` is its start.
    pub truncated: bool,
    /// With context (`-A/-B/-C`): lines were left out since the last line
    /// printed (text output marks it `--`, as grep does).
    pub after_gap: bool,
}

/// What a member's search counted, for its summary.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    /// Matching lines (with `-v`, lines that do not match).
    pub lines: u64,
    /// `--count-matches` without `-v`: the matches in them (else 0).
    pub matches: u64,
}

/// Where grep's findings go, as they are found: one per member (ripgrep's
/// `Sink`). `Ok(false)` from a line stops reading the member (the printer
/// has what it needs: `-l` at its first match); an error stops it too.
pub(crate) trait GrepPrinter {
    /// A matching line (with `-v`, one that does not match).
    fn matched(&mut self, hit: &Hit<'_>) -> std::io::Result<bool>;
    /// A context line (`-A/-B/-C`).
    fn context(&mut self, hit: &Hit<'_>) -> std::io::Result<bool>;
    /// The member is done.
    fn finish(&mut self, tally: Tally) -> std::io::Result<()>;
    /// Whether it prints lines; false for a summary, which needs no line's
    /// text, only whether it matched.
    fn prints_lines(&self) -> bool;
    /// Between lines: false once the output is gone (stop reading).
    fn spill(&mut self) -> bool;
}

/// Per-member grep state: matching, context and `-m`; lines go to the
/// printer.
pub(crate) struct GrepSink<'a> {
    pub matcher: &'a GrepMatcher,
    pub opts: &'a GrepOptions,
    pub printer: &'a mut dyn GrepPrinter,
    pub matches: u64,
    /// `--count-matches`: matches in the matching lines.
    occurrences: u64,
    /// `-m` reached: only trailing context is printed now.
    maxed: bool,
    scratch: Vec<u8>,
    /// The reader's cap on line length: lines are matched as cut.
    max_line: usize,
    /// The next match in the raw bytes, from an earlier search.
    raw: Next,
    /// Lines with escape sequences, cleaned, from an earlier search.
    cleaned: Cleaned,
    before: VecDeque<(u64, u64, Vec<u8>)>,
    after_left: usize,
    last_printed: u64,
    /// The number of the last line that matched: a later window of the
    /// same long line adds matches to `-o`/count-matches, not a line.
    last_hit: u64,
}

impl<'a> GrepSink<'a> {
    pub(crate) fn new(
        matcher: &'a GrepMatcher,
        opts: &'a GrepOptions,
        printer: &'a mut dyn GrepPrinter,
    ) -> Self {
        GrepSink {
            matcher,
            opts,
            printer,
            matches: 0,
            occurrences: 0,
            maxed: false,
            scratch: Vec::new(),
            max_line: usize::MAX,
            raw: Next::Unknown,
            cleaned: Cleaned::default(),
            before: VecDeque::new(),
            after_left: 0,
            last_printed: 0,
            last_hit: 0,
        }
    }

    fn every_line(&self) -> bool {
        self.opts.invert || self.opts.before > 0 || self.opts.after > 0
    }

    /// Hands a line to the printer: false when it says to stop.
    fn print(
        &mut self,
        number: u64,
        offset: u64,
        text: &[u8],
        role: Role,
        truncated: bool,
    ) -> bool {
        let context = self.opts.before > 0 || self.opts.after > 0;
        let hit = Hit {
            number,
            offset,
            text,
            is_match: role == Role::Match,
            truncated,
            after_gap: context && self.last_printed != 0 && number > self.last_printed + 1,
        };
        let go = match role {
            Role::Match => self.printer.matched(&hit),
            Role::Context => self.printer.context(&hit),
        };
        self.last_printed = number;
        go.unwrap_or(false)
    }

    /// Called once the member is done: a summary prints it (`-c` its
    /// count, `-L` the member if nothing matched).
    pub(crate) fn finish(&mut self) {
        let tally = Tally {
            lines: self.matches,
            matches: self.occurrences,
        };
        // The member's output is in memory: nothing to do on an error but
        // what a closed pipe does, stop writing.
        let _ = self.printer.finish(tally);
    }
}

impl LineSink for GrepSink<'_> {
    fn max_line(&mut self, max_line: usize) {
        self.max_line = max_line;
    }

    /// A long line is matched whole, window by window, as `check` reads
    /// it; with `-v` or context a line is judged by its first window.
    fn windows(&self) -> bool {
        !self.every_line()
    }

    fn candidate(&mut self, hay: &[u8], offset: u64) -> Option<usize> {
        if self.every_line() {
            return Some(0);
        }
        let m = self.raw.first(self.matcher, hay, offset);
        // Lines with escape sequences before the raw match are matched
        // cleaned: colour codes may split a match in the raw bytes.
        let upto = m.unwrap_or(hay.len());
        let Some(esc) = memchr::memchr(0x1b, &hay[..upto]) else {
            return m;
        };
        let from = memchr::memrchr(b'\n', &hay[..esc]).map_or(0, |j| j + 1);
        // The raw match's own line is visited anyway; without one, every
        // line is looked at, the last one too when no `\n` ends it.
        let until = match m {
            Some(_) => memchr::memrchr(b'\n', &hay[..upto]).map_or(0, |j| j + 1),
            None => hay.len(),
        };
        let max_line = self.max_line;
        if let Some(joins) = &self.matcher.joins {
            return first_join(hay, from, until, max_line, joins).or(m);
        }
        let re = &self.matcher.re;
        self.cleaned
            .first(re, hay, offset, from, until, max_line, &mut self.scratch)
            .or(m)
    }

    fn line(&mut self, line: &Line<'_>) -> bool {
        if self.opts.max_count == Some(0) {
            return false;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let go = self.judge(line, &mut scratch);
        self.scratch = scratch;
        go && self.printer.spill()
    }
}

impl GrepSink<'_> {
    /// Matches one line and hands it to the printer: false to stop reading
    /// the member.
    fn judge(&mut self, line: &Line<'_>, scratch: &mut Vec<u8>) -> bool {
        // A summary needs no text: a line whose raw match cleaning keeps is
        // not cleaned (most lines of a coloured log, for `-c INFO`).
        let counting = !self.opts.invert
            && self.opts.before == 0
            && self.opts.after == 0
            && !self.printer.prints_lines();
        let surely = counting && !self.maxed && self.matcher.surely_matches_raw(line.raw);
        let text = if surely {
            line.raw
        } else {
            clean(line.raw, scratch)
        };
        let hit = surely || (!self.maxed && self.matcher.is_match(text) != self.opts.invert);
        if hit && line.window > 0 && self.last_hit == line.number {
            // The line matched in an earlier window: only its further
            // matches count.
            if self.opts.count_matches && !self.opts.invert {
                let found = self.matcher.re.find_iter(text);
                let owned = found.filter(|m| !m.is_empty() && line.owns(m.start()));
                self.occurrences += owned.count() as u64;
            }
            return true;
        }
        if hit {
            self.last_hit = line.number;
            self.matches += 1;
            if self.opts.count_matches && !self.opts.invert {
                let found = self.matcher.re.find_iter(text);
                let owned = found.filter(|m| !m.is_empty() && line.owns(m.start()));
                self.occurrences += owned.count() as u64;
            }
            // A summary prints no context: the lines before stay unsent.
            if self.printer.prints_lines() {
                let before: Vec<_> = self.before.drain(..).collect();
                for (n, off, t) in before {
                    if n > self.last_printed {
                        self.print(n, off, &t, Role::Context, false);
                    }
                }
            }
            if !self.print(line.number, line.offset, text, Role::Match, line.truncated) {
                return false;
            }
            self.after_left = self.opts.after;
            if self.opts.max_count.is_some_and(|m| self.matches >= m) {
                self.maxed = true;
                if self.after_left == 0 || !self.printer.prints_lines() {
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
                return false;
            }
            if self.after_left > 0 && self.printer.prints_lines() {
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
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::{LineLimits, LineReader};
    use crate::output::grep::GrepPrint;

    /// The candidates of the build before: every line with an ESC byte,
    /// and the raw matches (the reference the fast path must equal).
    struct Before<'a>(GrepSink<'a>);

    impl LineSink for Before<'_> {
        fn candidate(&mut self, hay: &[u8], _offset: u64) -> Option<usize> {
            if self.0.every_line() {
                return Some(0);
            }
            let m = self.0.matcher.re.find(hay).map(|m| m.start());
            let upto = m.unwrap_or(hay.len());
            memchr::memchr(0x1b, &hay[..upto]).or(m)
        }
        fn windows(&self) -> bool {
            self.0.windows()
        }
        fn line(&mut self, line: &Line<'_>) -> bool {
            self.0.line(line)
        }
    }

    /// Coloured lines in the formats vLLM and LMCache print (a colour
    /// code around the severity, the logger and the source place), with the
    /// needles now and then split by a colour code, OSC and bare escapes,
    /// `\r` endings and a json-file record (left out with `json` false),
    /// escapes cut by the line's end (a bare ESC, an unterminated OSC and
    /// CSI) before a line that would complete a literal.
    fn coloured_log(seed: u64, n: usize, json: bool) -> Vec<u8> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let pieces: &[&[u8]] = &[
            b"\x1b[32;20m[2026-06-04 04:03:40,883] LMCache INFO:\x1b[0m Storing KV cache for 512 out of 512 tokens \x1b[3m(cache_engine.py:614:lmcache.v1.cache_engine)\x1b[0m",
            b"\x1b[1;36m(APIServer pid=312)\x1b[0;0m INFO 06-04 04:05:11 [loggers.py:127] Engine 000: Avg prompt throughput: 1520.3 tokens/s, Avg generation throughput: 41.2 tokens/s",
            b"\x1b[1;36m(EngineCore_DP0 pid=530)\x1b[0;0m INFO 06-04 04:05:12 [gpu_model_runner.py:2602] Model loading took 55.2 GiB",
            b"[2026-06-04 04:05:13 TP0] Decode batch, #running-req: 8, accept len: 3.12, gen throughput (token/s): 410.5",
            b"\x1b[33;20m[2026-06-04 04:05:14,002] LMCache WARNING:\x1b[0m accept\x1b[0m len split \x1b[3m(x.py:1:y)\x1b[0m",
            b"acc\x1b[1mept len: 2.0 glued by bold",
            b"accept\x1b]0;title\x07 len: osc-split",
            b"accept \x1b[31m\x1b[1mlen: two codes",
            b"ACCEPT\x1b[0m LEN upper",
            b"Avg prompt\x1b[0m throughput: split",
            b"plain line without colour\r",
            b"\x1b[0maccept len at the start",
            b"{\"log\":\"\\u001b[32mINFO\\u001b[0m accept len: 1.5\\n\",\"stream\":\"stdout\"}",
            b"trailing escape accept\x1b[",
            b"accept\x1b",
            b"accept\x1b]0;unterminated osc accept",
            b"\x1b[1m len: after a line cut in an escape",
            b" len: no escape at the start",
            b"accept\x1b]0;osc to ESC\x1b\\ len: st-ended",
            b"accept\x1b[1;",
            b"",
        ];
        let mut out = Vec::new();
        for _ in 0..n {
            let piece = pieces[rnd(pieces.len() as u64) as usize];
            if json || !piece.starts_with(b"{\"log\"") {
                out.extend_from_slice(piece);
                out.push(b'\n');
            }
        }
        out
    }

    fn run(opts: &GrepOptions, data: &[u8], max_line: usize, before: bool) -> (Vec<u8>, u64) {
        let matcher = GrepMatcher::new(opts).unwrap();
        let mut out: Vec<u8> = Vec::new();
        let members = vec!["m.log".to_string()];
        let limits = LineLimits {
            max_line,
            binary: false,
        };
        let mut printer = GrepPrint::new(&matcher, opts, "a", &members, &mut out);
        let sink = GrepSink::new(&matcher, opts, &mut printer);
        let matches = if before {
            let mut s = Before(sink);
            LineReader::new(limits).scan_slice(data, 0, 1, &mut s);
            s.0.finish();
            s.0.matches
        } else {
            let mut s = sink;
            LineReader::new(limits)
                .scan(&mut &data[..], &mut s)
                .unwrap();
            s.finish();
            s.matches
        };
        (out, matches)
    }

    /// Matching raw bytes and cleaning only candidates prints what
    /// cleaning every line with an escape printed, byte for byte.
    #[test]
    fn raw_search_equals_cleaning_every_coloured_line() {
        let cases: &[(&[&str], bool, bool, bool, bool)] = &[
            // patterns, fixed, ignore_case, word, line
            (&["accept len"], true, false, false, false),
            (&["accept len"], false, true, false, false),
            (
                &["Avg prompt throughput", "LMCache"],
                true,
                false,
                false,
                false,
            ),
            (&["accept len: [0-9.]+"], false, false, false, false),
            (&["len"], true, false, true, false),
            (&["plain line without colour"], true, false, false, true),
            (&["0m"], true, false, false, false),
            (&["t l"], true, true, false, false),
        ];
        for seed in 1..8 {
            let data = coloured_log(seed, 3000, seed % 2 == 0);
            for &(pats, fixed, ignore_case, word, line) in cases {
                for (count, json) in [(true, false), (false, false), (false, true)] {
                    // Lines within the cap: a longer line is read in
                    // windows, where an escape cut by a window's edge is
                    // not cleaned (see `Line::owns`), so the two paths may
                    // differ on it.
                    {
                        let max_line: usize = 1 << 20;
                        let opts = GrepOptions {
                            patterns: pats.iter().map(|p| p.to_string()).collect(),
                            fixed,
                            ignore_case,
                            word,
                            line,
                            count,
                            json,
                            ..GrepOptions::default()
                        };
                        let new = run(&opts, &data, max_line, false);
                        let old = run(&opts, &data, max_line, true);
                        assert_eq!(
                            new, old,
                            "{pats:?} seed {seed} count {count} cap {max_line}"
                        );
                    }
                }
            }
        }
    }

    /// Counting skips cleaning a line whose raw match cleaning keeps: the
    /// counts equal those of matching every cleaned line, with literals
    /// that escape sequences swallow a byte of (`\x1b[INFO`, `\x1bINFO`),
    /// hide in an OSC title, or split; and `-q`/`-l`/`-m` stop where they did.
    #[test]
    fn counting_without_cleaning_counts_the_cleaned_lines() {
        let pieces: &[&[u8]] = &[
            b"\x1b[32;20m[2026-06-04 04:03:40,883] LMCache INFO:\x1b[0m Storing KV",
            b"\x1b[INFO swallowed by a CSI final byte",
            b"\x1bINFO swallowed by a bare escape",
            b"\x1b]0;INFO\x07 in an OSC title",
            b"IN\x1b[1mFO split",
            b"INFO\r",
            b"INF\x1b[0mO\r",
            b"a carriage return INFO\r mid-line",
            b"\x1b[1mbold\x1b[0m then [0m kept",
            b"plain INFO 0m accept len: 3",
            b"{\"log\":\"\\u001b[32mINFO\\u001b[0m\\n\"}",
            b"no match here \x1b[0m",
            b"\x1b[0;36m(APIServer pid=1)\x1b[0;0m INFO accept\x1b[0m len: 2",
        ];
        let mut x = 99u64;
        let mut data = Vec::new();
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            data.extend_from_slice(pieces[(x % pieces.len() as u64) as usize]);
            data.push(b'\n');
        }
        for pat in ["INFO", "0m", "accept len", "len: ", "INFO\r", "[0m"] {
            // Lines within the cap (see raw_search_equals_cleaning_every_coloured_line).
            {
                let max_line: usize = 1 << 20;
                let m = GrepMatcher::new(&GrepOptions {
                    patterns: vec![pat.into()],
                    fixed: true,
                    ..GrepOptions::default()
                })
                .unwrap();
                let mut scratch = Vec::new();
                let want = data
                    .split(|&b| b == b'\n')
                    .take_while(|l| !l.is_empty())
                    .filter(|l| m.re.is_match(clean(l, &mut scratch)))
                    .count() as u64;
                assert!(want > 0 || max_line < 100, "{pat:?}");
                let count = |o: GrepOptions| run(&o, &data, max_line, false).1;
                let opts = |count, quiet, list, max_count| GrepOptions {
                    patterns: vec![pat.into()],
                    fixed: true,
                    count,
                    quiet,
                    files_with_matches: list,
                    max_count,
                    ..GrepOptions::default()
                };
                assert_eq!(
                    count(opts(true, false, false, None)),
                    want,
                    "{pat:?} {max_line}"
                );
                assert_eq!(count(opts(true, false, false, Some(7))), want.min(7));
                assert_eq!(count(opts(false, true, false, None)), want.min(1));
                assert_eq!(count(opts(false, false, true, None)), want.min(1));
                // The printing path agrees with the count.
                assert_eq!(count(opts(false, false, false, None)), want);
            }
        }
    }

    /// The memmem path of one literal finds what the regex finds, on every
    /// line and on the whole buffer; it is taken only where it can.
    #[test]
    fn one_literal_is_found_as_the_regex_finds_it() {
        let data = coloured_log(3, 2000, true);
        for (pat, fixed, ignore_case, word, literal) in [
            ("accept len", true, false, false, true),
            ("0m", true, false, false, true),
            ("a.b", true, false, false, true),
            ("", true, false, false, true),
            ("accept len", false, false, false, true),
            ("accept len", true, true, false, false),
            ("len", true, false, true, false),
            ("a.b", false, false, false, false),
        ] {
            let opts = GrepOptions {
                patterns: vec![pat.into()],
                fixed,
                ignore_case,
                word,
                ..GrepOptions::default()
            };
            let m = GrepMatcher::new(&opts).unwrap();
            assert_eq!(m.literal.is_some(), literal, "{pat:?}");
            for line in data.split(|&b| b == b'\n') {
                assert_eq!(m.is_match(line), m.re.is_match(line), "{pat:?} {line:?}");
                assert_eq!(m.find(line), m.re.find(line).map(|x| x.start()));
            }
            for at in [0, 1, 17, 1000] {
                let hay = &data[at..];
                assert_eq!(m.find(hay), m.re.find(hay).map(|x| x.start()), "{pat:?}");
            }
        }
    }

    /// Lines of one colour code each cost one look, not a search of the
    /// rest of the buffer each (that was quadratic): counted in lines
    /// cleaned, not time.
    #[test]
    fn coloured_lines_without_a_join_are_not_visited() {
        let line = b"\x1b[32;20m[2026-06-04 04:03:40,883] LMCache INFO:\x1b[0m Storing KV cache \x1b[3m(cache_engine.py:614)\x1b[0m\n";
        let data = line.repeat(5000);
        let opts = GrepOptions {
            patterns: vec!["accept len".into()],
            fixed: true,
            count: true,
            ..GrepOptions::default()
        };
        struct Visits<'a>(GrepSink<'a>, u64);
        impl LineSink for Visits<'_> {
            fn max_line(&mut self, n: usize) {
                self.0.max_line(n);
            }
            fn candidate(&mut self, hay: &[u8], offset: u64) -> Option<usize> {
                self.0.candidate(hay, offset)
            }
            fn line(&mut self, line: &Line<'_>) -> bool {
                self.1 += 1;
                self.0.line(line)
            }
        }
        let matcher = GrepMatcher::new(&opts).unwrap();
        let mut out: Vec<u8> = Vec::new();
        let members = vec![];
        let mut printer = GrepPrint::new(&matcher, &opts, "a", &members, &mut out);
        let mut s = Visits(GrepSink::new(&matcher, &opts, &mut printer), 0);
        LineReader::new(LineLimits::default()).scan_slice(&data, 0, 1, &mut s);
        assert_eq!((s.0.matches, s.1), (0, 0));
        // A regex is matched on the cleaned lines, each cleaned once.
        let opts = GrepOptions {
            patterns: vec!["accept len|Storing KV".into()],
            count: true,
            ..GrepOptions::default()
        };
        let matcher = GrepMatcher::new(&opts).unwrap();
        let mut printer = GrepPrint::new(&matcher, &opts, "a", &members, &mut out);
        let mut s = Visits(GrepSink::new(&matcher, &opts, &mut printer), 0);
        LineReader::new(LineLimits::default()).scan_slice(&data, 0, 1, &mut s);
        assert_eq!((s.0.matches, s.1), (5000, 5000));
    }
}
