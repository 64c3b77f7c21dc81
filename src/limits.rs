//! Every read limit, in one place to look: [`ReadLimits`] gathers the
//! archive limits of [`source::Limits`] (enforced in `source`: depth by the
//! walker, bytes, ratio and spool by [`source::Budget`]) and the line
//! reader's [`lines::LineLimits`] (enforced in `lines::LineReader`:
//! `max_line`, `binary`). Each limit is one field, with its flag and help
//! on it and its value in its struct's `Default`; from there it is a
//! command-line flag (`clap` flattens both structs into the commands'
//! arguments), a key of the audit fingerprint ([`ReadLimits::stored_json`])
//! and a row of docs/verifier.md's limits table (the tests below check both, and
//! that each flag defaults to the `Default` value).

use crate::{lines, source};
use serde::{Deserialize, Serialize};

/// What reading one artifact may cost, and how its lines are read.
/// Serialised flat (each limit a key), as the audit store keeps it.
#[derive(clap::Args, Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReadLimits {
    #[command(flatten)]
    #[serde(flatten)]
    pub source: source::Limits,
    #[command(flatten)]
    #[serde(flatten)]
    pub lines: lines::LineLimits,
}

impl ReadLimits {
    /// The limits as the audit store keeps and hashes them in its
    /// fingerprint: every serialised field, keys sorted, so a new limit
    /// cannot be left out and a changed one rescans.
    pub fn stored_json(&self) -> String {
        // Through `Value`: its map sorts keys, as the hand-written list
        // this replaced did (older stores keep their fingerprint).
        let value = serde_json::to_value(self).expect("limits serialize");
        serde_json::to_string(&value).expect("json")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The limits as the fingerprint spelled them by hand before it was
    /// derived from the structs: stores written then must not all rescan.
    fn by_hand(l: &ReadLimits) -> String {
        let (s, n) = (&l.source, &l.lines);
        serde_json::json!({
            "max_depth": s.max_depth,
            "max_bytes": s.max_bytes,
            "max_member_bytes": s.max_member_bytes,
            "max_ratio": s.max_ratio,
            "ratio_grace": s.ratio_grace,
            "spool_cap": s.spool_cap,
            "max_line": n.max_line,
            "binary": n.binary,
        })
        .to_string()
    }

    fn fields() -> serde_json::Map<String, Value> {
        match serde_json::to_value(ReadLimits::default()).unwrap() {
            Value::Object(m) => m,
            v => panic!("ReadLimits serialises as {v}"),
        }
    }

    #[test]
    fn stored_json_is_the_stored_format() {
        let mut odd = ReadLimits::default();
        odd.source.max_depth = 3;
        odd.source.max_ratio = 12.5;
        odd.lines.binary = true;
        odd.lines.max_line = 77;
        for l in [ReadLimits::default(), odd] {
            assert_eq!(l.stored_json(), by_hand(&l));
        }
    }

    #[test]
    fn every_limit_changes_the_fingerprint() {
        let base = ReadLimits::default().stored_json();
        let all = fields();
        // Both structs are in: a field of each is a key.
        assert!(all.contains_key("max_depth") && all.contains_key("max_line"));
        for (name, value) in all {
            let changed = match &value {
                Value::Bool(b) => Value::Bool(!b),
                // Integers stay integers so the field type accepts them.
                Value::Number(n) if n.is_u64() => serde_json::json!(n.as_u64().unwrap() + 1),
                Value::Number(n) => serde_json::json!(n.as_f64().unwrap() + 1.0),
                v => panic!("{name}: a limit of another type: {v}"),
            };
            let mut m = fields();
            m.insert(name.clone(), changed);
            let l: ReadLimits = serde_json::from_value(Value::Object(m)).unwrap();
            assert_ne!(l.stored_json(), base, "{name} is not in the fingerprint");
        }
    }

    /// The `setting` and `flag` columns of docs/verifier.md's limits table.
    fn readme_settings() -> Vec<(String, String)> {
        let readme = include_str!("../docs/verifier.md");
        let table = readme
            .split("\n## Limits\n")
            .nth(1)
            .expect("docs/verifier.md has a Limits section")
            .split("\n## ")
            .next()
            .unwrap();
        let mut rows = table
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>());
        let header = rows.next().expect("a table");
        let col = header
            .iter()
            .position(|c| *c == "setting")
            .expect("a setting column");
        let flag = header
            .iter()
            .position(|c| *c == "flag")
            .expect("a flag column");
        rows.filter(|r| !r[col].starts_with("---"))
            .filter_map(|r| {
                let s = r[col].strip_prefix('`')?.strip_suffix('`')?;
                Some((s.to_string(), r[flag].to_string()))
            })
            .collect()
    }

    /// The long flags `clap` builds from the limits structs.
    fn flags() -> Vec<String> {
        use clap::Args;
        ReadLimits::augment_args(clap::Command::new("t"))
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_string))
            .collect()
    }

    #[test]
    fn readme_limits_table_names_every_limit() {
        let mut in_readme: Vec<String> = readme_settings().into_iter().map(|(s, _)| s).collect();
        in_readme.sort();
        let ours: Vec<String> = fields().keys().cloned().collect();
        assert_eq!(
            in_readme, ours,
            "docs/verifier.md limits table vs ReadLimits"
        );
        // A flag, where there is one, is the setting's name and exists.
        let flags = flags();
        for (setting, flag) in readme_settings() {
            if flag != "(fixed)" {
                let long = setting.replace('_', "-");
                assert_eq!(flag, format!("`--{long}`"));
                assert!(flags.contains(&long), "no flag --{long}");
            }
        }
    }

    /// A flag's default is the struct's default: one value, not two.
    #[test]
    fn flags_default_to_the_defaults() {
        use clap::{Args, FromArgMatches};
        let cmd = ReadLimits::augment_args(clap::Command::new("t"));
        let parsed = ReadLimits::from_arg_matches(&cmd.get_matches_from(["t"])).unwrap();
        assert_eq!(parsed.stored_json(), ReadLimits::default().stored_json());
        let cmd = ReadLimits::augment_args(clap::Command::new("t"));
        let m = cmd.get_matches_from(["t", "--max-bytes", "2G", "--max-line", "4K", "-a"]);
        let parsed = ReadLimits::from_arg_matches(&m).unwrap();
        assert_eq!(parsed.source.max_bytes, 2 << 30);
        assert_eq!(parsed.lines.max_line, 4 << 10);
        assert!(parsed.lines.binary);
    }
}
