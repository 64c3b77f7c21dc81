//! `-g/--member GLOB`: which members grep, scan and check read, with rg's
//! rules. A member left out is not read, and is recorded in coverage as an
//! `excluded` error: nothing may then be claimed absent from the artifact.
//!
//! Also the one glob dialect of every member or file-name glob: `-g`, a
//! pack rule's `members`, a check's `expected_in`/`unless_in` are all built
//! by [`glob`] ([`glob_set`]): `*`, `?` and `[...]` stay inside one path
//! component, `**` crosses `/` (as in gitignore and rg), `{a,b}` picks one,
//! `\` escapes.

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use std::path::Path;

/// One glob in artiscan's dialect (see the module docs).
pub(crate) fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// Globs in artiscan's dialect, as one set (`None` for none).
pub(crate) fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, globset::Error> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(glob(p)?);
    }
    Ok(Some(b.build()?))
}

/// A `-g` value that is not a glob.
#[derive(Debug, thiserror::Error)]
#[error("-g {glob:?}: {message}")]
pub struct MemberGlobError {
    pub glob: String,
    pub message: String,
}

#[derive(Debug, Clone)]
struct One {
    matcher: GlobMatcher,
    negated: bool,
    /// A glob with a `/` is matched against paths, one without against
    /// base names (as rg does).
    has_slash: bool,
}

/// The `-g` globs, in command-line order.
#[derive(Debug, Clone)]
pub struct MemberGlobs {
    globs: Vec<One>,
    any_positive: bool,
    /// As given, for messages.
    shown: String,
}

impl MemberGlobs {
    /// `globs` as given to `-g` (a leading `!` negates). `None` when empty.
    pub fn new(globs: &[String]) -> Result<Option<MemberGlobs>, MemberGlobError> {
        if globs.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(globs.len());
        for g in globs {
            let (negated, pat) = match g.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, g.as_str()),
            };
            let pat = pat.strip_prefix("./").unwrap_or(pat);
            // `*` stays inside one path component, as in rg and ugrep.
            let glob: Glob = glob(pat).map_err(|e| MemberGlobError {
                glob: g.clone(),
                message: e.kind().to_string(),
            })?;
            out.push(One {
                matcher: glob.compile_matcher(),
                negated,
                has_slash: pat.contains('/'),
            });
        }
        Ok(Some(MemberGlobs {
            any_positive: out.iter().any(|o| !o.negated),
            globs: out,
            shown: globs.join(" "),
        }))
    }

    /// The globs as given, space-separated.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the leaf at `members` (the member chain) of the artifact at
    /// `artifact` is read. The path matched is the innermost member's name
    /// (its path inside its container, `./` dropped); a glob with a `/` also
    /// matches the whole chain joined by `/`. A leaf with no chain (a plain
    /// or compressed file) is matched by the artifact's file name. Each name
    /// is also tried without a compression suffix. The last glob that
    /// matches decides; when none does, the member is read only if every
    /// glob is a `!` glob.
    pub fn admits(&self, artifact: &str, members: &[String]) -> bool {
        let inner: &str = match members.last() {
            Some(m) => m.trim_start_matches("./"),
            None => Path::new(artifact)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(artifact),
        };
        let base = inner.rsplit('/').next().unwrap_or(inner);
        let chain = members
            .iter()
            .map(|m| m.trim_start_matches("./"))
            .collect::<Vec<_>>()
            .join("/");
        // A compression suffix over the text name is looked through:
        // `-g '*.err'` also picks `n1_decode_w0.err.gz`.
        let variants = |s: &str| -> [Option<String>; 2] {
            let stripped = crate::formats::strip_compression(s).map(|(rest, _)| rest.to_string());
            [Some(s.to_string()), stripped]
        };
        for g in self.globs.iter().rev() {
            let hit = if g.has_slash {
                variants(inner)
                    .iter()
                    .chain(variants(&chain).iter())
                    .flatten()
                    .any(|p| g.matcher.is_match(p))
            } else {
                variants(base)
                    .iter()
                    .flatten()
                    .any(|p| g.matcher.is_match(p))
            };
            if hit {
                return !g.negated;
            }
        }
        !self.any_positive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(g: &[&str]) -> MemberGlobs {
        MemberGlobs::new(&g.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap()
            .unwrap()
    }

    fn chain(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn base_names_paths_and_negation_as_rg() {
        let tar = chain(&["multinode_server_logs.tar.gz", "./logs/n1_decode_w0.out"]);
        let err = chain(&["multinode_server_logs.tar.gz", "n1_decode_w0.err.gz"]);
        let cfg = chain(&["multinode_server_logs.tar.gz", "config.yaml"]);
        let g = globs(&["*.out"]);
        assert!(g.admits("a.zip", &tar));
        assert!(!g.admits("a.zip", &cfg));
        // No `/`: the base name in any folder.
        assert!(globs(&["n1_*"]).admits("a.zip", &tar));
        // With `/`: the path in its container, or the whole chain.
        assert!(globs(&["logs/*.out"]).admits("a.zip", &tar));
        assert!(globs(&["multinode_server_logs.tar.gz/**"]).admits("a.zip", &cfg));
        assert!(!globs(&["*/*.out"]).admits("a.zip", &cfg));
        // `*` does not cross `/`.
        assert!(!globs(&["l*.out"]).admits("a.zip", &tar));
        // A compression suffix is looked through.
        assert!(globs(&["*.err"]).admits("a.zip", &err));
        // Only `!` globs: everything else is read.
        let not_yaml = globs(&["!*.yaml"]);
        assert!(!not_yaml.admits("a.zip", &cfg));
        assert!(not_yaml.admits("a.zip", &tar));
        // The last matching glob wins.
        assert!(!globs(&["*.out", "!n1_*"]).admits("a.zip", &tar));
        assert!(globs(&["!n1_*", "*.out"]).admits("a.zip", &tar));
        // A plain file: its own name.
        assert!(globs(&["*.log"]).admits("runs/x/server.log.gz", &[]));
        assert!(!globs(&["*.json"]).admits("runs/x/server.log", &[]));
    }

    #[test]
    fn bad_globs_are_errors_naming_the_glob() {
        let e = MemberGlobs::new(&["a[".to_string()]).unwrap_err();
        assert!(e.to_string().contains("\"a[\""), "{e}");
        assert!(MemberGlobs::new(&[]).unwrap().is_none());
    }
}
