//! A rule's regex ([`PackRegex`]): compiled on first use for built-in
//! packs, its group names read from its syntax; the regex crate's flags
//! every rule regex is built with; the literal prefixes regex-syntax finds
//! (for the anchor and the prefilter's derived literals).

use regex::bytes::{Regex, RegexBuilder};
use std::sync::{Arc, OnceLock};

pub(crate) fn build_regex(src: &str) -> Result<Regex, regex::Error> {
    // The regex crate is linear-time; the size limit bounds compile memory.
    // ASCII classes (`\d`, `\w`, `\b`) are what log lines need and run
    // several times faster than their Unicode forms.
    RegexBuilder::new(src)
        .unicode(false)
        .size_limit(32 << 20)
        .build()
}

/// A rule's regex. A built-in pack's regexes are compiled when a scan
/// first runs them: most rules see no candidate line in a given input, and
/// compiling every one took most of a scan's start-up. They cannot fail
/// then: a test compiles every one (`every_builtin_regex_compiles`), and
/// their syntax and group names are read at load. Other packs' regexes are
/// compiled at load, so that a size limit is an error there, not later.
/// Clones share the compiled regex.
#[derive(Clone)]
pub struct PackRegex(Arc<Lazy>);

struct Lazy {
    src: Box<str>,
    /// Its named groups, in order.
    names: Box<[String]>,
    compiled: OnceLock<Regex>,
}

impl PackRegex {
    /// The regex of `src`; `eager`: compiled now.
    pub(crate) fn new(src: &str, eager: bool) -> Result<PackRegex, String> {
        let compiled = OnceLock::new();
        let names = if eager {
            let re = build_regex(src).map_err(|e| e.to_string())?;
            let names = re.capture_names().flatten().map(str::to_string).collect();
            let _ = compiled.set(re);
            names
        } else {
            group_names(src)?
        };
        Ok(PackRegex(Arc::new(Lazy {
            src: src.into(),
            names: names.into(),
            compiled,
        })))
    }

    /// The pattern as written (compiles nothing).
    pub fn as_str(&self) -> &str {
        &self.0.src
    }

    /// Its named groups, in order (compiles nothing).
    pub fn names(&self) -> &[String] {
        &self.0.names
    }

    /// Whether the regex has been compiled (tests).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.0.compiled.get().is_some()
    }
}

impl std::ops::Deref for PackRegex {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        self.0.compiled.get_or_init(|| {
            build_regex(&self.0.src)
                .expect("a built-in pack's regex compiles (every_builtin_regex_compiles)")
        })
    }
}

impl std::fmt::Debug for PackRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The named groups of `src`, in order, read from its syntax with the
/// flags of [`build_regex`] (a syntax error is the same error).
pub(crate) fn group_names(src: &str) -> Result<Vec<String>, String> {
    use regex_syntax::hir::{Hir, HirKind};
    fn walk(h: &Hir, out: &mut Vec<String>) {
        match h.kind() {
            HirKind::Capture(c) => {
                if let Some(n) = &c.name {
                    out.push(n.to_string());
                }
                walk(&c.sub, out);
            }
            HirKind::Repetition(r) => walk(&r.sub, out),
            HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().for_each(|h| walk(h, out)),
            HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(src)
        .map_err(|e| regex::Error::Syntax(e.to_string()).to_string())?;
    let mut out = Vec::new();
    walk(&hir, &mut out);
    Ok(out)
}

/// The literal prefixes of `src`'s matches, as regex-syntax extracts them.
pub(crate) fn prefix_literals(src: &str) -> Option<regex_syntax::hir::literal::Seq> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new().build().parse(src).ok()?;
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix);
    Some(ex.extract(&hir))
}
