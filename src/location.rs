//! Citations: where a line lives, as data, with a `Display` that round-trips
//! through [`Location::parse`].

use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

/// The place of a line: the artifact path as given or walked, the chain of
/// container members that leads to it, the 1-based line number (`grep -n`
/// numbering), the byte offset of the line start in the decompressed member,
/// and for evidence the 1-based byte column of the match in the cleaned line.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct Location {
    pub path: String,
    pub members: Vec<String>,
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

/// Escapes `%`, `!`, and control characters as `%XX` so that a citation is
/// unambiguous and a hostile member name (newline, NUL) cannot forge lines.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_ascii() && needs_escape(c as u8) {
            out.push_str(&format!("%{:02X}", c as u8));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_escape(b: u8) -> bool {
    b == b'%' || b == b'!' || b < 0x20 || b == 0x7f
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
            members: vec!["x.tar.gz".into(), "evil\nname%:1".into()],
            line: 42,
            byte_offset: 7,
            column: None,
        };
        let s = loc.to_string();
        assert_eq!(s, "runs/a%21b.zip!x.tar.gz!evil%0Aname%25:1:42");
        let (p, m, l) = Location::parse(&s).unwrap();
        assert_eq!((p, m, l), (loc.path, loc.members, 42));
    }

    #[test]
    fn parse_rejects_missing_line() {
        assert!(Location::parse("a.zip!b.log").is_none());
        assert!(Location::parse("a.zip!b.log:x").is_none());
    }
}
