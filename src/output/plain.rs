//! A verdict's reason in plain words for the verifier's rows: the rule
//! syntax a check's reason quotes (`config.model_override { value = ... }`,
//! "no matching X record") stays in JSON; the row keeps what a reviewer
//! reads (what was found, what is missing).

use super::records::Verdict;
use regex::Regex;
use std::sync::LazyLock;

/// ` (no X or Y evidence, no matching Z record)` and the like.
static PAREN_RULES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" \((?:no [^()]*(?:evidence|record)[^()]*)\)").expect("regex"));
/// `no matching <rule> record`.
static NO_MATCHING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"no matching [\w.]+ record").expect("regex"));
/// `holds no <rule> evidence of it`.
static NO_EVIDENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"holds no [\w.]+ evidence").expect("regex"));
/// `N part(s) could not be read completely: <path>`.
static UNREAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d+) part\(s\) could not be read completely: (\S+)").expect("regex")
});

/// A citation or a path of three folders or more (the row cites apart):
/// only its last part is kept. Image names (`org/name:tag`) stay whole.
static LONG_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[^\s()\[\]\x22',;]*(?:![^\s()\x22',;]+|(?:/[^\s/()\x22',;]+){3,})").expect("regex")
});

/// `s` with every balanced ` { ... }` group taken out.
fn strip_braces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    // `rule { ... } record` leaves `rule  record`.
    let mut squeezed = String::with_capacity(out.len());
    for c in out.chars() {
        if !(c == ' ' && squeezed.ends_with(' ')) {
            squeezed.push(c);
        }
    }
    squeezed
}

/// The last path component of a member path (citations are long).
fn base(path: &str) -> &str {
    let p = path.trim_end_matches([',', ';', '.']);
    p.rsplit(['/', '!']).next().unwrap_or(p)
}

/// The reason without rule syntax.
pub(crate) fn reason(v: &Verdict) -> String {
    let mut r = v.reason.clone();
    if let Some(rest) = r.strip_prefix("nothing this claim speaks about: ") {
        r = rest.to_string();
    }
    let unread = UNREAD.captures(&r).map(|c| {
        format!(
            "{} part(s) could not be read completely ({})",
            &c[1],
            base(&c[2])
        )
    });
    if let Some(m) = UNREAD.find(&r) {
        r.truncate(m.start());
        r = r
            .trim_end_matches([' ', ',', ';'])
            .trim_end_matches(", and")
            .to_string();
    }
    // "; every member was read completely, N source(s) examined: path".
    if let Some(i) = r.find(" source(s) examined") {
        let cut = r[..i].rfind(',').unwrap_or(i);
        r.truncate(cut);
    }
    let r = PAREN_RULES.replace_all(&r, "");
    let r = strip_braces(&r);
    let r = NO_MATCHING.replace_all(&r, "none found");
    let r = NO_EVIDENCE.replace_all(&r, "holds no evidence");
    let r = LONG_PATH.replace_all(&r, |c: &regex::Captures<'_>| base(&c[0]).to_string());
    let r = r.replace(" (expected )", "");
    let mut r = r.trim().trim_end_matches([',', ';']).to_string();
    if let Some(u) = unread {
        if !r.is_empty() {
            r.push_str("; ");
        }
        r.push_str(&u);
    }
    r
}

/// The claim in a few words: the description up to its first parenthesis
/// or colon (a description explains itself after them).
pub(crate) fn claim(v: &Verdict) -> String {
    let d = v.description.trim();
    let cut = [" (", ": ", "; "]
        .iter()
        .filter_map(|p| d.find(p))
        .filter(|&i| i >= 8)
        .min()
        .unwrap_or(d.len());
    d[..cut].trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Status;

    fn with(reason: &str) -> Verdict {
        let mut v = Verdict::new("c", "", "r", "s");
        v.status = Status::Unknown;
        v.reason = reason.into();
        v
    }

    #[test]
    fn rule_syntax_leaves_the_reason() {
        // Reasons as the checks write them (samples/verifier runs).
        let cases = [
            (
                "no matching config.model_override { value = { not_in = [\"null\", \"None\", \"~\"], regex = '''[^{}'\"\\s]''' } } record; every member was read completely",
                "none found; every member was read completely",
            ),
            (
                "nothing this claim speaks about: no set -x setup-script output here (no setup.command or setup.patch evidence, no matching setup.patch record)",
                "no set -x setup-script output here",
            ),
            (
                "nothing this claim speaks about: no eval results here (no eval.score or eval.n_samples evidence, no matching eval.score record), and 1 part(s) could not be read completely: runs/cut/x/multinode_server_logs.tar.gz!logs/config.yaml",
                "no eval results here; 1 part(s) could not be read completely (config.yaml)",
            ),
            (
                "the claim is about agentic benchmarks (an aiperf agentic scenario in the client command) only, and this scope holds no bench.client { scenario = { regex = \"agent\" } } evidence of it",
                "the claim is about agentic benchmarks (an aiperf agentic scenario in the client command) only, and this scope holds no evidence of it",
            ),
            (
                "no matching env.var { name = \"X\" } record; every member was read completely, 1 source(s) examined: runs/a/srt-setup.log",
                "none found; every member was read completely",
            ),
            (
                "1 matching record(s); value = \"1\"",
                "1 matching record(s); value = \"1\"",
            ),
            (
                "runs/fail/agentic_glm5.1_x/srt-setup.log:1 does not satisfy the condition: value -1 (expected )",
                "srt-setup.log:1 does not satisfy the condition: value -1",
            ),
            (
                "image differs: \"lmsysorg/sglang-rocm:v0.5.21\" at runs/x/eval_y/meta_env.json:3",
                "image differs: \"lmsysorg/sglang-rocm:v0.5.21\" at meta_env.json:3",
            ),
        ];
        for (given, want) in cases {
            assert_eq!(reason(&with(given)), want, "{given}");
        }
    }

    #[test]
    fn a_claim_is_its_description_up_to_the_explanation() {
        let mut v = with("");
        v.description = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is not enabled in any environment dump (unset, or set to 0/false)".into();
        assert_eq!(
            claim(&v),
            "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is not enabled in any environment dump"
        );
        v.description = "Dynamo TRT-LLM workers publish events and metrics: `publish_events_and_metrics: false` fails".into();
        assert_eq!(
            claim(&v),
            "Dynamo TRT-LLM workers publish events and metrics"
        );
    }
}
