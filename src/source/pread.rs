//! A regular file read at offsets (`pread`), from the one open file: how
//! a big zip is read in place (its directory is at the end). Never
//! mapped: a file truncated while mapped kills the process with SIGBUS,
//! where a positional read just comes back short. A file that ends before
//! the size it had when opened has changed while read: an `io` error
//! (`changed while read`), never a panic or bytes of two versions.

use super::layer::Tagged;
use super::{ErrorKind, changed};
use std::io::{self, BufRead, Read};
use std::os::unix::fs::FileExt;

/// A file and its size when it was opened.
#[derive(Clone, Copy)]
pub(super) struct FileAt<'a> {
    file: &'a std::fs::File,
    len: u64,
}

impl<'a> FileAt<'a> {
    pub(super) fn new(file: &'a std::fs::File, len: u64) -> FileAt<'a> {
        FileAt { file, len }
    }

    /// The size the file had when opened.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Fills `buf` from offset `at`, which the caller keeps inside
    /// [`Self::len`]: the file ending sooner is an `io` error.
    pub(super) fn read_exact_at(&self, mut at: u64, mut buf: &mut [u8]) -> io::Result<()> {
        while !buf.is_empty() {
            match self.file.read_at(buf, at) {
                Ok(0) => return Err(self.changed(at)),
                Ok(n) => {
                    at += n as u64;
                    buf = &mut buf[n..];
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(os_error(&e)),
            }
        }
        Ok(())
    }

    /// The bytes `from..to` as a reader: no more than `to`, an error if
    /// the file ends before it.
    pub(super) fn range(&self, from: u64, to: u64) -> Range<'a> {
        Range {
            at: *self,
            pos: from,
            end: to.max(from),
        }
    }

    /// The SHA-256 (hex) of the file's `len` bytes, read a window at a time.
    pub(super) fn sha256(&self) -> io::Result<String> {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        let mut r = self.range(0, self.len);
        let mut buf = vec![0u8; WINDOW];
        loop {
            match r.read(&mut buf)? {
                0 => return Ok(crate::hash::finish_hex(h)),
                n => h.update(&buf[..n]),
            }
        }
    }

    /// The file ended at `at`, before its size when opened.
    fn changed(&self, at: u64) -> io::Error {
        io::Error::other(Tagged::new(
            &[],
            ErrorKind::Io,
            changed(self.len, at).to_string(),
        ))
    }
}

/// Bytes read at a time where a file is read through (the hash, a search).
pub(super) const WINDOW: usize = 1 << 20;

/// An operating system's read error, an `io` error where it happened.
fn os_error(e: &io::Error) -> io::Error {
    io::Error::other(Tagged::new(&[], ErrorKind::Io, e.to_string()))
}

/// Part of a [`FileAt`] as a reader, at a position up to a limit.
pub(super) struct Range<'a> {
    at: FileAt<'a>,
    pos: u64,
    end: u64,
}

impl Read for Range<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = (self.end - self.pos).min(buf.len() as u64) as usize;
        if want == 0 {
            return Ok(0);
        }
        loop {
            match self.at.file.read_at(&mut buf[..want], self.pos) {
                Ok(0) => return Err(self.at.changed(self.pos)),
                Ok(n) => {
                    self.pos += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(os_error(&e)),
            }
        }
    }
}

/// Bytes of a whole zip in place: in memory, or a file read at offsets.
#[derive(Clone, Copy)]
pub(super) enum Data<'a> {
    Mem(&'a [u8]),
    File(FileAt<'a>),
}

impl<'a> Data<'a> {
    pub(super) fn len(&self) -> u64 {
        match self {
            Data::Mem(d) => d.len() as u64,
            Data::File(f) => f.len,
        }
    }

    /// The `n` bytes at `at`, None where they are not all inside (as
    /// `<[u8]>::get`).
    pub(super) fn get(&self, at: u64, n: usize) -> io::Result<Option<std::borrow::Cow<'a, [u8]>>> {
        let Some(end) = at.checked_add(n as u64).filter(|&e| e <= self.len()) else {
            return Ok(None);
        };
        Ok(Some(match *self {
            Data::Mem(d) => std::borrow::Cow::Borrowed(&d[at as usize..end as usize]),
            Data::File(f) => {
                let mut buf = vec![0u8; n];
                f.read_exact_at(at, &mut buf)?;
                std::borrow::Cow::Owned(buf)
            }
        }))
    }

    /// The bytes `from..to` (inside) as a buffered reader.
    pub(super) fn span(&self, from: u64, to: u64) -> Span<'a> {
        match *self {
            Data::Mem(d) => Span::Mem(&d[from as usize..to as usize]),
            Data::File(f) => Span::File(io::BufReader::with_capacity(
                (to.saturating_sub(from) as usize).clamp(1, 64 << 10),
                f.range(from, to),
            )),
        }
    }

    /// Where `needle` first occurs in `from..to` (inside), a window at a
    /// time for a file.
    pub(super) fn find(&self, from: u64, to: u64, needle: &[u8]) -> io::Result<Option<u64>> {
        let f = match *self {
            Data::Mem(d) => {
                let hay = &d[from as usize..to as usize];
                return Ok(memchr::memmem::find(hay, needle).map(|i| from + i as u64));
            }
            Data::File(f) => f,
        };
        let finder = memchr::memmem::Finder::new(needle);
        let keep = needle.len().saturating_sub(1);
        let mut buf = vec![0u8; (to.saturating_sub(from) as usize).min(WINDOW)];
        // `buf[..have]` holds the bytes from `start`.
        let (mut start, mut have) = (from, 0usize);
        loop {
            let take = ((to - start) as usize - have).min(buf.len() - have);
            f.read_exact_at(start + have as u64, &mut buf[have..have + take])?;
            have += take;
            if let Some(i) = finder.find(&buf[..have]) {
                return Ok(Some(start + i as u64));
            }
            if start + have as u64 >= to || have <= keep {
                return Ok(None);
            }
            // The last `keep` bytes may begin a match: they stay.
            buf.copy_within(have - keep..have, 0);
            start += (have - keep) as u64;
            have = keep;
        }
    }
}

/// A [`Data::span`].
pub(super) enum Span<'a> {
    Mem(&'a [u8]),
    File(io::BufReader<Range<'a>>),
}

impl Read for Span<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Span::Mem(d) => d.read(buf),
            Span::File(f) => f.read(buf),
        }
    }
}

impl BufRead for Span<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Span::Mem(d) => d.fill_buf(),
            Span::File(f) => f.fill_buf(),
        }
    }
    fn consume(&mut self, amt: usize) {
        match self {
            Span::Mem(d) => d.consume(amt),
            Span::File(f) => f.consume(amt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_read_at_offsets_finds_and_reads_its_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let mut bytes = vec![b'x'; 3 * WINDOW + 17];
        // Across the first window's end, and near the end.
        bytes[WINDOW - 2..WINDOW + 2].copy_from_slice(b"PK\x03\x04");
        let last = bytes.len() - 6;
        bytes[last..last + 4].copy_from_slice(b"PK\x03\x04");
        std::fs::write(&p, &bytes).unwrap();
        let file = std::fs::File::open(&p).unwrap();
        let f = Data::File(FileAt::new(&file, bytes.len() as u64));
        let m = Data::Mem(&bytes);
        for d in [f, m] {
            let len = d.len();
            let w = WINDOW as u64;
            assert_eq!(d.find(0, len, b"PK\x03\x04").unwrap(), Some(w - 2));
            assert_eq!(
                d.find(w - 1, len, b"PK\x03\x04").unwrap(),
                Some(last as u64)
            );
            assert_eq!(d.find(w - 1, last as u64 + 3, b"PK\x03\x04").unwrap(), None);
            assert_eq!(d.find(5, 5, b"PK").unwrap(), None);
            assert_eq!(d.get(len - 2, 3).unwrap(), None);
            assert_eq!(&*d.get(w - 2, 4).unwrap().unwrap(), b"PK\x03\x04");
            let mut got = Vec::new();
            d.span(10, len - 1).read_to_end(&mut got).unwrap();
            assert_eq!(got, &bytes[10..bytes.len() - 1]);
        }
        // Cut: reads that reach past the new end are errors, not short.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(100)
            .unwrap();
        let e = f.get(WINDOW as u64, 4).unwrap_err();
        assert!(e.to_string().starts_with("changed while read"), "{e}");
        let e = f.span(0, 200).read_to_end(&mut Vec::new()).unwrap_err();
        assert_eq!(
            Tagged::of(&e).map(|t| (t.kind, t.message.as_str())),
            Some((
                ErrorKind::Io,
                &*format!(
                    "changed while read: {} bytes when opened, 100 read",
                    bytes.len()
                )
            ))
        );
        assert!(f.find(0, 200, b"PK\x03\x04").is_err());
        if let Data::File(at) = f {
            assert!(at.sha256().is_err());
        }
    }
}
