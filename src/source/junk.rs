//! Download junk, decided by content: the files a download or a desktop
//! leaves beside artifacts (Windows' `name:Zone.Identifier` streams copied as
//! files, macOS's `.DS_Store` and `._name` forks, `Thumbs.db`,
//! `desktop.ini`) are set aside only when their bytes are what their name
//! says. A `server.log:Zone.Identifier` holding a Traceback is a log like
//! any other: read and judged, as it is inside the artifact's zip.

use std::io::Read;
use std::path::Path;

/// How many bytes are read to decide (a real Zone.Identifier or
/// desktop.ini is a few hundred bytes).
const LOOK: usize = 64 * 1024;

/// Why the file at `path` (named `name`) is set aside as download junk, or
/// `None` when it is to be read like any file (its name is not a junk name,
/// or its bytes are not what the name says, or it cannot be read: then its
/// read says why).
pub(crate) fn set_aside(path: &Path, name: &str) -> Option<&'static str> {
    let kind = junk_name(name)?;
    let mut head = Vec::new();
    let f = std::fs::File::open(path).ok()?;
    // A regular file only: a FIFO would block, and a folder is walked.
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    f.take(LOOK as u64 + 1).read_to_end(&mut head).ok()?;
    judge(kind, &head)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ZoneIdentifier,
    DsStore,
    AppleDouble,
    Thumbs,
    DesktopIni,
}

fn junk_name(name: &str) -> Option<Kind> {
    if name.ends_with(":Zone.Identifier") {
        Some(Kind::ZoneIdentifier)
    } else if name == ".DS_Store" {
        Some(Kind::DsStore)
    } else if name.starts_with("._") {
        Some(Kind::AppleDouble)
    } else if name.eq_ignore_ascii_case("Thumbs.db") {
        Some(Kind::Thumbs)
    } else if name.eq_ignore_ascii_case("desktop.ini") {
        Some(Kind::DesktopIni)
    } else {
        None
    }
}

fn judge(kind: Kind, head: &[u8]) -> Option<&'static str> {
    match kind {
        Kind::ZoneIdentifier => ini(head, "[zonetransfer]")
            .then_some("a Zone.Identifier stream ([ZoneTransfer] text) a Windows download left"),
        Kind::DsStore => head
            .starts_with(b"\0\0\0\x01Bud1")
            .then_some("a macOS .DS_Store (Bud1 bytes)"),
        // AppleDouble: magic 0x00051607.
        Kind::AppleDouble => head
            .starts_with(b"\x00\x05\x16\x07")
            .then_some("a macOS resource fork (AppleDouble bytes)"),
        // OLE compound file magic.
        Kind::Thumbs => head
            .starts_with(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")
            .then_some("a Windows Thumbs.db (OLE bytes)"),
        Kind::DesktopIni => ini(head, "[").then_some("a Windows desktop.ini (INI text)"),
    }
}

/// Small INI text (UTF-8, or UTF-16LE as Windows writes some) whose first
/// section header starts with `first` (lowercase): only `[section]`,
/// `key=value`, `;` comments and blank lines. A log has other lines.
fn ini(head: &[u8], first: &str) -> bool {
    if head.len() > LOOK {
        return false;
    }
    let text = match head {
        [0xFF, 0xFE, rest @ ..] => {
            let units: Vec<u16> = rest
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            match String::from_utf16(&units) {
                Ok(t) => t,
                Err(_) => return false,
            }
        }
        _ => match std::str::from_utf8(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head)) {
            Ok(t) => t.to_string(),
            Err(_) => return false,
        },
    };
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(';'));
    let Some(header) = lines.next() else {
        return false;
    };
    let section = |l: &str| l.starts_with('[') && l.ends_with(']');
    section(header)
        && header.to_ascii_lowercase().starts_with(first)
        && lines.all(|l| {
            section(l)
                || l.split_once('=').is_some_and(|(k, _)| {
                    !k.trim().is_empty()
                        && k.trim()
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_by_its_bytes_only() {
        let zone = b"[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://github.com/\r\nHostUrl=https://pipelines.actions.githubusercontent.com/x\r\n";
        assert!(judge(Kind::ZoneIdentifier, zone).is_some());
        let crash = b"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nRuntimeError: CUDA error\n";
        assert!(judge(Kind::ZoneIdentifier, crash).is_none());
        // INI text that goes on into a log is not junk.
        let mixed = b"[ZoneTransfer]\nZoneId=3\nTraceback (most recent call last):\n";
        assert!(judge(Kind::ZoneIdentifier, mixed).is_none());
        assert!(judge(Kind::DsStore, b"\0\0\0\x01Bud1\0\0\x10\0").is_some());
        assert!(judge(Kind::DsStore, b"OOM killed\n").is_none());
        assert!(judge(Kind::Thumbs, b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0").is_some());
        assert!(judge(Kind::Thumbs, b"Killed\n").is_none());
        assert!(judge(Kind::AppleDouble, b"\x00\x05\x16\x07\x00\x02\x00\x00").is_some());
        let ini16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                "[.ShellClassInfo]\r\nIconResource=x.dll,0\r\n"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        assert!(judge(Kind::DesktopIni, &ini16).is_some());
        assert!(junk_name("server.log").is_none());
    }
}
