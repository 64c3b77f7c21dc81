//! Format detection by magic bytes, never by name.

/// What the first bytes of a stream say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
    Zip,
    Tar,
    /// Anything else: searched as lines (or skipped as binary).
    Text,
}

/// Bytes needed to tell every format apart (a tar header block).
pub const HEAD_LEN: usize = 512;

pub fn detect(head: &[u8]) -> Format {
    if head.starts_with(&[0x1f, 0x8b]) {
        Format::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || is_zstd_skippable(head) {
        Format::Zstd
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Format::Xz
    } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
        Format::Bzip2
    } else if head.starts_with(b"PK\x03\x04")
        || head.starts_with(b"PK\x05\x06")
        || head.starts_with(b"PK\x07\x08")
    {
        Format::Zip
    } else if is_tar(head) {
        Format::Tar
    } else {
        Format::Text
    }
}

fn is_zstd_skippable(head: &[u8]) -> bool {
    head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18]
}

/// ustar/GNU magic at offset 257, or an old v7 header whose checksum adds up.
fn is_tar(head: &[u8]) -> bool {
    if head.len() < HEAD_LEN {
        return false;
    }
    if &head[257..262] == b"ustar" {
        return true;
    }
    // v7: no magic; trust the header checksum (stored as octal at 148..156,
    // computed with the checksum field read as spaces).
    let stored = std::str::from_utf8(&head[148..156])
        .ok()
        .map(|s| s.trim_matches(|c: char| c == '\0' || c == ' '))
        .and_then(|s| u32::from_str_radix(s, 8).ok());
    let Some(stored) = stored else { return false };
    let sum: u32 = head[..512]
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                b as u32
            }
        })
        .sum();
    head[0] != 0 && sum == stored
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
        assert_eq!(detect(b"hello\n"), Format::Text);
        assert_eq!(detect(b""), Format::Text);
        let mut tar = vec![0u8; 512];
        tar[..5].copy_from_slice(b"a.log");
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(detect(&tar), Format::Tar);
    }
}
