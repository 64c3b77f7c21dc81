//! `artiscan cite CITATION`: reopen an artifact, print the cited line with
//! context, the artifact sha256 and the member byte offset; optionally
//! verify the quoted text and the artifact hash.

use crate::engine;
use crate::lines::{Line, LineReader, LineSink, clean};
use crate::location::Location;
use crate::output;
use crate::source::{self, Artifact, ArtifactKind, Coverage, Limits};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

#[derive(Debug, Default, Clone)]
pub struct CiteOptions {
    pub context: usize,
    pub expect: Option<String>,
    pub sha256: Option<String>,
    pub root: Option<String>,
    pub json: bool,
}

/// What `cite --json` prints.
#[derive(Debug, Serialize)]
pub struct CiteRecord {
    /// Always "cite".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub citation: String,
    pub sha256: Option<String>,
    pub location: Location,
    pub text: String,
    /// Context lines: `[line, text]`.
    pub before: Vec<(u64, String)>,
    pub after: Vec<(u64, String)>,
    /// Whether `--expect` text is on the cited line (absent without `--expect`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_ok: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_ok: Option<bool>,
}

struct Grab {
    target: u64,
    context: usize,
    before: Vec<(u64, Vec<u8>)>,
    hit: Option<(u64, Vec<u8>)>,
    after: Vec<(u64, Vec<u8>)>,
    scratch: Vec<u8>,
}

impl LineSink for Grab {
    fn line(&mut self, l: &Line<'_>) -> bool {
        let text = clean(l.raw, &mut self.scratch).to_vec();
        if l.number + (self.context as u64) < self.target {
            return true;
        }
        if l.number < self.target {
            self.before.push((l.number, text));
        } else if l.number == self.target {
            self.hit = Some((l.offset, text));
        } else {
            self.after.push((l.number, text));
        }
        l.number < self.target + self.context as u64
    }
}

/// Returns the exit code: 0 confirmed, 1 the quote or hash does not match,
/// 2 the citation does not resolve.
pub fn run(
    citation: &str,
    o: &CiteOptions,
    limits: &Limits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let Some((path, members, line)) = Location::parse(citation) else {
        writeln!(
            err,
            "artiscan: {citation:?} is not a citation (path!member!member:line)"
        )?;
        return Ok(2);
    };
    let file = match &o.root {
        Some(root) if !Path::new(&path).exists() => Path::new(root).join(&path),
        _ => Path::new(&path).to_path_buf(),
    };
    if !file.is_file() {
        writeln!(err, "artiscan: {}: no such artifact", file.display())?;
        return Ok(2);
    }
    let artifact = Artifact {
        path: path.clone(),
        kind: ArtifactKind::File(file.clone()),
    };
    let sha = engine::sha256_file(&file)?;
    let mut grab = Grab {
        target: line,
        context: o.context,
        before: Vec::new(),
        hit: None,
        after: Vec::new(),
        scratch: Vec::new(),
    };
    let mut found_member = false;
    let mut coverage = Coverage::default();
    let mut reader = LineReader::new(limits.max_line, true);
    source::for_each_member(&artifact, limits, &mut coverage, |leaf| {
        if leaf.members == members.as_slice() && !found_member {
            found_member = true;
            reader.scan(leaf.reader, &mut grab)?;
        }
        Ok(())
    });
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
                e.message
            )?;
        }
        return Ok(2);
    };
    let (text, _) = output::line_text(&text);
    let expect_ok = o.expect.as_ref().map(|e| text.contains(e.as_str()));
    let sha256_ok = o.sha256.as_ref().map(|h| h.eq_ignore_ascii_case(&sha));
    let lossy = |v: Vec<(u64, Vec<u8>)>| {
        v.into_iter()
            .map(|(n, t)| (n, output::line_text(&t).0))
            .collect::<Vec<_>>()
    };
    let rec = CiteRecord {
        kind: "cite",
        citation: citation.to_string(),
        sha256: Some(sha.clone()),
        location: Location {
            path,
            members,
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
        writeln!(
            out,
            "artifact: {}\nsha256:   {sha}\nmember:   {}\nline:     {line} (byte offset {offset})",
            file.display(),
            rec.location.members.join("!")
        )?;
        for (n, t) in &rec.before {
            writeln!(out, "{n:>8}- {t}")?;
        }
        writeln!(out, "{line:>8}: {}", rec.text)?;
        for (n, t) in &rec.after {
            writeln!(out, "{n:>8}- {t}")?;
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
