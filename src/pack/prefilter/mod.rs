//! The literal prefilter: one pass of SIMD literal searches (Aho-Corasick's
//! Teddy) over a member's bytes finds the lines where some rule's literal
//! occurs and which rules they may feed; only those rules' regexes run on
//! those lines. A variant's literals are its `prefilter`, or the literal
//! prefixes of its regex ([`derive_literals`]). `join` holds where
//! cleaning a coloured line can make a literal the raw bytes split.
//!
//! # When literals lose
//!
//! Literals filter nothing, or cost more than they save, when:
//! - a variant has none (no `prefilter` and no literal prefix of 3 bytes
//!   or more, or more than 16 of them): it is "unfiltered" and every line
//!   is its candidate, so one such variant makes the regexes run on every
//!   line of every member it applies to;
//! - they are short: Teddy filters on as many first bytes as a group's
//!   shortest literal has, so literals under 4 bytes (`==`) get a group of
//!   their own rather than weakening every other literal's filter;
//! - they are many: one Teddy searcher takes 64 literals at most and
//!   gives fewer false candidates with fewer, but every group is one more
//!   pass over the text, and on a log nearly every pass of a cold group
//!   finds nothing (on a 1 GiB SGLang log, 10 cold groups of 32 made 10
//!   whole passes for 100 hits): [`group_count`] weighs the passes;
//! - a literal is on most lines: SGLang's `Decode batch` lines are 85% of a
//!   serving log; the aggregating rules' literals get groups of their own
//!   so that such a line costs one group's search, and their regexes run
//!   anchored at the literal ([`super::anchored`]);
//! - lines are coloured: a literal split by escape sequences is not in the
//!   raw bytes; lines where cleaning may join one are visited ([`join`]),
//!   a second SIMD pass over such a member.
//!
//! Measured (benches/README.md, 2 cores): the literal pass over the
//! built-in packs' 278 literals is 29-38% of a scan's profile on plain
//! logs, archives of them and the real run folders, and `rg -c -F` given
//! those 278 literals takes 2.3-3.2x its own time with the verifier's 18:
//! the literal count, not the regexes, bounds a scan of plain logs.

pub(crate) mod join;

use super::compile::Variant;
use super::pattern::prefix_literals;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// Literals a "Slim" Teddy searcher takes. Past 32 it is "Fat" Teddy
/// (with AVX2): 16 buckets, not 8, but half the bytes a step; past 64 none
/// can be built. Fewer literals per searcher mean fewer false candidates,
/// but every searcher is one more pass over the text.
const SLIM: usize = 32;

/// Most literals given one Fat searcher: fuller buckets pass more false
/// candidates. Today's packs with 15 literals folded into shorter ones
/// they hold (246, a trial): 4 Fat groups of 62 were 1.13x the CPU of
/// 5 groups of 53 without the folding (11 pairs, every one slower),
/// though one pass fewer.
const FAT_MAX: usize = 56;

/// What one Fat pass costs, in Slim passes: fitted to paired runs (CPU)
/// on a 1 GiB decode-heavy log. With today's packs (261 literals in the
/// class that matters) 5 Fat groups were 0.84x of 9 Slim ones, so a Fat
/// pass costs under 9/5 = 1.8 Slim; with 30b4591's packs (135) 5 Slim were
/// 0.96x of 3 Fat, so over 5/3 = 1.67. Groups of 48 (6 Fat) were 1.06x of 5.
const FAT_COST: f64 = 1.75;

/// How many searchers `n` literals are split into: Slim groups or Fat
/// ones, whichever passes cost less (fewer groups on a tie: every group
/// is also a step per candidate line).
fn group_count(n: usize) -> usize {
    let (slim, fat) = (n.div_ceil(SLIM), n.div_ceil(FAT_MAX));
    if (slim as f64) < fat as f64 * FAT_COST {
        slim
    } else {
        fat
    }
}

/// The literals of some variants, in groups searched separately with SIMD:
/// where the next candidate line is, and which variants a line may feed.
#[derive(Debug)]
pub struct Literals {
    groups: Vec<Group>,
    /// Variants without any literal: they see every line.
    unfiltered: Vec<usize>,
    /// Per pair of adjacent bytes (`a` then `b`: index `a << 8 | b`), 1 +
    /// its index in `straddling` if some literal holds it, else 0.
    pairs: Box<[u16]>,
    /// Per such pair, the places it is inside literals.
    straddling: Vec<Vec<Straddle>>,
}

/// A literal that holds a pair of bytes: a literal across a join in a
/// cleaned line whose pair is the bytes either side of the join.
#[derive(Debug, Clone, Copy)]
struct Straddle {
    group: u32,
    literal: u32,
    /// Index of the pair's second byte in the literal.
    at: u32,
    len: u32,
    /// Its first and last bytes: most candidates fail on these.
    ends: [u8; 2],
}

#[derive(Debug)]
struct Group {
    finder: Finder,
    /// Per literal of the group, the variants it and the group's literals it
    /// contains feed (sorted): leftmost-longest reports one literal per place.
    implied: Vec<Vec<usize>>,
    /// A literal's end can begin another of the group (`ab`, `bc`): after a
    /// match the search resumes one byte in rather than at its end.
    chained: bool,
    literals: Vec<Box<[u8]>>,
}

#[derive(Debug)]
enum Finder {
    Packed(aho_corasick::packed::Searcher),
    /// Where no SIMD searcher can be built (CPU, patterns).
    Automaton(AhoCorasick),
}

impl Finder {
    fn new(lits: &[&str]) -> Finder {
        use aho_corasick::packed;
        let packed = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(lits)
            .build();
        match packed {
            Some(p) => Finder::Packed(p),
            None => Finder::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(lits)
                    .expect("literal automaton"),
            ),
        }
    }

    /// First match in `hay[from..]`: (start, end, literal).
    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize, usize)> {
        let span = from..hay.len();
        let m = match self {
            Finder::Packed(p) => p.find_in(hay, aho_corasick::Span::from(span)),
            Finder::Automaton(a) => a.find(aho_corasick::Input::new(hay).span(span)),
        }?;
        Some((m.start(), m.end(), m.pattern().as_usize()))
    }
}

/// Per member: each group's next match at or after the last place asked
/// about, in member offsets. Lines are visited in order, so a group is
/// searched once over the member, not once per candidate.
#[derive(Debug, Clone, Default)]
pub struct LiteralCursor {
    next: Vec<Next>,
}

#[derive(Debug, Clone, Copy, Default)]
enum Next {
    #[default]
    Unknown,
    /// Searched from at most the place asked about; first match here.
    Hit {
        start: u64,
        end: u64,
        literal: usize,
    },
    /// Searched from at most the place asked about up to here: no match.
    NoneBefore(u64),
}

impl Next {
    /// Whether this still tells the first match at or after member offset
    /// `at` in text that ends at `end`.
    fn answers(self, at: u64, end: u64) -> bool {
        match self {
            Next::Hit { start, .. } => start >= at,
            Next::NoneBefore(upto) => upto >= end,
            Next::Unknown => false,
        }
    }
}

impl Group {
    /// The first match in `text[from..]`, `text` being at member offset `at`.
    fn search(&self, text: &[u8], at: u64, from: usize) -> Next {
        match self.finder.find(text, from) {
            Some((s, e, literal)) => Next::Hit {
                start: at + s as u64,
                end: at + e as u64,
                literal,
            },
            None => Next::NoneBefore(at + text.len() as u64),
        }
    }
}

impl Literals {
    pub(crate) fn new(variants: &[Variant], active: &[bool]) -> Literals {
        let mut unfiltered = Vec::new();
        // The literals of aggregating rules (the lines a log repeats most)
        // get groups of their own: such a line then costs one group's
        // searches, not one in every group that holds one of its literals.
        // Teddy filters on as many first bytes as the group's shortest
        // literal has, so literals under 4 bytes (`==`) are grouped apart
        // too: they would make every other literal's filter weaker.
        let mut hot = (Vec::new(), Vec::new());
        let mut short = (Vec::new(), Vec::new());
        let mut cold = (Vec::new(), Vec::new());
        // Variants that read whole documents, not lines (json): no literal
        // feeds them.
        for (i, v) in variants
            .iter()
            .enumerate()
            .filter(|(i, v)| active[*i] && v.reads_lines())
        {
            if v.prefilter.is_empty() {
                unfiltered.push(i);
            }
            for l in &v.prefilter {
                let (lits, feeds): &mut (Vec<&str>, Vec<Vec<usize>>) = if v.anchored().is_some() {
                    &mut hot
                } else if l.len() < 4 {
                    &mut short
                } else {
                    &mut cold
                };
                match lits.iter().position(|x| x == l) {
                    Some(p) => feeds[p].push(i),
                    None => {
                        lits.push(l);
                        feeds.push(vec![i]);
                    }
                }
            }
        }
        let mut groups = Vec::new();
        for (lits, feeds) in [hot, short, cold] {
            if lits.is_empty() {
                continue;
            }
            let count = group_count(lits.len());
            let size = lits.len().div_ceil(count);
            groups.extend(
                lits.chunks(size)
                    .zip(feeds.chunks(size))
                    .map(|(lits, feeds)| Group {
                        finder: Finder::new(lits),
                        implied: lits
                            .iter()
                            .map(|a| {
                                let mut vs: Vec<usize> = lits
                                    .iter()
                                    .zip(feeds)
                                    .filter(|(b, _)| a.contains(**b))
                                    .flat_map(|(_, v)| v.iter().copied())
                                    .collect();
                                vs.sort_unstable();
                                vs.dedup();
                                vs
                            })
                            .collect(),
                        chained: literals_chain(lits),
                        literals: lits.iter().map(|l| l.as_bytes().into()).collect(),
                    }),
            );
        }
        let mut pairs = vec![0u16; 1 << 16].into_boxed_slice();
        let mut straddling: Vec<Vec<Straddle>> = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            for (l, lit) in group.literals.iter().enumerate() {
                for at in 1..lit.len() {
                    let pair = usize::from(lit[at - 1]) << 8 | usize::from(lit[at]);
                    if pairs[pair] == 0 {
                        straddling.push(Vec::new());
                        pairs[pair] = u16::try_from(straddling.len()).expect("pairs fit u16");
                    }
                    straddling[usize::from(pairs[pair]) - 1].push(Straddle {
                        group: g as u32,
                        literal: l as u32,
                        at: at as u32,
                        len: lit.len() as u32,
                        ends: [lit[0], lit[lit.len() - 1]],
                    });
                }
            }
        }
        Literals {
            groups,
            unfiltered,
            pairs,
            straddling,
        }
    }

    /// Whether some variant has no literal (every line is a candidate).
    pub fn needs_every_line(&self) -> bool {
        !self.unfiltered.is_empty()
    }

    pub fn cursor(&self) -> LiteralCursor {
        LiteralCursor {
            next: vec![Next::Unknown; self.groups.len()],
        }
    }

    /// Index in `hay` (which starts at member offset `at`; later calls ask
    /// about later places) of the first place a candidate line may be.
    pub fn candidate(&self, cur: &mut LiteralCursor, hay: &[u8], at: u64) -> Option<usize> {
        let end = at + hay.len() as u64;
        let mut first = u64::MAX;
        for (g, next) in self.groups.iter().zip(&mut cur.next) {
            if !next.answers(at, end) {
                *next = g.search(hay, at, 0);
            }
            if let Next::Hit { start, .. } = *next {
                first = first.min(start);
            }
        }
        let m = (first < end).then(|| (first - at) as usize);
        // Lines with escape sequences are always looked at: a literal may be
        // split by colour codes in the raw bytes.
        memchr::memchr(0x1b, &hay[..m.unwrap_or(hay.len())]).or(m)
    }

    /// Variants (sorted) whose literal is in the line `hay[..len]` (raw, at
    /// member offset `at`), plus the unfiltered ones; moves the cursor past
    /// the line. The search runs on into the rest of `hay`, so that the
    /// next candidate is known without searching again.
    pub fn hits_at(
        &self,
        cur: &mut LiteralCursor,
        hay: &[u8],
        len: usize,
        at: u64,
        out: &mut Vec<Hit>,
    ) {
        out.clear();
        let end = at + len as u64;
        for (g, next) in self.groups.iter().zip(&mut cur.next) {
            if !next.answers(at, end) {
                *next = g.search(hay, at, 0);
            }
            while let Next::Hit {
                start,
                end: e,
                literal,
            } = *next
            {
                if start >= end {
                    break;
                }
                let place = start.saturating_sub(at) as usize;
                out.extend(
                    g.implied[literal]
                        .iter()
                        .map(|&variant| Hit { variant, place }),
                );
                let from = if g.chained { start + 1 } else { e };
                *next = g.search(hay, at, (from - at) as usize);
            }
        }
        finish_hits(out, &self.unfiltered);
    }

    /// Variants (sorted) whose literal is in `text`, the cleaned text of the
    /// raw line `hay[..len]` (at member offset `at`; not a json-file
    /// record), plus the unfiltered ones; moves the cursor past the line.
    /// A literal in `text` either lies between two escape sequences, and is
    /// in the raw line, or straddles a place where they were taken out: the
    /// cursor finds the first kind, a look at each such place the second,
    /// so a coloured line costs no search of its own. Places are 0: they
    /// are in raw bytes, not in `text`.
    pub fn hits_cleaned(
        &self,
        cur: &mut LiteralCursor,
        hay: &[u8],
        len: usize,
        at: u64,
        text: &[u8],
        out: &mut Vec<Hit>,
    ) {
        self.hits_at(cur, hay, len, at, out);
        out.iter_mut().for_each(|h| h.place = 0);
        let found = out.len();
        join::for_each_join(&hay[..len], |p| {
            if p >= text.len() {
                return;
            }
            let slot = self.pairs[usize::from(text[p - 1]) << 8 | usize::from(text[p])];
            if slot == 0 {
                return;
            }
            for s in &self.straddling[usize::from(slot) - 1] {
                let (at, len) = (s.at as usize, s.len as usize);
                let Some(start) = p.checked_sub(at) else {
                    continue;
                };
                let Some(seen) = text.get(start..start + len) else {
                    continue;
                };
                let g = &self.groups[s.group as usize];
                if seen[0] == s.ends[0]
                    && seen[len - 1] == s.ends[1]
                    && *seen == *g.literals[s.literal as usize]
                {
                    out.extend(
                        g.implied[s.literal as usize]
                            .iter()
                            .map(|&variant| Hit { variant, place: 0 }),
                    );
                }
            }
        });
        if out.len() > found {
            out.sort_unstable();
            out.dedup_by_key(|h| h.variant);
        }
    }

    /// Variants (sorted) whose literal is in `text`, plus the unfiltered
    /// ones, without a cursor (text that is not the raw line).
    pub fn hits(&self, text: &[u8], out: &mut Vec<Hit>) {
        out.clear();
        for g in &self.groups {
            let mut from = 0;
            while let Some((s, e, literal)) = g.finder.find(text, from) {
                out.extend(
                    g.implied[literal]
                        .iter()
                        .map(|&variant| Hit { variant, place: s }),
                );
                from = if g.chained { s + 1 } else { e };
            }
        }
        finish_hits(out, &self.unfiltered);
    }
}

/// A variant whose literal is on a line, and a place in the line at or
/// before the first place of its literal: where a match can begin to be
/// looked for (see [`Variant::lead`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub variant: usize,
    pub place: usize,
}

/// Adds the unfiltered variants, then one hit per variant, its first.
fn finish_hits(out: &mut Vec<Hit>, unfiltered: &[usize]) {
    out.extend(unfiltered.iter().map(|&variant| Hit { variant, place: 0 }));
    if out.len() > 1 {
        out.sort_unstable();
        out.dedup_by_key(|h| h.variant);
    }
}

/// Whether a proper suffix of one literal is a proper prefix of another, so
/// that two literals can overlap in a text without one containing the other.
fn literals_chain(lits: &[&str]) -> bool {
    lits.iter().enumerate().any(|(i, a)| {
        lits.iter().enumerate().any(|(j, b)| {
            i != j && (1..a.len().min(b.len())).any(|k| a.as_bytes().ends_with(&b.as_bytes()[..k]))
        })
    })
}

/// Literal prefixes every match starts with, if the regex has a small set of them.
pub(crate) fn derive_literals(src: &str) -> Vec<String> {
    let Some(seq) = prefix_literals(src) else {
        return Vec::new();
    };
    let Some(lits) = seq.literals() else {
        return Vec::new();
    };
    let out: Vec<String> = lits
        .iter()
        .filter_map(|l| std::str::from_utf8(l.as_bytes()).ok().map(str::to_string))
        .collect();
    // Too short or too many literals filter nothing.
    if out.is_empty()
        || out.len() > 16
        || out.iter().any(|l| l.trim().len() < 3)
        || out.len() != lits.len()
    {
        return Vec::new();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::anchored::AnchoredRegex;
    use crate::pack::kind::{Kind, line::LineMatch};
    use crate::pack::pattern::PackRegex;
    use serde_json::Map;

    /// Slim searchers where Fat ones would cost more passes, Fat ones
    /// otherwise; never more literals per searcher than Teddy takes.
    #[test]
    fn literals_are_grouped_by_the_cost_of_their_passes() {
        let sizes = |n: usize| n.div_ceil(group_count(n));
        assert_eq!(group_count(0), 0);
        assert_eq!(group_count(20), 1);
        // 30b4591's packs: 5 Slim searchers, not 3 Fat.
        assert_eq!((group_count(135), sizes(135)), (5, 27));
        // Today's: 5 Fat searchers, not 9 Slim.
        assert_eq!((group_count(261), sizes(261)), (5, 53));
        // Never as full as 62 (4 Fat groups for 246 literals).
        for n in 1..2000 {
            assert!(sizes(n) <= FAT_MAX, "{n}");
        }
    }

    /// Variants whose literals occur in `line`, the slow way.
    fn naive(lits: &[Vec<&str>], line: &[u8]) -> Vec<usize> {
        let has = |l: &str| line.windows(l.len()).any(|w| w == l.as_bytes());
        (0..lits.len())
            .filter(|&v| lits[v].iter().any(|l| has(l)))
            .collect()
    }

    /// `n` of `parts` in a deterministic pseudo-random order.
    fn mix(parts: &[&str], n: usize, mut seed: u64) -> Vec<u8> {
        let mut text = Vec::new();
        for _ in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.extend_from_slice(parts[(seed >> 33) as usize % parts.len()].as_bytes());
        }
        text
    }

    fn variant(prefilter: &[&str]) -> Variant {
        Variant {
            rule: 0,
            kind: Kind::Line(LineMatch {
                regex: PackRegex::new("x", true).unwrap(),
                each: None,
                anchored: None,
                lead: None,
                dump: None,
            }),
            set: Map::new(),
            members: None,
            member_globs: Vec::new(),
            prefilter: prefilter.iter().map(|s| s.to_string()).collect(),
            prefilter_explicit: true,
            exclude: Vec::new(),
        }
    }

    /// Grouped SIMD search with a cursor (as the line reader drives it) and
    /// without one both find exactly the variants whose literal is on a
    /// line: literals that contain others, overlap end-to-start, repeat, and
    /// more of them than one group holds.
    #[test]
    fn literal_hits_equal_substring_search() {
        let mut lits: Vec<Vec<&str>> = vec![
            vec!["accept len: "],
            vec!["len: "],
            vec!["ab", "abc"],
            vec!["bcd"],
            vec!["=="],
            vec!["="],
            vec!["Capture cuda graph "],
        ];
        // More short literals than one searcher is given (71 with `==`
        // and `bcd`: 3 Slim searchers), so a class is split.
        let words: Vec<String> = (0..69).map(|i| format!("w{i:02}")).collect();
        lits.extend(words.iter().map(|w| vec![w.as_str()]));
        let mut variants: Vec<Variant> = lits.iter().map(|l| variant(l)).collect();
        // Some as aggregating rules' (hot, grouped apart): literals that
        // contain or are contained in another end up in different groups.
        for i in [0, 2, 5] {
            if let Kind::Line(l) = &mut variants[i].kind {
                l.anchored = AnchoredRegex::new(r"accept len: (\d+)", &[]);
            }
        }
        let active = vec![true; variants.len()];
        let set = Literals::new(&variants, &active);
        assert_eq!(set.groups.len(), 5);
        // A deterministic mix of fragments, so literals meet at every
        // position and across fragment boundaries.
        let parts = [
            "accept len: 3.7",
            "abcd",
            "x=",
            "=",
            "w1",
            "7 ",
            "Capture cuda graph bs",
            "b",
            "c",
            "d",
            "w3",
            "5",
            "\n",
            "len:",
            " ",
        ];
        let text = mix(&parts, 4000, 7);
        let mut cur = set.cursor();
        let (mut out, mut plain) = (Vec::new(), Vec::new());
        let mut pos = 0;
        let mut checked = 0;
        while pos < text.len() {
            let hay = &text[pos..];
            let Some(c) = set.candidate(&mut cur, hay, pos as u64) else {
                // No line left may hold a literal.
                for line in hay.split(|&b| b == b'\n') {
                    assert!(naive(&lits, line).is_empty(), "missed {:?}", line);
                }
                break;
            };
            let ls = pos + memchr::memrchr(b'\n', &hay[..c]).map_or(0, |j| j + 1);
            for skipped in text[pos..ls].split(|&b| b == b'\n') {
                assert!(naive(&lits, skipped).is_empty(), "skipped {:?}", skipped);
            }
            let le = memchr::memchr(b'\n', &text[ls..]).map_or(text.len(), |j| ls + j);
            let line = &text[ls..le];
            // The search may run on past the line, as the scan's does.
            set.hits_at(&mut cur, &text[ls..], line.len(), ls as u64, &mut out);
            set.hits(line, &mut plain);
            let want = naive(&lits, line);
            let variants = |h: &[Hit]| h.iter().map(|h| h.variant).collect::<Vec<_>>();
            assert_eq!(
                variants(&out),
                want,
                "line {:?}",
                String::from_utf8_lossy(line)
            );
            assert_eq!(variants(&plain), want);
            // Each place is at or before the first of the variant's literals.
            for h in out.iter().chain(&plain) {
                let first = lits[h.variant]
                    .iter()
                    .filter_map(|l| line.windows(l.len()).position(|w| w == l.as_bytes()))
                    .min();
                assert!(first.is_some_and(|f| h.place <= f), "{h:?} in {line:?}");
            }
            checked += 1;
            pos = le + 1;
        }
        assert!(checked > 100);
    }

    /// On coloured lines, the cursor's raw hits plus the look at each place
    /// escape sequences were taken out find exactly the variants whose
    /// literal is in the cleaned line, as a search of the cleaned copy does:
    /// literals split by colour codes, whole ones beside them, and escape
    /// sequences that swallow a byte.
    #[test]
    fn cleaned_line_hits_equal_a_search_of_the_cleaned_text() {
        let lits: Vec<Vec<&str>> = vec![
            vec!["accept len: "],
            vec!["len: "],
            vec!["ab", "abc"],
            vec!["bcd"],
            vec!["=="],
            vec!["INFO"],
            vec!["Capture cuda graph "],
        ];
        let variants: Vec<Variant> = lits.iter().map(|l| variant(l)).collect();
        let active = vec![true; variants.len()];
        let set = Literals::new(&variants, &active);
        let parts = [
            "accept",
            " len: 3",
            "a",
            "bc",
            "d",
            "=",
            "IN",
            "FO",
            "Capture cuda",
            " graph ",
            "\x1b[0m",
            "\x1b[32;20m",
            "\x1b[1m\x1b[0m",
            "\x1bX",
            "\x1b]0;t\x07",
            "\r",
            "\n",
            " ",
            "x",
        ];
        let text = mix(&parts, 20000, 11);
        let mut scratch = Vec::new();
        let mut cur = set.cursor();
        let (mut out, mut plain) = (Vec::new(), Vec::new());
        let variants = |h: &[Hit]| h.iter().map(|h| h.variant).collect::<Vec<_>>();
        let (mut pos, mut coloured, mut joined) = (0, 0, 0);
        while pos < text.len() {
            let hay = &text[pos..];
            let Some(c) = set.candidate(&mut cur, hay, pos as u64) else {
                for line in hay.split(|&b| b == b'\n') {
                    let clean = crate::lines::clean(line, &mut scratch);
                    assert!(naive(&lits, clean).is_empty(), "missed {line:?}");
                }
                break;
            };
            let ls = pos + memchr::memrchr(b'\n', &hay[..c]).map_or(0, |j| j + 1);
            for skipped in text[pos..ls].split(|&b| b == b'\n') {
                let clean = crate::lines::clean(skipped, &mut scratch);
                assert!(naive(&lits, clean).is_empty(), "skipped {skipped:?}");
            }
            let le = memchr::memchr(b'\n', &text[ls..]).map_or(text.len(), |j| ls + j);
            let line = &text[ls..le];
            let clean = crate::lines::clean(line, &mut scratch).to_vec();
            let want = naive(&lits, &clean);
            if clean.as_ptr() != line.as_ptr() && memchr::memchr(0x1b, line).is_some() {
                set.hits_cleaned(
                    &mut cur,
                    &text[ls..],
                    line.len(),
                    ls as u64,
                    &clean,
                    &mut out,
                );
                assert_eq!(variants(&out), want, "line {line:?}");
                coloured += 1;
                joined += usize::from(naive(&lits, line).len() < want.len());
            } else {
                set.hits_at(&mut cur, &text[ls..], line.len(), ls as u64, &mut out);
                assert_eq!(variants(&out), want, "line {line:?}");
            }
            set.hits(&clean, &mut plain);
            assert_eq!(variants(&plain), want);
            pos = le + 1;
        }
        // The text exercised what it is for.
        assert!(
            coloured > 100 && joined > 20,
            "{coloured} coloured, {joined} joined"
        );
    }

    #[test]
    fn literals_from_prefix() {
        assert_eq!(
            derive_literals(r"monokernel routing check: (?P<k>\S+)"),
            vec!["monokernel routing check: "]
        );
        assert!(derive_literals(r"(?P<name>[A-Z_]+)=").is_empty());
        assert_eq!(derive_literals(r"Decode batch[.,]").len(), 2);
    }
}
