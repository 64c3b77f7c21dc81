//! A sparse member's data expanded: its holes given as zeros.

use super::*;

/// A sparse member's expanded content: zeros for the holes, the stored
/// data for the regions (a pax 1.0 map is read from the data first).
pub(super) struct SparseData<'t, 'r> {
    d: Data<'t, 'r>,
    map: Option<Vec<(u64, u64)>>,
    real_size: u64,
    /// Next region, and the position in the expanded file.
    i: usize,
    pos: u64,
    /// Zeros given for holes so far (at most [`MAX_HOLES`]).
    zeros: u64,
}

impl<'t, 'r> SparseData<'t, 'r> {
    pub(super) fn new(d: Data<'t, 'r>, s: Sparse) -> Self {
        SparseData {
            d,
            map: s.map,
            real_size: s.real_size,
            i: 0,
            pos: 0,
            zeros: 0,
        }
    }

    fn corrupt(&self, why: &'static str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            TarError::SparseMap {
                why,
                at: self.d.t.pos,
            },
        )
    }

    /// pax 1.0: decimal numbers, each ended by `\n`: the count of regions,
    /// then offset and length of each; padded to a block. Lines starting
    /// with `#` are comments (libarchive skips them; some writers add them).
    fn read_map(&mut self) -> io::Result<Vec<(u64, u64)>> {
        let mut numbers: Vec<u64> = Vec::new();
        let mut want = 1usize;
        let mut cur: Option<u64> = None;
        let mut comment = false;
        let mut block = [0u8; BLOCK];
        while numbers.len() < want {
            let mut n = 0;
            while n < BLOCK {
                match self.d.read(&mut block[n..])? {
                    0 => return Err(self.corrupt("is cut: the member ends inside it")),
                    k => n += k,
                }
            }
            for &b in &block {
                if numbers.len() == want {
                    break;
                }
                if comment || (b == b'#' && cur.is_none()) {
                    comment = b != b'\n';
                    continue;
                }
                match b {
                    b'0'..=b'9' => {
                        let v = cur.unwrap_or(0);
                        cur = Some(
                            v.checked_mul(10)
                                .and_then(|v| v.checked_add((b - b'0') as u64))
                                .ok_or_else(|| self.corrupt("is unreadable"))?,
                        );
                    }
                    b'\n' => {
                        let v = cur.take().ok_or_else(|| self.corrupt("is unreadable"))?;
                        if numbers.is_empty() {
                            if v > MAX_SPARSE as u64 {
                                return Err(self.corrupt("has too many regions"));
                            }
                            want = 1 + 2 * v as usize;
                        }
                        numbers.push(v);
                    }
                    _ => return Err(self.corrupt("is unreadable")),
                }
            }
        }
        let regions: Vec<(u64, u64)> = numbers[1..].chunks_exact(2).map(|p| (p[0], p[1])).collect();
        if !ordered(&regions, self.real_size) {
            return Err(self.corrupt("is unreadable"));
        }
        Ok(regions)
    }
}

impl Read for SparseData<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.map.is_none() {
            self.map = Some(self.read_map()?);
        }
        let map = self.map.as_deref().unwrap_or_default();
        let room = buf.len() as u64;
        // Regions already passed (or empty) are stepped over.
        while map
            .get(self.i)
            .is_some_and(|&(off, len)| self.pos >= off + len)
        {
            self.i += 1;
        }
        // Zeros up to the next region's start (or the real size).
        let next = map.get(self.i).map_or(self.real_size, |r| r.0);
        if self.pos < next {
            if self.zeros >= MAX_HOLES {
                return Err(io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    TarError::SparseHoles,
                ));
            }
            let n = (next - self.pos).min(room).min(MAX_HOLES - self.zeros) as usize;
            buf[..n].fill(0);
            self.pos += n as u64;
            self.zeros += n as u64;
            return Ok(n);
        }
        let Some(&(off, len)) = map.get(self.i) else {
            return Ok(0);
        };
        let end = off + len;
        let want = (end - self.pos).min(room) as usize;
        let n = self.d.read(&mut buf[..want])?;
        if n == 0 {
            return Err(self.corrupt("claims more data than the member stores"));
        }
        self.pos += n as u64;
        Ok(n)
    }
}
