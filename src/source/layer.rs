//! Readers that sit between the layers of an artifact: they count bytes for
//! the limits and stamp each read error with the member chain and the kind
//! of failure where it happened, so coverage can name it.

use super::{ErrorKind, Limits};
use std::cell::Cell;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

/// An io error payload that knows where it happened.
#[derive(Debug)]
pub struct Tagged {
    pub members: Vec<String>,
    pub kind: ErrorKind,
    pub message: String,
    /// Set once coverage holds it, so enclosing layers do not repeat it.
    pub recorded: RecordedFlag,
}

#[derive(Debug, Default)]
pub struct RecordedFlag(AtomicBool);

impl RecordedFlag {
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    pub fn set(&self, v: bool) {
        self.0.store(v, Ordering::Relaxed)
    }
}

impl Tagged {
    pub fn new(members: &[String], kind: ErrorKind, message: impl Into<String>) -> Tagged {
        Tagged {
            members: members.to_vec(),
            kind,
            message: message.into(),
            recorded: RecordedFlag::default(),
        }
    }

    /// An io error for `e` at `members`, keeping the tag `e` already has.
    pub fn io(members: &[String], kind: ErrorKind, e: &dyn fmt::Display) -> io::Error {
        io::Error::other(Tagged::new(members, kind, e.to_string()))
    }

    pub fn of(e: &io::Error) -> Option<&Tagged> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<Tagged>())
    }
}

impl fmt::Display for Tagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Tagged {}

/// The kind of an untagged io error from a decoder or container.
pub fn classify(e: &io::Error) -> ErrorKind {
    if let Some(t) = Tagged::of(e) {
        return t.kind;
    }
    let msg = e.to_string();
    match e.kind() {
        io::ErrorKind::UnexpectedEof => ErrorKind::Truncated,
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => ErrorKind::Corrupt,
        io::ErrorKind::Unsupported => ErrorKind::Unsupported,
        _ if msg.contains("unexpected EOF") || msg.contains("unexpected end") => {
            ErrorKind::Truncated
        }
        _ if msg.contains("too much memory") || msg.contains("window") => ErrorKind::Limit,
        io::ErrorKind::Other => ErrorKind::Corrupt,
        _ => ErrorKind::Io,
    }
}

/// Decompressed bytes of one artifact, against `--max-bytes`.
pub struct Budget {
    used: Cell<u64>,
    max_bytes: u64,
    max_member_bytes: u64,
    max_ratio: f64,
    ratio_grace: u64,
    /// Bytes of zip spool still allowed (all nested spools together).
    spool_left: Cell<usize>,
}

impl Budget {
    pub fn new(limits: &Limits) -> Budget {
        Budget {
            used: Cell::new(0),
            max_bytes: limits.max_bytes,
            max_member_bytes: limits.max_member_bytes,
            max_ratio: limits.max_ratio,
            ratio_grace: limits.ratio_grace,
            spool_left: Cell::new(limits.spool_cap),
        }
    }

    pub fn spool_left(&self) -> usize {
        self.spool_left.get()
    }

    /// Takes `n` bytes of spool until the guard is dropped.
    pub fn hold_spool(&self, n: usize) -> SpoolHold<'_> {
        let n = n.min(self.spool_left.get());
        self.spool_left.set(self.spool_left.get() - n);
        SpoolHold { budget: self, n }
    }
}

/// Spool bytes held by one zip in memory.
pub struct SpoolHold<'b> {
    budget: &'b Budget,
    n: usize,
}

impl Drop for SpoolHold<'_> {
    fn drop(&mut self) {
        let b = self.budget;
        b.spool_left.set(b.spool_left.get() + self.n);
    }
}

/// A zstd decoder whose "window too large" refusal becomes a `limit` error
/// that says so (zstd's own message speaks of memory).
pub struct ZstdWindow<R> {
    inner: R,
    members: Vec<String>,
}

impl<R: Read> ZstdWindow<R> {
    pub fn new(inner: R, members: &[String]) -> Self {
        ZstdWindow {
            inner,
            members: members.to_vec(),
        }
    }
}

impl<R: Read> Read for ZstdWindow<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if Tagged::of(&e).is_none() && e.to_string().contains("too much memory") {
                let msg = "zstd frame asks for a window over 128 MiB (2^27): not decoded";
                io::Error::other(Tagged::new(&self.members, ErrorKind::Limit, msg))
            } else {
                e
            }
        })
    }
}

/// A reader that first returns an error met earlier (after the bytes read
/// before it were handed on), then reads on.
pub struct Pending<R> {
    error: Option<io::Error>,
    inner: R,
}

impl<R: Read> Pending<R> {
    pub fn new(error: Option<io::Error>, inner: R) -> Self {
        Pending { error, inner }
    }
}

impl<R: Read> Read for Pending<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.inner.read(buf),
        }
    }
}

/// Counts the bytes read (or, buffered, consumed) through it.
pub struct Counted<R> {
    inner: R,
    n: Rc<Cell<u64>>,
}

impl<R: Read> Counted<R> {
    pub fn new(inner: R) -> Counted<R> {
        Counted {
            inner,
            n: Rc::new(Cell::new(0)),
        }
    }
    pub fn counter(&self) -> Rc<Cell<u64>> {
        self.n.clone()
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.n.set(self.n.get() + n as u64);
        Ok(n)
    }
}

/// Buffered, it counts what is consumed.
impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.n.set(self.n.get() + amt as u64);
        self.inner.consume(amt)
    }
}

/// The output of one layer (a decoder, or a container member).
pub struct Layer<'b, R> {
    inner: R,
    /// Member chain of this layer's output.
    members: Vec<String>,
    what: &'static str,
    budget: &'b Budget,
    /// Compressed bytes consumed, for the ratio limit.
    consumed: Option<Rc<Cell<u64>>>,
    /// Whether this layer decompresses (counts against the budget).
    decodes: bool,
    out: u64,
}

impl<'b, R: Read> Layer<'b, R> {
    pub fn new(
        inner: R,
        members: &[String],
        what: &'static str,
        budget: &'b Budget,
        consumed: Option<Rc<Cell<u64>>>,
        decodes: bool,
    ) -> Self {
        Layer {
            inner,
            members: members.to_vec(),
            what,
            budget,
            consumed,
            decodes,
            out: 0,
        }
    }

    /// This layer is a container member: its output is one level deeper.
    pub fn set_member(&mut self, name: String) {
        self.members.push(name);
    }

    fn limit(&self, message: String) -> io::Error {
        io::Error::other(Tagged::new(&self.members, ErrorKind::Limit, message))
    }

    fn check(&self, n: u64) -> io::Result<()> {
        let b = self.budget;
        let used = b.used.get() + n;
        b.used.set(used);
        if used > b.max_bytes {
            return Err(self.limit(format!(
                "artifact decompresses past --max-bytes {}",
                b.max_bytes
            )));
        }
        if self.out > b.max_member_bytes {
            return Err(self.limit(format!(
                "member decompresses past --max-member-bytes {}",
                b.max_member_bytes
            )));
        }
        if self.out > b.ratio_grace {
            let input = self.consumed.as_ref().map_or(u64::MAX, |c| c.get());
            if self.out as f64 > b.max_ratio * input.max(1) as f64 {
                return Err(self.limit(format!(
                    "{} member expands more than --max-ratio {} ({} bytes from {})",
                    self.what, b.max_ratio, self.out, input
                )));
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Layer<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) if Tagged::of(&e).is_some() => return Err(e),
            Err(e) => {
                let kind = classify(&e);
                let message = format!("{}: {}", self.what, e);
                return Err(io::Error::other(Tagged::new(&self.members, kind, message)));
            }
        };
        if self.decodes && n > 0 {
            self.out += n as u64;
            self.check(n as u64)?;
        }
        Ok(n)
    }
}
