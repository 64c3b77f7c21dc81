//! A multi-member gzip reader that gives back every byte it could decode
//! before reporting damage. (flate2's `MultiGzDecoder` drops the output of
//! the read call that hits a bad block, which can be the whole member.)

use flate2::{Decompress, FlushDecompress, Status};
use std::io::{self, BufRead, Read};

enum State {
    Header,
    Body,
    Done,
}

pub(super) struct GzReader<R> {
    inner: R,
    z: Decompress,
    state: State,
    crc: crc32fast::Hasher,
    size: u32,
    members: u64,
    /// An error found after output was produced: returned on the next read.
    pending: Option<io::Error>,
}

pub(super) fn corrupt(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

pub(super) fn truncated(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, msg.into())
}

/// Damage met by one [`inflate`] step.
pub(super) enum Damage {
    /// The input ended inside the deflate data.
    Truncated,
    /// The decoder neither took input nor gave output.
    Stuck,
    /// The decoder's own error.
    Corrupt(String),
}

/// One step of raw deflate from what `inner` has buffered into `out`:
/// the bytes produced, and whether the deflate data ended (`Ok(true)`) or
/// was found damaged. Shared by the gzip reader and zip entries.
pub(super) fn inflate<R: BufRead>(
    z: &mut Decompress,
    inner: &mut R,
    out: &mut [u8],
) -> io::Result<(usize, Result<bool, Damage>)> {
    let input = inner.fill_buf()?;
    let eof = input.is_empty();
    let (in0, out0) = (z.total_in(), z.total_out());
    let status = z.decompress(input, out, FlushDecompress::None);
    let consumed = (z.total_in() - in0) as usize;
    let produced = (z.total_out() - out0) as usize;
    inner.consume(consumed);
    let state = match status {
        Ok(Status::StreamEnd) => Ok(true),
        Ok(_) if eof && produced == 0 => Err(Damage::Truncated),
        Ok(_) if consumed == 0 && produced == 0 => Err(Damage::Stuck),
        Ok(_) => Ok(false),
        Err(e) => Err(Damage::Corrupt(e.to_string())),
    };
    Ok((produced, state))
}

/// The bytes decoded before an error are handed back first; the error is
/// kept in `pending` for the next read.
pub(super) fn bytes_then_error(
    pending: &mut Option<io::Error>,
    produced: usize,
    e: io::Error,
) -> io::Result<usize> {
    if produced > 0 {
        *pending = Some(e);
        return Ok(produced);
    }
    Err(e)
}

impl<R: BufRead> GzReader<R> {
    pub(super) fn new(inner: R) -> Self {
        GzReader {
            inner,
            z: Decompress::new(false),
            state: State::Header,
            crc: crc32fast::Hasher::new(),
            size: 0,
            members: 0,
            pending: None,
        }
    }

    fn exact(&mut self, buf: &mut [u8], what: &str) -> io::Result<()> {
        self.inner.read_exact(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                truncated(format!("stream ends inside the {what}"))
            } else {
                e
            }
        })
    }

    fn skip_zstring(&mut self, what: &str) -> io::Result<()> {
        let mut b = [0u8; 1];
        loop {
            self.exact(&mut b, what)?;
            if b[0] == 0 {
                return Ok(());
            }
        }
    }

    /// Parses a member header (RFC 1952). False: clean end of the stream.
    fn header(&mut self) -> io::Result<bool> {
        if self.members > 0 {
            let rest = self.inner.fill_buf()?;
            if rest.is_empty() {
                return Ok(false);
            }
            if !rest.starts_with(&[0x1f]) {
                // Zero padding after the last member is common and harmless.
                if rest.iter().all(|&b| b == 0) {
                    loop {
                        let n = {
                            let r = self.inner.fill_buf()?;
                            if r.is_empty() {
                                return Ok(false);
                            }
                            if r.iter().any(|&b| b != 0) {
                                return Err(corrupt("garbage after the last member"));
                            }
                            r.len()
                        };
                        self.inner.consume(n);
                    }
                }
                return Err(corrupt("garbage after the last member"));
            }
        }
        let mut h = [0u8; 10];
        self.exact(&mut h, "header")?;
        if h[0] != 0x1f || h[1] != 0x8b {
            return Err(corrupt("bad magic number in member header"));
        }
        if h[2] != 8 {
            return Err(corrupt(format!("unknown compression method {}", h[2])));
        }
        let flags = h[3];
        if flags & 0xe0 != 0 {
            return Err(corrupt("reserved header flags set"));
        }
        if flags & 0x04 != 0 {
            let mut len = [0u8; 2];
            self.exact(&mut len, "header")?;
            let mut extra = vec![0u8; u16::from_le_bytes(len) as usize];
            self.exact(&mut extra, "header")?;
        }
        if flags & 0x08 != 0 {
            self.skip_zstring("file name")?;
        }
        if flags & 0x10 != 0 {
            self.skip_zstring("comment")?;
        }
        if flags & 0x02 != 0 {
            let mut crc = [0u8; 2];
            self.exact(&mut crc, "header")?;
        }
        self.z.reset(false);
        self.crc = crc32fast::Hasher::new();
        self.size = 0;
        self.members += 1;
        Ok(true)
    }

    fn trailer(&mut self) -> io::Result<()> {
        let mut t = [0u8; 8];
        self.exact(&mut t, "trailer")?;
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        let ours = std::mem::replace(&mut self.crc, crc32fast::Hasher::new()).finalize();
        if crc != ours {
            return Err(corrupt(format!(
                "CRC mismatch in member {} (stored {crc:08x}, computed {ours:08x}): the content was read but may be damaged",
                self.members
            )));
        }
        if size != self.size {
            return Err(corrupt(format!(
                "length mismatch in member {}",
                self.members
            )));
        }
        Ok(())
    }
}

impl<R: BufRead> Read for GzReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.state {
                State::Done => return Ok(0),
                State::Header => {
                    if self.header()? {
                        self.state = State::Body;
                    } else {
                        self.state = State::Done;
                    }
                }
                State::Body => {
                    let (produced, state) = inflate(&mut self.z, &mut self.inner, buf)?;
                    self.crc.update(&buf[..produced]);
                    self.size = self.size.wrapping_add(produced as u32);
                    let err = match state {
                        Ok(true) => {
                            self.state = State::Header;
                            self.trailer().err()
                        }
                        Ok(false) => None,
                        Err(Damage::Truncated) => {
                            Some(truncated("stream ends inside a deflate block"))
                        }
                        Err(Damage::Stuck) => Some(corrupt("deflate stream makes no progress")),
                        Err(Damage::Corrupt(e)) => Some(corrupt(format!(
                            "corrupt deflate data in member {}: {e}",
                            self.members
                        ))),
                    };
                    if let Some(e) = err {
                        self.state = State::Done;
                        return bytes_then_error(&mut self.pending, produced, e);
                    }
                    if produced > 0 {
                        return Ok(produced);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn multi_member_and_crc() {
        let mut two = gz(b"one\n");
        two.extend(gz(b"two\n"));
        let mut out = String::new();
        GzReader::new(&two[..]).read_to_string(&mut out).unwrap();
        assert_eq!(out, "one\ntwo\n");
        let mut bad = gz(b"hello\n");
        let n = bad.len();
        bad[n - 8] ^= 1;
        let mut out = Vec::new();
        let err = GzReader::new(&bad[..]).read_to_end(&mut out).unwrap_err();
        assert_eq!(out, b"hello\n");
        assert!(err.to_string().contains("CRC"));
    }

    #[test]
    fn truncated_stream_keeps_prefix() {
        let data: Vec<u8> = (0..20000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let z = gz(&data);
        let cut = &z[..z.len() / 2];
        let mut r = GzReader::new(cut);
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        let err = loop {
            match r.read(&mut buf) {
                Ok(0) => panic!("no error"),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert!(out.len() > data.len() / 4 && data.starts_with(&out));
    }
}
