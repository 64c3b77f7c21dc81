//! The one table of formats artiscan decodes: name, magic bytes, name
//! suffixes and which arm of the walker decodes it. It sits below every
//! layer that reads names (`names`, `member_glob`, `source`). Detection
//! goes by magic (`source::detect`); names are only read to look through a compression
//! suffix (`-g '*.err'` picks `x.err.gz`), to name an artifact
//! (`x.tar.gz` → `x`), and to notice a name that promises an archive its
//! bytes are not. Every such suffix list in the crate reads from here.

/// What the first bytes of a stream say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
    /// An lz4 frame (not the legacy format).
    Lz4,
    Zip,
    Tar,
    /// Recognised by its magic, not decoded: reported `unsupported`.
    Unsupported(&'static str),
    /// Anything else: searched as lines (or skipped as binary).
    Text,
}

/// Whether a format wraps one stream or holds named members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// One stream inside (gzip, zstd, ...): `x.log.gz` is a log.
    Compression,
    /// Named members inside (tar, zip): an artifact of its own.
    Container,
}

/// One decoded format.
#[derive(Debug)]
pub(crate) struct FormatInfo {
    /// Its name in a leaf's layers (`Leaf::layers`) and in messages.
    pub name: &'static str,
    /// What `source::detect::detect` returns for it; the source walker's
    /// `open` arm for this value decodes it.
    pub format: Format,
    pub role: Role,
    /// The bytes a stream of it starts with (tar: at offset 257; bzip2:
    /// followed by a block-size digit; zstd and lz4 may come after
    /// skippable frames; zip also after a self-extractor stub).
    pub magic: &'static [&'static [u8]],
    /// Name suffixes, lower case, the usual one first.
    pub suffixes: &'static [&'static str],
    /// One-word names of a tarball compressed with it (`.tgz` is
    /// `.tar.gz`).
    pub tar_suffixes: &'static [&'static str],
}

/// Every format artiscan decodes.
pub(crate) const FORMATS: &[FormatInfo] = &[
    FormatInfo {
        name: "gzip",
        format: Format::Gzip,
        role: Role::Compression,
        magic: &[&[0x1f, 0x8b]],
        suffixes: &[".gz"],
        tar_suffixes: &[".tgz"],
    },
    FormatInfo {
        name: "zstd",
        format: Format::Zstd,
        role: Role::Compression,
        magic: &[&[0x28, 0xb5, 0x2f, 0xfd]],
        suffixes: &[".zst", ".zstd"],
        tar_suffixes: &[".tzst"],
    },
    FormatInfo {
        name: "xz",
        format: Format::Xz,
        role: Role::Compression,
        magic: &[&[0xfd, b'7', b'z', b'X', b'Z', 0x00]],
        suffixes: &[".xz"],
        tar_suffixes: &[".txz"],
    },
    FormatInfo {
        name: "bzip2",
        format: Format::Bzip2,
        role: Role::Compression,
        magic: &[b"BZh"],
        suffixes: &[".bz2"],
        tar_suffixes: &[".tbz2", ".tbz"],
    },
    FormatInfo {
        name: "lz4",
        format: Format::Lz4,
        role: Role::Compression,
        magic: &[&[0x04, 0x22, 0x4d, 0x18]],
        suffixes: &[".lz4"],
        tar_suffixes: &[],
    },
    FormatInfo {
        name: "zip",
        format: Format::Zip,
        role: Role::Container,
        magic: &[b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"],
        suffixes: &[".zip"],
        tar_suffixes: &[],
    },
    FormatInfo {
        name: "tar",
        format: Format::Tar,
        role: Role::Container,
        magic: &[b"ustar"],
        suffixes: &[".tar"],
        tar_suffixes: &[],
    },
];

/// The table's row for `format`, if it is one artiscan decodes.
pub(crate) fn info(format: Format) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| f.format == format)
}

/// `s` without `suffix`, compared ignoring ASCII case, when something that
/// is not just a folder is left.
fn cut<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let at = s.len().checked_sub(suffix.len())?;
    let rest = s.get(..at)?;
    (s[at..].eq_ignore_ascii_case(suffix) && !rest.is_empty() && !rest.ends_with('/'))
        .then_some(rest)
}

/// `name` without one compression suffix (`x.log.gz` → `x.log`), and the
/// format it names; `None` when it has none. Tarball shorthands (`.tgz`)
/// are not compression suffixes: what they hold is a tar, not a file named
/// by the rest.
pub(crate) fn strip_compression(name: &str) -> Option<(&str, &'static FormatInfo)> {
    FORMATS
        .iter()
        .filter(|f| f.role == Role::Compression)
        .find_map(|f| f.suffixes.iter().find_map(|s| cut(name, s)).map(|r| (r, f)))
}

/// The archive suffix `name` ends with, lower case, longest first
/// (`.tar.gz` rather than `.gz`): a compression suffix, a container's, a
/// tarball shorthand, or a container's followed by a compression suffix.
pub(crate) fn archive_suffix(name: &str) -> Option<String> {
    let lower_tail = |rest: &str| name[rest.len()..].to_ascii_lowercase();
    if let Some((rest, _)) = strip_compression(name) {
        let whole = FORMATS
            .iter()
            .filter(|f| f.role == Role::Container)
            .flat_map(|f| f.suffixes)
            .find_map(|s| cut(rest, s));
        return Some(lower_tail(whole.unwrap_or(rest)));
    }
    FORMATS
        .iter()
        .flat_map(|f| {
            let own = if f.role == Role::Container {
                f.suffixes
            } else {
                &[][..]
            };
            own.iter().chain(f.tar_suffixes)
        })
        .find_map(|s| cut(name, s))
        .map(lower_tail)
}

/// Whether `name` says it is an archive with members (a zip, a tar,
/// compressed or not), as opposed to one compressed file (`x.log.gz`).
pub(crate) fn is_container_name(name: &str) -> bool {
    let inner = strip_compression(name).map_or(name, |(rest, _)| rest);
    let container = |s: &str| {
        FORMATS
            .iter()
            .filter(|f| f.role == Role::Container)
            .flat_map(|f| f.suffixes)
            .any(|x| cut(s, x).is_some())
    };
    container(inner)
        || FORMATS
            .iter()
            .flat_map(|f| f.tar_suffixes)
            .any(|x| cut(name, x).is_some())
}

/// `name` without every archive suffix it ends with: `x.tar.gz` → `x`,
/// `x.zip.zip` → `x`, `x.log.zst` → `x.log`.
pub(crate) fn strip_archive_suffixes(name: &str) -> &str {
    let mut s = name;
    while let Some(sfx) = archive_suffix(s) {
        s = &s[..s.len() - sfx.len()];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every suffix the table knows, with what each user of the table
    /// makes of it.
    #[test]
    fn every_user_reads_each_suffix_the_same_way() {
        let globs = |g: &str| {
            crate::member_glob::MemberGlobs::new(&[g.to_string()])
                .unwrap()
                .unwrap()
        };
        for f in FORMATS {
            for sfx in f.suffixes {
                let upper = sfx.to_ascii_uppercase();
                for sfx in [sfx.to_string(), upper] {
                    let file = format!("n1_decode_w0.err{sfx}");
                    match f.role {
                        Role::Compression => {
                            let (rest, g) = strip_compression(&file).unwrap();
                            assert_eq!((rest, g.name), ("n1_decode_w0.err", f.name));
                            // `-g`, pack members and server names all
                            // look through it.
                            assert!(
                                globs("*.err").admits("a.zip", std::slice::from_ref(&file)),
                                "{file}"
                            );
                            assert_eq!(
                                crate::pack::compile::strip_compression(&file),
                                "n1_decode_w0.err"
                            );
                            assert_eq!(crate::check::scope::server_name(&file), "decode_w0");
                            // A compressed log is not an archive of its own;
                            // a compressed tar is.
                            assert!(!crate::names::is_archive_name(&file), "{file}");
                            let tar = format!("logs.tar{sfx}");
                            assert!(crate::names::is_archive_name(&tar), "{tar}");
                            assert_eq!(crate::names::stem(&tar), "logs");
                            assert_eq!(
                                archive_suffix(&tar).as_deref(),
                                Some(format!(".tar{}", sfx.to_ascii_lowercase()).as_str())
                            );
                        }
                        Role::Container => {
                            assert!(strip_compression(&file).is_none());
                            assert!(crate::names::is_archive_name(&file), "{file}");
                            assert_eq!(crate::names::stem(&file), "n1_decode_w0.err");
                        }
                    }
                    assert_eq!(
                        archive_suffix(&file).as_deref(),
                        Some(sfx.to_ascii_lowercase().as_str())
                    );
                    assert_eq!(
                        crate::source::packed_name_on_text(
                            "a",
                            std::slice::from_ref(&file),
                            &["zip", "text"]
                        )
                        .as_deref(),
                        Some(sfx.to_ascii_lowercase().as_str()),
                        "{file}"
                    );
                    // Not a suffix alone: `.gz` is a hidden file's name.
                    assert!(strip_compression(&sfx).is_none());
                    assert_eq!(crate::pack::compile::strip_compression(&sfx), sfx);
                }
            }
            for sfx in f.tar_suffixes {
                let file = format!("logs{sfx}");
                assert!(crate::names::is_archive_name(&file), "{file}");
                assert_eq!(crate::names::stem(&file), "logs");
                assert!(strip_compression(&file).is_none(), "{file}");
                assert_eq!(archive_suffix(&file).as_deref(), Some(*sfx));
            }
        }
        // Names without a table suffix are left alone by every user.
        for file in ["server.log", "x.tar.gzip", "decode_w0.out", "a.gz.txt"] {
            assert!(strip_compression(file).is_none(), "{file}");
            assert!(archive_suffix(file).is_none(), "{file}");
            assert!(!crate::names::is_archive_name(file), "{file}");
            assert_eq!(crate::pack::compile::strip_compression(file), file);
        }
    }

    #[test]
    fn the_table_agrees_with_detection() {
        use crate::source::detect::detect;
        for f in FORMATS {
            assert_eq!(info(f.format).unwrap().name, f.name);
            for m in f.magic {
                let mut head = vec![0u8; 512];
                let at = if f.format == Format::Tar { 257 } else { 0 };
                head[at..at + m.len()].copy_from_slice(m);
                if f.format == Format::Bzip2 {
                    head[3] = b'9';
                }
                if f.format == Format::Tar {
                    head[..5].copy_from_slice(b"a.log");
                }
                assert_eq!(detect(&head), f.format, "{}", f.name);
            }
        }
    }
}
