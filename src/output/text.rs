//! Human-readable rendering: grep-like `CITATION:TEXT` lines.

use crate::escape::text_bytes;

const PATH: &str = "\x1b[35m";
const LINE: &str = "\x1b[32m";
const MATCH: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

/// What comes before a grep line's text: `cite:line<sep>` (`cite` is the
/// member's citation, or with `-h` the member chain alone), with `-b` the
/// byte offset (`cite:line:offset<sep>`), with `--null` a NUL instead of
/// the `:` after the citation (rg's `-0`, for `xargs -0`).
pub(crate) struct Head<'a> {
    pub cite: &'a str,
    /// None with `-N`.
    pub line: Option<u64>,
    /// `--column`/`--vimgrep`: the first match's column (1-based bytes).
    pub column: Option<u64>,
    pub offset: Option<u64>,
    /// `:` for a match, `-` for context.
    pub sep: u8,
    pub null: bool,
}

/// Writes the head, then the text and `\n`; with colour, the citation, line
/// number and the spans returned by `spans(text)` are highlighted. The text
/// is escaped ([`crate::escape::text_bytes`]): a `\r`, backspace or escape
/// sequence in a log line cannot redraw the citation or forge another line.
pub(crate) fn citation_line(
    out: &mut Vec<u8>,
    head: &Head<'_>,
    text: &[u8],
    color: bool,
    spans: impl FnOnce(&[u8]) -> Vec<(usize, usize)>,
) {
    let paint = |out: &mut Vec<u8>, code: &str, s: &[u8]| {
        if color {
            out.extend_from_slice(code.as_bytes());
            out.extend_from_slice(s);
            out.extend_from_slice(RESET.as_bytes());
        } else {
            out.extend_from_slice(s);
        }
    };
    // Each field is followed by its separator: `cite:line:column:offset:`
    // (a context line `cite:line-`, as before; with `-N`, `cite-`).
    if !head.cite.is_empty() {
        paint(out, PATH, head.cite.as_bytes());
        let sep = if head.line.is_some() { b':' } else { head.sep };
        out.push(if head.null { 0 } else { sep });
    }
    if let Some(line) = head.line {
        paint(out, LINE, line.to_string().as_bytes());
        out.push(head.sep);
    }
    if let Some(column) = head.column {
        out.extend_from_slice(column.to_string().as_bytes());
        out.push(head.sep);
    }
    if let Some(offset) = head.offset {
        out.extend_from_slice(offset.to_string().as_bytes());
        out.push(head.sep);
    }
    if color {
        let mut at = 0;
        for (s, e) in spans(text) {
            if s < at || e <= s {
                continue;
            }
            text_bytes(out, &text[at..s]);
            out.extend_from_slice(MATCH.as_bytes());
            text_bytes(out, &text[s..e]);
            out.extend_from_slice(RESET.as_bytes());
            at = e;
        }
        text_bytes(out, &text[at..]);
    } else {
        text_bytes(out, text);
    }
    out.push(b'\n');
}
