//! SHA-256 and its hex form, written once: artifact hashes (the member
//! loop, positioned reads, `drive`), evidence ids and fingerprints all
//! print the same lowercase hex.

use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Lowercase hex of `bytes` (two digits a byte).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The hex SHA-256 of what `h` was fed.
pub(crate) fn finish_hex(h: Sha256) -> String {
    hex(&h.finalize())
}

/// The hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-2's test vector, and the streaming form agreeing with it.
    #[test]
    fn sha256_of_abc_is_the_standard_vector() {
        let want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_hex(b"abc"), want);
        let mut h = Sha256::new();
        h.update(b"a");
        h.update(b"bc");
        assert_eq!(finish_hex(h), want);
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
    }
}
