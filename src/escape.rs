//! The one place where artifact-derived text is made safe to print.
//!
//! Member names, file names, log lines and error messages come from whoever
//! built the artifact. Printed raw, a `\r` or backspace redraws a line, ESC
//! starts a terminal command (clear the screen, set the title, write the
//! clipboard), a newline forges an output line, a bidi override reorders
//! what a reader sees, and in Markdown `<img>`, `[text](url)` or `@name`
//! become a tracking image, a phishing link or a mention. Every text and
//! Markdown rendering passes such strings through [`text`] or [`md_cell`] /
//! [`md_code`]; JSON output needs none of this (serde escapes it, and the
//! exact text is the point there). SECURITY.md states the rule.

use std::borrow::Cow;

/// Characters shown as escapes in text output: C0 controls but tab, DEL,
/// C1 controls, and the invisible Unicode controls that change how a line
/// reads (bidi embeddings, overrides and isolates, marks, line and paragraph
/// separators, zero-width characters, the BOM, interlinear annotations).
pub(crate) fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\0'..='\x08' | '\x0a'..='\x1f' | '\x7f'..='\u{9f}'
        | '\u{061c}' | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2069}'
        | '\u{206a}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}')
}

fn push_char_escape(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\x1b' => write!(out, "\\e"),
        c if (c as u32) < 0x100 => write!(out, "\\x{:02x}", c as u32),
        c => write!(out, "\\u{{{:04x}}}", c as u32),
    };
}

/// `s` with every `is_unsafe` character as a visible escape (`\r`, `\n`,
/// `\e`, `\x08`, `\x9b`, `\u{202e}`). Borrowed when nothing needs escaping.
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_unsafe(c) {
            push_char_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Appends raw line bytes as safe text: as [`text`], and each byte of
/// invalid UTF-8 as `\xNN` (a lone 0x9b is CSI on an 8-bit terminal).
pub(crate) fn text_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.is_ascii() && !bytes.iter().any(|&b| b < 0x20 && b != b'\t' || b == 0x7f) {
        out.extend_from_slice(bytes);
        return;
    }
    let mut s = String::new();
    for chunk in bytes.utf8_chunks() {
        s.push_str(&text(chunk.valid()));
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.extend_from_slice(s.as_bytes());
}

/// Prose for a Markdown table cell (GitHub flavour): controls escaped as by
/// [`text`] (so no `\r` or newline splits a row); `<` and `&` as entities
/// (no HTML, no `&#x202e;`); `\`, `` ` ``, `[`, `]`, `|`, `*`, `~` and `$`
/// backslash-escaped (no link, image, code span, cell split, emphasis or
/// math); and a zero-width space after `@`, inside `://`, `www.` and
/// `:name:`, so that no mention, autolink or emoji is made. Other
/// punctuation is left alone: it is markup only at the start of a line,
/// and names like `server_logs_x.zip` read as they are.
pub(crate) fn md_cell(s: &str) -> String {
    const ZWSP: char = '\u{200b}';
    let s = text(s);
    let mut out = String::with_capacity(s.len() + 16);
    for (i, c) in s.char_indices() {
        let rest = &s[i + c.len_utf8()..];
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '[' | ']' | '|' | '*' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '@' => {
                out.push(c);
                out.push(ZWSP);
            }
            ':' if rest.starts_with('/') || is_shortcode_tail(rest) => {
                out.push(c);
                out.push(ZWSP);
            }
            '.' if out.len() >= 3 && out[out.len() - 3..].eq_ignore_ascii_case("www") => {
                out.push(ZWSP);
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether `rest` (after a `:`) reads `name:` as in an emoji shortcode.
fn is_shortcode_tail(rest: &str) -> bool {
    let n = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || b"_+-".contains(b))
        .count();
    n > 0 && rest.as_bytes().get(n) == Some(&b':')
}

/// A complete Markdown code span for a citation or name: controls escaped
/// as by [`text`], `|` as `\|` (GitHub tables split cells on it even inside
/// code), and a fence one backtick longer than any run inside, so the text
/// cannot close the span early. Inside a code span nothing else is markup.
pub(crate) fn md_code(s: &str) -> String {
    let s = text(s).replace('|', "\\|");
    if s.is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') || s.starts_with(' ') && s.ends_with(' ') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_every_control_and_keeps_the_rest() {
        let hostile =
            "ok\r\x08\x1b]52;c;ZXZpbA==\x07\x7f\u{9b}2J\u{202e}gnp.exe\u{2066}\u{2028}\u{feff}";
        let t = text(hostile);
        assert_eq!(
            t,
            "ok\\r\\x08\\e]52;c;ZXZpbA==\\x07\\x7f\\x9b2J\\u{202e}gnp.exe\\u{2066}\\u{2028}\\u{feff}"
        );
        assert!(!t.chars().any(is_unsafe));
        // Ordinary log text, tabs and non-Latin text stay as they are.
        let fine = "[2026-10-29 04:21:13 TP7] naïve\tпривет 日本 ✅ ~/a\\b";
        assert!(matches!(text(fine), Cow::Borrowed(_)));
    }

    #[test]
    fn text_bytes_escapes_invalid_utf8() {
        let mut out = Vec::new();
        text_bytes(&mut out, b"a\x9b2Jb\xff\r\n\xe2\x80\xae");
        assert_eq!(out, b"a\\x9b2Jb\\xff\\r\\n\\u{202e}");
        let mut out = Vec::new();
        text_bytes(&mut out, b"plain\tline");
        assert_eq!(out, b"plain\tline");
    }

    #[test]
    fn md_cell_makes_no_markup() {
        let evil = "![x](https://evil.example/t.png) [ok](http://x) <img src=x> @admin www.evil.com `a|b`\r\nrow :white_check_mark: $\\color{green}$ &#x202e;";
        let c = md_cell(evil);
        for bad in [
            "![",
            "[x](",
            "[ok](",
            "<img",
            "@admin",
            "://",
            "www.",
            "\r",
            "\n",
            ":white_check_mark:",
            " $",
            "&#",
        ] {
            assert!(!c.contains(bad), "{bad:?} in {c}");
        }
        // Every `|` and backtick is escaped: no row split, no code span.
        for ch in ['`', '[', ']', '$'] {
            assert!(!c.replace(&format!("\\{ch}"), "").contains(ch), "{c}");
        }
        assert!(!c.replace("\\|", "").contains('|'), "{c}");
        assert!(c.contains("&lt;img"));
        // Names and citations read as they are.
        let plain = "server_logs_x-1.zip!a.tar.gz!config.yaml:30 (6 record(s), first #2)";
        assert_eq!(md_cell(plain), plain);
    }

    #[test]
    fn md_code_cannot_be_closed_early() {
        assert_eq!(md_code("server.log:12"), "`server.log:12`");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("``x"), "``` ``x ```");
        assert_eq!(md_code("a|b\nc"), "`a\\|b\\nc`");
        assert_eq!(md_code(""), "");
    }
}
