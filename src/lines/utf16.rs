//! UTF-16 logs (a BOM first) read as UTF-8 text.

use std::io::{self, Read};

/// UTF-16 (after its BOM) decoded to UTF-8 as it streams. What cannot be
/// decoded (an unpaired surrogate, an odd last byte) becomes U+FFFD and is
/// counted, never dropped silently.
pub(crate) struct Utf16Reader<R> {
    inner: R,
    le: bool,
    raw: Vec<u8>,
    /// Undecoded bytes in `raw` start here.
    pos: usize,
    out: Vec<u8>,
    out_pos: usize,
    eof: bool,
    /// Bytes read from `inner`.
    pub consumed: u64,
    pub undecodable: u64,
}

impl<R: Read> Utf16Reader<R> {
    pub(crate) fn new(inner: R, le: bool) -> Self {
        Utf16Reader {
            inner,
            le,
            raw: Vec::new(),
            pos: 0,
            out: Vec::new(),
            out_pos: 0,
            eof: false,
            consumed: 0,
            undecodable: 0,
        }
    }

    fn unit(&self, at: usize) -> u16 {
        let b = [self.raw[at], self.raw[at + 1]];
        if self.le {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    }

    fn push(&mut self, c: char) {
        self.out
            .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }

    /// Decodes what `raw` holds into `out`; keeps a unit or surrogate pair
    /// cut by the end of the read for the next one (unless at the end).
    fn decode(&mut self) {
        self.out.clear();
        self.out_pos = 0;
        let mut i = self.pos;
        while i + 2 <= self.raw.len() {
            let u = self.unit(i);
            if (0xd800..0xdc00).contains(&u) {
                if i + 4 > self.raw.len() {
                    if !self.eof {
                        break;
                    }
                    self.undecodable += 2;
                    self.push('\u{fffd}');
                    i += 2;
                    continue;
                }
                let lo = self.unit(i + 2);
                if (0xdc00..0xe000).contains(&lo) {
                    let c = 0x10000 + ((u32::from(u) - 0xd800) << 10) + (u32::from(lo) - 0xdc00);
                    self.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                    i += 4;
                } else {
                    self.undecodable += 2;
                    self.push('\u{fffd}');
                    i += 2;
                }
                continue;
            }
            match char::from_u32(u32::from(u)) {
                Some(c) => self.push(c),
                None => {
                    self.undecodable += 2;
                    self.push('\u{fffd}');
                }
            }
            i += 2;
        }
        if self.eof && i < self.raw.len() {
            self.undecodable += (self.raw.len() - i) as u64;
            self.push('\u{fffd}');
            i = self.raw.len();
        }
        self.pos = i;
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_pos == self.out.len() {
            if self.eof && self.pos == self.raw.len() {
                return Ok(0);
            }
            self.raw.drain(..self.pos);
            self.pos = 0;
            let have = self.raw.len();
            self.raw.resize(have + (64 << 10), 0);
            let n = loop {
                match self.inner.read(&mut self.raw[have..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.raw.truncate(have);
                        return Err(e);
                    }
                }
            };
            self.raw.truncate(have + n);
            self.consumed += n as u64;
            self.eof = n == 0;
            self.decode();
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}
