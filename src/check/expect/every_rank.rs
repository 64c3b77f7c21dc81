//! `expect = "every_rank"`: every rank of every server logged a matching
//! line, each server against its own rank count (its launch's `tp`, `dp`,
//! `pp` and `ep`, or a parameter), and only the last launch of a server
//! log that holds several (a retry).

use crate::check::cond::{self, Params};
use crate::check::judge::Ctx;
use crate::check::scope::server_of;
use crate::check::{Check, Ranks, ServerRanks, Status, Verdict};
use crate::domain::Evidence;
use crate::location::Location;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Largest rank count believed (a bigger one is a typo or hostile input).
const MAX_RANKS: u64 = 4096;

impl Check {
    /// Every rank of every server logged a matching line; each server
    /// against its own rank count. A rank is the whole tuple the engine
    /// names (SGLang's `DP1 TP3`, `PP1 TP0`) where a server runs replicas,
    /// so that one replica's TP0-TP3 never stands in for another's. Where a
    /// server log holds several launches (a retry), only the last is judged.
    pub(in crate::check) fn judge_every_rank(&self, v: &mut Verdict, cx: &Ctx, m: &[&Evidence]) {
        if self.conditions_fail(v, cx, m) {
            return;
        }
        let launches = Launches::of(cx);
        // Servers the claim speaks about: those with a matching record, and
        // those holding the evidence that makes the claim apply.
        let subjects = if self.servers.is_empty() {
            self.applies
                .as_ref()
                .map_or(&[][..], |a| a.evidence.as_slice())
        } else {
            self.servers.as_slice()
        };
        let mut servers: BTreeMap<String, (String, Vec<&Evidence>)> = BTreeMap::new();
        for r in m {
            let (key, short) = server_of(r);
            let e = servers.entry(key).or_insert_with(|| (short, Vec::new()));
            if launches.current(r) {
                e.1.push(r);
            }
        }
        for r in cx.scope.records() {
            if subjects.iter().any(|s| s.matches(r, &cx.params)) {
                let (key, short) = server_of(r);
                servers.entry(key).or_insert_with(|| (short, Vec::new()));
            }
        }
        if servers.is_empty() {
            return self.nothing_found(v, cx);
        }
        let shorts: Vec<&String> = servers.values().map(|(s, _)| s).collect();
        let name = |key: &str, short: &String| {
            if shorts.iter().filter(|s| *s == &short).count() > 1 {
                key.to_string()
            } else {
                short.clone()
            }
        };
        let key = self.rank_key.to_uppercase();
        let sources = self.rank_sources(cx, &launches);
        let mut missing_map = Map::new();
        for (k, (short, recs)) in &servers {
            let shown = name(k, short);
            let expected = self.expected_ranks(k, &sources, &cx.params);
            let dims = expected.as_ref().map_or(Dims::default(), |(d, _)| *d);
            let seen: BTreeSet<Rk> = recs
                .iter()
                .filter_map(|r| dims.of(&self.rank_key, r.rank.as_ref()?))
                .collect();
            let seen_v = rank_values(&key, &seen);
            let launch_note = launches.note(k);
            let mut entry = match expected {
                Err(why) => ServerRanks {
                    server: shown.clone(),
                    expected: None,
                    seen: seen_v,
                    missing: vec![],
                    status: Status::Unknown,
                    reason: format!("{shown}: rank count unknown: {why}"),
                },
                Ok((_, exp)) => {
                    let missing: BTreeSet<Rk> = exp.difference(&seen).copied().collect();
                    let status = if missing.is_empty() {
                        Status::Pass
                    } else if cx.complete() {
                        Status::Fail
                    } else {
                        Status::Unknown
                    };
                    let reason = if missing.is_empty() {
                        format!("{shown}: every rank ({})", rk_ranges(&key, &seen))
                    } else {
                        missing_map.insert(shown.clone(), Value::from(rank_values(&key, &missing)));
                        let logged = if seen.is_empty() {
                            "no rank".to_string()
                        } else {
                            rk_ranges(&key, &seen)
                        };
                        format!(
                            "{shown}: {logged} logged it; {} never logged a matching {} line (expected {})",
                            rk_ranges(&key, &missing),
                            self.rule,
                            rk_ranges(&key, &exp)
                        )
                    };
                    ServerRanks {
                        server: shown.clone(),
                        expected: Some(rank_values(&key, &exp)),
                        seen: seen_v,
                        missing: rank_values(&key, &missing),
                        status,
                        reason,
                    }
                }
            };
            if let Some(note) = launch_note {
                entry.reason.push_str(&format!(" ({note})"));
            }
            v.servers.push(entry);
        }
        if !missing_map.is_empty() {
            v.missing.insert("ranks".into(), Value::Object(missing_map));
        }
        let of = |st: Status| -> Vec<String> {
            v.servers
                .iter()
                .filter(|s| s.status == st)
                .map(|s| s.reason.clone())
                .collect()
        };
        let (fails, unknowns, passes) = (of(Status::Fail), of(Status::Unknown), of(Status::Pass));
        if !fails.is_empty() {
            v.status = Status::Fail;
            v.reason = fails.join("; ");
        } else if !unknowns.is_empty() {
            let what = unknowns.join("; ");
            if v.servers.iter().any(|s| !s.missing.is_empty()) {
                cx.unread(v, what);
            } else {
                v.status = Status::Unknown;
                v.reason = what;
            }
        } else {
            v.status = Status::Pass;
            v.reason = format!(
                "{} on every rank of every server: {}{}",
                self.rule,
                passes.join("; "),
                self.skipped_note(cx, m)
            );
        }
    }

    /// The records that give servers their expected ranks, by server key
    /// (those of the last launch in their member).
    fn rank_sources<'a>(
        &self,
        cx: &Ctx<'_, 'a>,
        launches: &Launches,
    ) -> BTreeMap<String, Vec<&'a Evidence>> {
        let rule = match &self.ranks {
            Some(Ranks::Seen(r)) | Some(Ranks::Capture { rule: r, .. }) => r.as_str(),
            // A fixed count is per replica: the launch line's sizes say
            // how many replicas (DP) and stages (PP) hold that many ranks.
            Some(Ranks::Count(_)) => LAUNCH_RULE,
            None => return BTreeMap::new(),
        };
        let mut out: BTreeMap<String, Vec<&Evidence>> = BTreeMap::new();
        for r in cx.scope.records_of(rule).filter(|r| launches.current(r)) {
            out.entry(server_of(r).0).or_default().push(r);
        }
        out
    }

    /// The ranks a server should log, and the replica dimensions (DP, PP)
    /// they are told apart by.
    fn expected_ranks(
        &self,
        server: &str,
        sources: &BTreeMap<String, Vec<&Evidence>>,
        params: &Params,
    ) -> Result<(Dims, BTreeSet<Rk>), String> {
        let upto = |n: u64| -> Result<(Dims, BTreeSet<Rk>), String> {
            if n > MAX_RANKS {
                return Err(format!("{n} ranks is more than {MAX_RANKS}"));
            }
            Ok((Dims::default(), (0..n as u32).map(Rk::plain).collect()))
        };
        let recs = sources.get(server).map_or(&[][..], |v| v.as_slice());
        // The last launch line of the server, where it printed one.
        let launch = recs.last().copied();
        match &self.ranks {
            Some(Ranks::Count(toml::Value::Integer(n))) => match launch {
                Some(src) => self.replicas(LAUNCH_RULE, (*n).max(0) as u64, src),
                None => upto((*n).max(0) as u64),
            },
            Some(Ranks::Count(toml::Value::String(s))) => match params.resolve_str(s) {
                Some(v) => match cond::num(&v) {
                    Some(f) if f >= 0.0 && f.fract() == 0.0 => match launch {
                        Some(src) => self.replicas(LAUNCH_RULE, f as u64, src),
                        None => upto(f as u64),
                    },
                    _ => Err(format!("ranks {s} = {v} is not a whole number")),
                },
                None => Err(format!("ranks {s}: parameter not given")),
            },
            Some(Ranks::Seen(rule)) => {
                // Replicas as the source records name them.
                let tagged = |d: &str| {
                    self.rank_key != d
                        && recs
                            .iter()
                            .any(|r| r.rank.as_ref().is_some_and(|x| x.contains_key(d)))
                };
                let dims = Dims {
                    dp: tagged("dp"),
                    pp: tagged("pp"),
                };
                let set: BTreeSet<Rk> = recs
                    .iter()
                    .filter_map(|r| dims.of(&self.rank_key, r.rank.as_ref()?))
                    .collect();
                if set.is_empty() {
                    Err(format!(
                        "no {rule} record with a {} rank in this server's log",
                        self.rank_key
                    ))
                } else {
                    Ok((dims, set))
                }
            }
            Some(Ranks::Capture { rule, capture }) => {
                let whole = |r: &Evidence, c: &str| -> Option<u64> {
                    let f = cond::num(r.captures.as_ref()?.get(c)?)?;
                    (f >= 0.0 && f.fract() == 0.0).then_some(f as u64)
                };
                let Some((n, src)) = recs
                    .iter()
                    .filter_map(|r| Some((whole(r, capture)?, *r)))
                    .max_by_key(|(n, _)| *n)
                else {
                    return Err(format!("no {rule} {capture} in this server's log"));
                };
                self.replicas(rule, n, src)
            }
            _ => Err("no rank source".into()),
        }
    }

    /// `n` ranks in each replica the launch record `src` names: dp_size
    /// replicas (without DP attention) and pp_size stages.
    fn replicas(&self, rule: &str, n: u64, src: &Evidence) -> Result<(Dims, BTreeSet<Rk>), String> {
        let whole = |r: &Evidence, c: &str| -> Option<u64> {
            let f = cond::num(r.captures.as_ref()?.get(c)?)?;
            (f >= 0.0 && f.fract() == 0.0).then_some(f as u64)
        };
        // dp_size replicas (without DP attention, where DP ranks are
        // the attention groups of one TP group) and pp_size stages
        // each hold their own `capture` ranks.
        let dp = whole(src, "dp_size").unwrap_or(1);
        let pp = whole(src, "pp_size").unwrap_or(1);
        let dp_attention = src
            .captures
            .as_ref()
            .and_then(|c| c.get("enable_dp_attention"))
            .and_then(Value::as_bool);
        let dims = Dims {
            dp: dp > 1 && self.rank_key != "dp" && dp_attention != Some(true),
            pp: pp > 1 && self.rank_key != "pp",
        };
        if dims.dp && dp_attention.is_none() {
            return Err(format!(
                "{rule} gives dp_size = {dp} but not enable_dp_attention: whether DP ranks are replicas is unknown"
            ));
        }
        let (dps, pps) = (if dims.dp { dp } else { 1 }, if dims.pp { pp } else { 1 });
        let total = n.saturating_mul(dps).saturating_mul(pps);
        if total > MAX_RANKS {
            return Err(format!("{total} ranks is more than {MAX_RANKS}"));
        }
        let mut set = BTreeSet::new();
        for d in 0..dps as u32 {
            for p in 0..pps as u32 {
                for r in 0..n as u32 {
                    set.insert(Rk {
                        dp: dims.dp.then_some(d),
                        pp: dims.pp.then_some(p),
                        r,
                    });
                }
            }
        }
        Ok((dims, set))
    }
}

/// The rule whose line starts a server process. A multi-node server's
/// merged log prints it once per node (`node_rank=0`, `node_rank=1`, one
/// launch); a node printing it again is a relaunch.
pub(in crate::check) const LAUNCH_RULE: &str = "sglang.server_args";

/// Where the last launch of each member that logged one starts, how many
/// launches it holds, and its server.
struct Launches {
    last: BTreeMap<String, (u64, usize, String)>,
}

impl Launches {
    fn member(r: &Evidence) -> String {
        Location::member_citation(&r.location.path, &r.location.members)
    }

    fn of(cx: &Ctx) -> Launches {
        let mut by_member: BTreeMap<String, Vec<&Evidence>> = BTreeMap::new();
        for r in cx.scope.records_of(LAUNCH_RULE) {
            by_member.entry(Self::member(r)).or_default().push(r);
        }
        let mut last = BTreeMap::new();
        for (m, mut recs) in by_member {
            recs.sort_by_key(|r| r.location.line);
            let (mut start, mut n) = (recs[0].location.line, 1);
            let mut nodes: BTreeSet<Option<i64>> = BTreeSet::new();
            for r in &recs {
                let node = r
                    .captures
                    .as_ref()
                    .and_then(|c| c.get("node_rank"))
                    .and_then(Value::as_i64);
                if !nodes.insert(node) {
                    start = r.location.line;
                    n += 1;
                    nodes = [node].into_iter().collect();
                }
            }
            last.insert(m, (start, n, server_of(recs[0]).0));
        }
        Launches { last }
    }

    /// Logged by the last launch of its member (or where no launch line was
    /// read).
    fn current(&self, r: &Evidence) -> bool {
        self.last
            .get(&Self::member(r))
            .is_none_or(|(line, _, _)| r.location.line >= *line)
    }

    /// The earlier launches set aside in this server's members.
    fn note(&self, server: &str) -> Option<String> {
        let notes: Vec<String> = self
            .last
            .iter()
            .filter(|(_, (_, n, s))| *n > 1 && s == server)
            .map(|(m, (line, n, _))| {
                format!(
                    "{m} holds {n} launches (a node logged {LAUNCH_RULE} again); an earlier launch was ignored, only lines from {line} on are judged"
                )
            })
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// A rank: the replica (DP, PP) where the server's ranks are told apart by
/// it, and the rank itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rk {
    dp: Option<u32>,
    pp: Option<u32>,
    r: u32,
}

impl Rk {
    fn plain(r: u32) -> Rk {
        Rk {
            dp: None,
            pp: None,
            r,
        }
    }

    fn prefix(&self) -> String {
        let mut s = String::new();
        if let Some(d) = self.dp {
            s.push_str(&format!("DP{d} "));
        }
        if let Some(p) = self.pp {
            s.push_str(&format!("PP{p} "));
        }
        s
    }
}

/// The replica dimensions a server's ranks are keyed by.
#[derive(Debug, Clone, Copy, Default)]
struct Dims {
    dp: bool,
    pp: bool,
}

impl Dims {
    /// A record's rank under these dimensions (an absent tag stays absent,
    /// so that it matches no expected replica).
    fn of(&self, key: &str, rank: &crate::scan::rank::Rank) -> Option<Rk> {
        Some(Rk {
            dp: if self.dp {
                rank.get("dp").copied()
            } else {
                None
            },
            pp: if self.pp {
                rank.get("pp").copied()
            } else {
                None
            },
            r: *rank.get(key)?,
        })
    }
}

/// Ranks for JSON: a number where a rank is one number, `DP1 TP3` where
/// the replica names it too.
fn rank_values(key: &str, set: &BTreeSet<Rk>) -> Vec<Value> {
    set.iter()
        .map(|k| {
            if k.dp.is_none() && k.pp.is_none() {
                Value::from(k.r)
            } else {
                Value::from(format!("{}{key}{}", k.prefix(), k.r))
            }
        })
        .collect()
}

/// `DP0 TP0-TP3, DP1 TP0-TP1` style listing (`TP0-TP6, TP8` without replicas).
fn rk_ranges(key: &str, set: &BTreeSet<Rk>) -> String {
    // (DP, PP) replica, and its ranks.
    type Replica = (Option<u32>, Option<u32>);
    let mut groups: Vec<(Replica, BTreeSet<u32>)> = Vec::new();
    for k in set {
        match groups.last_mut() {
            Some((g, rs)) if *g == (k.dp, k.pp) => {
                rs.insert(k.r);
            }
            _ => groups.push(((k.dp, k.pp), [k.r].into_iter().collect())),
        }
    }
    groups
        .iter()
        .map(|((dp, pp), rs)| {
            let head = Rk {
                dp: *dp,
                pp: *pp,
                r: 0,
            }
            .prefix();
            let list = ranges(key, rs);
            if head.is_empty() {
                list
            } else {
                // `DP1 TP0-TP3`; `DP1 (TP0, TP2)` where the list has parts.
                if list.contains(", ") {
                    format!("{}({list})", head)
                } else {
                    format!("{head}{list}")
                }
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `TP0-TP6, TP8` style listing.
fn ranges(key: &str, set: &BTreeSet<u32>) -> String {
    let mut out = Vec::new();
    let v: Vec<u32> = set.iter().copied().collect();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            format!("{key}{}", v[i])
        } else {
            format!("{key}{}-{key}{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_ranges() {
        let s: BTreeSet<u32> = [0, 1, 2, 4, 6, 7].into_iter().collect();
        assert_eq!(ranges("TP", &s), "TP0-TP2, TP4, TP6-TP7");
    }
}
