//! Pattern packs: TOML files of rules (see `patterns/README.md`), loaded,
//! validated and compiled into one [`RuleSet`] whose literal prefilter picks
//! the few rules worth running on a line.

pub(crate) mod anchored;
pub(crate) mod compile;
pub(crate) mod dump;
pub(crate) mod kind;
pub(crate) mod onepass;
pub(crate) mod pattern;
pub(crate) mod prefilter;

pub(crate) use compile::{CapType, RuleSet};
pub(crate) use prefilter::{Hit, LiteralCursor, Literals};

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

use crate::embedded::BUILTIN_PACKS;

/// A pack file could not be used. Names the file, the rule and the line.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    #[error("{file}:{line}: rule {rule}: {message}")]
    Rule {
        file: String,
        line: usize,
        rule: String,
        message: String,
    },
    #[error("{file}: {message}")]
    Io { file: String, message: String },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackDef {
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, rename = "rule")]
    pub rules: Vec<RuleDef>,
}

/// Declares [`RuleDef`] and [`VariantDef`] with the variant fields written
/// once: a variant is `[[rule.variant]]`, and a rule with one way of
/// matching gives the same fields inline. A macro, not `#[serde(flatten)]`,
/// which serde cannot combine with `deny_unknown_fields` (a misspelt field
/// must stay an error); the fields keep their order in both structs (serde
/// lists them so in "expected one of").
macro_rules! rule_and_variant {
    (
        rule { $($head:tt)* }
        variant { $( $(#[$fm:meta])* pub $f:ident : $t:ty, )* }
        rule_after { $($tail:tt)* }
    ) => {
        #[derive(Debug, Deserialize, Clone)]
        #[serde(deny_unknown_fields)]
        pub struct RuleDef {
            $($head)*
            $( $(#[$fm])* pub $f: $t, )*
            $($tail)*
        }

        /// The fields of one way a rule matches (a variant).
        #[derive(Debug, Deserialize, Clone, Default, serde::Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct VariantDef {
            $( $(#[$fm])* pub $f: $t, )*
        }

        impl RuleDef {
            /// The variant fields the rule gives inline.
            fn inline(&self) -> VariantDef {
                VariantDef { $( $f: self.$f.clone(), )* }
            }
        }
    };
}

rule_and_variant! {
    rule {
        pub id: Spanned<String>,
        #[serde(default)]
        pub description: String,
        /// Where the formats come from: engine file(s), and the versions or
        /// years each variant covers. `packs lint` requires it.
        #[serde(default)]
        pub source: Option<String>,
        /// Lines matching any of these are not events of the rule (e.g. the
        /// source line a Python traceback quotes: `raise X(f"NCCL error")`).
        #[serde(default)]
        pub exclude: Vec<String>,
        #[serde(default)]
        pub tags: Vec<String>,
        /// Not run unless asked for: `--with` or `--only` names it, or a check
        /// needs it. For rules that read every line of the most frequent kind
        /// (SGLang's decode stats), which would slow every default scan.
        #[serde(default)]
        pub opt_in: bool,
        #[serde(default)]
        pub captures: BTreeMap<String, String>,
        #[serde(default)]
        pub aggregate: Vec<String>,
        #[serde(default, rename = "example")]
        pub examples: Vec<ExampleDef>,
        #[serde(default, rename = "variant")]
        pub variants: Vec<VariantDef>,
    }
    variant {
        #[serde(default)]
        pub members: Option<Vec<String>>,
        #[serde(default)]
        pub prefilter: Option<Vec<String>>,
        #[serde(default)]
        pub regex: Option<String>,
        #[serde(default)]
        pub each: Option<String>,
        #[serde(default)]
        pub set: Option<toml::Table>,
        #[serde(default)]
        pub kind: Option<String>,
        #[serde(default)]
        pub start: Option<String>,
        #[serde(default)]
        pub end: Option<String>,
        /// A capture group of `regex` holding a repr or dict dump
        /// (`Name(k=v, ...)`, `{'k': v}`, JSON): its fields become captures by
        /// name, whatever their order; the group itself is not kept.
        #[serde(default)]
        pub dump: Option<String>,
        /// The dump fields to keep (default: all). `None` values are left out.
        /// Json variants: one capture per `*` of `at`, in order (`""` for
        /// none); a name `a,b` splits the key at its first comma into captures
        /// `a` and `b` (lm-eval's `metric,filter`), and a key without a comma
        /// is then no record.
        #[serde(default)]
        pub keys: Option<Vec<String>>,
        /// Block variants: captures of `each` carried down the block, where a
        /// line leaves them empty (an lm-eval table row under its task's row).
        #[serde(default)]
        pub carry: Vec<String>,
        /// Json variants: where the records' objects are (a JSON Pointer with
        /// `*` for any key or index; default: the document).
        #[serde(default)]
        pub at: Option<String>,
        /// Json variants: the capture that holds the key (or index) the last
        /// `*` of `at` stood for.
        #[serde(default)]
        pub key: Option<String>,
        /// Json variants: capture name = path below each object (`$/...`: from
        /// the document's root).
        #[serde(default)]
        pub fields: Option<toml::Table>,
        /// Json variants: the field whose line cites the record (default: the
        /// line the object begins on).
        #[serde(default)]
        pub cite: Option<String>,
        /// Block variants with `end`: the block must close at `end`. One that
        /// closes at a line that is neither an entry, blank, a comment nor
        /// `end`, or is still open where the member ends, leaves the dump partly
        /// read: a coverage error, so no absence is claimed from it.
        #[serde(default)]
        pub complete: bool,
        /// Block variants: the block is a YAML mapping, delimited by
        /// indentation. A regex whose group `indent` is a line's indentation
        /// (after any prefix it also matches, such as a job-log timestamp). The
        /// block holds the lines indented deeper than its start line (and `- `
        /// items at the start line's own indentation); its entries are the lines
        /// at the first such line's indentation: one `each` cannot read is passed
        /// over, not an end, and deeper lines (a multi-line value) are passed
        /// over. It ends at the first line indented no deeper than its start.
        #[serde(default)]
        pub indent: Option<String>,
        /// Json variants: the member may be JSON Lines (one document a line).
        /// Without it, a member that is not one JSON document (cut, empty,
        /// several documents) is a coverage error.
        #[serde(default)]
        pub json_lines: bool,
    }
    rule_after {
        /// A later line that completes each record of the rule: the first line
        /// within [`THEN_LINES`] lines after a record that matches it adds the
        /// captures the record lacks (a traceback's exception line after its
        /// frames). The record still cites its own line.
        #[serde(default)]
        pub then: Option<String>,
    }
}

/// How many lines after a record its rule's `then` line is looked for.
pub(crate) const THEN_LINES: u32 = 400;

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct ExampleDef {
    #[serde(default)]
    pub line: Option<String>,
    #[serde(default)]
    pub lines: Option<Vec<String>>,
    #[serde(default)]
    pub captures: Option<toml::Table>,
    #[serde(default)]
    pub expect: Option<Vec<toml::Table>>,
    #[serde(default)]
    pub rank: Option<BTreeMap<String, u32>>,
    #[serde(default)]
    pub records: Option<usize>,
    #[serde(default = "yes")]
    pub matches: bool,
    /// Member name the example is read from (for rules restricted by `members`).
    #[serde(default)]
    pub member: Option<String>,
}

fn yes() -> bool {
    true
}

impl RuleDef {
    /// The variants, whether given inline or as `[[rule.variant]]`.
    pub fn variant_defs(&self) -> Vec<VariantDef> {
        let inline = self.inline();
        let has_inline = inline.regex.is_some() || inline.start.is_some() || inline.kind.is_some();
        let mut out = Vec::new();
        if has_inline {
            out.push(inline);
        }
        for v in &self.variants {
            let mut v = v.clone();
            // Rule-level members/set apply to variants that do not override them.
            if v.members.is_none() {
                v.members = self.members.clone();
            }
            if v.set.is_none() {
                v.set = self.set.clone();
            }
            out.push(v);
        }
        out
    }
}

/// A parsed pack and where it came from.
#[derive(Debug)]
pub struct LoadedPack {
    pub file: String,
    /// Built into the binary (its regexes are compiled on first use: see
    /// `pattern::PackRegex`).
    pub(crate) builtin: bool,
    pub source: String,
    /// Byte offsets of the source's newlines: a rule's line is looked up
    /// for every rule, not counted from the file's start each time.
    newlines: Vec<usize>,
    pub def: PackDef,
}

impl LoadedPack {
    /// 1-based line of a byte offset in the pack file.
    pub fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&n| n < offset) + 1
    }
}

pub fn parse_pack(file: &str, source: &str) -> Result<LoadedPack, PackError> {
    let def: PackDef = toml::from_str(source).map_err(|e| {
        let line = e
            .span()
            .map(|s| source[..s.start].matches('\n').count() + 1);
        PackError::Parse {
            file: file.to_string(),
            message: match line {
                Some(l) => format!("line {l}: {}", e.message()),
                None => e.message().to_string(),
            },
        }
    })?;
    Ok(LoadedPack {
        file: file.to_string(),
        builtin: false,
        source: source.to_string(),
        newlines: memchr::memchr_iter(b'\n', source.as_bytes()).collect(),
        def,
    })
}

/// The built-in packs, parsed.
pub fn builtin() -> Result<Vec<LoadedPack>, PackError> {
    BUILTIN_PACKS
        .iter()
        .map(|(file, src)| {
            let mut pack = parse_pack(&format!("patterns/{file}"), src)?;
            pack.builtin = true;
            Ok(pack)
        })
        .collect()
}

/// Packs from a file or every `*.toml` directly in a folder.
pub(crate) fn load_path(path: &Path) -> Result<Vec<LoadedPack>, PackError> {
    let io = |e: std::io::Error| PackError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    };
    let mut files = Vec::new();
    if path.is_dir() {
        for e in std::fs::read_dir(path).map_err(io)? {
            let p = e.map_err(io)?.path();
            if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
        files.sort();
    } else {
        files.push(path.to_path_buf());
    }
    files
        .iter()
        .map(|f| {
            let src = std::fs::read_to_string(f).map_err(io)?;
            parse_pack(&f.display().to_string(), &src)
        })
        .collect()
}

/// Whether [`load_rules`] starts from the built-in packs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Included,
    /// Only the packs named (`packs test FILE`).
    Left,
}

/// Built-in packs plus `--pack` files or folders, compiled with a selection.
pub fn load_rules(
    extra: &[std::path::PathBuf],
    selection: &compile::Selection,
    builtin_packs: Builtin,
) -> anyhow::Result<compile::RuleSet> {
    let mut packs = match builtin_packs {
        Builtin::Included => builtin()?,
        Builtin::Left => Vec::new(),
    };
    for p in extra {
        packs.extend(load_path(p)?);
    }
    Ok(compile::RuleSet::compile(&packs, selection)?)
}

#[cfg(test)]
mod tests {
    /// A rule's line: 1 + the newlines before its offset, at every offset.
    #[test]
    fn line_of_counts_the_newlines_before() {
        let src = "name = \"p\"\nversion = \"1\"\n\ndescription = \"x\"\n";
        let pack = super::parse_pack("p.toml", src).expect("parses");
        for at in 0..=src.len() + 3 {
            let want = src[..at.min(src.len())].matches('\n').count() + 1;
            assert_eq!(pack.line_of(at), want, "offset {at}");
        }
    }

    /// Every field a variant has is accepted inline in a rule and reaches
    /// the variant made from it: the two structs cannot drift apart.
    #[test]
    fn inline_rule_fields_are_the_variant_fields() {
        let fields = serde_json::to_value(super::VariantDef::default()).unwrap();
        let names: Vec<&String> = fields.as_object().unwrap().keys().collect();
        assert!(names.len() >= 14, "{names:?}");
        for name in names {
            // A value of the field's own type: the first that a variant takes.
            let value = ["\"x\"", "[\"x\"]", "{ a = \"x\" }", "true"]
                .into_iter()
                .find(|v| toml::from_str::<super::VariantDef>(&format!("{name} = {v}")).is_ok())
                .unwrap_or_else(|| panic!("no sample value for {name}"));
            let src = format!(
                "name = \"p\"\nversion = \"1\"\n[[rule]]\nid = \"r\"\nkind = \"x\"\n{name} = {value}\n"
            );
            let src = if name == "kind" {
                src.replacen("kind = \"x\"\n", "", 1)
            } else {
                src
            };
            let pack = super::parse_pack("t.toml", &src)
                .unwrap_or_else(|e| panic!("{name} is not accepted inline: {e}"));
            let v = &pack.def.rules[0].variant_defs()[0];
            let got = serde_json::to_value(v).unwrap();
            let want = serde_json::to_value(
                toml::from_str::<super::VariantDef>(&format!("{name} = {value}")).unwrap(),
            )
            .unwrap();
            assert_eq!(
                got[name.as_str()],
                want[name.as_str()],
                "{name} is not copied inline"
            );
        }
    }

    /// docs/packs.md's table of built-in packs names every built-in rule (by
    /// its id, or by the part after the pack name in the pack's row).
    #[test]
    fn readme_lists_every_builtin_rule() {
        let readme = include_str!("../../docs/packs.md");
        let start = readme.find("| pack | rules |").expect("pack table");
        let table: Vec<&str> = readme[start..]
            .lines()
            .take_while(|l| l.starts_with('|'))
            .collect();
        let words = |row: &str| -> Vec<String> {
            row.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        };
        for pack in super::builtin().unwrap() {
            for rule in &pack.def.rules {
                let id: &str = rule.id.get_ref();
                let short = id.split_once('.').map_or(id, |(_, s)| s);
                let listed = table.iter().any(|row| {
                    let w = words(row);
                    w.iter().any(|x| x == id)
                        || (w.first() == Some(&pack.def.name) && w.iter().any(|x| x == short))
                });
                assert!(listed, "docs/packs.md pack table does not list {id}");
            }
        }
    }
}
