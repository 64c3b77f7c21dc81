//! The anchored form of an aggregating line variant's regex: run at its
//! literal's places (or walked, see [`super::onepass`]) instead of the
//! regex crate's forward-then-reverse search.

use super::onepass::{OnePass, Spans};
use super::pattern::prefix_literals;

/// A line regex every match of which begins with one literal: it runs
/// anchored at that literal's places (found with memmem from where the
/// prefilter saw the variant's literal, less the pattern's bounded lead:
/// see [`LineMatch::lead`](super::kind::line::LineMatch::lead)), which skips the
/// forward-then-reverse search for the match bounds.
#[derive(Debug)]
pub struct AnchoredRegex {
    literal: memchr::memmem::Finder<'static>,
    re: regex_automata::meta::Regex,
    /// The same pattern as a forward walk, where it has one (no regex run
    /// on the lines it matches).
    onepass: Option<OnePass>,
    /// Capture group index by name.
    groups: Vec<(String, usize)>,
    /// The group of each of the rule's fields (aggregate keys, then numeric
    /// captures) by position: looked up once, not by name on every line.
    fields: Vec<Option<usize>>,
}

/// Reusable match slots of an [`AnchoredRegex`]: the walk's or the regex's.
#[derive(Debug)]
pub struct AnchoredCaptures {
    caps: regex_automata::util::captures::Captures,
    spans: Spans,
    walked: bool,
    /// Regex searches run so far (linearity is tested by this count).
    pub(crate) searches: usize,
}

impl AnchoredRegex {
    /// `fields`: the names [`Self::field_span`] asks for by position.
    pub(crate) fn new(src: &str, fields: &[&str]) -> Option<AnchoredRegex> {
        use regex_automata::{meta, util::syntax};
        let literal = anchor_literal(src)?;
        let re = meta::Regex::builder()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .configure(meta::Config::new().nfa_size_limit(Some(32 << 20)))
            .build(src)
            .ok()?;
        let groups: Vec<(String, usize)> = re
            .group_info()
            .pattern_names(regex_automata::PatternID::ZERO)
            .enumerate()
            .filter_map(|(i, n)| Some((n?.to_string(), i)))
            .collect();
        let fields = fields
            .iter()
            .map(|f| groups.iter().find(|(n, _)| n == f).map(|(_, g)| *g))
            .collect();
        Some(AnchoredRegex {
            literal: memchr::memmem::Finder::new(&literal).into_owned(),
            re,
            onepass: OnePass::new(src),
            groups,
            fields,
        })
    }

    pub fn new_captures(&self) -> AnchoredCaptures {
        AnchoredCaptures {
            caps: self.re.create_captures(),
            spans: self
                .onepass
                .as_ref()
                .map_or_else(Vec::new, OnePass::new_spans),
            walked: false,
            searches: 0,
        }
    }

    /// Whether lines it matches are matched without running a regex.
    pub fn walks(&self) -> bool {
        self.onepass.is_some()
    }

    /// How far into a match the literal `lit` can begin, at most (see
    /// [`LineMatch::lead`](super::kind::line::LineMatch::lead)).
    pub fn lead(&self, lit: &str) -> Option<usize> {
        if self.literal.needle() == lit.as_bytes() {
            return Some(0);
        }
        self.onepass.as_ref()?.lead(lit.as_bytes())
    }

    /// The leftmost-first match in `text`, the one the unanchored regex
    /// finds, where no match begins before `from`: at the first place of
    /// the literal where the regex matches. Only the literal's first place
    /// is tried anchored (where real lines match); past it one unanchored
    /// search finds the same match. Retrying anchored at every place would
    /// be quadratic on a line that repeats the literal (a `.*?` runs to the
    /// line's end each time).
    pub fn captures(&self, text: &[u8], from: usize, caps: &mut AnchoredCaptures) -> bool {
        use regex_automata::{Anchored, Input};
        caps.walked = false;
        let from = from.min(text.len());
        // The literal is usually right there (`from` is where the prefilter
        // saw it): no search.
        let at = if super::onepass::has_prefix(&text[from..], self.literal.needle()) {
            Some(from)
        } else {
            self.literal.find(&text[from..]).map(|i| from + i)
        };
        let Some(at) = at else {
            caps.caps.set_pattern(None);
            return false;
        };
        // The walk finds what the anchored regex finds (see `onepass`), so
        // where it fails only the unanchored search remains.
        let tried = match &self.onepass {
            Some(walk) => {
                if walk.matches_at(text, at, &mut caps.spans) {
                    caps.walked = true;
                    return true;
                }
                true
            }
            None => false,
        };
        if !tried {
            let input = Input::new(text)
                .span(at..text.len())
                .anchored(Anchored::Yes);
            caps.searches += 1;
            self.re.search_captures(&input, &mut caps.caps);
            if caps.caps.is_match() {
                return true;
            }
        }
        // Every match begins with the literal, so a later one begins at
        // its next place: on most lines there is none, and no search runs.
        let next = text
            .get(at + 1..)
            .and_then(|rest| self.literal.find(rest))
            .map(|i| at + 1 + i);
        let Some(next) = next else {
            caps.caps.set_pattern(None);
            return false;
        };
        let rest = Input::new(text).span(next..text.len());
        caps.searches += 1;
        self.re.search_captures(&rest, &mut caps.caps);
        caps.caps.is_match()
    }

    /// The bytes of group `name` of the match in `caps`.
    pub fn group<'t>(
        &self,
        text: &'t [u8],
        caps: &AnchoredCaptures,
        name: &str,
    ) -> Option<&'t [u8]> {
        let (_, g) = self.groups.iter().find(|(n, _)| n == name)?;
        Self::at(text, caps, *g)
    }

    /// How many fields [`Self::field_span`] knows (see [`Self::new`]).
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// Where the rule's field number `i` is in the text of the match in
    /// `caps`, if it took part.
    pub fn field_span(&self, caps: &AnchoredCaptures, i: usize) -> Option<(usize, usize)> {
        Self::span(caps, (*self.fields.get(i)?)?)
    }

    fn at<'t>(text: &'t [u8], caps: &AnchoredCaptures, g: usize) -> Option<&'t [u8]> {
        Self::span(caps, g).map(|(s, e)| &text[s..e])
    }

    /// Group `g`'s span, from the walk's slots or the regex's.
    fn span(caps: &AnchoredCaptures, g: usize) -> Option<(usize, usize)> {
        if caps.walked {
            return caps.spans.get(g).copied().flatten();
        }
        caps.caps.get_group(g).map(|s| (s.start, s.end))
    }
}

/// The literal every match of `src` begins with (the common prefix of its
/// prefix literals: ` graph: ` for ` graph: (True|False), ...`), if it is
/// long enough to search for.
fn anchor_literal(src: &str) -> Option<Vec<u8>> {
    let seq = prefix_literals(src)?;
    let lcp = seq.longest_common_prefix()?;
    (lcp.trim_ascii().len() >= 3).then(|| lcp.to_vec())
}
