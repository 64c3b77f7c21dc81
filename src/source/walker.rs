//! The member loop: one artifact's bytes read layer by layer. Each
//! stream's format is detected from its first block, compression layers
//! are peeled and containers opened (to the depth limit), every leaf is
//! handed to the visitor, and errors are recorded once in coverage (the
//! protocol is in the module doc of `source`).

use super::*;

/// A detected format's name in [`Leaf::layers`].
fn layer_name(format: Format) -> &'static str {
    match format {
        Format::Unsupported(what) => what,
        Format::Text => "text",
        f => crate::formats::info(f).map_or("text", |i| i.name),
    }
}

pub(super) struct Walker<'l, 'c, F> {
    pub(super) limits: &'l Limits,
    pub(super) budget: &'l Budget,
    /// Consumption of the artifact's own file bytes, for the progress bar.
    pub(super) meter: meter::Meter,
    /// Formats detected down to here (see [`Leaf::layers`]).
    pub(super) layers: Vec<&'static str>,
    /// Stored sizes along `members` (see [`Leaf::stored`]).
    pub(super) stored: Vec<Option<u64>>,
    pub(super) members: Vec<String>,
    pub(super) coverage: &'c mut Coverage,
    pub(super) visit: F,
}

impl<F> Walker<'_, '_, F>
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    /// Records an error once, at the deepest member where it was noticed.
    pub(super) fn record(&mut self, e: &io::Error) {
        let here = self.members.clone();
        self.record_at(&here, e);
    }

    /// Records an error once, at `at` or the deeper member its tag names.
    fn record_at(&mut self, at: &[String], e: &io::Error) {
        match Tagged::of(e) {
            Some(t) if t.recorded.get() => {}
            Some(t) => {
                t.recorded.set(true);
                let members = if at.len() < t.members.len() {
                    &t.members[..]
                } else {
                    at
                };
                self.coverage.error(members, t.kind, t.message.clone());
            }
            None => {
                let kind = layer::classify(e);
                self.coverage.error(at, kind, e.to_string());
            }
        }
    }

    /// Records `e`, that the artifact's file changed while it was read
    /// (or could not be read again), unless a read of the file said it
    /// changed already.
    pub(super) fn changed(&mut self, e: io::Error) {
        let said = self
            .coverage
            .errors
            .iter()
            .any(|x| x.kind == ErrorKind::Io && x.message.starts_with("changed while read"));
        if !said {
            self.record(&e);
        }
    }

    /// Whether reading may go on in the container whose member chain has
    /// `chain_len` names after `e`: only if the error came from inside the
    /// member (a longer chain).
    fn recoverable(e: &io::Error, chain_len: usize) -> bool {
        Tagged::of(e).is_some_and(|t| t.members.len() > chain_len && t.kind != ErrorKind::Io)
    }

    fn too_deep(&mut self, depth: usize) -> bool {
        if depth >= self.limits.max_depth {
            let msg = format!("nested deeper than --max-depth {}", self.limits.max_depth);
            self.coverage
                .error(&self.members.clone(), ErrorKind::Limit, msg);
            return true;
        }
        false
    }

    /// A whole member in memory (a file read whole): zips open in place.
    pub(super) fn slice(&mut self, bytes: &[u8]) -> io::Result<()> {
        match detect(&bytes[..bytes.len().min(HEAD_LEN)]) {
            // Opened in place; its members are one layer down, as when
            // a zip is reached by `stream`.
            Format::Zip if self.too_deep(0) => Ok(()),
            Format::Zip => self.with_layer("zip", |w| {
                zip::for_each_entry(w, zip::Input::Slice(bytes), 1)
            }),
            // A zip after more than a block of other bytes (a
            // self-extractor stub): its end record says so.
            // The end record's signature is looked for first: one SIMD
            // pass (forward: only whether it is there matters), where the
            // directory search tries every place.
            Format::Text
                if memchr::memmem::find(
                    &bytes[bytes.len().saturating_sub(22 + 0xffff)..],
                    b"PK\x05\x06",
                )
                .is_some()
                    && zip::central_directory(pread::Data::Mem(bytes), MAX_DIRECTORY_ENTRIES)
                        .is_ok_and(|d| !d.entries.is_empty()) =>
            {
                if self.too_deep(0) {
                    return Ok(());
                }
                self.with_layer("zip", |w| {
                    zip::for_each_entry(w, zip::Input::Slice(bytes), 1)
                })
            }
            Format::Text => {
                let members = self.members.clone();
                let mut reader = self.meter.reader(bytes, Origin::File);
                self.with_layer("text", |w| w.leaf(&members, &mut reader, Some(bytes)))
            }
            _ => {
                let mut reader = self.meter.reader(bytes, Origin::File);
                self.stream(&mut reader, 0)
            }
        }
    }

    /// A big zip file (see [`is_zip`]), opened in place: read at offsets.
    pub(super) fn zip_file(&mut self, file: pread::FileAt<'_>) -> io::Result<()> {
        // Its members are one layer down, as when a zip is reached by
        // `stream`.
        if self.too_deep(0) {
            return Ok(());
        }
        self.with_layer("zip", |w| zip::for_each_entry(w, zip::Input::File(file), 1))
    }

    /// A member as a stream: detect, then decode, open or visit. `depth`:
    /// the layers (decoders and containers) above `r`, bounded by
    /// `--max-depth` (not the member chain's length: a `.gz` is a layer
    /// without a member name).
    pub(super) fn stream(&mut self, r: &mut dyn Read, depth: usize) -> io::Result<()> {
        // An error inside the first block must not swallow the bytes
        // decoded before it: they go on, then the error.
        let (head, pending) = read_head(r);
        let format = detect(&head);
        let mut r = Cursor::new(head).chain(layer::Pending::new(pending, r));
        self.with_layer(layer_name(format), |w| w.open(format, &mut r, depth))
    }

    /// `f` with `name` on the stack of detected formats.
    fn with_layer<T>(&mut self, name: &'static str, f: impl FnOnce(&mut Self) -> T) -> T {
        self.layers.push(name);
        let out = f(self);
        self.layers.pop();
        out
    }

    /// Decodes, opens or visits a stream of the detected `format`.
    fn open(&mut self, format: Format, r: &mut dyn Read, depth: usize) -> io::Result<()> {
        let mut r = r;
        match format {
            Format::Text => {
                let members = self.members.clone();
                self.leaf(&members, &mut r, None)
            }
            _ if self.too_deep(depth) => Ok(()),
            Format::Gzip => {
                let input = layer::Counted::new(&mut r);
                let consumed = input.counter();
                let dec = gzip::GzReader::new(io::BufReader::with_capacity(128 << 10, input));
                let mut layer = Layer::new(
                    dec,
                    &self.members,
                    "gzip",
                    self.budget,
                    Some(consumed),
                    Charge::Counted,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Zstd => {
                let input = layer::Counted::new(&mut r);
                let consumed = input.counter();
                let mut dec = zstd::stream::read::Decoder::new(input)
                    .map_err(|e| Tagged::io(&self.members, ErrorKind::Corrupt, &e))?;
                dec.window_log_max(ZSTD_WINDOW_LOG_MAX)
                    .map_err(|e| Tagged::io(&self.members, ErrorKind::Limit, &e))?;
                let dec = layer::ZstdWindow::new(dec, &self.members);
                let mut layer = Layer::new(
                    dec,
                    &self.members,
                    "zstd",
                    self.budget,
                    Some(consumed),
                    Charge::Counted,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Xz | Format::Bzip2 | Format::Lz4 => {
                let input = layer::Counted::new(&mut r);
                let consumed = input.counter();
                let (dec, what): (Box<dyn Read + '_>, &'static str) = match format {
                    Format::Xz => {
                        // Bounded like zstd's window: a header may ask for
                        // a 1.5 GiB dictionary.
                        let stream = liblzma::stream::Stream::new_stream_decoder(
                            XZ_MEMLIMIT,
                            liblzma::stream::CONCATENATED,
                        )
                        .map_err(|e| Tagged::io(&self.members, ErrorKind::Limit, &e))?;
                        (
                            Box::new(layer::Xz(liblzma::read::XzDecoder::new_stream(
                                input, stream,
                            ))),
                            "xz",
                        )
                    }
                    Format::Bzip2 => (Box::new(bzip2::read::MultiBzDecoder::new(input)), "bzip2"),
                    _ => (Box::new(layer::Lz4::new(input)), "lz4"),
                };
                let mut layer = Layer::new(
                    dec,
                    &self.members,
                    what,
                    self.budget,
                    Some(consumed),
                    Charge::Counted,
                );
                self.stream(&mut layer, depth + 1)
            }
            Format::Unsupported(what) => {
                // Recognised by its magic, not decoded: never "binary".
                let msg = format!("{what} data is not decoded: not read");
                self.coverage
                    .error(&self.members.clone(), ErrorKind::Unsupported, msg);
                Ok(())
            }
            Format::Tar => tar::for_each_entry(self, &mut r, depth + 1),
            Format::Zip => zip::for_each_entry(self, zip::Input::Stream(&mut r), depth + 1),
        }
    }

    fn leaf(
        &mut self,
        members: &[String],
        r: &mut dyn Read,
        slice: Option<&[u8]>,
    ) -> io::Result<()> {
        self.coverage.members += 1;
        (self.visit)(Leaf {
            members,
            reader: r,
            slice,
            coverage: self.coverage,
            layers: &self.layers,
            stored: &self.stored,
        })
    }
}

impl<'l, F> entries::Entries<'l> for Walker<'l, '_, F>
where
    F: FnMut(Leaf<'_, '_>) -> io::Result<()>,
{
    fn members(&self) -> &[String] {
        &self.members
    }

    fn coverage(&mut self) -> &mut Coverage {
        self.coverage
    }

    fn budget(&self) -> &'l Budget {
        self.budget
    }

    fn meter(&self) -> meter::Meter {
        self.meter.clone()
    }

    fn record(&mut self, at: &[String], e: &io::Error) {
        self.record_at(at, e);
    }

    /// Pushes `name` onto the chain and streams it; errors from inside it
    /// are recorded here, errors of the enclosing stream returned.
    fn entry(
        &mut self,
        name: String,
        stored: Option<u64>,
        r: &mut dyn Read,
        depth: usize,
    ) -> io::Result<()> {
        let chain_len = self.members.len();
        self.members.push(name);
        self.stored.push(stored);
        let result = self.stream(r, depth);
        let out = match result {
            Err(e) if Self::recoverable(&e, chain_len) => {
                self.record(&e);
                Ok(())
            }
            Err(e) => {
                self.record(&e);
                Err(e)
            }
            Ok(()) => Ok(()),
        };
        self.members.pop();
        self.stored.pop();
        out
    }
}

/// Memory the xz decoder may use (its dictionary), as zstd's window.
const XZ_MEMLIMIT: u64 = 1 << 28;

/// The first block of a stream, and the error that stopped it early, if any
/// (returned after the bytes, so nothing decoded is lost).
fn read_head(r: &mut dyn Read) -> (Vec<u8>, Option<io::Error>) {
    let mut head = vec![0u8; HEAD_LEN];
    let mut n = 0;
    while n < HEAD_LEN {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                head.truncate(n);
                return (head, Some(e));
            }
        }
    }
    head.truncate(n);
    (head, None)
}
