//! Citations: where a line lives, as data, with a `Display` that round-trips
//! through [`Location::parse`]. Every citation artiscan prints or reads is
//! built and parsed here: the member part ([`Location::member_citation`],
//! short form [`Location::members_citation`]), with a line
//! ([`Location::write_citation`], `Display`) or a range
//! ([`Location::range_citation`]), and back ([`Location::parse`],
//! [`Location::parse_range`]).
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
    /// `path!member!member` without the line: names a member. The one place
    /// a citation's member part is built.
    pub fn member_citation(path: &str, members: &[String]) -> String {
        let mut s = escape(path).into_owned();
        for m in members {
            s.push('!');
            s.push_str(&escape(m));
        }
        s
    }

    /// The short form `member!member` (no artifact path), as `grep -h` and
    /// `cite` print a member; empty for a plain file.
    pub fn members_citation(members: &[String]) -> String {
        let mut s = String::new();
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                s.push('!');
            }
            s.push_str(&escape(m));
        }
        s
    }

    /// `member_citation:line`: writes a line's citation from its member part
    /// (shared by every record of the member) without building a string.
    pub fn write_citation(
        f: &mut impl fmt::Write,
        member_citation: &str,
        line: u64,
    ) -> fmt::Result {
        write!(f, "{member_citation}:{line}")
    }

    /// `member_citation:first..last`: lines `first` through `last` (an
    /// aggregate's span); `artiscan cite` takes it.
    pub fn range_citation(member_citation: &str, first: u64, last: u64) -> String {
        format!("{member_citation}:{first}..{last}")
    }

    /// This location's citation, `path!member!member:line`.
    pub fn citation(&self) -> String {
        self.to_string()
    }

    /// Parses `path!member!member:line` (components percent-escaped as by
    /// `Display`) into a location; `byte_offset` and `column` are not part
    /// of a citation and come back 0 and `None`.
    pub fn parse(citation: &str) -> Option<Location> {
        let (head, line) = citation.rsplit_once(':')?;
        let line: u64 = line.parse().ok()?;
        let mut parts = head.split('!');
        let path = unescape(parts.next()?)?;
        let members = parts.map(unescape).collect::<Option<Vec<_>>>()?;
        Some(Location {
            path: path.into(),
            members: members.into(),
            line,
            byte_offset: 0,
            column: None,
        })
    }

    /// Parses a citation or a range `...:first..last` (as
    /// [`Location::range_citation`] writes it). Returns the location of the
    /// first line and the last line of a range.
    pub fn parse_range(citation: &str) -> Option<(Location, Option<u64>)> {
        if let Some((head, end)) = citation.rsplit_once("..") {
            if !end.is_empty() && end.bytes().all(|b| b.is_ascii_digit()) {
                if let Some(loc) = Location::parse(head) {
                    // A last line past u64 cites the first line alone, as
                    // `cite` always did.
                    return Some((loc, end.parse().ok()));
                }
            }
        }
        Location::parse(citation).map(|l| (l, None))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Location::write_citation(
            f,
            &Location::member_citation(&self.path, &self.members),
            self.line,
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
/// documentation); `name_bytes` gives the bytes back (tests).
pub(crate) fn name_from_bytes(raw: &[u8]) -> String {
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

/// A file system path from a path as walked (folder entries named by
/// [`name_from_bytes`]): the same bytes on Unix, so a citation of a file
/// whose name is not UTF-8 reopens it.
pub(crate) fn path_from_name(path: &str) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        std::path::PathBuf::from(std::ffi::OsString::from_vec(name_bytes(path)))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(path)
    }
}

/// The bytes of a name made by [`name_from_bytes`].
pub(crate) fn name_bytes(s: &str) -> Vec<u8> {
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
/// of [`crate::escape::is_unsafe`] (C1, bidi overrides, ...) as
/// `%XX` of their UTF-8 bytes, so that a citation is unambiguous, prints
/// as what it is, and a hostile member name (newline, NUL, U+202E) cannot
/// forge lines; a name byte that is not UTF-8 (see [`name_from_bytes`]) is
/// `%XX` of that byte. [`Location::parse`] undoes it byte for byte.
pub(crate) fn escape(s: &str) -> Cow<'_, str> {
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
    matches!(c, '%' | '!' | '\t') || crate::escape::is_unsafe(c)
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

    fn loc(path: &str, members: &[&str], line: u64) -> Location {
        Location {
            path: path.into(),
            members: members
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .into(),
            line,
            ..Location::default()
        }
    }

    #[test]
    fn display_and_parse_round_trip() {
        let l = loc("runs/a!b.zip", &["x.tar.gz", "evil\nname%:1"], 42);
        let s = l.to_string();
        assert_eq!(s, "runs/a%21b.zip!x.tar.gz!evil%0Aname%25:1:42");
        assert_eq!(Location::parse(&s).unwrap(), l);
        assert_eq!(l.citation(), s);
    }

    #[test]
    fn hostile_names_round_trip() {
        // Non-UTF-8 names reach a citation as lossy UTF-8 (U+FFFD), which
        // needs no escape; `!`, `%` and `:` do or are taken from the right.
        let lossy = String::from_utf8_lossy(b"a\xff\xfe.log").into_owned();
        for members in [
            vec!["a!b.log".to_string()],
            vec!["100%.log".to_string(), "%21".to_string()],
            vec!["c:\\x:7".to_string(), ":".to_string()],
            vec![lossy.clone(), "x..5".to_string()],
            vec![String::new()],
            vec![],
        ] {
            let l = Location {
                path: "p%:!.zip".into(),
                members: members.clone().into(),
                line: 9,
                ..Location::default()
            };
            let s = l.to_string();
            assert_eq!(Location::parse(&s).as_ref(), Some(&l), "{s}");
            assert_eq!(Location::parse_range(&s), Some((l.clone(), None)), "{s}");
            let m = Location::member_citation(&l.path, &l.members);
            let r = Location::range_citation(&m, 9, 12);
            assert_eq!(
                Location::parse_range(&r),
                Some((l.clone(), Some(12))),
                "{r}"
            );
        }
        assert_eq!(
            Location::member_citation("a.zip", std::slice::from_ref(&lossy)),
            format!("a.zip!{lossy}")
        );
    }

    #[test]
    fn short_form_is_the_member_part_without_the_path() {
        let members = vec!["x.tar.gz".to_string(), "a!b".to_string()];
        assert_eq!(Location::members_citation(&members), "x.tar.gz!a%21b");
        assert_eq!(
            Location::member_citation("p.zip", &members),
            format!("p.zip!{}", Location::members_citation(&members))
        );
        assert_eq!(Location::members_citation(&[]), "");
    }

    #[test]
    fn unicode_controls_are_escaped_and_round_trip() {
        let l = loc("a.zip", &["gol\u{202e}gol.txt\u{9b}\u{2028}x\tb"], 1);
        let s = l.to_string();
        assert_eq!(s, "a.zip!gol%E2%80%AEgol.txt%C2%9B%E2%80%A8x%09b:1");
        assert_eq!(Location::parse(&s).unwrap().members, l.members);
    }

    #[test]
    fn parse_rejects_what_is_not_a_citation() {
        for bad in [
            "a.zip!b.log",
            "a.zip!b.log:x",
            "a.zip!b.log:",
            "a.zip!b.log:-3",
            "a.zip!%ZZ:1",
        ] {
            assert!(Location::parse(bad).is_none(), "{bad}");
            assert!(Location::parse_range(bad).is_none(), "{bad}");
        }
        // A range needs a citation before it.
        assert!(Location::parse_range("a.zip!b.log..7").is_none());
        assert_eq!(
            Location::parse_range("a.zip!b.log:3..").map(|(l, r)| (l.line, r)),
            None
        );
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
            assert_eq!(
                Location::parse(&cited).unwrap().members.to_vec(),
                vec![name]
            );
        }
        assert_eq!(escape(&name_from_bytes(b"caf\xe9.log")), "caf%E9.log");
        assert_eq!(
            escape(&name_from_bytes("x\u{10FFFF}".as_bytes())),
            "x%F4%8F%BF%BF"
        );
        // Valid UTF-8 stays as it is.
        assert_eq!(name_from_bytes("привет".as_bytes()), "привет");
    }
}
