//! `--json`: rg's messages for the member's lines (the messages
//! themselves are written by [`crate::output::grep_json`]).

use super::{LinePrinter, Member};
use crate::output::grep_json::{RgMember, RgStats};
use crate::scan::grep::{GrepMatcher, GrepOptions, Hit};

pub(crate) struct Rg<'a> {
    matcher: &'a GrepMatcher,
    opts: &'a GrepOptions,
    member: Member<'a>,
    rg: RgMember,
}

impl<'a> Rg<'a> {
    pub(super) fn new(matcher: &'a GrepMatcher, opts: &'a GrepOptions, member: Member<'a>) -> Self {
        let rg = RgMember::new(member.cite.clone());
        Rg {
            matcher,
            opts,
            member,
            rg,
        }
    }

    /// Its `end` message, and its stats for the summary.
    pub(super) fn end(&mut self, bytes: u64) -> RgStats {
        self.rg.end(self.member.out.buf(), bytes)
    }
}

impl LinePrinter for Rg<'_> {
    fn line(&mut self, hit: &Hit<'_>) {
        let spans = self.matcher.spans(self.opts, hit.is_match, hit.text);
        let out = self.member.out.buf();
        self.rg
            .line(out, hit.is_match, hit.number, hit.offset, hit.text, &spans);
    }

    fn output_open(&mut self) -> bool {
        self.member.out.spill()
    }
}
