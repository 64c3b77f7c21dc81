//! Citations: where a line lives, as data, with a `Display` that round-trips
//! through [`Location::parse`].

use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// The place of a line: the artifact path as given or walked, the chain of
/// container members that leads to it, the 1-based line number (`grep -n`
/// numbering), the byte offset of the line start in the decompressed member,
/// and for evidence the 1-based byte column of the match in the cleaned line.
/// Path and members are shared by every record of a member.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct Location {
    pub path: Arc<str>,
    pub members: Arc<[String]>,
    pub line: u64,
    pub byte_offset: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

impl Location {
    /// `path!member!member` without the line: names a member.
    pub fn member_citation(path: &str, members: &[String]) -> String {
        let mut s = escape(path).into_owned();
        for m in members {
            s.push('!');
            s.push_str(&escape(m));
        }
        s
    }

    /// Parses `path!member!member:line` (components percent-escaped as by
    /// `Display`). Returns `(path, members, line)`.
    pub fn parse(citation: &str) -> Option<(String, Vec<String>, u64)> {
        let (head, line) = citation.rsplit_once(':')?;
        let line: u64 = line.parse().ok()?;
        let mut parts = head.split('!');
        let path = unescape(parts.next()?)?;
        let members = parts.map(unescape).collect::<Option<Vec<_>>>()?;
        Some((path, members, line))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}",
            Location::member_citation(&self.path, &self.members),
            self.line
        )
    }
}

/// Escapes `%`, `!`, control characters and the invisible Unicode controls
/// of [`crate::output::escape::is_unsafe`] (C1, bidi overrides, ...) as
/// `%XX` of their UTF-8 bytes, so that a citation is unambiguous, prints
/// as what it is, and a hostile member name (newline, NUL, U+202E) cannot
/// forge lines. [`Location::parse`] undoes it byte for byte.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut utf8 = [0; 4];
    for c in s.chars() {
        if needs_escape(c) {
            for b in c.encode_utf8(&mut utf8).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    matches!(c, '%' | '!' | '\t') || crate::output::escape::is_unsafe(c)
}

fn unescape(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        let loc = Location {
            path: "runs/a!b.zip".into(),
            members: vec!["x.tar.gz".to_string(), "evil\nname%:1".into()].into(),
            line: 42,
            byte_offset: 7,
            column: None,
        };
        let s = loc.to_string();
        assert_eq!(s, "runs/a%21b.zip!x.tar.gz!evil%0Aname%25:1:42");
        let (p, m, l) = Location::parse(&s).unwrap();
        assert_eq!(
            (p.as_str(), m.as_slice(), l),
            (&*loc.path, &*loc.members, 42)
        );
    }

    #[test]
    fn unicode_controls_are_escaped_and_round_trip() {
        let loc = Location {
            path: "a.zip".into(),
            members: vec!["gol\u{202e}gol.txt\u{9b}\u{2028}x\tb".to_string()].into(),
            line: 1,
            ..Location::default()
        };
        let s = loc.to_string();
        assert_eq!(s, "a.zip!gol%E2%80%AEgol.txt%C2%9B%E2%80%A8x%09b:1");
        assert_eq!(Location::parse(&s).unwrap().1, &*loc.members);
    }

    #[test]
    fn parse_rejects_missing_line() {
        assert!(Location::parse("a.zip!b.log").is_none());
        assert!(Location::parse("a.zip!b.log:x").is_none());
    }
}
