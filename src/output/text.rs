//! Human-readable rendering: grep-like `CITATION:TEXT` lines.

use super::escape::text_bytes;

const PATH: &str = "\x1b[35m";
const LINE: &str = "\x1b[32m";
const MATCH: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

/// Writes `cite:line<sep>text\n` (`cite` is the member's citation, or with
/// `-h` the member chain alone); with colour, the citation, line number and
/// the spans returned by `spans(text)` are highlighted. The text is escaped
/// ([`super::escape::text_bytes`]): a `\r`, backspace or escape sequence in
/// a log line cannot redraw the citation or forge another line.
pub(crate) fn citation_line(
    out: &mut Vec<u8>,
    cite: &str,
    line: u64,
    sep: u8,
    text: &[u8],
    color: bool,
    spans: impl FnOnce(&[u8]) -> Vec<(usize, usize)>,
) {
    let cite_sep = if cite.is_empty() { "" } else { ":" };
    if color {
        out.extend_from_slice(PATH.as_bytes());
        out.extend_from_slice(cite.as_bytes());
        out.extend_from_slice(RESET.as_bytes());
        out.extend_from_slice(cite_sep.as_bytes());
        out.extend_from_slice(LINE.as_bytes());
        out.extend_from_slice(line.to_string().as_bytes());
        out.extend_from_slice(RESET.as_bytes());
        out.push(sep);
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
        out.extend_from_slice(cite.as_bytes());
        out.extend_from_slice(cite_sep.as_bytes());
        out.extend_from_slice(line.to_string().as_bytes());
        out.push(sep);
        text_bytes(out, text);
    }
    out.push(b'\n');
}
