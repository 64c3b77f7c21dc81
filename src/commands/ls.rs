//! `artiscan ls ARTIFACT...`: the leaf members of each artifact through every
//! layer (as `tar -t` / `unzip -l` list one layer), with their decompressed
//! size, line count, whether they look binary, and whether they were read
//! completely. Reading a member to its end is the only way to know its size
//! inside a compressed stream, so `ls` decodes everything, as `tar -tzv` does.

use crate::drive;
use crate::escape;
use crate::lines::BINARY_PROBE;
use crate::location::Location;
use crate::output::{self, CoverageRecord, MemberRecord};
use crate::source::{self, Coverage, Limits, walk};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;

/// Counts bytes and lines of a reader to its end; an error comes back with
/// what was counted before it.
fn count(r: &mut dyn Read) -> (u64, u64, bool, Option<io::Error>) {
    let mut buf = vec![0u8; 1 << 16];
    let (mut bytes, mut newlines, mut binary) = (0u64, 0u64, false);
    let mut last = b'\n';
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let chunk = &buf[..n];
                if bytes < BINARY_PROBE as u64 {
                    let probe = (BINARY_PROBE as u64 - bytes).min(n as u64) as usize;
                    binary |= memchr::memchr(0, &chunk[..probe]).is_some();
                }
                newlines += bytecount::count(chunk, b'\n') as u64;
                last = chunk[n - 1];
                bytes += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let lines = newlines + u64::from(last != b'\n');
                return (bytes, lines, binary, Some(e));
            }
        }
    }
    (bytes, newlines + u64::from(last != b'\n'), binary, None)
}

/// How `ls` prints.
/// An artifact's listing, and whether it was read whole.
impl drive::Held for (Vec<u8>, bool) {
    fn held_bytes(&self) -> usize {
        self.0.len()
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct LsOptions {
    /// JSON Lines instead of the table.
    pub json: bool,
    /// The table's column header first (`main` asks for it on a terminal).
    pub header: bool,
    /// Worker threads (0 or 1: one); the listing keeps input order.
    pub threads: usize,
}

/// The text table's columns: `size stored lines  formats citation  status`.
fn row(out: &mut Vec<u8>, cells: [&str; 6]) -> io::Result<()> {
    let [bytes, stored, lines, formats, citation, status] = cells;
    writeln!(
        out,
        "{bytes:>12} {stored:>12} {lines:>9}  {formats:<18} {citation}  {status}"
    )
}

/// Lists every artifact's members. Exit code: 0 all read completely, 2 any
/// error (the listing is still printed in full).
pub fn run(
    paths: &[String],
    limits: &Limits,
    opts: LsOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let json = opts.json;
    if opts.header && !json {
        let mut head = Vec::new();
        row(
            &mut head,
            ["SIZE", "STORED", "LINES", "FORMATS", "MEMBER", "STATUS"],
        )?;
        out.write_all(&head)?;
    }
    let (artifacts, walk_errors) = walk(paths);
    let mut failed = !walk_errors.is_empty();
    drive::report_walk_errors(err, &walk_errors)?;
    // As grep: a bar only while the listing goes elsewhere than a terminal.
    let bar_on = !std::io::IsTerminal::is_terminal(&std::io::stdout());
    let bar = super::Bar::new(bar_on);
    let mut result = Ok(());
    let consume = |_, _: &source::Artifact, (buf, complete): (Vec<u8>, bool)| {
        failed |= !complete;
        result = out.write_all(&buf);
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    };
    drive::run(
        &artifacts,
        opts.threads,
        &bar,
        |_, a| list(a, limits, json),
        consume,
    );
    result?;
    out.flush()?;
    Ok(if failed { 2 } else { 0 })
}

/// One artifact's listing (rows or JSON records) and whether it was read
/// completely.
fn list(artifact: &source::Artifact, limits: &Limits, json: bool) -> (Vec<u8>, bool) {
    let mut coverage = Coverage::default();
    let mut rows: Vec<MemberRecord> = Vec::new();
    source::for_each_member(artifact, limits, &mut coverage, |leaf| {
        let (bytes, lines, binary, error) = count(leaf.reader);
        leaf.coverage.bytes += bytes;
        rows.push(MemberRecord {
            kind: MemberRecord::KIND,
            citation: Location::member_citation(&artifact.path, leaf.members),
            path: artifact.path.clone(),
            members: leaf.members.to_vec(),
            bytes,
            stored: leaf.stored.to_vec(),
            formats: leaf.layers.to_vec(),
            lines,
            binary,
            complete: true,
            errors: Vec::new(),
            skipped: None,
        });
        error.map_or(Ok(()), Err)
    });
    // Errors belong to the member they name; the others (a container's
    // damage, a member that never reached the visitor) get a row of their own.
    for e in &coverage.errors {
        match rows.iter_mut().rev().find(|r| r.members == e.members) {
            Some(r) => {
                r.complete = false;
                r.errors.push(e.clone());
            }
            None => rows.push(MemberRecord {
                kind: MemberRecord::KIND,
                citation: Location::member_citation(&artifact.path, &e.members),
                path: artifact.path.clone(),
                members: e.members.clone(),
                bytes: 0,
                stored: Vec::new(),
                formats: Vec::new(),
                lines: 0,
                binary: false,
                complete: false,
                errors: vec![e.clone()],
                skipped: None,
            }),
        }
    }
    // Links and special members never reach the visitor: list them too.
    for n in &coverage.notes {
        if !rows.iter().any(|r| r.members == n.members) {
            rows.push(MemberRecord {
                kind: MemberRecord::KIND,
                citation: Location::member_citation(&artifact.path, &n.members),
                path: artifact.path.clone(),
                members: n.members.clone(),
                bytes: 0,
                stored: Vec::new(),
                formats: Vec::new(),
                lines: 0,
                binary: false,
                complete: true,
                errors: Vec::new(),
                skipped: Some(n.message.clone()),
            });
        }
    }
    let mut buf = Vec::new();
    if json {
        for r in &rows {
            output::write_jsonl(&mut buf, r);
        }
        output::write_jsonl(
            &mut buf,
            &CoverageRecord::new(&artifact.path, None, &coverage),
        );
    } else {
        for r in &rows {
            let status = if let Some(e) = r.errors.first() {
                format!("{}: {}", e.kind.as_str(), escape::text(&e.message))
            } else if let Some(m) = &r.skipped {
                format!("skipped: {}", escape::text(m))
            } else if r.binary {
                "binary".to_string()
            } else {
                "ok".to_string()
            };
            // The member's stored (compressed) size in its container.
            let stored = match r.stored.last() {
                Some(Some(n)) => n.to_string(),
                _ => "-".to_string(),
            };
            let formats = if r.formats.is_empty() {
                "-".to_string()
            } else {
                r.formats.join(">")
            };
            let (bytes, lines) = (r.bytes.to_string(), r.lines.to_string());
            // Writing to a Vec cannot fail.
            let _ = row(
                &mut buf,
                [&bytes, &stored, &lines, &formats, &r.citation, &status],
            );
        }
    }
    (buf, coverage.complete())
}
