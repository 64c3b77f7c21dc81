//! A fast path for the line regexes of aggregating rules, the most frequent
//! lines of a log (`Decode batch, ... accept len: 3.77, ...` on every
//! decode step): patterns made of literals, greedy byte classes
//! (`\d+`, `\w+`), literal alternatives and optional tails match by one
//! forward walk, with no regex engine.
//!
//! A pattern gets a [`Shape`] only when the walk provably finds what the
//! leftmost-first regex finds when run anchored at the same place: every
//! greedy run and every optional part stops where nothing that may follow
//! it could start (or where what follows can always be skipped to the
//! end), and no literal alternative is a prefix of another. Then the first
//! choice the regex prefers is the only one that can succeed, so the walk
//! never has to go back. Anything else (look-around, `.*?`, nested
//! repetitions) has no shape and runs through the regex as before.

use regex_syntax::hir::{Class, Hir, HirKind};

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

/// `text.starts_with(lit)` compared 8 bytes at a time in place: the
/// literals of a pattern are short, and a `memcmp` call for each cost more
/// than the comparison.
#[inline]
fn has_prefix(text: &[u8], lit: &[u8]) -> bool {
    let n = lit.len();
    if text.len() < n {
        return false;
    }
    let mut i = 0;
    while i + 8 <= n {
        let a = u64::from_ne_bytes(text[i..i + 8].try_into().expect("8 bytes"));
        let b = u64::from_ne_bytes(lit[i..i + 8].try_into().expect("8 bytes"));
        if a != b {
            return false;
        }
        i += 8;
    }
    while i < n {
        if text[i] != lit[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A shape as a flat program: the walk runs it in one loop, where walking
/// the tree cost a call and a dispatch per node (a third of an aggregating
/// rule's cost on a decode line).
#[derive(Debug)]
enum Op {
    Lit(Box<[u8]>),
    Run {
        class: Bytes,
        min: u32,
        max: u32,
    },
    Alt(Vec<Box<[u8]>>),
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

fn flatten(n: &Node, out: &mut Vec<Op>) {
    match n {
        Node::Lit(l) => out.push(Op::Lit(l.clone())),
        Node::Run { class, min, max } => out.push(Op::Run {
            class: *class,
            min: *min,
            max: *max,
        }),
        Node::Alt(ls) => out.push(Op::Alt(ls.clone())),
        Node::Cap(i, sub) => {
            out.push(Op::Open(*i));
            flatten(sub, out);
            out.push(Op::Close(*i));
        }
        Node::Seq(ns) => ns.iter().for_each(|n| flatten(n, out)),
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
            Op::Run { class, min, max } => {
                let rest = &text[at..];
                let limit = rest.len().min(*max as usize);
                let mut n = 0;
                while n < limit && class.has(rest[n]) {
                    n += 1;
                }
                if n < *min as usize {
                    return None;
                }
                at += n;
            }
            Op::Alt(ls) => at += ls.iter().find(|l| has_prefix(&text[at..], l))?.len(),
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
pub(crate) struct Shape {
    ops: Vec<Op>,
    groups: usize,
}

/// Capture spans of a walk, by group index (0: the whole match).
pub(crate) type Spans = Vec<Option<(usize, usize)>>;

impl Shape {
    /// The shape of `src` as compiled with ASCII classes and byte
    /// semantics (how the aggregate regexes are built), if it has one.
    pub(crate) fn new(src: &str) -> Option<Shape> {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(src)
            .ok()?;
        let root = Node::from_hir(&hir)?;
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
        Some(Shape {
            ops,
            groups: groups.iter().max().map_or(1, |m| m + 1),
        })
    }

    pub(crate) fn new_spans(&self) -> Spans {
        vec![None; self.groups]
    }

    /// The match starting at `at`, as the regex run anchored there finds it.
    pub(crate) fn matches_at(&self, text: &[u8], at: usize, spans: &mut Spans) -> bool {
        spans.iter_mut().for_each(|s| *s = None);
        match run(&self.ops, text, at, spans) {
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
        let shape = Shape::new(src).unwrap_or_else(|| panic!("{src} has a shape"));
        let mut spans = shape.new_spans();
        for t in texts {
            let t = t.as_bytes();
            for at in 0..=t.len() {
                let want = regex_spans(src, t, at);
                let got = shape.matches_at(t, at, &mut spans).then(|| spans.clone());
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
    fn builtin_aggregate_shapes_agree_with_the_regex() {
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
    fn runs_stop_where_the_next_part_cannot_start() {
        agree(
            r"v(?P<x>\d+)\.\d",
            &["v12.3", "v1.", "v.1", "v123", "v1.2.3"],
        );
        agree(r"(?P<k>\w+)=(?P<v>[^ ]*)", &["A=1 B=2", "=1", "A==", "A"]);
    }

    #[test]
    fn ambiguous_patterns_have_no_shape() {
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
            assert!(Shape::new(src).is_none(), "{src} must have no shape");
        }
    }
}
