//! Citations: where a line lives, as data, with a `Display` that round-trips
//! through [`Location::parse`].
//!
//! The escape rule, for paths and member names alike: `%`, `!`, tab,
//! control characters and invisible Unicode controls are written `%XX`
//! (upper-case hex) for each of their UTF-8 bytes, and a byte of a member
//! name that is not UTF-8 is written `%XX` of that byte (`caf%E9.log` for
//! Latin-1 `café.log`). Everything else is written as it is. Parsing undoes
//! it byte for byte, so two different names never share a citation and
//! `cite` reopens the member a citation came from.
//!
//! Member names are bytes; artiscan keeps them as `String`s by
//! [`name_from_bytes`]: valid UTF-8 as it is, and each byte that is not
//! part of valid UTF-8 as the private-use character U+10FF00 + byte
//! (U+10FF80..=U+10FFFF: such bytes are always 0x80 or more). A name
//! that really holds one of those characters has its UTF-8 bytes kept the
//! same way, so the mapping is one-to-one. JSON `members` show these
//! characters; citations show `%XX`.

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

/// First of the characters that stand for a name byte that is not UTF-8.
const RAW_BASE: u32 = 0x10_FF00;

/// The byte a character stands for, if it is one of the reserved ones.
fn raw_byte(c: char) -> Option<u8> {
    let v = c as u32;
    (v >= RAW_BASE + 0x80).then(|| (v - RAW_BASE) as u8)
}

fn raw_char(b: u8) -> char {
    char::from_u32(RAW_BASE + b as u32).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// A member name's bytes as a `String`, losslessly (see the module
/// documentation); [`name_bytes`] gives the bytes back.
pub fn name_from_bytes(raw: &[u8]) -> String {
    // The reserved characters are encoded F4 8F BE/BF xx: without 0xF4
    // valid UTF-8 is taken as it is.
    if !raw.contains(&0xf4) {
        if let Ok(s) = std::str::from_utf8(raw) {
            return s.to_string();
        }
    }
    let mut out = String::with_capacity(raw.len() + 8);
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if raw_byte(c).is_some() {
                let mut utf8 = [0; 4];
                c.encode_utf8(&mut utf8)
                    .bytes()
                    .for_each(|b| out.push(raw_char(b)));
            } else {
                out.push(c);
            }
        }
        chunk.invalid().iter().for_each(|&b| out.push(raw_char(b)));
    }
    out
}

/// The bytes of a name made by [`name_from_bytes`].
pub fn name_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut utf8 = [0; 4];
    for c in s.chars() {
        match raw_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes()),
        }
    }
    out
}

/// Escapes `%`, `!`, control characters and the invisible Unicode controls
/// of [`crate::output::escape::is_unsafe`] (C1, bidi overrides, ...) as
/// `%XX` of their UTF-8 bytes, so that a citation is unambiguous, prints
/// as what it is, and a hostile member name (newline, NUL, U+202E) cannot
/// forge lines; a name byte that is not UTF-8 (see [`name_from_bytes`]) is
/// `%XX` of that byte. [`Location::parse`] undoes it byte for byte.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| needs_escape(c) || raw_byte(c).is_some()) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut utf8 = [0; 4];
    for c in s.chars() {
        if let Some(b) = raw_byte(c) {
            out.push_str(&format!("%{b:02X}"));
        } else if needs_escape(c) {
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
    Some(name_from_bytes(&out))
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
    fn name_bytes_that_are_not_utf8_round_trip_as_percent_escapes() {
        // Latin-1 "café", KOI8-R "привет", Shift-JIS "ログ", a lone
        // continuation byte, and a name that really holds U+10FFFF.
        let names: [&[u8]; 5] = [
            b"caf\xe9.log",
            b"\xf0\xf2\xe9\xf7\xe5\xf4",
            b"\x83\x8d\x83\x4f.txt",
            b"a\x80b",
            "x\u{10FFFF}y".as_bytes(),
        ];
        let mut seen = std::collections::HashSet::new();
        for raw in names {
            let name = name_from_bytes(raw);
            assert_eq!(name_bytes(&name), raw);
            let loc = Location {
                path: "a.tar".into(),
                members: vec![name.clone()].into(),
                line: 3,
                ..Location::default()
            };
            let cited = loc.to_string();
            assert!(seen.insert(cited.clone()), "{cited} twice");
            assert_eq!(Location::parse(&cited).unwrap().1, vec![name]);
        }
        assert_eq!(escape(&name_from_bytes(b"caf\xe9.log")), "caf%E9.log");
        assert_eq!(
            escape(&name_from_bytes("x\u{10FFFF}".as_bytes())),
            "x%F4%8F%BF%BF"
        );
        // Valid UTF-8 stays as it is.
        assert_eq!(name_from_bytes("привет".as_bytes()), "привет");
    }

    #[test]
    fn parse_rejects_missing_line() {
        assert!(Location::parse("a.zip!b.log").is_none());
        assert!(Location::parse("a.zip!b.log:x").is_none());
    }
}
