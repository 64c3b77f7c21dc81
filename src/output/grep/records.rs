//! `--format jsonl`: artiscan's records, an `evidence` record (`rule` =
//! "grep") per matching line and a `context` record per context line.

use super::{LinePrinter, Member};
use crate::domain::{Citation, Evidence, line_text};
use crate::location::Location;
use crate::output::records::{ContextRecord, EvidenceRecord};
use crate::output::write_jsonl;
use crate::scan::grep::Hit;
use std::sync::Arc;

pub(crate) struct Records<'a> {
    member: Member<'a>,
    /// Path, members and citation, shared by the member's records.
    shared: (Arc<str>, Arc<[String]>, Arc<str>),
}

impl<'a> Records<'a> {
    pub(super) fn new(member: Member<'a>) -> Self {
        let shared = (
            member.path.into(),
            member.members.into(),
            member.cite.as_str().into(),
        );
        Records { member, shared }
    }
}

impl LinePrinter for Records<'_> {
    fn line(&mut self, hit: &Hit<'_>) {
        let loc = Location {
            path: self.shared.0.clone(),
            members: self.shared.1.clone(),
            line: hit.number,
            byte_offset: hit.offset,
            column: None,
        };
        let (text, lossy) = line_text(hit.text);
        let citation = Citation::new(self.shared.2.clone(), hit.number);
        if hit.is_match {
            let rec = Evidence {
                rule: "grep".into(),
                pack: None,
                citation,
                location: loc,
                text: text.into(),
                text_start: None,
                lossy,
                truncated: hit.truncated,
                captures: None,
                rank: None,
                id: None,
            };
            write_jsonl(self.member.out.buf(), &EvidenceRecord::from(&rec));
        } else {
            let rec = ContextRecord::new(loc, citation, text, lossy);
            write_jsonl(self.member.out.buf(), &rec);
        }
    }

    fn output_open(&mut self) -> bool {
        self.member.out.spill()
    }
}
