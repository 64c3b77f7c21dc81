//! A fast path for the line regexes of aggregating rules, the most frequent
//! lines of a log (`Decode batch, ... accept len: 3.77, ...` on every
//! decode step): patterns made of literals, greedy byte classes
//! (`\d+`, `\w+`), literal alternatives and optional tails match by one
//! forward walk, with no regex engine.
//!
//! A pattern gets a [`OnePass`] walk only when the walk provably finds what the
//! leftmost-first regex finds when run anchored at the same place: every
//! greedy run and every optional part stops where nothing that may follow
//! it could start (or where what follows can always be skipped to the
//! end), and no literal alternative is a prefix of another. Then the first
//! choice the regex prefers is the only one that can succeed, so the walk
//! never has to go back (one pass, as the name says). Anything else
//! (look-around, `.*?`, nested repetitions) has no walk and runs through
//! the regex as before.

use regex_syntax::hir::{Class, Hir, HirKind};
// The regex's own `\b` word bytes (ASCII, as the patterns are compiled).
use regex_syntax::is_word_byte as is_word;

/// A set of bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Bytes([u64; 4]);

impl Bytes {
    fn has(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] >> (b & 63) & 1 == 1
    }
    fn add(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }
    fn union(self, o: Bytes) -> Bytes {
        Bytes(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }
    fn meets(self, o: Bytes) -> bool {
        (0..4).any(|i| self.0[i] & o.0[i] != 0)
    }
}

#[derive(Debug)]
enum Node {
    Lit(Box<[u8]>),
    /// `min..=max` bytes of the class, as many as there are.
    Run {
        class: Bytes,
        min: u32,
        max: u32,
    },
    /// A capture group: its index in the regex, its part.
    Cap(usize, Box<Node>),
    Seq(Vec<Node>),
    /// `(?:...)?`, greedy; the capture groups inside it (cleared on a miss).
    Opt(Box<Node>, Vec<usize>),
    /// Literal alternatives, none a prefix of another.
    Alt(Vec<Box<[u8]>>),
}

/// What can come first in what a node matches, and whether it can match
/// nothing.
#[derive(Debug, Clone, Copy)]
struct First {
    bytes: Bytes,
    empty: bool,
}

/// What may follow a node: the bytes it can start with, and whether it may
/// match nothing up to the pattern's end (then any stop is a match).
#[derive(Debug, Clone, Copy)]
struct Follow {
    bytes: Bytes,
    to_end: bool,
}

impl Follow {
    /// Whether stopping in front of a byte of `stop` cannot be undone by
    /// what follows: it cannot start there, or it can always be skipped.
    fn allows(self, stop: Bytes) -> bool {
        self.to_end || !self.bytes.meets(stop)
    }
}

impl Node {
    fn from_hir(h: &Hir) -> Option<Node> {
        Some(match h.kind() {
            HirKind::Empty => Node::Seq(Vec::new()),
            HirKind::Literal(l) => Node::Lit(l.0.clone()),
            HirKind::Class(c) => Node::Run {
                class: class_bytes(c)?,
                min: 1,
                max: 1,
            },
            HirKind::Capture(c) => Node::Cap(c.index as usize, Box::new(Node::from_hir(&c.sub)?)),
            HirKind::Concat(hs) => Node::Seq(hs.iter().map(Node::from_hir).collect::<Option<_>>()?),
            HirKind::Repetition(r) => match (r.min, r.max, r.sub.kind()) {
                (0, Some(1), _) if r.greedy => {
                    let sub = Node::from_hir(&r.sub)?;
                    let mut groups = Vec::new();
                    sub.groups(&mut groups);
                    Node::Opt(Box::new(sub), groups)
                }
                (min, max, HirKind::Class(c)) if r.greedy || Some(min) == max => Node::Run {
                    class: class_bytes(c)?,
                    min,
                    max: max.unwrap_or(u32::MAX),
                },
                _ => return None,
            },
            HirKind::Alternation(hs) => {
                let mut lits = Vec::new();
                for h in hs {
                    match h.kind() {
                        HirKind::Literal(l) => lits.push(l.0.clone()),
                        _ => return None,
                    }
                }
                let prefix = |a: &[u8], b: &[u8]| a.len() <= b.len() && b.starts_with(a);
                for (i, a) in lits.iter().enumerate() {
                    if lits.iter().enumerate().any(|(j, b)| i != j && prefix(a, b)) {
                        return None;
                    }
                }
                Node::Alt(lits)
            }
            HirKind::Look(_) => return None,
        })
    }

    fn groups(&self, out: &mut Vec<usize>) {
        match self {
            Node::Cap(i, sub) => {
                out.push(*i);
                sub.groups(out);
            }
            Node::Seq(ns) => ns.iter().for_each(|n| n.groups(out)),
            Node::Opt(sub, _) => sub.groups(out),
            Node::Lit(_) | Node::Run { .. } | Node::Alt(_) => {}
        }
    }

    fn first(&self) -> First {
        match self {
            Node::Lit(l) => match l.first() {
                Some(&b) => {
                    let mut bytes = Bytes::default();
                    bytes.add(b);
                    First {
                        bytes,
                        empty: false,
                    }
                }
                None => First {
                    bytes: Bytes::default(),
                    empty: true,
                },
            },
            Node::Run { class, min, .. } => First {
                bytes: *class,
                empty: *min == 0,
            },
            Node::Cap(_, sub) => sub.first(),
            Node::Seq(ns) => {
                let mut bytes = Bytes::default();
                for n in ns {
                    let f = n.first();
                    bytes = bytes.union(f.bytes);
                    if !f.empty {
                        return First {
                            bytes,
                            empty: false,
                        };
                    }
                }
                First { bytes, empty: true }
            }
            Node::Opt(sub, _) => First {
                bytes: sub.first().bytes,
                empty: true,
            },
            Node::Alt(lits) => {
                let mut bytes = Bytes::default();
                let mut empty = false;
                for l in lits {
                    match l.first() {
                        Some(&b) => bytes.add(b),
                        None => empty = true,
                    }
                }
                First { bytes, empty }
            }
        }
    }

    /// Whether the walk finds the regex's match when `follow` comes next.
    fn walks(&self, follow: Follow) -> bool {
        match self {
            Node::Lit(_) | Node::Alt(_) => true,
            Node::Run { class, min, max } => min == max || follow.allows(*class),
            Node::Cap(_, sub) => sub.walks(follow),
            Node::Seq(ns) => {
                let mut follow = follow;
                for n in ns.iter().rev() {
                    if !n.walks(follow) {
                        return false;
                    }
                    let f = n.first();
                    follow = if f.empty {
                        Follow {
                            bytes: follow.bytes.union(f.bytes),
                            to_end: follow.to_end,
                        }
                    } else {
                        Follow {
                            bytes: f.bytes,
                            to_end: false,
                        }
                    };
                }
                true
            }
            Node::Opt(sub, _) => {
                let f = sub.first();
                !f.empty && follow.allows(f.bytes) && sub.walks(follow)
            }
        }
    }
}

/// `text.starts_with(lit)` compared in words, in place: the literals of a
/// pattern are short, and a `memcmp` call for each cost more than the
/// comparison. A tail shorter than a word is compared as the last word
/// (overlapping the one before) or as two overlapping halves.
#[inline]
pub(crate) fn has_prefix(text: &[u8], lit: &[u8]) -> bool {
    let n = lit.len();
    if text.len() < n {
        return false;
    }
    let word = |b: &[u8], i: usize| u64::from_ne_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let half = |b: &[u8], i: usize| u32::from_ne_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            if word(text, i) != word(lit, i) {
                return false;
            }
            i += 8;
        }
        return i == n || word(text, n - 8) == word(lit, n - 8);
    }
    if n >= 4 {
        return half(text, 0) == half(lit, 0) && half(text, n - 4) == half(lit, n - 4);
    }
    // Under 4 bytes (`gen`): a `memcmp` call costs more than the loop.
    (0..n).all(|i| text[i] == lit[i])
}

/// A walk as a flat program: the walk runs it in one loop, where walking
/// the tree cost a call and a dispatch per node. A capture of a single run,
/// alternative or decimal is one op that records its span (no separate
/// open and close ops), and `\d+(?:\.\d+)?`, the number of nearly every
/// aggregating rule, is one op.
// An explicit one-byte tag: the walk's dispatch is then one load, where
// the niche-packed layout cost several instructions an op.
#[derive(Debug)]
#[repr(u8)]
enum Op {
    Lit(Box<[u8]>),
    Run {
        /// Membership by byte: one load per byte, no bit arithmetic.
        class: Box<[bool; 256]>,
        min: u32,
        max: u32,
        cap: Option<usize>,
    },
    Alt {
        lits: Vec<Box<[u8]>>,
        cap: Option<usize>,
    },
    /// `\d+(?:\.\d+)?`: digits, then a point and digits if there are any.
    Decimal {
        cap: Option<usize>,
    },
    /// A capture group starts, or ends, here.
    Open(usize),
    Close(usize),
    /// The next `len` ops are optional (greedy): on a miss the walk goes
    /// on after them from the same place, the groups inside cleared.
    Opt {
        len: usize,
        groups: Vec<usize>,
    },
}

fn digits() -> Bytes {
    let mut d = Bytes::default();
    (b'0'..=b'9').for_each(|b| d.add(b));
    d
}

/// Whether `a` then `b` is `\d+(?:\.\d+)?` (nothing captured inside).
fn is_decimal(a: &Node, b: &Node) -> bool {
    let digit_run =
        |n: &Node| matches!(n, Node::Run { class, min: 1, max: u32::MAX } if *class == digits());
    let Node::Opt(body, groups) = b else {
        return false;
    };
    let point = |n: &Node| matches!(n, Node::Lit(l) if &l[..] == b".");
    digit_run(a)
        && groups.is_empty()
        && matches!(&**body, Node::Seq(ns) if ns.len() == 2 && point(&ns[0]) && digit_run(&ns[1]))
}

fn run_op(class: Bytes, min: u32, max: u32, cap: Option<usize>) -> Op {
    Op::Run {
        class: Box::new(std::array::from_fn(|b| class.has(b as u8))),
        min,
        max,
        cap,
    }
}

/// The single op that matches `n` and records its span in `cap`, if any.
fn fused(n: &Node, cap: usize) -> Option<Op> {
    match n {
        Node::Run { class, min, max } => Some(run_op(*class, *min, *max, Some(cap))),
        Node::Alt(ls) => Some(Op::Alt {
            lits: ls.clone(),
            cap: Some(cap),
        }),
        Node::Seq(ns) if ns.len() == 1 => fused(&ns[0], cap),
        Node::Seq(ns) if ns.len() == 2 && is_decimal(&ns[0], &ns[1]) => {
            Some(Op::Decimal { cap: Some(cap) })
        }
        _ => None,
    }
}

fn flatten(n: &Node, out: &mut Vec<Op>) {
    match n {
        Node::Lit(l) => out.push(Op::Lit(l.clone())),
        Node::Run { class, min, max } => out.push(run_op(*class, *min, *max, None)),
        Node::Alt(ls) => out.push(Op::Alt {
            lits: ls.clone(),
            cap: None,
        }),
        Node::Cap(i, sub) => match fused(sub, *i) {
            Some(op) => out.push(op),
            None => {
                out.push(Op::Open(*i));
                flatten(sub, out);
                out.push(Op::Close(*i));
            }
        },
        Node::Seq(ns) => {
            let mut k = 0;
            while k < ns.len() {
                if k + 1 < ns.len() && is_decimal(&ns[k], &ns[k + 1]) {
                    out.push(Op::Decimal { cap: None });
                    k += 2;
                } else {
                    flatten(&ns[k], out);
                    k += 1;
                }
            }
        }
        Node::Opt(sub, groups) => {
            let at = out.len();
            out.push(Op::Opt {
                len: 0,
                groups: groups.clone(),
            });
            flatten(sub, out);
            let body = out.len() - at - 1;
            if let Op::Opt { len, .. } = &mut out[at] {
                *len = body;
            }
        }
    }
}

/// How many ASCII digits `text` starts with.
#[inline]
fn count_digits(text: &[u8]) -> usize {
    text.iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len())
}

/// Runs `ops` at `text[at..]`: the end of the match, spans in `slots`.
fn run(
    ops: &[Op],
    text: &[u8],
    mut at: usize,
    slots: &mut [Option<(usize, usize)>],
) -> Option<usize> {
    let mut i = 0;
    while i < ops.len() {
        match &ops[i] {
            Op::Lit(l) => {
                if !has_prefix(&text[at..], l) {
                    return None;
                }
                at += l.len();
            }
            Op::Run {
                class,
                min,
                max,
                cap,
            } => {
                let rest = &text[at..];
                let limit = rest.len().min(*max as usize);
                let n = rest[..limit]
                    .iter()
                    .position(|&b| !class[b as usize])
                    .unwrap_or(limit);
                if n < *min as usize {
                    return None;
                }
                if let Some(g) = cap {
                    slots[*g] = Some((at, at + n));
                }
                at += n;
            }
            Op::Alt { lits, cap } => {
                let n = lits.iter().find(|l| has_prefix(&text[at..], l))?.len();
                if let Some(g) = cap {
                    slots[*g] = Some((at, at + n));
                }
                at += n;
            }
            Op::Decimal { cap } => {
                let rest = &text[at..];
                let int = count_digits(rest);
                if int == 0 {
                    return None;
                }
                let mut n = int;
                if rest.get(int) == Some(&b'.') {
                    let frac = count_digits(&rest[int + 1..]);
                    if frac > 0 {
                        n += 1 + frac;
                    }
                }
                if let Some(g) = cap {
                    slots[*g] = Some((at, at + n));
                }
                at += n;
            }
            Op::Open(g) => slots[*g] = Some((at, at)),
            Op::Close(g) => {
                if let Some(s) = &mut slots[*g] {
                    s.1 = at;
                }
            }
            Op::Opt { len, groups } => {
                match run(&ops[i + 1..i + 1 + len], text, at, slots) {
                    Some(end) => at = end,
                    None => groups.iter().for_each(|&g| slots[g] = None),
                }
                i += len;
            }
        }
        i += 1;
    }
    Some(at)
}

fn class_bytes(c: &Class) -> Option<Bytes> {
    let mut set = Bytes::default();
    match c {
        Class::Bytes(b) => {
            for r in b.ranges() {
                (r.start()..=r.end()).for_each(|x| set.add(x));
            }
        }
        Class::Unicode(u) => {
            for r in u.ranges() {
                let (s, e) = (u8::try_from(r.start()).ok()?, u8::try_from(r.end()).ok()?);
                if e > 0x7f {
                    return None;
                }
                (s..=e).for_each(|x| set.add(x));
            }
        }
    }
    Some(set)
}

/// A pattern the forward walk matches exactly as the regex does.
#[derive(Debug)]
pub(crate) struct OnePass {
    ops: Vec<Op>,
    groups: usize,
    /// The pattern ends in `\b` after a run of word bytes: the byte after
    /// the match must not be one.
    word_end: bool,
}

/// The pattern without its last `\b`, where that follows a run of word
/// bytes of at least one (`(?P<status>\d{3})\b`): there `\b` only says
/// that no word byte follows. A run giving back bytes would leave a word
/// byte of its own next, so no other choice of the regex can match where
/// the walk stops and that test fails: the walk stays exact.
fn word_end(hir: &Hir) -> Option<Hir> {
    use regex_syntax::hir::Look;
    let HirKind::Concat(hs) = hir.kind() else {
        return None;
    };
    let [before @ .., last, look] = hs.as_slice() else {
        return None;
    };
    if !matches!(look.kind(), HirKind::Look(Look::WordAscii)) {
        return None;
    }
    let mut run = last;
    if let HirKind::Capture(c) = run.kind() {
        run = &c.sub;
    }
    let class = match run.kind() {
        HirKind::Class(c) => c,
        HirKind::Repetition(r) if r.min >= 1 => match r.sub.kind() {
            HirKind::Class(c) => c,
            _ => return None,
        },
        _ => return None,
    };
    let bytes = class_bytes(class)?;
    if (0..=255u8).any(|b| bytes.has(b) && !is_word(b)) {
        return None;
    }
    let mut body = before.to_vec();
    body.push(last.clone());
    Some(Hir::concat(body))
}

/// Capture spans of a walk, by group index (0: the whole match).
pub(crate) type Spans = Vec<Option<(usize, usize)>>;

impl OnePass {
    /// The walk of `src` as compiled with ASCII classes and byte
    /// semantics (how the aggregate regexes are built), if it has one.
    pub(crate) fn new(src: &str) -> Option<OnePass> {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(src)
            .ok()?;
        let (body, word_end) = match word_end(&hir) {
            Some(body) => (body, true),
            None => (hir, false),
        };
        let root = Node::from_hir(&body)?;
        let end = Follow {
            bytes: Bytes::default(),
            to_end: true,
        };
        if !root.walks(end) {
            return None;
        }
        let mut groups = vec![0];
        root.groups(&mut groups);
        let mut ops = Vec::new();
        flatten(&root, &mut ops);
        Some(OnePass {
            ops,
            groups: groups.iter().max().map_or(1, |m| m + 1),
            word_end,
        })
    }

    /// How far into a match the literal `lit` can begin, at most: the
    /// walk's bound when a literal that no option skips holds `lit` and
    /// everything before it has a bounded length. Every match then holds
    /// `lit` within that distance of its start, so none starts more than
    /// that before the line's first `lit`.
    pub(crate) fn lead(&self, lit: &[u8]) -> Option<usize> {
        let mut far = 0usize;
        // Ops before this index are inside an option.
        let mut optional_until = 0;
        for (i, op) in self.ops.iter().enumerate() {
            match op {
                Op::Lit(l) => {
                    if i >= optional_until
                        && let Some(j) = l.windows(lit.len()).position(|w| w == lit)
                    {
                        return Some(far + j);
                    }
                    far += l.len();
                }
                Op::Run { max, .. } if *max != u32::MAX => far += *max as usize,
                Op::Alt { lits, .. } => far += lits.iter().map(|l| l.len()).max().unwrap_or(0),
                Op::Run { .. } | Op::Decimal { .. } => return None,
                Op::Open(_) | Op::Close(_) => {}
                Op::Opt { len, .. } => optional_until = optional_until.max(i + 1 + len),
            }
        }
        None
    }

    pub(crate) fn new_spans(&self) -> Spans {
        vec![None; self.groups]
    }

    /// The match starting at `at`, as the regex run anchored there finds it.
    pub(crate) fn matches_at(&self, text: &[u8], at: usize, spans: &mut Spans) -> bool {
        spans.iter_mut().for_each(|s| *s = None);
        match run(&self.ops, text, at, spans) {
            Some(end) if self.word_end && text.get(end).is_some_and(|&b| is_word(b)) => {
                spans.iter_mut().for_each(|s| *s = None);
                false
            }
            Some(end) => {
                spans[0] = Some((at, end));
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regex_spans(src: &str, text: &[u8], at: usize) -> Option<Spans> {
        use regex_automata::{Anchored, Input, meta, util::syntax};
        let re = meta::Regex::builder()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .build(src)
            .unwrap();
        let mut caps = re.create_captures();
        re.search_captures(
            &Input::new(text)
                .span(at..text.len())
                .anchored(Anchored::Yes),
            &mut caps,
        );
        caps.is_match().then(|| {
            (0..caps.group_len())
                .map(|g| caps.get_group(g).map(|s| (s.start, s.end)))
                .collect()
        })
    }

    /// The walk agrees with the regex on every start of every text.
    fn agree(src: &str, texts: &[&str]) {
        let walk = OnePass::new(src).unwrap_or_else(|| panic!("{src} has a walk"));
        let mut spans = walk.new_spans();
        for t in texts {
            let t = t.as_bytes();
            for at in 0..=t.len() {
                let want = regex_spans(src, t, at);
                let got = walk.matches_at(t, at, &mut spans).then(|| spans.clone());
                assert_eq!(
                    got.as_ref()
                        .map(|s| &s[..want.as_ref().map_or(0, Vec::len)]),
                    want.as_deref(),
                    "{src} on {:?} at {at}",
                    String::from_utf8_lossy(t)
                );
            }
        }
    }

    #[test]
    fn builtin_aggregate_walks_agree_with_the_regex() {
        agree(
            r"accept len: (?P<value>\d+(?:\.\d+)?)(?:, accept rate: (?P<accept_rate>\d+(?:\.\d+)?))?",
            &[
                "Decode batch, #running-req: 13, accept len: 3.77, accept rate: 0.55, cuda graph: True",
                "accept len: 3.77, accept rate: 0.",
                "accept len: 3., accept rate: 1",
                "accept len: 12, accept rate: x",
                "accept len: 3.77.5, accept rate: 0.5",
                "accept len: , accept rate: 1",
                "accept len: 4",
            ],
        );
        agree(
            r" graph: (?P<cuda_graph>\w+), (?P<phase>gen|input) throughput \(token/s\): (?P<throughput>\d+(?:\.\d+)?)",
            &[
                "cuda graph: True, gen throughput (token/s): 1012.55, #queue-req: 0",
                "npu graph: False, input throughput (token/s): 7.",
                "cpu graph: True, genx throughput (token/s): 1",
                "cuda graph: , gen throughput (token/s): 1",
            ],
        );
        agree(
            r"Engine (?P<engine>\d+): Avg prompt throughput: (?P<p>\d+(?:\.\d+)?) tokens/s, Running: (?P<r>\d+) reqs, (?:Pending|Waiting): (?P<w>\d+) reqs, GPU KV cache usage: (?P<u>\d+(?:\.\d+)?)%(?:, Prefix cache hit rate: (?P<h>\d+(?:\.\d+)?)%)?",
            &[
                "Engine 000: Avg prompt throughput: 0.0 tokens/s, Running: 3 reqs, Pending: 1 reqs, GPU KV cache usage: 1.5%, Prefix cache hit rate: 0.0%",
                "Engine 1: Avg prompt throughput: 10 tokens/s, Running: 3 reqs, Waiting: 12 reqs, GPU KV cache usage: 2%",
                "Engine 1: Avg prompt throughput: 10 tokens/s, Running: 3 reqs, Waiting: 12 reqs, GPU KV cache usage: 2%, Prefix cache hit rate: 5.%",
            ],
        );
    }

    #[test]
    fn lead_bounds_where_a_literal_begins_in_a_match() {
        let lead = |src: &str, lit: &str| OnePass::new(src).unwrap().lead(lit.as_bytes());
        let tp = r"throughput \(token/s\): (?P<t>\d+(?:\.\d+)?)";
        assert_eq!(lead(tp, "throughput (token/s): "), Some(0));
        assert_eq!(
            lead(&format!("gen {tp}"), "throughput (token/s): "),
            Some(4)
        );
        assert_eq!(
            lead(
                &format!(r" graph: (?P<g>True|False), (?P<p>gen|input) {tp}"),
                "throughput (token/s): "
            ),
            Some(8 + 5 + 2 + 5 + 1)
        );
        // Unbounded before it, only in an option, or not in the pattern.
        assert_eq!(
            lead(
                &format!(r" graph: (?P<g>\w+), {tp}"),
                "throughput (token/s): "
            ),
            None
        );
        assert_eq!(lead(r"a(?:; b: (?P<b>\d))?, c", "b: "), None);
        assert_eq!(lead(r"a(?:; b: (?P<b>\d))?, c", ", c"), Some(1 + 5 + 1));
        assert_eq!(lead(tp, "token/s): 1"), None);
    }

    #[test]
    fn has_prefix_is_starts_with() {
        let text = b"accept len: 3.77, accept rate: 0.55, cuda graph: True";
        for start in 0..text.len() {
            for n in 0..=24 {
                for lit in [
                    &text[start..(start + n).min(text.len())],
                    b"accept len: 3.77, accept",
                ] {
                    for t in [&text[..], &text[1..], &text[..n.min(text.len())]] {
                        assert_eq!(has_prefix(t, lit), t.starts_with(lit), "{lit:?} in {t:?}");
                    }
                }
            }
        }
    }

    /// The common captures become one op each: the walk's fast path.
    #[test]
    fn captured_numbers_runs_and_alternatives_are_single_ops() {
        let walk = OnePass::new(
            r" graph: (?P<g>\w+), (?P<p>gen|input) throughput \(token/s\): (?P<t>\d+(?:\.\d+)?)",
        )
        .unwrap();
        assert!(
            !walk
                .ops
                .iter()
                .any(|o| matches!(o, Op::Open(_) | Op::Opt { .. }))
        );
        assert!(matches!(
            walk.ops.last(),
            Some(Op::Decimal { cap: Some(_) })
        ));
        // Not a decimal: a group inside, or digits that may be empty.
        for src in [r"x(?P<a>\d+(?:\.(?P<b>\d+))?)", r"x(?P<a>\d*(?:\.\d+)?)"] {
            let walk = OnePass::new(src).unwrap();
            assert!(
                !walk.ops.iter().any(|o| matches!(o, Op::Decimal { .. })),
                "{src}"
            );
        }
        agree(
            r"x(?P<a>\d+(?:\.(?P<b>\d+))?)",
            &["x1.2", "x1.", "x.5", "x12"],
        );
        agree(r"x\d+(?:\.\d+)?y", &["x1.2y", "x1.y", "x1y", "x1.2.3y"]);
    }

    #[test]
    fn runs_stop_where_the_next_part_cannot_start() {
        agree(
            r"v(?P<x>\d+)\.\d",
            &["v12.3", "v1.", "v.1", "v123", "v1.2.3"],
        );
        agree(r"(?P<k>\w+)=(?P<v>[^ ]*)", &["A=1 B=2", "=1", "A==", "A"]);
    }

    /// A last `\b` after a run of word bytes is walked: uvicorn's access
    /// lines (`server.access`), every request of a benchmark.
    #[test]
    fn a_word_end_after_a_word_run_is_walked() {
        agree(
            r#""POST /v1/completions(?:\?\S*)? HTTP/[\d.]+" (?P<status>\d{3})\b"#,
            &[
                r#""POST /v1/completions HTTP/1.1" 200 OK"#,
                r#""POST /v1/completions?x=1 HTTP/1.1" 404"#,
                r#""POST /v1/completions HTTP/1.1" 2000"#,
                r#""POST /v1/completions HTTP/1.1" 200_"#,
                r#""POST /v1/completions HTTP/1.1" 200-1"#,
                r#""POST /v1/completions HTTP/1.1" 20"#,
            ],
        );
        agree(
            r"n=(?P<n>\d+)\b",
            &["n=12 ", "n=12a", "n=12", "n=1_", "n=.", "n=12.5"],
        );
        agree(r"(?P<w>\w{2,3})\b", &["ab", "abcd", "ab c", "a", "ab-"]);
        // Not after a run of word bytes: `\b` could be the start of a word.
        for src in [r"a \b", r"x(?:y)?\b", r"(\d+\.\d+)\b", r"\b\d+", r"[a.]+\b"] {
            assert!(OnePass::new(src).is_none(), "{src} must have no walk");
        }
    }

    #[test]
    fn ambiguous_patterns_have_no_walk() {
        for src in [
            r"a\d+1",          // the run could stop earlier
            r"x(?:ab)?a",      // the optional part could be skipped
            r"(?:a|ab)c",      // one alternative is a prefix of another
            r"a.*?, b: (\d+)", // lazy
            r"^a(\d+)",        // look-around
            r"(?:ab)+",        // a repeated group
            // Unambiguous, but one byte of lookahead cannot tell: both the
            // optional part and what follows it begin with a space.
            r"reqs,(?: Swapped: \d+ reqs,)? (?:Pending|Waiting): (\d+)",
        ] {
            assert!(OnePass::new(src).is_none(), "{src} must have no walk");
        }
    }
}
