//! Where cleaning a line (taking out its escape sequences, see
//! [`crate::lines::clean`]) can join a literal's pieces that the raw bytes
//! hold apart: a coloured line may match only once cleaned, and the
//! literal search runs on raw bytes. The prefilter and grep look at those
//! places only, not at every line with an escape.

use crate::lines::{JSON_FILE, escape_runs};

/// Whether [`clean`](crate::lines::clean) keeps `raw[from..to]` whole and in one piece: no
/// escape sequence overlaps it, the line is not a json-file record (whose
/// text is unwrapped), and it ends before a trailing `\r`. A literal found
/// there (one without ESC or `\r`) is then in the cleaned text.
pub(crate) fn kept_whole(raw: &[u8], from: usize, to: usize) -> bool {
    if raw.starts_with(JSON_FILE) {
        return false;
    }
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if to > raw.len() {
        return false;
    }
    escape_runs(raw)
        .take_while(|&(esc, _)| esc < to)
        .all(|(_, end)| end <= from)
}

/// Calls `join` with each place in [`clean`](crate::lines::clean)'s text of `raw` (a line that
/// is not a json-file record) where escape sequences were taken out from
/// between two bytes: the only places where cleaning can make a literal
/// that `raw` does not hold. Places are increasing; a run of sequences is
/// one place.
pub(crate) fn for_each_join(raw: &[u8], mut join: impl FnMut(usize)) {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let mut removed = 0;
    for (esc, end) in escape_runs(raw) {
        if esc > 0 {
            join(esc - removed);
        }
        removed += end - esc;
    }
}

/// What tells the lines where cleaning may join a literal's pieces: the
/// bytes a literal may have before a join (all its bytes but the last) and
/// after one (all but the first), see [`may_join`]; and a SIMD search for
/// the only places where cleaning can make a literal, so that lines are
/// not visited escape by escape (a coloured vLLM log has three or four a
/// line, most after a space).
pub(crate) struct Joins {
    before: [bool; 256],
    after: [bool; 256],
    /// Case-sensitive literals: where a split literal must show in the raw
    /// bytes (see [`Places`]); `None` where no SIMD searcher can be built
    /// or case folding reaches too many bytes: every line with ESC is then
    /// visited.
    places: Option<Places>,
}

/// A literal that cleaning joins is split by its first run of escape
/// sequences after a non-empty prefix, so the raw line holds a literal's
/// prefix followed by ESC. `pairs` finds each prefix's last byte before an
/// ESC (and a json-file record's start, which is unwrapped, not only
/// stripped); `prefixes` says which prefixes end with that byte.
struct Places {
    pairs: aho_corasick::packed::Searcher,
    /// The pattern of `pairs` that is the json-file prefix.
    json_file: usize,
    /// (last byte, literal, length) of each proper prefix of a literal.
    prefixes: Vec<(u8, usize, usize)>,
    literals: Vec<Vec<u8>>,
}

impl Places {
    fn new(literals: &[&str]) -> Option<Places> {
        let literals: Vec<Vec<u8>> = literals.iter().map(|l| l.as_bytes().to_vec()).collect();
        let mut prefixes = Vec::new();
        for (i, l) in literals.iter().enumerate() {
            for k in 1..l.len() {
                prefixes.push((l[k - 1], i, k));
            }
        }
        let mut last: Vec<u8> = prefixes.iter().map(|p| p.0).collect();
        last.sort_unstable();
        last.dedup();
        if last.len() > MAX_JOIN_PAIRS || prefixes.len() > MAX_JOIN_PREFIXES {
            return None;
        }
        use aho_corasick::packed;
        let pairs = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(last.iter().map(|&b| [b, 0x1b]))
            .add(JSON_FILE)
            .build()?;
        Some(Places {
            pairs,
            json_file: last.len(),
            prefixes,
            literals,
        })
    }

    /// The next place at or after `from` worth looking at the line of: a
    /// literal's prefix right before an ESC, or a json-file record.
    fn next(&self, hay: &[u8], mut from: usize) -> Option<usize> {
        loop {
            let m = self
                .pairs
                .find_in(hay, aho_corasick::Span::from(from..hay.len()))?;
            let at = m.start();
            if m.pattern().as_usize() == self.json_file
                || self.prefixes.iter().any(|&(b, i, k)| {
                    b == hay[at] && at + 1 >= k && hay[at + 1 - k..=at] == self.literals[i][..k]
                })
            {
                return Some(at);
            }
            from = at + 1;
        }
    }
}

/// Bytes, and prefixes, past which [`Places`] is not built.
const MAX_JOIN_PAIRS: usize = 24;
const MAX_JOIN_PREFIXES: usize = 256;

/// The join tables of these literals.
pub(crate) fn join_bytes(literals: &[&str], ignore_case: bool) -> Box<Joins> {
    let mut t = Box::new(Joins {
        before: [false; 256],
        after: [false; 256],
        // Case folding reaches bytes the prefixes do not show (`k` and the
        // Kelvin sign).
        places: if ignore_case {
            None
        } else {
            Places::new(literals)
        },
    });
    let set = |table: &mut [bool; 256], b: u8| {
        table[usize::from(b)] = true;
        if ignore_case {
            table[usize::from(b.to_ascii_lowercase())] = true;
            table[usize::from(b.to_ascii_uppercase())] = true;
        }
    };
    for l in literals {
        let b = l.as_bytes();
        for &x in &b[..b.len().saturating_sub(1)] {
            set(&mut t.before, x);
        }
        for &x in b.iter().skip(1) {
            set(&mut t.after, x);
        }
    }
    if ignore_case {
        // Unicode case folding reaches non-ASCII bytes.
        for table in [&mut t.before, &mut t.after] {
            table[0x80..].fill(true);
        }
    }
    t
}

/// Index of the first line in `hay[from..until]` (whole lines, `from` a
/// line start) that cleaning may join into a match of the literals: it
/// holds an ESC, [`may_join`] answers yes and, for case-sensitive
/// literals, it holds a literal's prefix right before an ESC or is a
/// json-file record. Lines passed over cannot match once cleaned unless
/// they match raw.
pub(crate) fn first_join(
    hay: &[u8],
    mut from: usize,
    until: usize,
    max_line: usize,
    joins: &Joins,
) -> Option<usize> {
    let hay = &hay[..until];
    while from < until {
        let at = match &joins.places {
            Some(places) => places.next(hay, from)?,
            None => from + memchr::memchr(0x1b, &hay[from..])?,
        };
        let ls = memchr::memrchr(b'\n', &hay[from..at]).map_or(from, |k| from + k + 1);
        let le = memchr::memchr(b'\n', &hay[at..]).map_or(until, |k| at + k);
        // Cut where the reader cuts: the sink confirms on the cut line.
        let cut = &hay[ls..le.min(ls.saturating_add(max_line))];
        if memchr::memchr(0x1b, &hay[ls..le]).is_some()
            && may_join(cut, &joins.before, &joins.after)
        {
            return Some(ls);
        }
        from = le + 1;
    }
    None
}

/// Whether [`clean`](crate::lines::clean) may join `raw`'s text into a match of a literal that
/// `raw` does not hold: some run of escape sequences sits between a byte
/// in `before` (a byte of a literal but its last) and one in `after` (a
/// byte of a literal but its first), or the line is a json-file record
/// (unwrapped, not only stripped). Lines without ESC are cleaned of a
/// trailing `\r` only, which joins nothing.
pub(crate) fn may_join(raw: &[u8], before: &[bool; 256], after: &[bool; 256]) -> bool {
    if raw.starts_with(JSON_FILE) {
        return true;
    }
    escape_runs(raw).any(|(esc, end)| {
        esc > 0
            && end < raw.len()
            && before[usize::from(raw[esc - 1])]
            && after[usize::from(raw[end])]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::clean;

    /// The search of join places visits every line that matches only
    /// once cleaned, and no line a visit of every escape would not:
    /// random coloured lines (split literals, sequence runs, OSC,
    /// json-file records, `\r`), several literal sets, every start line,
    /// short line caps.
    #[test]
    fn join_places_visit_every_line_that_cleaning_makes_a_match() {
        let pieces: [&[u8]; 17] = [
            b"accept",
            b"ac",
            b"cept",
            b" len",
            b"a",
            b"INFO",
            b"IN",
            b"FO",
            b" ",
            b"\x1b[0m",
            b"\x1b[1;36m",
            b"\x1b]0;t\x07",
            b"\x1bX",
            b"\r",
            b"{\"log\":\"",
            b"\n",
            b"(x)",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let sets: [(&[&str], bool); 4] = [
            (&["accept len"], false),
            (&["INFO", "a l"], false),
            (&["accept len"], true),
            (&["x"], false),
        ];
        let mut must = 0;
        for (lits, ignore_case) in sets {
            let fast = join_bytes(lits, ignore_case);
            assert_eq!(fast.places.is_some(), !ignore_case);
            let slow = Joins {
                before: fast.before,
                after: fast.after,
                places: None,
            };
            let visits = |hay: &[u8], from: usize, max_line: usize, j: &Joins| {
                let mut seen = Vec::new();
                let mut at = from;
                while let Some(ls) = first_join(hay, at, hay.len(), max_line, j) {
                    seen.push(ls);
                    at = memchr::memchr(b'\n', &hay[ls..]).map_or(hay.len(), |k| ls + k + 1);
                }
                seen
            };
            for _ in 0..2000 {
                let mut hay = Vec::new();
                for _ in 0..next() % 40 {
                    hay.extend_from_slice(pieces[(next() % 17) as usize]);
                }
                let starts: Vec<usize> = std::iter::once(0)
                    .chain(memchr::memchr_iter(b'\n', &hay).map(|i| i + 1))
                    .filter(|&i| i < hay.len())
                    .collect();
                for max_line in [6, 1 << 20] {
                    let fast_seen = visits(&hay, 0, max_line, &fast);
                    let slow_seen = visits(&hay, 0, max_line, &slow);
                    let shown = String::from_utf8_lossy(&hay);
                    assert!(fast_seen.iter().all(|l| slow_seen.contains(l)), "{shown:?}");
                    for &ls in &starts {
                        let le = memchr::memchr(b'\n', &hay[ls..]).map_or(hay.len(), |k| ls + k);
                        let cut = &hay[ls..le.min(ls + max_line)];
                        let mut scratch = Vec::new();
                        let cleaned = clean(cut, &mut scratch);
                        let finds = |t: &[u8]| {
                            lits.iter().any(|l| {
                                let l = l.as_bytes();
                                t.windows(l.len()).any(|w| {
                                    if ignore_case {
                                        w.eq_ignore_ascii_case(l)
                                    } else {
                                        w == l
                                    }
                                })
                            })
                        };
                        if memchr::memchr(0x1b, &hay[ls..le]).is_some()
                            && finds(cleaned)
                            && !finds(cut)
                        {
                            must += 1;
                            assert!(
                                fast_seen.contains(&ls),
                                "{lits:?} line at {ls} of {shown:?}"
                            );
                        }
                        // Any start line sees the same lines from there on.
                        let from_here = visits(&hay, ls, max_line, &fast);
                        assert!(from_here.iter().all(|l| fast_seen.contains(l)));
                    }
                }
            }
        }
        assert!(must > 100, "{must} lines that only match cleaned");
    }
}
