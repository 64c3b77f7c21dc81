//! Shards of an audit: which slice of the artifacts one machine audits.
//!
//! - `--shard I/N` (1-based, as GitHub Actions matrices and `seq 1 N` count)
//!   or `--shard auto`, read from the scheduler's environment (Slurm job
//!   arrays, Kubernetes Indexed Jobs, Google Cloud Batch and Cloud Run jobs;
//!   all 0-based there, turned into 1-based here).
//! - `--shard-by path` (an artifact's own path) or `run` (its run: all
//!   artifacts of one run in one shard, so run verdicts are whole per shard).
//!   Either way the slice is `SHA-256(key) mod N`: the same on every machine,
//!   and an artifact or run keeps its shard when others are added.
//! - Keys are computed on the path without a storage URL's `scheme://bucket/`,
//!   so `audit plan` on `gs://b/2026-10-29/wf/123/x.zip` and `audit` on the
//!   downloaded `2026-10-29/wf/123/x.zip` agree.

use sha2::{Digest, Sha256};
use std::fmt;

/// What a shard's slice is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ShardBy {
    /// The artifact's path (without `scheme://bucket/`).
    #[default]
    Path,
    /// The artifact's run: the nearest folder named by a number (`123`,
    /// `run_123`, `run-123`), else the folder holding the artifact.
    Run,
}

impl ShardBy {
    pub fn name(self) -> &'static str {
        match self {
            ShardBy::Path => "path",
            ShardBy::Run => "run",
        }
    }

    pub fn from_name(s: &str) -> Option<ShardBy> {
        match s {
            "path" => Some(ShardBy::Path),
            "run" => Some(ShardBy::Run),
            _ => None,
        }
    }
}

/// Slice `index` (1-based) of `count`, by `by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    pub index: u64,
    pub count: u64,
    pub by: ShardBy,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ShardError {
    #[error("--shard {0:?}: expected I/N with 1 <= I <= N (e.g. 3/16), or auto")]
    Syntax(String),
    #[error(
        "--shard auto: no scheduler index in the environment (looked for SLURM_ARRAY_TASK_ID, \
         JOB_COMPLETION_INDEX, BATCH_TASK_INDEX, CLOUD_RUN_TASK_INDEX); give --shard I/N"
    )]
    NoScheduler,
    #[error("--shard auto: both {0} and {1} are set; give --shard I/N")]
    Ambiguous(&'static str, &'static str),
    #[error("--shard auto: {0}")]
    Env(String),
}

/// Shard counts past this are refused (a typo, not a plan).
const MAX_COUNT: u64 = 1 << 20;

impl Shard {
    /// `I/N`, 1-based.
    pub(crate) fn parse(s: &str, by: ShardBy) -> Result<Shard, ShardError> {
        let err = || ShardError::Syntax(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let (index, count): (u64, u64) = (
            i.trim().parse().map_err(|_| err())?,
            n.trim().parse().map_err(|_| err())?,
        );
        if count == 0 || index == 0 || index > count || count > MAX_COUNT {
            return Err(err());
        }
        Ok(Shard { index, count, by })
    }

    /// The shard a scheduler gave this task, from its environment (`env`
    /// looks a variable up), with a sentence saying where it came from.
    /// `count` is `--shard-count` (Kubernetes does not export the number of
    /// completions); it overrides nothing a scheduler states.
    pub(crate) fn from_env(
        env: &dyn Fn(&str) -> Option<String>,
        count: Option<u64>,
        by: ShardBy,
    ) -> Result<(Shard, String), ShardError> {
        let present: Vec<&'static str> = [
            "SLURM_ARRAY_TASK_ID",
            "JOB_COMPLETION_INDEX",
            "BATCH_TASK_INDEX",
            "CLOUD_RUN_TASK_INDEX",
        ]
        .into_iter()
        .filter(|v| env(v).is_some_and(|s| !s.trim().is_empty()))
        .collect();
        if present.len() > 1 {
            return Err(ShardError::Ambiguous(present[0], present[1]));
        }
        let num = |name: &str| -> Result<Option<u64>, ShardError> {
            env(name)
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    s.trim().parse::<u64>().map_err(|_| {
                        ShardError::Env(format!("{name}={s:?} is not a non-negative integer"))
                    })
                })
                .transpose()
        };
        let need = |name: &str| -> Result<u64, ShardError> {
            num(name)?.ok_or_else(|| ShardError::Env(format!("{name} is not set")))
        };
        let count_from = |name: &str| -> Result<(u64, String), ShardError> {
            match (num(name)?, count) {
                (Some(n), _) => Ok((n, format!("{name}={n}"))),
                (None, Some(n)) => Ok((n, format!("--shard-count {n}"))),
                (None, None) => Err(ShardError::Env(format!(
                    "{name} is not set; give --shard-count N"
                ))),
            }
        };
        let (index0, n, said) = match present.first().copied() {
            None => return Err(ShardError::NoScheduler),
            Some("SLURM_ARRAY_TASK_ID") => {
                // Array ids are whatever `--array` said (1-16, 0-15, 0-30:2):
                // the slice is the task's position in the array.
                let id = need("SLURM_ARRAY_TASK_ID")?;
                let min = need("SLURM_ARRAY_TASK_MIN")?;
                let max = need("SLURM_ARRAY_TASK_MAX")?;
                let step = num("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
                if id < min || id > max || (id - min) % step != 0 {
                    return Err(ShardError::Env(format!(
                        "SLURM_ARRAY_TASK_ID={id} is not in the array {min}-{max}:{step}"
                    )));
                }
                let n = (max - min) / step + 1;
                if let Some(c) = num("SLURM_ARRAY_TASK_COUNT")? {
                    if c != n {
                        // `--array=1,4,9`: positions cannot be computed from min/max.
                        return Err(ShardError::Env(format!(
                            "SLURM_ARRAY_TASK_COUNT={c} but the array {min}-{max}:{step} has {n} tasks \
                             (a list of ids?); use --array=A-B or --shard I/N"
                        )));
                    }
                }
                (
                    (id - min) / step,
                    n,
                    format!("Slurm job array (SLURM_ARRAY_TASK_ID={id} of {min}-{max}:{step})"),
                )
            }
            Some("JOB_COMPLETION_INDEX") => {
                let i = need("JOB_COMPLETION_INDEX")?;
                let (n, from) = count_from("ARTISCAN_SHARD_COUNT")?;
                (
                    i,
                    n,
                    format!("Kubernetes Indexed Job (JOB_COMPLETION_INDEX={i}, {from})"),
                )
            }
            Some("BATCH_TASK_INDEX") => {
                let i = need("BATCH_TASK_INDEX")?;
                let (n, from) = count_from("BATCH_TASK_COUNT")?;
                (
                    i,
                    n,
                    format!("Google Cloud Batch (BATCH_TASK_INDEX={i}, {from})"),
                )
            }
            Some(_) => {
                let i = need("CLOUD_RUN_TASK_INDEX")?;
                let (n, from) = count_from("CLOUD_RUN_TASK_COUNT")?;
                (
                    i,
                    n,
                    format!("Cloud Run job (CLOUD_RUN_TASK_INDEX={i}, {from})"),
                )
            }
        };
        if n == 0 || n > MAX_COUNT || index0 >= n {
            return Err(ShardError::Env(format!(
                "index {index0} (0-based) is not below the count {n}"
            )));
        }
        let shard = Shard {
            index: index0 + 1,
            count: n,
            by,
        };
        Ok((shard, format!("shard {shard} from {said}")))
    }

    /// `--shard` as given: `auto` or `I/N`.
    pub(crate) fn resolve(
        arg: &str,
        count: Option<u64>,
        by: ShardBy,
    ) -> Result<(Shard, Option<String>), ShardError> {
        if arg.trim() == "auto" {
            let (s, said) = Shard::from_env(&|v| std::env::var(v).ok(), count, by)?;
            Ok((s, Some(said)))
        } else {
            Ok((Shard::parse(arg, by)?, None))
        }
    }

    /// Whether the artifact at `path` (a store key or a listing entry) is in
    /// this slice.
    pub(crate) fn contains(&self, path: &str) -> bool {
        slot(&shard_key(path, self.by), self.count) == self.index - 1
    }

    /// As stored in the shard's `meta` (`shard`), for `merge` to check rows.
    pub(crate) fn to_meta(self) -> String {
        format!("{}/{} {}", self.index, self.count, self.by.name())
    }

    pub(crate) fn from_meta(s: &str) -> Option<Shard> {
        let (slice, by) = s.split_once(' ')?;
        Shard::parse(slice, ShardBy::from_name(by)?).ok()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)?;
        if self.by == ShardBy::Run {
            write!(f, " by run")?;
        }
        Ok(())
    }
}

fn slot(key: &str, count: u64) -> u64 {
    let h = Sha256::digest(key.as_bytes());
    u64::from_be_bytes(h[..8].try_into().expect("8 bytes")) % count
}

/// `gs://bucket/a/b.zip` → `a/b.zip`; local paths without `./` steps and
/// doubled slashes.
pub(crate) fn object_path(entry: &str) -> String {
    let rest = match entry.split_once("://") {
        Some((scheme, rest))
            if !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            rest.split_once('/').map_or("", |(_bucket, p)| p)
        }
        _ => entry,
    };
    super::normalize(rest)
}

/// The key an artifact's slice is computed from.
pub(crate) fn shard_key(path: &str, by: ShardBy) -> String {
    let path = object_path(path);
    match by {
        ShardBy::Path => path,
        ShardBy::Run => run_key(&path),
    }
}

/// The run of an artifact path, as `check` groups runs: the folder holding
/// its innermost artifact-named component (`dir:runs/x`), or the id of the
/// nearest folder named by a number (`run:123`). The run id alone makes
/// `backup/123/a.zip` and `runs/123/b.zip` one run, and a file deep in an
/// extracted artifact falls in its run's shard, not its own folder's.
pub(crate) fn run_key(path: &str) -> String {
    crate::check::run_id::run_of_path(path).key()
}

/// Entries of a listing (`gcloud storage ls`, `aws s3 ls`-style names, the
/// GitHub artifacts API, `find`): one per line; blank lines, `#` comments
/// and folder lines (ending in `/` or `/:`) are left out.
pub(crate) fn listing_entries(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(listing_entry)
}

/// One line of a listing (without its `\n`) as an entry, if it is one.
pub(crate) fn listing_entry(line: &str) -> Option<&str> {
    let l = line.strip_suffix('\r').unwrap_or(line);
    let t = l.trim();
    (!(t.is_empty() || t.starts_with('#') || t.ends_with('/') || t.ends_with("/:"))).then_some(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    fn auto(vars: &[(&str, &str)], count: Option<u64>) -> Result<Shard, ShardError> {
        Shard::from_env(&env(vars), count, ShardBy::Path).map(|(s, _)| s)
    }

    #[test]
    fn parse_one_based() {
        assert_eq!(Shard::parse("3/16", ShardBy::Path).unwrap().index, 3);
        for bad in ["0/4", "5/4", "x", "1/0", "1/99999999999"] {
            assert!(Shard::parse(bad, ShardBy::Path).is_err(), "{bad}");
        }
    }

    #[test]
    fn slurm_arrays_one_or_zero_based_and_stepped() {
        let s = |id: &str, min: &str, max: &str| {
            auto(
                &[
                    ("SLURM_ARRAY_TASK_ID", id),
                    ("SLURM_ARRAY_TASK_MIN", min),
                    ("SLURM_ARRAY_TASK_MAX", max),
                ],
                None,
            )
        };
        assert_eq!(s("1", "1", "16").unwrap().to_meta(), "1/16 path");
        assert_eq!(s("16", "1", "16").unwrap().to_meta(), "16/16 path");
        assert_eq!(s("0", "0", "15").unwrap().to_meta(), "1/16 path");
        assert_eq!(s("15", "0", "15").unwrap().to_meta(), "16/16 path");
        assert!(s("17", "1", "16").is_err());
        let stepped = auto(
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_MAX", "6"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            None,
        );
        assert_eq!(stepped.unwrap().to_meta(), "3/4 path");
        // `--array=1,4,9`: COUNT disagrees with min..max.
        let list = auto(
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "9"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
            None,
        );
        assert!(matches!(list, Err(ShardError::Env(_))));
    }

    #[test]
    fn kubernetes_batch_cloud_run() {
        let k = [("JOB_COMPLETION_INDEX", "0")];
        assert!(auto(&k, None).is_err(), "count needed");
        assert_eq!(auto(&k, Some(7)).unwrap().to_meta(), "1/7 path");
        let k = [("JOB_COMPLETION_INDEX", "6"), ("ARTISCAN_SHARD_COUNT", "7")];
        assert_eq!(auto(&k, None).unwrap().to_meta(), "7/7 path");
        assert!(auto(&[("JOB_COMPLETION_INDEX", "7")], Some(7)).is_err());
        let b = [("BATCH_TASK_INDEX", "2"), ("BATCH_TASK_COUNT", "3")];
        assert_eq!(auto(&b, None).unwrap().to_meta(), "3/3 path");
        let r = [("CLOUD_RUN_TASK_INDEX", "0"), ("CLOUD_RUN_TASK_COUNT", "1")];
        assert_eq!(auto(&r, None).unwrap().to_meta(), "1/1 path");
        let (_, said) = Shard::from_env(&env(&b), None, ShardBy::Run).unwrap();
        assert!(said.contains("Cloud Batch"), "{said}");
    }

    #[test]
    fn unknown_or_ambiguous_environment_is_an_error() {
        assert_eq!(auto(&[], None), Err(ShardError::NoScheduler));
        assert_eq!(
            auto(&[("GITHUB_ACTIONS", "true")], Some(4)),
            Err(ShardError::NoScheduler)
        );
        let both = [
            ("JOB_COMPLETION_INDEX", "1"),
            ("BATCH_TASK_INDEX", "1"),
            ("BATCH_TASK_COUNT", "4"),
        ];
        assert!(matches!(
            auto(&both, Some(4)),
            Err(ShardError::Ambiguous(..))
        ));
        let junk = [("BATCH_TASK_INDEX", "-1"), ("BATCH_TASK_COUNT", "4")];
        assert!(matches!(auto(&junk, None), Err(ShardError::Env(_))));
    }

    #[test]
    fn run_keys_ignore_prefixes_and_keep_runs_together() {
        assert_eq!(run_key("runs/123/a.zip"), "run:123");
        assert_eq!(run_key("runs/run_123/server_logs_x/server.log"), "run:123");
        assert_eq!(run_key("x/other/a.zip"), "dir:x/other");
        // A file inside an extracted artifact is its run's, however deep.
        let rf = "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
        assert_eq!(
            run_key(&format!("x/other/{rf}/logs/server.log")),
            "dir:x/other"
        );
        assert_eq!(run_key(&format!("x/other/{rf}")), "dir:x/other");
        assert_eq!(
            shard_key("gs://bucket/2026-10-29/wf/123/a.zip", ShardBy::Run),
            shard_key("2026-10-29/wf/123/b.zip", ShardBy::Run)
        );
        assert_eq!(
            shard_key("gs://bucket/2026-10-29/wf/a.zip", ShardBy::Path),
            shard_key("./2026-10-29//wf/a.zip", ShardBy::Path)
        );
        // Every artifact of a run in the same shard, for any count.
        for n in [2, 3, 7, 64] {
            for run in 0..50 {
                let slots: std::collections::BTreeSet<u64> = (0..5)
                    .map(|k| {
                        let key = shard_key(&format!("runs/{run}/a_{k}.zip"), ShardBy::Run);
                        slot(&key, n)
                    })
                    .collect();
                assert_eq!(slots.len(), 1);
            }
        }
    }

    #[test]
    fn shards_partition_and_are_stable() {
        let shards: Vec<Shard> = (1..=4)
            .map(|i| Shard::parse(&format!("{i}/4"), ShardBy::Path).unwrap())
            .collect();
        for i in 0..200 {
            let p = format!("runs/{}/a_{i}.zip", i % 7);
            assert_eq!(shards.iter().filter(|s| s.contains(&p)).count(), 1, "{p}");
        }
        assert!(
            Shard::parse("1/1", ShardBy::Run)
                .unwrap()
                .contains("anything")
        );
        let s = Shard::parse("2/5", ShardBy::Run).unwrap();
        assert_eq!(Shard::from_meta(&s.to_meta()), Some(s));
    }

    #[test]
    fn listings() {
        let text = "gs://b/2026/wf/:\ngs://b/2026/wf/a.zip\r\n\n# note\ngs://b/2026/wf/sub/\nruns/1/x.zip\n";
        let v: Vec<&str> = listing_entries(text).collect();
        assert_eq!(v, ["gs://b/2026/wf/a.zip", "runs/1/x.zip"]);
        assert_eq!(object_path("s3://bucket/a/b.zip"), "a/b.zip");
        assert_eq!(object_path("/abs/a.zip"), "/abs/a.zip");
    }
}
