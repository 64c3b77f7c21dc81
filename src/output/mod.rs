//! What artiscan prints. Every JSON record is one of the types in
//! [`records`] (the wire format, documented there);
//! `schema/output.schema.json` describes them and a test checks real output
//! against it. Escaping of artifact text for terminals and Markdown is in
//! [`escape`], the progress bar in [`progress`], grep's text lines in
//! [`text`], ordered parallel output in [`shared`]. Scan and check records
//! are printed through one [`sink::RecordSink`] per output format; the
//! person-readable renderings of verdicts are in [`verdicts`], the
//! verifier-shaped rows of `check --format verdicts` in [`verdict_rows`],
//! built on where the checklist stands ([`checklist`], which also gives
//! check's exit code) and reasons in plain words ([`plain`]).

pub(crate) mod checklist;
pub(crate) mod curves;
pub(crate) mod grep;
pub(crate) mod grep_json;
pub(crate) mod plain;
pub(crate) mod progress;
pub(crate) mod records;
pub(crate) mod shared;
pub(crate) mod sink;
pub(crate) mod text;
pub(crate) mod verdict_rows;
pub(crate) mod verdicts;

pub(crate) use records::*;

/// When to colour text output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Never,
    Always,
}

impl ColorChoice {
    pub fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }
}

/// Writes one JSON Lines record.
pub(crate) fn write_jsonl<T: serde::Serialize>(out: &mut Vec<u8>, record: &T) {
    // Serializing plain structs into a Vec cannot fail.
    serde_json::to_writer(&mut *out, record).expect("serialize record");
    out.push(b'\n');
}
