//! Format detection by magic bytes, never by name.

pub(crate) use crate::formats::Format;

/// Bytes needed to tell every format apart (a tar header block).
pub(crate) const HEAD_LEN: usize = 512;

/// How much of a member is looked at to decide that it is binary (a NUL).
pub(crate) const BINARY_PROBE: usize = 8 << 10;

/// A Docker/Kubernetes json-file log: one `{"log":"...\n",...}` per line.
pub(crate) const JSON_FILE: &[u8] = b"{\"log\":\"";

/// Magic numbers of formats artiscan recognises but does not decode.
const UNDECODED: &[(&[u8], &str)] = &[
    (&[0x02, 0x21, 0x4c, 0x18], "lz4 (legacy)"),
    (b"LZIP", "lzip"),
    (
        &[0x89, b'L', b'Z', b'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a],
        "lzop",
    ),
    (&[0x1f, 0x9d], "compress (.Z)"),
    (&[0x1f, 0xa0], "compress (LZH .Z)"),
    (&[0x1f, 0x1e], "pack (.z)"),
    (&[b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c], "7z"),
    (b"Rar!\x1a\x07", "rar"),
    (b"xar!", "xar"),
    (b"MSCF\0\0\0\0", "cab"),
    (b"!<arch>\n", "ar"),
    (&[0xc7, 0x71], "cpio (binary)"),
    (&[0x71, 0xc7], "cpio (binary)"),
    (b"LRZI", "lrzip"),
    (b"GRZipII", "grzip"),
];

/// What a member's first bytes say it is, when that holds no log lines: an
/// image (PNG with its IHDR chunk, JPEG, GIF, WebP), or an ELF core dump
/// (a crashed process's memory, `core.<pid>`). Plots beside the logs
/// (aiperf's `metrics_plots.png`) and core dumps beside a crashed server's
/// logs are such members; a line rule cannot apply to pixels or a memory
/// image, so they are passed over, with a note, without making coverage
/// incomplete (a core dump would otherwise make every absence claim about
/// the logs beside it unknown). Anything else with a NUL in its first block
/// stays a skipped member.
pub(crate) fn image(head: &[u8]) -> Option<&'static str> {
    if is_elf_core(head) {
        Some(CORE_DUMP)
    } else if head.starts_with(b"\x89PNG\r\n\x1a\n") && head.get(12..16) == Some(b"IHDR") {
        Some("PNG")
    } else if head.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("JPEG")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("GIF")
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        Some("WebP")
    } else {
        None
    }
}

/// What [`image`] calls an ELF core dump.
pub(crate) const CORE_DUMP: &str = "ELF core dump";

/// An ELF file whose type (`e_type`, in the byte order its header gives)
/// is `ET_CORE` (4).
fn is_elf_core(head: &[u8]) -> bool {
    let (Some(b"\x7fELF"), Some(&data), Some(t)) = (head.get(..4), head.get(5), head.get(16..18))
    else {
        return false;
    };
    let e_type = match data {
        1 => u16::from_le_bytes([t[0], t[1]]),
        2 => u16::from_be_bytes([t[0], t[1]]),
        _ => return false,
    };
    e_type == 4
}

/// Whether `head` starts with one of `format`'s magic numbers in the
/// format table.
fn magic(head: &[u8], format: Format) -> bool {
    crate::formats::info(format).is_some_and(|f| f.magic.iter().any(|m| head.starts_with(m)))
}

pub(crate) fn detect(head: &[u8]) -> Format {
    let head_after_skippable = skip_skippable(head);
    if magic(head, Format::Gzip) {
        Format::Gzip
    } else if let Some(rest) = head_after_skippable {
        // Skippable frames are shared by zstd and lz4: what follows them
        // decides (zstd when it lies beyond the first block).
        match detect(rest) {
            Format::Lz4 => Format::Lz4,
            Format::Unsupported(w) => Format::Unsupported(w),
            _ => Format::Zstd,
        }
    } else if magic(head, Format::Zstd) {
        Format::Zstd
    } else if head.len() >= 4 && magic(head, Format::Bzip2) && (b'1'..=b'9').contains(&head[3]) {
        Format::Bzip2
    } else if magic(head, Format::Xz) {
        Format::Xz
    } else if magic(head, Format::Lz4) {
        Format::Lz4
    } else if magic(head, Format::Zip) {
        Format::Zip
    } else if is_tar(head) {
        Format::Tar
    } else if let Some(&(_, what)) = UNDECODED.iter().find(|(m, _)| head.starts_with(m)) {
        Format::Unsupported(what)
    } else if is_cpio(head) {
        Format::Unsupported("cpio")
    } else if is_lzma_alone(head) {
        Format::Unsupported("lzma")
    } else if zip_after_junk(head) {
        Format::Zip
    } else {
        Format::Text
    }
}

/// The bytes after leading skippable frames (zstd/lz4), if any are there;
/// empty when they reach past `head`.
fn skip_skippable(head: &[u8]) -> Option<&[u8]> {
    let mut rest = head;
    let mut any = false;
    while rest.len() >= 8 && rest[0] & 0xf0 == 0x50 && rest[1..4] == [0x2a, 0x4d, 0x18] {
        any = true;
        let size = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]) as usize;
        rest = rest.get(8 + size..).unwrap_or(&[]);
    }
    if !any && head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18] {
        return Some(&[]);
    }
    any.then_some(rest)
}

/// An ASCII cpio header: its magic, then only digits of its numeric fields.
fn is_cpio(h: &[u8]) -> bool {
    let digits = |n: usize, ok: fn(&u8) -> bool| h.get(6..6 + n).is_some_and(|f| f.iter().all(ok));
    (h.starts_with(b"070707") && digits(70, |b| (b'0'..=b'7').contains(b)))
        || ((h.starts_with(b"070701") || h.starts_with(b"070702"))
            && digits(104, |b| b.is_ascii_hexdigit()))
}

/// An lzma-alone header (as libarchive bids it).
fn is_lzma_alone(h: &[u8]) -> bool {
    let dict = if h.len() >= 13 {
        u32::from_le_bytes([h[1], h[2], h[3], h[4]])
    } else {
        return false;
    };
    // Properties lc/lp/pb encode below 225; the dictionary is 2^n or
    // 2^n + 2^(n-1) (as xz writes it); the size is unknown or < 2^56.
    h[0] < 225
        && dict >= 1 << 12
        && (dict.is_power_of_two() || (dict - (1 << (31 - dict.leading_zeros()))).is_power_of_two())
        && (h[5..13].iter().all(|&b| b == 0xff) || h[12] == 0)
}

/// A zip with some bytes in front (a self-extractor stub, junk), as zip
/// readers that start from the end accept: a plausible local header
/// within the first block.
fn zip_after_junk(head: &[u8]) -> bool {
    let Some(k) = memchr::memmem::find(head, b"PK\x03\x04") else {
        return false;
    };
    let Some(h) = head.get(k..k + 30) else {
        return false;
    };
    let version = u16::from_le_bytes([h[4], h[5]]);
    let method = u16::from_le_bytes([h[8], h[9]]);
    let name_len = u16::from_le_bytes([h[26], h[27]]);
    version < 100
        && matches!(method, 0 | 8 | 9 | 12 | 14 | 93 | 95 | 98 | 99)
        && (1..=1024).contains(&name_len)
}

/// ustar/GNU magic at offset 257, or an old v7 header whose checksum adds
/// up (signed or unsigned, as tar readers accept).
fn is_tar(head: &[u8]) -> bool {
    if head.len() < HEAD_LEN {
        return false;
    }
    if magic(&head[257..], Format::Tar) {
        return true;
    }
    head[0] != 0 && super::tar::checksum_ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        assert_eq!(detect(&[0x1f, 0x8b, 8, 0]), Format::Gzip);
        assert_eq!(detect(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Format::Zstd);
        assert_eq!(detect(b"PK\x03\x04rest"), Format::Zip);
        assert_eq!(detect(b"BZh91AY"), Format::Bzip2);
        assert_eq!(detect(&[0x04, 0x22, 0x4d, 0x18, 0x64]), Format::Lz4);
        // An lz4 frame after a skippable frame is lz4, not zstd.
        let mut lz4 = vec![0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9];
        lz4.extend_from_slice(&[0x04, 0x22, 0x4d, 0x18, 0x64]);
        assert_eq!(detect(&lz4), Format::Lz4);
        assert_eq!(
            detect(&[0x1f, 0x9d, 0x90]),
            Format::Unsupported("compress (.Z)")
        );
        assert_eq!(detect(b"hello\n"), Format::Text);
        assert_eq!(detect(b""), Format::Text);
        let mut tar = vec![0u8; 512];
        tar[..5].copy_from_slice(b"a.log");
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(detect(&tar), Format::Tar);
    }
}
