//! What a member that was not read costs (issue 45): only the claims whose
//! rules could have matched it by its name. A binary or unreadable
//! `trace.bin` cannot hold an `agg_eval_*.json` row, so the eval claims stay
//! decidable; a rule that reads every member (no `members` globs, as the
//! server-log rules) could have matched anything, so its claims stay
//! unknown. Only parts confined to one known member are scoped: an error of
//! a container's own stream may have hidden members whose names are unknown.

use crate::pack::RuleSet;
use crate::source::{ErrorKind, NoteKind};
use globset::GlobSet;
use std::collections::BTreeSet;

/// The member names a check's rules can read.
#[derive(Debug, Clone, Default)]
pub(crate) enum Reads {
    /// Some rule reads every member, or the rules were not looked up (the
    /// safe default: every unread part costs the claim).
    #[default]
    Every,
    /// Only members one of these globs matches.
    Named(Vec<GlobSet>),
}

impl Reads {
    /// What the rules `ids` read in `rules`; a rule not there reads
    /// everything (nothing is known of it).
    pub(crate) fn of(ids: &BTreeSet<String>, rules: &RuleSet) -> Reads {
        let mut globs = Vec::new();
        for id in ids {
            let Some(at) = rules.rules.iter().position(|r| &r.id == id) else {
                return Reads::Every;
            };
            let mut any = false;
            for v in rules.variants.iter().filter(|v| v.rule == at) {
                any = true;
                match &v.members {
                    Some(g) => globs.push(g.clone()),
                    None => return Reads::Every,
                }
            }
            if !any {
                return Reads::Every;
            }
        }
        Reads::Named(globs)
    }

    /// Whether a member called `name` (its innermost name, as the scan
    /// chose rules by it) could hold a record of these rules. Matched as
    /// `RuleSet::active_for` matches, and also without a `#N` duplicate
    /// suffix, so that doubt counts as could.
    pub(crate) fn could_read(&self, name: &str) -> bool {
        let Reads::Named(globs) = self else {
            return true;
        };
        let undup = match name.rsplit_once('#') {
            Some((n, d)) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => name,
        };
        [name, undup].iter().any(|n| {
            let bare = crate::pack::compile::strip_compression(n);
            let base = bare.rsplit('/').next().unwrap_or(bare);
            globs
                .iter()
                .any(|g| g.is_match(n) || g.is_match(bare) || g.is_match(base))
        })
    }
}

/// The name a part of `path`'s scan at `members` was read under: its
/// innermost member, or the file itself (a file of a folder artifact).
pub(crate) fn part_name<'a>(path: &'a str, members: &'a [String]) -> &'a str {
    members
        .last()
        .map(String::as_str)
        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path))
}

/// Whether an error stays within the one member it names: a member
/// not searched (binary, a link, a device) is passed over and the
/// container read on. Damage, limits and cut streams may hide more.
pub(crate) fn confined_error(kind: ErrorKind) -> bool {
    kind == ErrorKind::Skipped
}

/// Whether a note's unread part stays within its member (a long line).
pub(crate) fn confined_note(kind: NoteKind) -> bool {
    kind == NoteKind::LongLine
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::compile::Selection;

    fn reads(ids: &[&str]) -> Reads {
        let rules = crate::pack::load_rules(&[], &Selection::all(), crate::pack::Builtin::Included)
            .unwrap();
        Reads::of(&ids.iter().map(|s| s.to_string()).collect(), &rules)
    }

    #[test]
    fn rules_chosen_by_name_read_only_their_members() {
        let eval = reads(&["result.eval"]);
        assert!(eval.could_read("agg_eval_gsm8k_conc64.json"));
        assert!(eval.could_read("results/agg_eval_gsm8k_conc64.json.gz"));
        assert!(eval.could_read("agg_eval_gsm8k_conc64.json#2"));
        assert!(!eval.could_read("trace.bin"));
        assert!(!eval.could_read("server.log"));
        // A server-log rule reads every member: anything could hold it.
        for ids in [
            &["error.traceback"][..],
            &["result.eval", "error.traceback"],
        ] {
            assert!(reads(ids).could_read("trace.bin"), "{ids:?}");
        }
        assert!(reads(&["no.such.rule"]).could_read("trace.bin"));
        assert!(Reads::default().could_read("trace.bin"));
        assert_eq!(part_name("a/b/x.bin", &[]), "x.bin");
        assert_eq!(part_name("a.zip", &["d/x.bin".into()]), "d/x.bin");
    }
}
