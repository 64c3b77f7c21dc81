//! `expect = "chat_served"`: the endpoint the benchmark client used, as
//! the server's own access log counts it (uvicorn's `"POST
//! /v1/chat/completions HTTP/1.1" 200` lines, SGLang and vLLM alike). The
//! rule stays aggregated (one record per member and endpoint, with its
//! count): a log of thousands of requests costs two records. A server log
//! with chat requests passes. One whose requests all went to
//! `/v1/completions` is a raw client only where the artifact's client says
//! so: InferenceX's benchmark_serving with `--use-chat-template` renders
//! the template itself and still posts to `/v1/completions` (its
//! Namespace print says `endpoint='/v1/completions', use_chat_template=True`),
//! so the count alone is no FAIL: with a client that rendered the template
//! it passes, with a raw one it fails, with none it is unknown (a
//! `server_logs_` twin does not vote). vLLM's startup line "Detected the
//! chat template content format" says nothing of the client and is not
//! read.

use super::judge::Ctx;
use super::{Cited, Status, Verdict};
use crate::domain::Evidence;
use crate::location::Location;
use crate::scan::Record;
use std::collections::BTreeMap;

/// The rule of the client's command or print (`template`: chat | raw).
const CLIENT: &str = "bench.client";

/// Requests counted in one member.
#[derive(Default)]
struct Counts {
    chat: u64,
    raw: u64,
    /// The first raw request's citation, and the first chat one's.
    raw_cite: Option<String>,
    chat_cite: Option<String>,
}

impl Counts {
    fn add(&mut self, endpoint: Option<&str>, n: u64, cite: String) {
        let (count, first) = match endpoint {
            Some("chat") => (&mut self.chat, &mut self.chat_cite),
            Some("completions") => (&mut self.raw, &mut self.raw_cite),
            _ => return,
        };
        *count += n;
        first.get_or_insert(cite);
    }
}

fn cite(c: String) -> Cited {
    Cited {
        citation: c,
        server: None,
        rank: None,
    }
}

/// Judges the access-log lines of `rule` in the scope: its aggregates and,
/// under `--every-match`, its records (`matching`).
pub(super) fn judge_chat_served(
    v: &mut Verdict,
    cx: &Ctx,
    rule: &str,
    matching: &[&Evidence],
    applies: Option<&super::Applies>,
) {
    let mut members: BTreeMap<String, Counts> = BTreeMap::new();
    for r in matching {
        let endpoint = r
            .captures
            .as_ref()
            .and_then(|c| c.get("endpoint"))
            .and_then(|e| e.as_str());
        members
            .entry(Location::member_citation(
                &r.location.path,
                &r.location.members,
            ))
            .or_default()
            .add(endpoint, 1, r.citation.to_string());
    }
    for (_, scan) in &cx.scope.scans {
        for rec in &scan.records {
            let Record::Aggregate(g) = rec else { continue };
            if g.rule != rule {
                continue;
            }
            let endpoint = g.group.get("endpoint").and_then(|e| e.as_str());
            members
                .entry(Location::member_citation(&g.path, &g.members))
                .or_default()
                .add(endpoint, g.count, g.first.to_string());
        }
    }
    if members.values().all(|c| c.chat + c.raw == 0) {
        // The claim speaks of access logs; a log without request lines
        // (access logging off, a worker behind a router) holds none.
        v.status = Status::NotApplicable;
        v.reason = "no access-log line of a POST to /v1/chat/completions or /v1/completions here (the endpoint is judged from the client's command where there is one)".into();
        return;
    }
    let raw_only: Vec<(&String, &Counts)> = members
        .iter()
        .filter(|(_, c)| c.raw > 0 && c.chat == 0)
        .collect();
    if let Some((m, c)) = raw_only.first() {
        let counted = format!(
            "the server's access log counts {} POST /v1/completions and no /v1/chat/completions request in {m}{}",
            c.raw,
            if raw_only.len() > 1 {
                format!(" (and {} more log(s) alike)", raw_only.len() - 1)
            } else {
                String::new()
            }
        );
        v.evidence = raw_only
            .iter()
            .filter_map(|(_, c)| c.raw_cite.clone())
            .map(cite)
            .collect();
        // What the artifact's own client says it sent.
        let client = |t: &str| {
            cx.scope.records_of(CLIENT).find(|r| {
                r.captures
                    .as_ref()
                    .and_then(|c| c.get("template"))
                    .and_then(|x| x.as_str())
                    == Some(t)
            })
        };
        if let Some(r) = client("raw") {
            v.status = Status::Fail;
            v.evidence.push(cite(r.citation.to_string()));
            v.reason = format!(
                "{counted}, and the client's command or print ({}) sends raw completions: the chat template was bypassed",
                r.citation
            );
        } else if let Some(r) = client("chat") {
            v.status = Status::Pass;
            v.evidence.push(cite(r.citation.to_string()));
            v.reason = format!(
                "{counted}; the client ({}) renders the chat template itself before posting them",
                r.citation
            );
        } else {
            let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
            let twin = applies
                .and_then(|a| a.voteless_globs.as_ref())
                .and_then(|g| cx.scope.artifacts.iter().find(|n| g.is_match(base(n))));
            if let Some(n) = twin {
                v.status = Status::NotApplicable;
                v.reason = format!(
                    "does not vote: {counted}, and {} holds no client (a server-log twin); the run's artifact that holds the client answers",
                    base(n)
                );
            } else {
                v.status = Status::Unknown;
                v.reason = format!(
                    "{counted}: a raw client, or one that renders the chat template itself and posts to /v1/completions (benchmark_serving --use-chat-template); no client command or print here says which"
                );
            }
        }
        return;
    }
    let chat: u64 = members.values().map(|c| c.chat).sum();
    let raw: u64 = members.values().map(|c| c.raw).sum();
    v.status = Status::Pass;
    v.evidence = members
        .values()
        .filter_map(|c| c.chat_cite.clone())
        .take(super::judge::MAX_CITES)
        .map(cite)
        .collect();
    v.reason = format!(
        "the server's access log counts {chat} POST /v1/chat/completions request(s) (and {raw} to /v1/completions) in every log with requests"
    );
}
