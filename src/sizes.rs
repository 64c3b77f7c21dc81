//! Byte counts as the command line takes them (`64G`, `512K`): a leaf, so
//! that the limits' flag declarations in `source` and `lines` can name it.

/// A byte count with an optional binary suffix: `1048576`, `1M`, `64G`
/// (K, M, G, T; a trailing `B` or `iB` is allowed), as rg and ugrep take.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("{s:?}: the suffix is K, M, G or T")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 1048576, 512K, 64G)"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// [`parse_size`] for a limit held in memory (`usize`).
pub(crate) fn parse_size_usize(s: &str) -> Result<usize, String> {
    parse_size(s).and_then(|n| usize::try_from(n).map_err(|_| format!("{s:?} is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("64G"), Ok(64 << 30));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3TB"), Ok(3 << 40));
        assert!(parse_size("64X").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
