//! The one interface between the walker and a container reader (`tar`,
//! `zip`): a reader finds entries and pushes each to [`Entries::entry`];
//! the walker behind it detects, decodes, nests, applies limits and keeps
//! coverage. What a reader says about an entry (damage, a duplicate or
//! cut name, a link not followed) goes into the same coverage.

use super::layer::Budget;
use super::meter::Meter;
use super::{Coverage, ErrorKind, NoteKind};
use std::io::{self, Read};

/// What a container reader sees of the walker.
pub(super) trait Entries<'l> {
    /// The member chain down to the container being read.
    fn members(&self) -> &[String];
    fn coverage(&mut self) -> &mut Coverage;
    /// The artifact's byte and spool budget, for the layers a reader puts
    /// over an entry's bytes.
    fn budget(&self) -> &'l Budget;
    /// Moves the progress bar as bytes of the artifact held in memory are
    /// consumed.
    fn meter(&self) -> Meter;
    /// Records an error once, at the member chain `at` or the deeper one
    /// where it was noticed.
    fn record(&mut self, at: &[String], e: &io::Error);
    /// Entry `name` of the container, `stored` bytes in it when known, its
    /// bytes in `r`: detected, decoded, opened or visited one layer down
    /// (`depth`: the layers above it, as the walker counts them).
    /// Errors from inside it are recorded there; an error of the
    /// container's own stream is returned.
    fn entry(
        &mut self,
        name: String,
        stored: Option<u64>,
        r: &mut dyn Read,
        depth: usize,
    ) -> io::Result<()>;
}

/// The longest member name kept; longer ones are cut (with an error).
pub(super) const MAX_NAME: usize = 4096;

/// `name` unique among its siblings in `names`; a duplicate is noted.
pub(super) fn unique(w: &mut dyn Entries<'_>, names: &mut Names, name: String) -> String {
    let (unique, dup) = names.unique(name);
    if dup {
        let mut at = w.members().to_vec();
        at.push(unique.clone());
        let msg = "another member of this container has the same name: cited with a #N suffix";
        w.coverage().note(&at, NoteKind::Duplicate, msg);
    }
    unique
}

/// A member whose name was cut: its lines are read, but the rules that
/// apply by member name (`*.json`, `*env*.txt`) were chosen from the
/// cut name and may not be the ones its whole name selects, so claims
/// of absence cannot rest on it (a `limit` error, not a note).
pub(super) fn name_cut(coverage: &mut Coverage, at: &[String], len: Option<usize>) {
    let what = match len {
        Some(n) => format!("member name of {n} bytes"),
        None => format!("member name longer than {MAX_NAME} bytes"),
    };
    let msg = format!(
        "{what}: cut to {MAX_NAME} bytes in citations; rules chosen by member name may not apply"
    );
    coverage.error(at, ErrorKind::Limit, msg);
}

/// Member names of one container made unique: a member with the name of
/// an earlier one is cited as `NAME#2` (or `#3`, ..., the first free), so
/// two members never share a citation and `cite` reopens the right one.
/// Names are kept as 64-bit hashes, so memory is 16 bytes per member.
#[derive(Default)]
pub(super) struct Names {
    seen: std::collections::HashSet<u64>,
    next: std::collections::HashMap<u64, u64>,
}

impl Names {
    fn hash(s: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        // Fixed keys: the same archive always gets the same suffixes.
        let mut h = std::hash::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }

    /// The name to cite, and whether it was a duplicate.
    fn unique(&mut self, name: String) -> (String, bool) {
        let h = Self::hash(&name);
        if self.seen.insert(h) {
            return (name, false);
        }
        let next = self.next.entry(h).or_insert(2);
        loop {
            let candidate = format!("{name}#{next}");
            *next += 1;
            if self.seen.insert(Self::hash(&candidate)) {
                return (candidate, true);
            }
        }
    }
}
