//! How much of an artifact's own file has been read, for whoever watches a
//! run's progress. The source layer only counts; what the count is shown as
//! (a bar, progress lines) belongs to the [`ReadObserver`] the caller puts
//! in [`super::Limits::observer`], so this layer knows no output.

use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Told of the artifact file bytes consumed while artifacts are read.
pub trait ReadObserver: Send + Sync + std::fmt::Debug {
    /// `n` more bytes of an artifact's file consumed.
    fn consumed(&self, n: u64);
    /// An artifact is done: the `n` bytes counted for it leave the count
    /// (the driver then counts its whole file).
    fn returned(&self, n: u64);
}

/// What one artifact's top layer has consumed: told to the observer while
/// the artifact is read, taken back by [`Meter::finish`] when it is done.
#[derive(Clone, Debug, Default)]
pub(crate) struct Meter {
    mine: Arc<AtomicU64>,
    observer: Option<Arc<dyn ReadObserver>>,
}

impl Meter {
    pub(crate) fn new(observer: Option<Arc<dyn ReadObserver>>) -> Meter {
        Meter {
            mine: Arc::default(),
            observer,
        }
    }

    /// `n` more bytes of the artifact's file consumed.
    pub(crate) fn add(&self, n: u64) {
        if n == 0 {
            return;
        }
        self.mine.fetch_add(n, Ordering::Relaxed);
        if let Some(o) = &self.observer {
            o.consumed(n);
        }
    }

    /// Bytes consumed so far.
    #[cfg(test)]
    pub(crate) fn consumed(&self) -> u64 {
        self.mine.load(Ordering::Relaxed)
    }

    /// The artifact is done: its bytes leave the observer's count.
    pub(crate) fn finish(&self) {
        let n = self.mine.swap(0, Ordering::Relaxed);
        if let Some(o) = &self.observer {
            o.returned(n);
        }
    }

    /// `inner`, counted into this meter when its bytes are the artifact
    /// file's own (nested layers are not file bytes).
    pub(crate) fn reader<R>(&self, inner: R, origin: Origin) -> Metered<R> {
        Metered {
            inner,
            meter: (origin == Origin::File).then(|| self.clone()),
        }
    }
}

/// Whose bytes a reader passes on, for [`Meter::reader`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The artifact file's own bytes: progress follows them.
    File,
    /// Bytes of a member or layer inside the artifact.
    Nested,
}

impl Origin {
    /// The origin of a reader under a member chain of `members` names.
    pub(crate) fn at(members: usize) -> Origin {
        if members == 0 {
            Origin::File
        } else {
            Origin::Nested
        }
    }
}

/// A reader whose consumption moves a [`Meter`].
pub(crate) struct Metered<R> {
    inner: R,
    meter: Option<Meter>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(m) = &self.meter {
            m.add(n as u64);
        }
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Metered<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Some(m) = &self.meter {
            m.add(amt as u64);
        }
        self.inner.consume(amt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metered_reader_counts_what_is_consumed() {
        let data = vec![b'x'; 100_000];
        let m = Meter::new(None);
        let mut r = m.reader(&data[..], Origin::File);
        let mut buf = [0u8; 30_000];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(m.consumed(), 30_000);
        r.consume(5);
        assert_eq!(m.consumed(), 30_005);
        io::copy(&mut r, &mut io::sink()).unwrap();
        assert_eq!(m.consumed(), 100_000);
        m.finish();
        assert_eq!(m.consumed(), 0);
        // Nested bytes: nothing counted.
        let off = Meter::new(None);
        io::copy(&mut off.reader(&data[..], Origin::Nested), &mut io::sink()).unwrap();
        assert_eq!(off.consumed(), 0);
    }
}
