//! The store's tables, described once: which are keyed by artifact path
//! (written, replaced and merged per artifact), which hold one row per
//! artifact or fewer, and which columns hold JSON. Writing, merging and
//! validating read their table lists from [`TABLES`]; a test holds it to
//! `schema.sql`.

/// One table of the store.
pub(crate) struct Table {
    pub(crate) name: &'static str,
    /// Rows belong to one artifact (a `path` column): deleted and rewritten
    /// with it.
    pub(crate) by_path: bool,
    /// Copied row for row by `merge` with the artifacts it takes (the
    /// verdicts are not: run-scope ones are judged again over the merge).
    pub(crate) merged: bool,
    /// One row per artifact or fewer: validated whole by `merge`.
    pub(crate) small: bool,
    /// Columns holding JSON text.
    pub(crate) json: &'static [&'static str],
}

const fn table(name: &'static str) -> Table {
    Table {
        name,
        by_path: true,
        merged: true,
        small: false,
        json: &[],
    }
}

/// Every table, in the order `merge` copies them (an artifact before its
/// rows, a member chain before the rows that refer to it).
pub(crate) const TABLES: &[Table] = &[
    Table {
        by_path: false,
        merged: false,
        small: true,
        ..table("meta")
    },
    Table {
        by_path: false,
        merged: false,
        small: true,
        json: &["packs", "checks", "params", "limits"],
        ..table("fingerprints")
    },
    Table {
        by_path: false,
        merged: false,
        small: true,
        ..table("checks")
    },
    Table {
        small: true,
        ..table("artifacts")
    },
    Table {
        json: &["notes"],
        ..table("coverage")
    },
    Table {
        json: &["members"],
        ..table("member_chains")
    },
    table("coverage_error_rows"),
    Table {
        json: &["captures", "rank"],
        ..table("evidence_rows")
    },
    Table {
        json: &["group_key", "stats"],
        ..table("aggregate_rows")
    },
    table("aggregate_stats"),
    Table {
        merged: false,
        json: &["evidence", "missing"],
        ..table("verdicts")
    },
    Table {
        by_path: false,
        merged: false,
        small: true,
        ..table("dirty_runs")
    },
];

/// Names of the tables that hold `keep`.
pub(crate) fn names(keep: impl Fn(&Table) -> bool) -> impl Iterator<Item = &'static str> {
    TABLES.iter().filter(move |t| keep(t)).map(|t| t.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table of `schema.sql` is described, and nothing else.
    #[test]
    fn the_descriptor_matches_the_schema() {
        let mut in_schema: Vec<&str> = super::super::store::SCHEMA
            .lines()
            .filter_map(|l| l.strip_prefix("CREATE TABLE "))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        in_schema.sort();
        let mut described: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        described.sort();
        assert_eq!(in_schema, described);
        // A table merged is keyed by path; a table keyed by path has a path column.
        for t in TABLES {
            assert!(!t.merged || t.by_path, "{}", t.name);
            let create = format!("CREATE TABLE {} (", t.name);
            let body = super::super::store::SCHEMA
                .split(&create)
                .nth(1)
                .unwrap()
                .split(");")
                .next()
                .unwrap();
            assert_eq!(
                t.by_path,
                body.lines().any(|l| l.trim_start().starts_with("path ")),
                "{}",
                t.name
            );
            for c in t.json {
                assert!(
                    body.lines()
                        .any(|l| l.trim_start().starts_with(&format!("{c} "))),
                    "{}.{c}",
                    t.name
                );
            }
        }
    }
}
