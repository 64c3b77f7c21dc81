//! `artiscan show ARTIFACT!member[!member...][:N | :A..B | :A..]`: print one
//! member, or a line range of it, like `tar -xO` piped to `sed -n A,Bp`,
//! bounded and escaped.

use super::cite::{open_artifact, same_members};
use crate::drive;
use crate::escape;
use crate::limits::ReadLimits;
use crate::lines::{Line, LineReader, LineSink};
use crate::location::Location;
use crate::output::{self, ShowRecord};
use crate::source::{self, Coverage};
use std::io::{self, Write};

/// Default `--max-lines`: the same bound as cite's ranges.
pub const DEFAULT_MAX_LINES: u64 = super::cite::MAX_CONTEXT as u64;
/// Default `--max-output`: 16 MiB of printed text.
pub const DEFAULT_MAX_OUTPUT: u64 = 16 << 20;

#[derive(Debug, Clone)]
pub struct ShowOptions {
    /// Most lines printed; past it the output is cut (exit 1).
    pub max_lines: u64,
    /// Most bytes of line text printed; past it the output is cut (exit 1).
    pub max_output: u64,
    /// `-n`: prefix each line with its number (text output).
    pub line_numbers: bool,
    /// As `cite --root`.
    pub root: Option<String>,
    pub json: bool,
}

impl Default for ShowOptions {
    fn default() -> Self {
        ShowOptions {
            max_lines: DEFAULT_MAX_LINES,
            max_output: DEFAULT_MAX_OUTPUT,
            line_numbers: false,
            root: None,
            json: false,
        }
    }
}

/// What `show` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShowSpec {
    pub path: String,
    pub members: Vec<String>,
    /// First line (1-based).
    pub first: u64,
    /// Last line, inclusive; `None`: to the end of the member.
    pub last: Option<u64>,
}

/// Parses `path!member!member[:N | :A..B | :A..]` with the components
/// percent-escaped as in citations (so a grep citation or an aggregate's
/// `:A..B` range pastes as is). A suffix that is not a line range is part
/// of the last name (`a.zip!x:y` is member `x:y`).
pub fn parse_spec(spec: &str) -> Option<ShowSpec> {
    let (head, first, last) = match spec.rsplit_once(':') {
        Some((head, range)) => match parse_range(range) {
            Some((a, b)) => (head, a, b),
            None => (spec, 1, None),
        },
        None => (spec, 1, None),
    };
    // Reuses the citation parser (and its unescaping) with a dummy line.
    let loc = Location::parse(&format!("{head}:1"))?;
    let (path, members) = (loc.path.to_string(), loc.members.to_vec());
    if path.is_empty() {
        return None;
    }
    Some(ShowSpec {
        path,
        members,
        first,
        last,
    })
}

/// `N`, `A..B` or `A..`; lines are 1-based and `B >= A`.
fn parse_range(s: &str) -> Option<(u64, Option<u64>)> {
    let num = |t: &str| -> Option<u64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
            .filter(|&n| n >= 1)
    };
    match s.split_once("..") {
        None => num(s).map(|n| (n, Some(n))),
        Some((a, "")) => num(a).map(|a| (a, None)),
        Some((a, b)) => {
            let (a, b) = (num(a)?, num(b)?);
            (b >= a).then_some((a, Some(b)))
        }
    }
}

/// Why printing stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    Lines,
    Bytes,
}

struct Printer<'a> {
    out: &'a mut dyn Write,
    spec: &'a ShowSpec,
    o: &'a ShowOptions,
    path: std::sync::Arc<str>,
    members: std::sync::Arc<[String]>,
    printed: u64,
    bytes: u64,
    last_line: u64,
    cut: Option<Cut>,
    long_lines: u64,
    buf: Vec<u8>,
    error: Option<io::Error>,
}

impl Printer<'_> {
    fn print(&mut self, l: &Line<'_>) -> io::Result<()> {
        // CRLF logs: the `\r` of the line end is not content. Any other
        // control (a `\r` progress bar, ANSI colour) is shown escaped.
        let raw = l.raw.strip_suffix(b"\r").unwrap_or(l.raw);
        self.buf.clear();
        if self.o.json {
            let (text, lossy) = crate::domain::line_text(raw);
            let location = Location {
                path: self.path.clone(),
                members: self.members.clone(),
                line: l.number,
                byte_offset: l.offset,
                column: None,
            };
            let rec = output::ContextRecord {
                kind: output::ContextRecord::KIND,
                citation: output::Citation::from(&location),
                location,
                text,
                lossy,
            };
            output::write_jsonl(&mut self.buf, &rec);
        } else {
            if self.o.line_numbers {
                self.buf
                    .extend_from_slice(format!("{}:", l.number).as_bytes());
            }
            escape::text_bytes(&mut self.buf, raw);
            self.buf.push(b'\n');
        }
        self.out.write_all(&self.buf)
    }
}

impl LineSink for Printer<'_> {
    fn line(&mut self, l: &Line<'_>) -> bool {
        if l.number < self.spec.first {
            return true;
        }
        if self.spec.last.is_some_and(|last| l.number > last) {
            return false;
        }
        if self.printed >= self.o.max_lines {
            self.cut = Some(Cut::Lines);
            return false;
        }
        let len = l.raw.len() as u64;
        if self.bytes.saturating_add(len) > self.o.max_output {
            self.cut = Some(Cut::Bytes);
            return false;
        }
        if let Err(e) = self.print(l) {
            self.error = Some(e);
            return false;
        }
        self.bytes += len;
        self.printed += 1;
        self.last_line = l.number;
        self.long_lines += u64::from(l.truncated);
        self.spec.last.is_none_or(|last| l.number < last)
    }
}

/// Prints the member or range. Exit codes: 0 everything asked for was
/// printed; 1 something was printed or the member was read, but not all
/// that was asked for (cut at `--max-lines`/`--max-output`, a line cut at
/// `--max-line`, or the range runs past the member's end); 2 an error (not
/// a spec, no such artifact or member, a container or binary member, the
/// member could not be read to the end of the range).
pub fn run(
    spec_text: &str,
    o: &ShowOptions,
    limits: &ReadLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let Some(spec) = parse_spec(spec_text) else {
        writeln!(
            err,
            "artiscan: {} is not ARTIFACT!member[!member...][:N|:A..B|:A..] (lines count from 1, B >= A)",
            escape::text(spec_text)
        )?;
        return Ok(2);
    };
    let Some((file, artifact)) = open_artifact(&spec.path, o.root.as_deref(), err)? else {
        return Ok(2);
    };
    let member_cite = Location::member_citation(&spec.path, &spec.members);
    let mut printer = Printer {
        out,
        spec: &spec,
        o,
        path: spec.path.as_str().into(),
        members: spec.members.clone().into(),
        printed: 0,
        bytes: 0,
        last_line: 0,
        cut: None,
        long_lines: 0,
        buf: Vec::new(),
        error: None,
    };
    let mut found = false;
    let mut container = false;
    let mut outcome = None;
    let mut read_error = None;
    let mut coverage = Coverage::default();
    // Binary members are refused below, not read as text.
    let mut reader = LineReader::new(limits.lines);
    // The member as spelled; failing that, with or without `./` (a second
    // walk, so that `x.log` beside `./x.log` still names `x.log`).
    for bare in [false, true] {
        coverage = Coverage::default();
        source::for_each_member(&artifact, &limits.source, &mut coverage, |leaf| {
            if found {
                return Ok(());
            }
            let n = spec.members.len();
            let same = |m: &[String]| {
                if bare {
                    same_members(&spec.members, m)
                } else {
                    m == spec.members.as_slice()
                }
            };
            if same(leaf.members) {
                found = true;
                match reader.scan(leaf.reader, &mut printer) {
                    Ok(oc) => outcome = Some(oc),
                    Err(e) => {
                        // Passed back so the walk records it where it happened.
                        read_error = Some(e.to_string());
                        return Err(e);
                    }
                }
            } else if leaf.members.len() > n && same(&leaf.members[..n]) {
                container = true;
            }
            Ok(())
        });
        if found || container {
            break;
        }
    }
    if let Some(e) = printer.error.take() {
        return Err(e.into());
    }
    let (printed, last_line, cut, long_lines) = (
        printer.printed,
        printer.last_line,
        printer.cut,
        printer.long_lines,
    );
    printer.out.flush()?;
    let out = printer.out;
    let note_errors = |err: &mut dyn Write| -> io::Result<()> {
        for e in &coverage.errors {
            writeln!(
                err,
                "artiscan: note: {}: {}: {}",
                Location::member_citation(&spec.path, &e.members),
                e.kind.as_str(),
                escape::text(&e.message)
            )?;
        }
        Ok(())
    };
    if !found {
        if container {
            writeln!(
                err,
                "artiscan: {member_cite}: is an archive, not a text member: see its members with `artiscan ls`"
            )?;
        } else {
            writeln!(
                err,
                "artiscan: {member_cite}: member is not in the artifact"
            )?;
            note_errors(err)?;
        }
        return Ok(2);
    }
    let mut reason = None;
    let mut code = 0;
    match (&outcome, &read_error) {
        (_, Some(e)) => {
            reason = Some(format!("reading stopped: {e}"));
            code = 2;
        }
        (Some(oc), None) if oc.binary => {
            reason = Some(
                "binary member (NUL in the first block): not printed; -a prints it escaped".into(),
            );
            code = 2;
        }
        _ => {}
    }
    if code == 0 {
        if let Some(c) = cut {
            let (flag, n) = match c {
                Cut::Lines => ("--max-lines", o.max_lines),
                Cut::Bytes => ("--max-output", o.max_output),
            };
            reason = Some(format!(
                "cut after line {last_line} ({printed} lines) at {flag} {n}: ask for a range (`:{}..`) or raise {flag}",
                last_line + 1
            ));
            code = 1;
        } else if long_lines > 0 {
            reason = Some(format!(
                "{long_lines} line(s) longer than --max-line {} printed up to the cap",
                limits.lines.max_line
            ));
            code = 1;
        } else if printed == 0 || spec.last.is_some_and(|l| last_line < l) {
            let lines = outcome.map_or(0, |o| o.lines);
            reason = Some(format!(
                "the member has {lines} line(s): printed {printed} of lines {}..{}",
                spec.first,
                spec.last.map_or(String::new(), |l| l.to_string())
            ));
            code = 1;
        }
    }
    if o.json {
        let rec = ShowRecord {
            kind: ShowRecord::KIND,
            citation: member_cite.clone(),
            path: spec.path.clone(),
            members: spec.members.clone(),
            sha256: drive::sha256_file(&file).ok(),
            first: spec.first,
            last: spec.last,
            lines: printed,
            complete: code == 0,
            reason: reason.clone(),
        };
        let mut buf = Vec::new();
        output::write_jsonl(&mut buf, &rec);
        out.write_all(&buf)?;
        out.flush()?;
    }
    if let Some(r) = &reason {
        writeln!(err, "artiscan: {member_cite}: {}", escape::text(r))?;
        if code == 2 {
            note_errors(err)?;
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_like_citations() {
        let s = parse_spec("a.zip!x.tar.gz!./logs/n_agg_w0.out:10..20").unwrap();
        assert_eq!(s.path, "a.zip");
        // Names as written: `./` is matched, not dropped, when the member is looked up.
        assert_eq!(s.members, ["x.tar.gz", "./logs/n_agg_w0.out"]);
        assert_eq!((s.first, s.last), (10, Some(20)));
        let s = parse_spec("a.zip!server.log:7").unwrap();
        assert_eq!((s.first, s.last), (7, Some(7)));
        let s = parse_spec("a.zip!server.log:7..").unwrap();
        assert_eq!((s.first, s.last), (7, None));
        let s = parse_spec("a.zip!server.log").unwrap();
        assert_eq!((s.first, s.last), (1, None));
        // A suffix that is no range belongs to the name.
        let s = parse_spec("a.zip!odd:name").unwrap();
        assert_eq!(s.members, ["odd:name"]);
        // Escapes as citations print them.
        let s = parse_spec("a%21b.zip!evil%0Aname:3").unwrap();
        assert_eq!(
            (s.path.as_str(), s.members[0].as_str()),
            ("a!b.zip", "evil\nname")
        );
    }

    #[test]
    fn bad_ranges_are_not_ranges() {
        assert_eq!(parse_range("0"), None);
        assert_eq!(parse_range("5..4"), None);
        assert_eq!(parse_range("..4"), None);
        assert_eq!(parse_range("x"), None);
        assert_eq!(parse_range("99999999999999999999999"), None);
        assert_eq!(parse_range("3..3"), Some((3, Some(3))));
    }
}
