//! grep's `--json`: ripgrep's JSON Lines messages (`begin`, `match`,
//! `context`, `end`, `summary`), field for field as `rg --json` writes them
//! for a plain file, so that editors and scripts that read rg's output read
//! artiscan's. `data.path.text` is the member's citation
//! (`a.zip!x.tar.gz!server.log`; a plain file's path); `lines.text` is the
//! cleaned line (escape sequences and a trailing `\r` removed) with `\n`;
//! `absolute_offset` is the line's byte offset in its decompressed member.
//! What rg has no field for rides in extra keys rg's readers ignore:
//! `lossy` on a line that was not UTF-8 (rg would send base64 `bytes`), and
//! the summary's `artiscan` object (each artifact's coverage).

use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// rg's `stats` object, per member (`end`) or summed (`summary`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RgStats {
    pub elapsed: Duration,
    pub searches: u64,
    pub searches_with_match: u64,
    pub bytes_searched: u64,
    pub bytes_printed: u64,
    pub matched_lines: u64,
    pub matches: u64,
}

impl RgStats {
    pub(crate) fn add(&mut self, o: &RgStats) {
        self.elapsed += o.elapsed;
        self.searches += o.searches;
        self.searches_with_match += o.searches_with_match;
        self.bytes_searched += o.bytes_searched;
        self.bytes_printed += o.bytes_printed;
        self.matched_lines += o.matched_lines;
        self.matches += o.matches;
    }

    fn json(&self) -> Value {
        json!({
            "elapsed": duration(self.elapsed),
            "searches": self.searches,
            "searches_with_match": self.searches_with_match,
            "bytes_searched": self.bytes_searched,
            "bytes_printed": self.bytes_printed,
            "matched_lines": self.matched_lines,
            "matches": self.matches,
        })
    }
}

/// rg's duration object.
fn duration(d: Duration) -> Value {
    json!({
        "secs": d.as_secs(),
        "nanos": d.subsec_nanos(),
        "human": format!("{:.6}s", d.as_secs_f64()),
    })
}

fn write(out: &mut Vec<u8>, v: &Value) -> u64 {
    let start = out.len();
    super::write_jsonl(out, v);
    (out.len() - start) as u64
}

/// One member's messages: `begin` before its first line, `end` after its
/// last; a member with no line printed prints nothing, as rg.
pub(crate) struct RgMember {
    path: String,
    start: Instant,
    begun: bool,
    stats: RgStats,
}

impl RgMember {
    pub(crate) fn new(citation: String) -> Self {
        RgMember {
            path: citation,
            start: Instant::now(),
            begun: false,
            stats: RgStats {
                searches: 1,
                ..RgStats::default()
            },
        }
    }

    /// A matching (`spans` non-empty unless `-v`) or context line.
    pub(crate) fn line(
        &mut self,
        out: &mut Vec<u8>,
        is_match: bool,
        number: u64,
        offset: u64,
        text: &[u8],
        spans: &[(usize, usize)],
    ) {
        if !self.begun {
            self.begun = true;
            let begin = json!({"type": "begin", "data": {"path": {"text": self.path}}});
            self.stats.bytes_printed += write(out, &begin);
        }
        let submatches: Vec<Value> = spans
            .iter()
            .map(|&(s, e)| {
                json!({
                    "match": {"text": String::from_utf8_lossy(&text[s..e])},
                    "start": s,
                    "end": e,
                })
            })
            .collect();
        if is_match {
            self.stats.matched_lines += 1;
            self.stats.matches += submatches.len() as u64;
        }
        let (line, lossy) = crate::domain::line_text(text);
        let mut data = json!({
            "path": {"text": self.path},
            "lines": {"text": format!("{line}\n")},
            "line_number": number,
            "absolute_offset": offset,
            "submatches": submatches,
        });
        if lossy {
            data["lossy"] = Value::Bool(true);
        }
        let kind = if is_match { "match" } else { "context" };
        let msg = json!({"type": kind, "data": data});
        self.stats.bytes_printed += write(out, &msg);
    }

    /// The member is done, `bytes` of it searched: its `end` message if it
    /// printed anything; its stats for the summary either way.
    pub(crate) fn end(&mut self, out: &mut Vec<u8>, bytes: u64) -> RgStats {
        self.stats.elapsed = self.start.elapsed();
        self.stats.bytes_searched = bytes;
        if self.stats.matched_lines > 0 {
            self.stats.searches_with_match = 1;
        }
        if self.begun {
            let end = json!({"type": "end", "data": {
                "path": {"text": self.path},
                "binary_offset": null,
                "stats": self.stats.json(),
            }});
            // rg's bytes_printed counts what came before the end message.
            write(out, &end);
        }
        self.stats
    }
}

/// The `summary` message; `coverage` is each artifact's coverage record.
pub(crate) fn summary(out: &mut Vec<u8>, total: &RgStats, elapsed: Duration, coverage: Vec<Value>) {
    let complete = coverage.iter().all(|c| c["complete"] == true);
    let msg = json!({"type": "summary", "data": {
        "elapsed_total": duration(elapsed),
        "stats": total.json(),
        "artiscan": {"complete": complete, "coverage": coverage},
    }});
    write(out, &msg);
}
