//! grep's and rg's text lines: `citation:line:text` for a match,
//! `citation-line-text` for context, `--` between groups, and `-o`, `-b`,
//! `-0`, `-N`, `--column`, `--vimgrep`, colour.

use super::{LinePrinter, Member};
use crate::output::text;
use crate::scan::grep::{GrepMatcher, GrepOptions, Hit};

pub(crate) struct Standard<'a> {
    matcher: &'a GrepMatcher,
    opts: &'a GrepOptions,
    member: Member<'a>,
}

impl<'a> Standard<'a> {
    pub(super) fn new(matcher: &'a GrepMatcher, opts: &'a GrepOptions, member: Member<'a>) -> Self {
        Standard {
            matcher,
            opts,
            member,
        }
    }
}

impl LinePrinter for Standard<'_> {
    fn line(&mut self, hit: &Hit<'_>) {
        let (number, offset, line) = (hit.number, hit.offset, hit.text);
        let opts = self.opts;
        let out = self.member.out.buf();
        if hit.after_gap {
            out.extend_from_slice(b"--\n");
        }
        let sep = if hit.is_match { b':' } else { b'-' };
        let (re, color) = (&self.matcher.re, opts.color);
        let shown = &self.member.shown;
        let line_no = (!opts.no_line_number || opts.vimgrep).then_some(number);
        let head = |line_offset: u64, column: Option<u64>| text::Head {
            cite: shown,
            line: line_no,
            column,
            offset: opts.byte_offset.then_some(line_offset),
            sep,
            null: opts.null,
        };
        if hit.is_match && (opts.only_matching || opts.vimgrep) && !opts.invert {
            for m in re.find_iter(line).filter(|m| !m.is_empty()) {
                // The match's offset: exact unless escape sequences were
                // cleaned out of the line before it.
                let column = opts.vimgrep.then_some(m.start() as u64 + 1);
                if opts.vimgrep {
                    // rg's --vimgrep: the whole line, once per match.
                    let head = head(offset, column);
                    let span = (m.start(), m.end());
                    text::citation_line(out, &head, line, color, |_| vec![span]);
                    continue;
                }
                let head = head(offset + m.start() as u64, column);
                let piece = &line[m.start()..m.end()];
                text::citation_line(out, &head, piece, color, |t| vec![(0, t.len())]);
            }
            return;
        }
        let spans = self.matcher.spans(opts, hit.is_match, line);
        // rg's --column: the first match's column; a context line has none.
        let column = opts
            .column
            .then(|| spans.first().map(|s| s.0 as u64 + 1))
            .flatten();
        let head = head(offset, column);
        text::citation_line(out, &head, line, color, |_| spans);
    }

    fn output_open(&mut self) -> bool {
        self.member.out.spill()
    }
}
