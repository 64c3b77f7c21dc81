//! `artiscan cite CITATION`: reopen an artifact, print the cited line with
//! context, the artifact sha256 and the member byte offset; optionally
//! verify the quoted text and the artifact hash.

use crate::drive;
use crate::escape;
use crate::limits::ReadLimits;
use crate::lines::{Line, LineReader, LineSink, clean};
use crate::location::{self, Location};
use crate::output::{self, CiteRecord};
use crate::source::{self, Artifact, ArtifactKind, Coverage};
use std::io::Write;
use std::path::{Component, PathBuf};

/// Most lines of context `-C` prints on each side; larger values are
/// clamped (with a message) so that `-C 18446744073709551615` neither wraps
/// nor holds a whole member in memory.
pub const MAX_CONTEXT: usize = 10_000;

#[derive(Debug, Default, Clone)]
pub struct CiteOptions {
    pub context: usize,
    pub expect: Option<String>,
    pub sha256: Option<String>,
    pub root: Option<String>,
    pub json: bool,
}

struct Grab {
    target: u64,
    /// Lines kept before and after the target.
    context: usize,
    after_context: usize,
    before: Vec<(u64, Vec<u8>)>,
    hit: Option<(u64, Vec<u8>)>,
    after: Vec<(u64, Vec<u8>)>,
    scratch: Vec<u8>,
}

impl LineSink for Grab {
    fn line(&mut self, l: &Line<'_>) -> bool {
        let context = self.context as u64;
        let after = self.after_context as u64;
        if l.number.saturating_add(context) < self.target {
            return true;
        }
        let text = clean(l.raw, &mut self.scratch).to_vec();
        if l.number < self.target {
            self.before.push((l.number, text));
        } else if l.number == self.target {
            self.hit = Some((l.offset, text));
        } else {
            self.after.push((l.number, text));
        }
        l.number < self.target.saturating_add(after)
    }
}

/// Whether the members a citation names are `found`: tar names are cited as
/// the archive spells them (`./sweep.log`), and a citation written with or
/// without the `./` names the same member.
pub fn same_members(cited: &[String], found: &[String]) -> bool {
    fn bare(mut m: &str) -> &str {
        while let Some(rest) = m.strip_prefix("./") {
            m = rest;
        }
        m
    }
    cited.len() == found.len() && cited.iter().zip(found).all(|(a, b)| bare(a) == bare(b))
}

/// The artifact file a citation's path names (inside `root` when given),
/// or `None` after saying on `err` why there is none.
pub fn open_artifact(
    path: &str,
    root: Option<&str>,
    err: &mut dyn Write,
) -> std::io::Result<Option<(PathBuf, Artifact)>> {
    let shown = location::escape(path);
    let file = match resolve(path, root) {
        Ok(f) => f,
        Err(why) => {
            writeln!(err, "artiscan: {shown}: {}", escape::text(&why))?;
            return Ok(None);
        }
    };
    if !file.is_file() {
        writeln!(err, "artiscan: {shown}: no such artifact")?;
        return Ok(None);
    }
    let artifact = Artifact {
        path: path.to_string(),
        kind: ArtifactKind::File(file.clone()),
    };
    Ok(Some((file, artifact)))
}

/// Where the citation's path is opened.
///
/// Without `root`: as given, like any file argument (relative to the
/// current folder, absolute paths allowed): whoever runs `cite` on a
/// citation from someone else decides what it may open.
///
/// With `root`: only a file inside ROOT. The path (already percent-decoded)
/// has no `..`; a relative one is joined to ROOT, an absolute one (what
/// `scan /abs/run` cites) is taken as it is; both are canonicalized
/// (symlinks resolved) and the file must lie under ROOT. Nothing is
/// looked up in the current folder.
pub fn resolve(path: &str, root: Option<&str>) -> Result<PathBuf, String> {
    let path_buf = location::path_from_name(path);
    let Some(root) = root else {
        return Ok(path_buf);
    };
    let rel = path_buf.as_path();
    if path.is_empty() {
        return Err("the citation names no path".into());
    }
    if rel.components().any(|c| c == Component::ParentDir) {
        return Err("the path leaves --root (`..`)".into());
    }
    let base = std::fs::canonicalize(root).map_err(|e| format!("--root: {e}"))?;
    // `join` keeps an absolute path as it is; it must then resolve under
    // ROOT like any other.
    let file = std::fs::canonicalize(base.join(rel));
    let outside = if rel.is_absolute() {
        "the path is absolute and not inside --root"
    } else {
        "the path resolves outside --root (through a symlink)"
    };
    match file {
        Ok(file) if file.starts_with(&base) => Ok(file),
        Ok(_) => Err(outside.into()),
        // Whether a file outside ROOT exists is not told.
        Err(_) if rel.is_absolute() && !rel.starts_with(&base) && !rel.starts_with(root) => {
            Err(outside.into())
        }
        Err(_) => Err("no such artifact".into()),
    }
}

/// Returns the exit code: 0 confirmed, 1 the quote or hash does not match,
/// 2 the citation does not resolve.
pub fn run(
    citation: &str,
    o: &CiteOptions,
    limits: &ReadLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    // An aggregate's range `member:208..273` cites its first line and
    // prints the lines through the last.
    let Some((cited, range_end)) = Location::parse_range(citation) else {
        writeln!(
            err,
            "artiscan: {} is not a citation (path!member!member:line)",
            escape::text(citation)
        )?;
        return Ok(2);
    };
    let (path, members, line) = (cited.path.to_string(), cited.members.to_vec(), cited.line);
    if o.context > MAX_CONTEXT {
        writeln!(
            err,
            "artiscan: -C {} is more than {MAX_CONTEXT} lines: using {MAX_CONTEXT}",
            o.context
        )?;
    }
    let Some((file, artifact)) = open_artifact(&path, o.root.as_deref(), err)? else {
        return Ok(2);
    };
    let sha = drive::sha256_file(&file)?;
    let context = o.context.min(MAX_CONTEXT);
    let after_context = match range_end {
        Some(end) if end >= line => {
            let span = usize::try_from(end - line).unwrap_or(usize::MAX);
            if span > MAX_CONTEXT {
                writeln!(
                    err,
                    "artiscan: the range is more than {MAX_CONTEXT} lines: printing {MAX_CONTEXT}"
                )?;
            }
            span.min(MAX_CONTEXT).max(context)
        }
        Some(_) => {
            writeln!(
                err,
                "artiscan: {} is not a citation (the range ends before it starts)",
                escape::text(citation)
            )?;
            return Ok(2);
        }
        None => context,
    };
    let mut grab = Grab {
        target: line,
        context,
        after_context,
        before: Vec::new(),
        hit: None,
        after: Vec::new(),
        scratch: Vec::new(),
    };
    let mut found_member = false;
    let mut coverage = Coverage::default();
    let mut reader = LineReader::new(crate::lines::LineLimits {
        binary: true,
        ..limits.lines
    });
    // The member as spelled; failing that, with or without `./` (a second
    // walk, so that `x.log` beside `./x.log` still names `x.log`).
    for bare in [false, true] {
        coverage = Coverage::default();
        source::for_each_member(&artifact, &limits.source, &mut coverage, |leaf| {
            let hit = if bare {
                same_members(&members, leaf.members)
            } else {
                leaf.members == members.as_slice()
            };
            if !found_member && hit {
                found_member = true;
                reader.scan(leaf.reader, &mut grab)?;
            }
            Ok(())
        });
        if found_member {
            break;
        }
    }
    let Some((offset, text)) = grab.hit.take() else {
        let what = if found_member {
            format!("has no line {line}")
        } else {
            "is not in the artifact".into()
        };
        writeln!(
            err,
            "artiscan: {}: member {what}",
            Location::member_citation(&path, &members)
        )?;
        for e in &coverage.errors {
            writeln!(
                err,
                "artiscan: note: {}: {:?}: {}",
                Location::member_citation(&path, &e.members),
                e.kind,
                escape::text(&e.message)
            )?;
        }
        return Ok(2);
    };
    let (text, _) = crate::domain::line_text(&text);
    let expect_ok = o.expect.as_ref().map(|e| text.contains(e.as_str()));
    let sha256_ok = o.sha256.as_ref().map(|h| h.eq_ignore_ascii_case(&sha));
    let lossy = |v: Vec<(u64, Vec<u8>)>| {
        v.into_iter()
            .map(|(n, t)| (n, crate::domain::line_text(&t).0))
            .collect::<Vec<_>>()
    };
    let rec = CiteRecord {
        kind: CiteRecord::KIND,
        citation: citation.to_string(),
        sha256: Some(sha.clone()),
        location: Location {
            path: path.into(),
            members: members.into(),
            line,
            byte_offset: offset,
            column: None,
        },
        text,
        before: lossy(std::mem::take(&mut grab.before)),
        after: lossy(std::mem::take(&mut grab.after)),
        expect_ok,
        sha256_ok,
    };
    if o.json {
        let mut buf = Vec::new();
        output::write_jsonl(&mut buf, &rec);
        out.write_all(&buf)?;
    } else {
        // Names and lines are the artifact's: escaped, never raw.
        writeln!(
            out,
            "artifact: {}\nsha256:   {sha}\nmember:   {}\nline:     {line} (byte offset {offset})",
            escape::text(&file.display().to_string()),
            Location::members_citation(&rec.location.members)
        )?;
        for (n, t) in &rec.before {
            writeln!(out, "{n:>8}- {}", escape::text(t))?;
        }
        writeln!(out, "{line:>8}: {}", escape::text(&rec.text))?;
        for (n, t) in &rec.after {
            writeln!(out, "{n:>8}- {}", escape::text(t))?;
        }
    }
    out.flush()?;
    if sha256_ok == Some(false) {
        writeln!(err, "artiscan: artifact sha256 {sha} is not the cited one")?;
        return Ok(1);
    }
    if expect_ok == Some(false) {
        writeln!(
            err,
            "artiscan: the cited line does not contain the expected text"
        )?;
        return Ok(1);
    }
    Ok(0)
}
