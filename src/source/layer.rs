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
pub(super) struct Tagged {
    pub members: Vec<String>,
    pub kind: ErrorKind,
    pub message: String,
    /// Set once coverage holds it, so enclosing layers do not repeat it.
    pub recorded: RecordedFlag,
}

#[derive(Debug, Default)]
pub(super) struct RecordedFlag(AtomicBool);

impl RecordedFlag {
    pub(super) fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    pub(super) fn set(&self, v: bool) {
        self.0.store(v, Ordering::Relaxed)
    }
}

impl Tagged {
    pub(super) fn new(members: &[String], kind: ErrorKind, message: impl Into<String>) -> Tagged {
        Tagged {
            members: members.to_vec(),
            kind,
            message: message.into(),
            recorded: RecordedFlag::default(),
        }
    }

    /// An io error for `e` at `members`, keeping the tag `e` already has.
    pub(super) fn io(members: &[String], kind: ErrorKind, e: &dyn fmt::Display) -> io::Error {
        io::Error::other(Tagged::new(members, kind, e.to_string()))
    }

    pub(super) fn of(e: &io::Error) -> Option<&Tagged> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<Tagged>())
    }
}

impl fmt::Display for Tagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Tagged {}

/// The kind of an untagged io error from a decoder or container, from its
/// io kind only: artiscan's own readers choose the kind on purpose, and a
/// dependency's change of wording cannot change a verdict.
pub(super) fn classify(e: &io::Error) -> ErrorKind {
    if let Some(t) = Tagged::of(e) {
        return t.kind;
    }
    match e.kind() {
        io::ErrorKind::UnexpectedEof => ErrorKind::Truncated,
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData | io::ErrorKind::Other => {
            ErrorKind::Corrupt
        }
        io::ErrorKind::Unsupported => ErrorKind::Unsupported,
        io::ErrorKind::OutOfMemory => ErrorKind::Limit,
        _ => ErrorKind::Io,
    }
}

/// What one artifact has used of its limits: decompressed bytes (against
/// `--max-bytes`; each layer checks its member's bytes and ratio) and
/// the zip spool.
pub(crate) struct Budget {
    used: Cell<u64>,
    /// The limits, whole (not copied field by field: a new one is here
    /// without an edit).
    limits: Limits,
    /// Bytes of zip spool still allowed (all nested spools together).
    spool_left: Cell<usize>,
}

impl Budget {
    pub(crate) fn new(limits: &Limits) -> Budget {
        Budget {
            used: Cell::new(0),
            limits: limits.clone(),
            spool_left: Cell::new(limits.spool_cap),
        }
    }

    pub(crate) fn spool_left(&self) -> usize {
        self.spool_left.get()
    }

    /// Takes `n` bytes of spool until the guard is dropped.
    pub(crate) fn hold_spool(&self, n: usize) -> SpoolHold<'_> {
        let n = n.min(self.spool_left.get());
        self.spool_left.set(self.spool_left.get() - n);
        SpoolHold { budget: self, n }
    }
}

/// Spool bytes held by one zip in memory.
pub(crate) struct SpoolHold<'b> {
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
pub(super) struct ZstdWindow<R> {
    inner: R,
    members: Vec<String>,
}

impl<R: Read> ZstdWindow<R> {
    pub(super) fn new(inner: R, members: &[String]) -> Self {
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
pub(super) struct Pending<R> {
    error: Option<io::Error>,
    inner: R,
}

impl<R: Read> Pending<R> {
    pub(super) fn new(error: Option<io::Error>, inner: R) -> Self {
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

/// An xz decoder whose memory-limit refusal is a `limit` error (from the
/// decoder's typed error, not its wording).
pub(super) struct Xz<R>(pub R);

impl<R: Read> Read for Xz<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            let memlimit = e
                .get_ref()
                .and_then(|i| i.downcast_ref::<liblzma::stream::Error>())
                .is_some_and(|x| matches!(x, liblzma::stream::Error::MemLimit));
            if memlimit {
                let msg = "xz stream needs more than 256 MiB of memory: not decoded";
                io::Error::new(io::ErrorKind::OutOfMemory, msg)
            } else {
                e
            }
        })
    }
}

/// An lz4 frame decoder that does not take a stream cut at a block boundary
/// for its end: lz4_flex ends quietly there, so the frames are followed
/// byte by byte as they are read ([`Frames`]) and the stream has ended
/// only where a frame's EndMark (and content checksum) was, as `lz4 -t`
/// decides ("Unfinished stream" otherwise). A cut block that happens to
/// end in four NUL bytes is no end mark.
pub(super) struct Lz4<R: Read> {
    inner: lz4_flex::frame::FrameDecoder<Watched<R>>,
    frames: Rc<Cell<Frames>>,
    read: Rc<Cell<u64>>,
}

/// Passes every byte read through it to a [`Frames`].
pub(super) struct Watched<R> {
    inner: R,
    frames: Rc<Cell<Frames>>,
    n: Rc<Cell<u64>>,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut f = self.frames.get();
        f.feed(&buf[..n]);
        self.frames.set(f);
        self.n.set(self.n.get() + n as u64);
        Ok(n)
    }
}

/// Where a stream of lz4 frames (and skippable frames) stands, from its
/// block sizes alone: constant memory, no decoding.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Frames {
    state: FrameState,
    /// Bytes of the field being collected (a magic or a size: 4 bytes).
    field: [u8; 4],
    have: usize,
    /// The current frame's FLG byte.
    flg: u8,
    /// Frames that reached their EndMark.
    ended: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum FrameState {
    /// Between frames: a magic number comes next.
    #[default]
    Magic,
    SkipSize,
    Flg,
    BlockSize,
    /// Bytes to pass over (descriptor, block data, checksums), then the
    /// state after them.
    Skip(u64, After),
    /// Not lz4 frames: the decoder reports it.
    Lost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    Magic,
    BlockSize,
}

impl Frames {
    fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            match self.state {
                FrameState::Lost => return,
                FrameState::Skip(n, after) => {
                    let take = n.min(data.len() as u64);
                    data = &data[take as usize..];
                    self.state = match (n - take, after) {
                        (0, After::Magic) => FrameState::Magic,
                        (0, After::BlockSize) => FrameState::BlockSize,
                        (left, after) => FrameState::Skip(left, after),
                    };
                }
                FrameState::Flg => {
                    self.flg = data[0];
                    data = &data[1..];
                    // BD, content size, dictionary id, header checksum.
                    let rest = 1 + 8 * ((self.flg >> 3) & 1) + 4 * (self.flg & 1) + 1;
                    self.state = FrameState::Skip(rest as u64, After::BlockSize);
                }
                state => {
                    let take = (4 - self.have).min(data.len());
                    self.field[self.have..self.have + take].copy_from_slice(&data[..take]);
                    self.have += take;
                    data = &data[take..];
                    if self.have < 4 {
                        return;
                    }
                    self.have = 0;
                    let v = u32::from_le_bytes(self.field);
                    self.state = match state {
                        FrameState::Magic if v == 0x184D_2204 => FrameState::Flg,
                        FrameState::Magic if v & 0xFFFF_FFF0 == 0x184D_2A50 => FrameState::SkipSize,
                        FrameState::SkipSize => FrameState::Skip(v as u64, After::Magic),
                        FrameState::BlockSize if v == 0 => {
                            // EndMark, then the content checksum if flagged.
                            self.ended += 1;
                            match self.flg & 4 {
                                0 => FrameState::Magic,
                                _ => FrameState::Skip(4, After::Magic),
                            }
                        }
                        FrameState::BlockSize => {
                            let sum = if self.flg & 0x10 != 0 { 4 } else { 0 };
                            FrameState::Skip((v & 0x7FFF_FFFF) as u64 + sum, After::BlockSize)
                        }
                        _ => FrameState::Lost,
                    };
                }
            }
        }
    }

    /// The input ended between frames, after at least one whole frame.
    fn complete(&self) -> bool {
        self.state == FrameState::Magic && self.have == 0 && self.ended > 0
    }
}

impl<R: Read> Lz4<R> {
    pub(super) fn new(inner: R) -> Self {
        let frames = Rc::new(Cell::new(Frames::default()));
        let read = Rc::new(Cell::new(0));
        let t = Watched {
            inner,
            frames: frames.clone(),
            n: read.clone(),
        };
        Lz4 {
            inner: lz4_flex::frame::FrameDecoder::new(t),
            frames,
            read,
        }
    }
}

impl<R: Read> Read for Lz4<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = loop {
            let before = self.read.get();
            match self.inner.read(buf) {
                // The end of one frame: another may follow.
                Ok(0) if self.read.get() > before && !buf.is_empty() => continue,
                Ok(n) => break n,
                Err(e) => {
                    // A skippable frame (lz4_flex stops at one): its header
                    // is read, its data skipped here, and decoding goes on.
                    let skip = e
                        .get_ref()
                        .and_then(|i| i.downcast_ref::<lz4_flex::frame::Error>())
                        .and_then(|x| match x {
                            lz4_flex::frame::Error::SkippableFrame(n) => Some(*n as u64),
                            _ => None,
                        });
                    let Some(skip) = skip else { return Err(e) };
                    let r = self.inner.get_mut();
                    if io::copy(&mut r.take(skip), &mut io::sink())? < skip {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "lz4 stream ends inside a skippable frame",
                        ));
                    }
                }
            }
        };
        if n == 0 && !buf.is_empty() && !self.frames.get().complete() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "lz4 stream ends without its end mark (unfinished stream)",
            ));
        }
        Ok(n)
    }
}

/// Counts the bytes read (or, buffered, consumed) through it.
pub(super) struct Counted<R> {
    inner: R,
    n: Rc<Cell<u64>>,
}

impl<R: Read> Counted<R> {
    pub(super) fn new(inner: R) -> Counted<R> {
        Counted {
            inner,
            n: Rc::new(Cell::new(0)),
        }
    }
    pub(super) fn counter(&self) -> Rc<Cell<u64>> {
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

/// Whether a layer's output counts against the byte budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Charge {
    /// Decompressed (or streamed) bytes: counted against `--max-bytes` and
    /// `--max-member-bytes`.
    Counted,
    /// Bytes counted already where they lie (a plain tar member's data).
    Free,
}

/// The output of one layer (a decoder, or a container member).
pub(super) struct Layer<'b, R> {
    inner: R,
    /// Member chain of this layer's output.
    members: Vec<String>,
    what: &'static str,
    budget: &'b Budget,
    /// Compressed bytes consumed, for the ratio limit.
    consumed: Option<Rc<Cell<u64>>>,
    charge: Charge,
    out: u64,
}

impl<'b, R: Read> Layer<'b, R> {
    pub(super) fn new(
        inner: R,
        members: &[String],
        what: &'static str,
        budget: &'b Budget,
        consumed: Option<Rc<Cell<u64>>>,
        charge: Charge,
    ) -> Self {
        Layer {
            inner,
            members: members.to_vec(),
            what,
            budget,
            consumed,
            charge,
            out: 0,
        }
    }

    /// This layer is a container member: its output is read under
    /// the member chain one name longer.
    pub(super) fn set_member(&mut self, name: String) {
        self.members.push(name);
    }

    fn limit(&self, message: String) -> io::Error {
        io::Error::other(Tagged::new(&self.members, ErrorKind::Limit, message))
    }

    fn check(&self, n: u64) -> io::Result<()> {
        let b = self.budget;
        let used = b.used.get() + n;
        b.used.set(used);
        if used > b.limits.max_bytes {
            return Err(self.limit(format!(
                "artifact decompresses past --max-bytes {}",
                b.limits.max_bytes
            )));
        }
        if self.out > b.limits.max_member_bytes {
            return Err(self.limit(format!(
                "member decompresses past --max-member-bytes {}",
                b.limits.max_member_bytes
            )));
        }
        if self.out > b.limits.ratio_grace {
            let input = self.consumed.as_ref().map_or(u64::MAX, |c| c.get());
            if self.out as f64 > b.limits.max_ratio * input.max(1) as f64 {
                return Err(self.limit(format!(
                    "{} member expands more than --max-ratio {} ({} bytes from {})",
                    self.what, b.limits.max_ratio, self.out, input
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
        if self.charge == Charge::Counted && n > 0 {
            self.out += n as u64;
            self.check(n as u64)?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lz4(data: &[u8]) -> Vec<u8> {
        let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
        io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    }

    fn decode(z: &[u8]) -> (Vec<u8>, Option<io::Error>) {
        let mut out = Vec::new();
        let mut d = Lz4::new(z);
        let mut buf = [0u8; 4096];
        loop {
            match d.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(e)),
            }
        }
    }

    /// A frame cut after a whole block whose data ends in NUL bytes has no
    /// end mark: `lz4 -t` says "Unfinished stream", and so does this.
    #[test]
    fn lz4_cut_at_a_block_ending_in_nuls_is_not_the_end() {
        let mut text = b"Traceback (most recent call last):\n".repeat(3000);
        text.extend_from_slice(&[0u8; 64]);
        let z = lz4(&text);
        let (out, err) = decode(&z);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(out, text);
        // 4 bytes of EndMark at the end (no content checksum here): the
        // cut keeps every block and drops only the mark.
        let cut = &z[..z.len() - 4];
        assert_eq!(&z[z.len() - 4..], &[0, 0, 0, 0]);
        let (_, err) = decode(cut);
        assert_eq!(err.unwrap().kind(), io::ErrorKind::UnexpectedEof);
        // Two frames, the second whole: complete.
        let mut two = z.clone();
        two.extend_from_slice(&lz4(b"second\n"));
        let (out, err) = decode(&two);
        assert!(err.is_none(), "{err:?}");
        assert!(out.ends_with(b"second\n"));
    }
}
