//! When a crash happened, relative to what was measured. The measurement
//! window of a point is its client's own lines (`client.window` records:
//! aiperf's profiling phase, benchmark_serving's start and summary); a
//! server's life is its `server.lifecycle` records. A crash (a main-context
//! traceback, an out-of-memory error) spoils the point when the server
//! never came up, when it falls inside the window, or when it cannot be
//! placed; before the server first served (and it came up), before the
//! window, after it, or after the server shut down, it measured nothing
//! wrong and is named, not counted.
//!
//! The one place this timing is decided: `no-traceback` and `no-oom` judge
//! by it, the Pareto check leaves spoiled points out (`expect/left_out.rs`),
//! and the rows name the point and time ([`Crash::describe`]).

use super::scope::Scope;
use crate::domain::Evidence;
use crate::location::Location;
use regex::Regex;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The rule whose records bound a client's measurement window.
pub(crate) const WINDOW: &str = "client.window";
/// The rule whose driver records (srt-slurm starting a worker) mark a
/// job's driver log.
pub(crate) const DRIVER: &str = "setup.srt_worker";
/// The rule whose records mark a server's life in its log.
pub(crate) const LIFECYCLE: &str = "server.lifecycle";

/// A wall-clock time as a log printed it: the date where printed (vLLM
/// prints no year, aiperf's benchmark.log no date at all), and the second
/// of the day. Logs of one CI job share a clock (UTC in InferenceX's
/// runners: aiperf's epoch `start_ns` and its printed clock agree).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stamp {
    pub(crate) year: Option<i32>,
    /// (month, day), where printed.
    pub(crate) date: Option<(u32, u32)>,
    /// Seconds since midnight, fractions kept.
    pub(crate) secs: f64,
}

/// Seconds in half a day: how far apart two clocks without a date may be
/// and still be ordered by time of day.
const HALF_DAY: f64 = 43_200.0;

impl Stamp {
    /// Orders two stamps as far as both tell: by date where both have
    /// one (the year where both print it), else by time of day. `None`:
    /// one has a date the other lacks and the clocks cannot say.
    pub(crate) fn cmp_to(&self, other: &Stamp) -> Option<Ordering> {
        match (self.date, other.date) {
            (Some(a), Some(b)) => {
                let years = match (self.year, other.year) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    // vLLM prints no year: more than half a year apart,
                    // the two may sit on either side of a new year.
                    _ if a.0.abs_diff(b.0) > 6 => return None,
                    _ => Ordering::Equal,
                };
                Some(
                    years
                        .then(a.cmp(&b))
                        .then(self.secs.partial_cmp(&other.secs)?),
                )
            }
            // A clock without a date (aiperf's benchmark.log) against one
            // with: the time of day only. More than half a day apart, the
            // two may sit on either side of a midnight (a phase started at
            // 23:50, a crash at 00:05): the clocks cannot say.
            _ if (self.secs - other.secs).abs() > HALF_DAY => None,
            _ => self.secs.partial_cmp(&other.secs),
        }
    }

    /// From nanoseconds since the Unix epoch (UTC).
    pub(crate) fn from_epoch_ns(ns: i64) -> Stamp {
        let secs = ns.div_euclid(1_000_000_000);
        let frac = ns.rem_euclid(1_000_000_000) as f64 / 1e9;
        let days = secs.div_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        Stamp {
            year: Some(y),
            date: Some((m, d)),
            secs: secs.rem_euclid(86_400) as f64 + frac,
        }
    }

    /// The time a log line starts with (after a process prefix such as
    /// vLLM's `(APIServer pid=N) `): SGLang `[2026-06-03 17:37:40 TP0]`,
    /// vLLM `ERROR 06-04 07:06:27 [...]`, LMCache and aiperf.log
    /// `2026-06-04 05:15:03,183`, a job log's `2026-10-29T05:30:01Z`,
    /// TRT-LLM `[10/29/2026-04:21:13]`, aiperf's benchmark.log
    /// `17:44:44.293`.
    pub(crate) fn of_line(text: &str) -> Option<Stamp> {
        static FULL: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^.{0,80}?\b(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d(?:[.,]\d+)?)")
                .expect("regex")
        });
        static VLLM: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^.{0,80}?\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d(?:\.\d+)?) ")
                .expect("regex")
        });
        static TRT: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^.{0,80}?\[(\d\d)/(\d\d)/(\d{4})-(\d\d):(\d\d):(\d\d)\]").expect("regex")
        });
        static CLOCK: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^(\d\d):(\d\d):(\d\d(?:\.\d+)?) ").expect("regex"));
        let head = &text[..floor_boundary(text, 200)];
        let n = |s: &str| s.parse::<u32>().ok();
        let sod = |h: &str, m: &str, s: &str| -> Option<f64> {
            let (h, m) = (n(h)?, n(m)?);
            let s: f64 = s.replace(',', ".").parse().ok()?;
            (h < 24 && m < 60 && s < 61.0).then(|| f64::from(h * 3600 + m * 60) + s)
        };
        if let Some(c) = FULL.captures(head) {
            return Some(Stamp {
                year: c[1].parse().ok(),
                date: Some((n(&c[2])?, n(&c[3])?)),
                secs: sod(&c[4], &c[5], &c[6])?,
            });
        }
        if let Some(c) = VLLM.captures(head) {
            return Some(Stamp {
                year: None,
                date: Some((n(&c[1])?, n(&c[2])?)),
                secs: sod(&c[3], &c[4], &c[5])?,
            });
        }
        if let Some(c) = TRT.captures(head) {
            return Some(Stamp {
                year: c[3].parse().ok(),
                date: Some((n(&c[1])?, n(&c[2])?)),
                secs: sod(&c[4], &c[5], &c[6])?,
            });
        }
        let c = CLOCK.captures(head)?;
        Some(Stamp {
            year: None,
            date: None,
            secs: sod(&c[1], &c[2], &c[3])?,
        })
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(y) = self.year {
            write!(f, "{y:04}-")?;
        }
        if let Some((m, d)) = self.date {
            write!(f, "{m:02}-{d:02} ")?;
        }
        let s = self.secs as u64;
        write!(f, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Proleptic Gregorian (year, month, day) of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y as i32, m, d)
}

/// One end of a window: when it was printed (if printed).
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    pub(crate) at: Option<Stamp>,
}

/// A point's measurement window, from its client's lines.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    /// The start of the measured phase; `None`: not seen.
    pub(crate) start: Option<Mark>,
    /// Its end; `None`: the client never finished it (the window is open:
    /// everything after the start is inside).
    pub(crate) end: Option<Mark>,
}

fn cap<'e>(r: &'e Evidence, k: &str) -> Option<&'e serde_json::Value> {
    r.captures.as_ref()?.get(k)
}

fn cap_str<'e>(r: &'e Evidence, k: &str) -> Option<&'e str> {
    cap(r, k)?.as_str()
}

/// The measurement window of each artifact of the scope that holds a
/// client's lines, by artifact name.
pub(crate) fn windows(scope: &Scope<'_>) -> HashMap<String, Window> {
    let mut out: HashMap<String, Window> = HashMap::new();
    for r in scope.records_of(WINDOW) {
        let w = out
            .entry(scope.artifact_of(&r.location.path).to_string())
            .or_insert_with(|| Window {
                start: None,
                end: None,
            });
        let printed = || Stamp::of_line(&r.text);
        let mark = |at: Option<Stamp>| Mark { at };
        match cap_str(r, "event") {
            Some("stats") => {
                // Epoch nanoseconds: exact, and they carry the date.
                let ns = |k| cap(r, k).and_then(serde_json::Value::as_i64);
                if let Some(s) = ns("start_ns") {
                    w.start = Some(mark(Some(Stamp::from_epoch_ns(s))));
                }
                if let Some(e) = ns("end_ns") {
                    w.end = Some(mark(Some(Stamp::from_epoch_ns(e))));
                }
            }
            Some("start") => {
                // The first start printed; a dated one wins over a clock.
                let better = match &w.start {
                    None => true,
                    Some(m) => m.at.is_none_or(|a| a.date.is_none()) && printed().is_some(),
                };
                if better {
                    w.start = Some(mark(printed()));
                }
            }
            Some("end") => {
                let better = match &w.end {
                    None => true,
                    Some(m) => m.at.is_none_or(|a| a.date.is_none()) && printed().is_some(),
                };
                if better {
                    w.end = Some(mark(printed()));
                }
            }
            _ => {}
        }
    }
    out
}

/// When a crash was printed, relative to the server's life and the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum When {
    /// After the server shut down, before any restart: noted.
    AfterShutdown,
    /// A startup health probe aborted, the server serving afterwards: noted.
    HealthCheck,
    /// Before the server first served, and it came up afterwards: noted.
    BeforeServing,
    /// No line of its log says the server came up: the point measured
    /// nothing (counted).
    NeverServed,
    /// While serving, before the client's measured phase began: noted.
    BeforeWindow,
    /// Inside the measurement window (counted).
    InWindow,
    /// After the window ended: noted.
    AfterWindow,
    /// The server was up, but the time cannot be set against a window (no
    /// client lines beside the log, or no time printed): counted, since it
    /// may have been inside.
    Unplaced,
}

impl When {
    /// Every kind that is noted rather than counted, in the order reasons
    /// name them.
    pub(crate) const NOTED: [When; 5] = [
        When::AfterShutdown,
        When::HealthCheck,
        When::BeforeServing,
        When::BeforeWindow,
        When::AfterWindow,
    ];

    /// The crash spoiled what was measured (a FAIL of the crash claims,
    /// and the point is no valid evidence for a curve).
    pub(crate) fn spoils(self) -> bool {
        matches!(self, When::NeverServed | When::InWindow | When::Unplaced)
    }

    pub(crate) fn what(self) -> &'static str {
        match self {
            When::AfterShutdown => "printed after the server shut down",
            When::HealthCheck => "a startup health check aborted, the server serving afterwards",
            When::BeforeServing => {
                "printed before the server first served, the server coming up afterwards"
            }
            When::NeverServed => {
                "before any line of its log says the server came up: the point measured nothing"
            }
            When::BeforeWindow => "printed before the client's measured phase began",
            When::InWindow => "inside the measurement window",
            When::AfterWindow => "printed after the client's measured phase ended",
            When::Unplaced => {
                "while the server was up, not placeable against a measurement window (no client lines with times beside the log)"
            }
        }
    }
}

/// A crash record and when it happened.
#[derive(Debug, Clone)]
pub(crate) struct Crash<'a> {
    pub(crate) record: &'a Evidence,
    pub(crate) when: When,
    /// The time its line printed, if any.
    pub(crate) at: Option<Stamp>,
    /// The artifact (the point) whose log holds it.
    pub(crate) artifact: String,
}

impl Crash<'_> {
    /// `crash inside the measurement window of <artifact> at <T>` and the
    /// like, for reasons and notes (the record's citation is the
    /// caller's to give).
    pub(crate) fn describe(&self) -> String {
        let at = self.at.map(|t| format!(" at {t}")).unwrap_or_default();
        let a = &self.artifact;
        match self.when {
            When::InWindow => format!("crash inside the measurement window of {a}{at}"),
            When::NeverServed => format!(
                "crash of {a}{at} before its server came up (no line of its log says it did): the point measured nothing"
            ),
            w => format!("crash of {a}{at} {}", w.what()),
        }
    }
}

/// A member's life: the lines where it started serving and shut down.
#[derive(Default)]
struct Life {
    serving: Vec<u64>,
    shutdown: Vec<u64>,
}

fn member(r: &Evidence) -> String {
    Location::member_citation(&r.location.path, &r.location.members)
}

/// Classifies `records` (crash evidence of the scope) by when they were
/// printed, in order.
pub(crate) fn classify<'a>(scope: &Scope<'a>, records: &[&'a Evidence]) -> Vec<Crash<'a>> {
    let mut lives: HashMap<String, Life> = HashMap::new();
    for r in scope.records_of(LIFECYCLE) {
        let life = lives.entry(member(r)).or_default();
        match cap_str(r, "event") {
            Some("serving") => life.serving.push(r.location.line),
            Some("shutdown") => life.shutdown.push(r.location.line),
            _ => {}
        }
    }
    let windows = windows(scope);
    let drivers = driver_members(scope);
    let stamped = stamped_lines(scope, records);
    let none = Life::default();
    records
        .iter()
        .map(|&r| {
            let artifact = scope.artifact_of(&r.location.path).to_string();
            let at = Stamp::of_line(&r.text).or_else(|| {
                // A traceback's frames and its last line carry no time
                // (SGLang's are unprefixed): the time of the nearest
                // stamped record before it in its member, within the
                // reach of one traceback.
                let lines = stamped.get(&member(r))?;
                let i = lines.partition_point(|(l, _)| *l <= r.location.line);
                let (l, s) = lines.get(i.checked_sub(1)?)?;
                (r.location.line - l <= TRACEBACK_REACH).then_some(*s)
            });
            let window = windows.get(&artifact);
            let when = if r.rule == JOB_ABORTED || drivers.contains(&member(r)) {
                when_in_driver(r, at, window)
            } else {
                when(lives.get(&member(r)).unwrap_or(&none), r, at, window)
            };
            Crash {
                record: r,
                when,
                at,
                artifact,
            }
        })
        .collect()
}

/// The rule of a job's own aborts (SLURM cancellations, srt-slurm's
/// driver seeing a serving process die).
pub(crate) const JOB_ABORTED: &str = "job.aborted";

/// Members that are srt-slurm's driver log (it starts the workers), not a
/// server's: a server's life is not in them, so their lines (and a job's
/// aborts wherever printed) are placed by time alone.
fn driver_members(scope: &Scope<'_>) -> std::collections::HashSet<String> {
    scope
        .records_of(DRIVER)
        .filter(|r| cap(r, "mode").is_some())
        .map(member)
        .collect()
}

/// When a line of a driver log was printed: the workers never becoming
/// healthy measured nothing; anything else (a process's death, the lines
/// of its log the driver quotes, a cancellation) by its time against the
/// window.
fn when_in_driver(r: &Evidence, at: Option<Stamp>, window: Option<&Window>) -> When {
    if cap_str(r, "event") == Some("unhealthy") {
        return When::NeverServed;
    }
    match window {
        Some(w) => place(at, w),
        None => When::Unplaced,
    }
}

/// Lines a traceback spans at most (as `error.traceback`'s `then` reads).
const TRACEBACK_REACH: u64 = 400;

/// The lines with a printed time of each member that holds one of
/// `records`, sorted: any record of the scope counts.
fn stamped_lines(scope: &Scope<'_>, records: &[&Evidence]) -> HashMap<String, Vec<(u64, Stamp)>> {
    let wanted: std::collections::HashSet<String> = records.iter().map(|r| member(r)).collect();
    let mut out: HashMap<String, Vec<(u64, Stamp)>> = HashMap::new();
    if wanted.is_empty() {
        return out;
    }
    for r in scope.records() {
        let m = member(r);
        if !wanted.contains(&m) {
            continue;
        }
        if let Some(s) = Stamp::of_line(&r.text) {
            out.entry(m).or_default().push((r.location.line, s));
        }
    }
    for v in out.values_mut() {
        v.sort_by_key(|(l, _)| *l);
    }
    out
}

/// The crash records of a scope (main-context tracebacks,
/// out-of-memory errors, a job's aborts), classified: what the Pareto check and the rows
/// read.
pub(crate) fn crashes<'a>(scope: &Scope<'a>) -> Vec<Crash<'a>> {
    let records: Vec<&Evidence> = scope
        .records_of("error.traceback")
        .filter(|r| cap_str(r, "context").is_none_or(|c| c == "main"))
        .chain(scope.records_of("error.oom"))
        .chain(scope.records_of(JOB_ABORTED))
        .collect();
    classify(scope, &records)
}

fn when(life: &Life, r: &Evidence, at: Option<Stamp>, window: Option<&Window>) -> When {
    let line = r.location.line;
    // The last shutdown before it, with no start of serving in between (a
    // restarted server is up again).
    let down = life.shutdown.iter().filter(|&&s| s < line).max();
    if let Some(&down) = down
        && !life.serving.iter().any(|&s| s > down && s < line)
    {
        return When::AfterShutdown;
    }
    let served_after = life.serving.iter().any(|&s| s > line);
    let message = cap_str(r, "exception_message").unwrap_or_default();
    if message.contains("HEALTH_CHECK") && served_after {
        return When::HealthCheck;
    }
    if !life.serving.iter().any(|&s| s < line) {
        if !served_after {
            return When::NeverServed;
        }
        // A failed first launch, then a server that came up: set aside only
        // where its own time is before the measured phase began (a log's
        // line order alone can hide a crash printed out of order).
        let start = window.and_then(|w| w.start.as_ref()).and_then(|m| m.at);
        return match (at, start) {
            (Some(at), Some(start)) if at.cmp_to(&start) == Some(Ordering::Less) => {
                When::BeforeServing
            }
            _ => When::Unplaced,
        };
    }
    let Some(w) = window else {
        return When::Unplaced;
    };
    place(at, w)
}

/// A crash printed at `at` against the window `w`.
fn place(at: Option<Stamp>, w: &Window) -> When {
    let start = w.start.as_ref().and_then(|m| m.at);
    let (Some(at), Some(start)) = (at, start) else {
        return When::Unplaced;
    };
    match at.cmp_to(&start) {
        Some(Ordering::Less) => return When::BeforeWindow,
        None => return When::Unplaced,
        _ => {}
    }
    let Some(end) = &w.end else {
        // The client never finished: the window is still open.
        return When::InWindow;
    };
    match end.at.and_then(|e| at.cmp_to(&e)) {
        Some(Ordering::Greater) => When::AfterWindow,
        Some(_) => When::InWindow,
        None => When::Unplaced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(serving: &[u64], shutdown: &[u64]) -> Life {
        Life {
            serving: serving.to_vec(),
            shutdown: shutdown.to_vec(),
        }
    }

    fn tb(line: u64, message: &str) -> Evidence {
        crate::check::judge::tests::rec(
            "server.log",
            line,
            "error.traceback",
            serde_json::json!({ "exception_message": message }),
            None,
        )
    }

    fn stamp(line: &str) -> Stamp {
        Stamp::of_line(line).unwrap_or_else(|| panic!("no time in {line}"))
    }

    #[test]
    fn after_shutdown_until_a_restart() {
        let l = life(&[10, 200], &[100]);
        assert_eq!(when(&l, &tb(50, "x"), None, None), When::Unplaced);
        assert_eq!(when(&l, &tb(150, "x"), None, None), When::AfterShutdown);
        // Serving again at 200: a traceback after it is a crash.
        assert_eq!(when(&l, &tb(250, "x"), None, None), When::Unplaced);
    }

    #[test]
    fn a_health_probe_is_benign_only_if_the_server_served_afterwards() {
        let msg = "Request is disconnected from the client side (type 3). Abort request obj.rid='HEALTH_CHECK_1749031201.5'";
        assert_eq!(
            when(&life(&[80], &[]), &tb(40, msg), None, None),
            When::HealthCheck
        );
        assert_eq!(
            when(&life(&[20], &[]), &tb(40, msg), None, None),
            When::Unplaced
        );
        assert!(!When::HealthCheck.spoils());
    }

    #[test]
    fn a_server_that_never_came_up_measured_nothing() {
        // vLLM: `Engine core initialization failed`, no startup complete.
        let w = when(
            &life(&[], &[]),
            &tb(
                40,
                "Engine core initialization failed. See root cause above. Failed core proc(s): {}",
            ),
            None,
            None,
        );
        assert_eq!(w, When::NeverServed);
        assert!(w.spoils());
        // A failed first launch, then a server that came up: counted while
        // nothing places it before the measured phase.
        let w = when(&life(&[90], &[]), &tb(40, "CUDA error"), None, None);
        assert_eq!(w, When::Unplaced);
        assert!(w.spoils());
    }

    /// The window of a real agentic run (benchmark.log of
    /// glm5.1 conc16 hicache, InferenceX June 2026): the profiling phase
    /// from 17:44:44.293 to 18:15:14.295 on 2026-06-03 (its epoch stats).
    #[test]
    fn inside_before_and_after_the_window() {
        let w = Window {
            start: Some(Mark {
                at: Some(Stamp::from_epoch_ns(1780508684293002574)),
            }),
            end: Some(Mark {
                at: Some(Stamp::from_epoch_ns(1780510514295200691)),
            }),
        };
        assert_eq!(
            w.start.as_ref().unwrap().at.unwrap().to_string(),
            "2026-06-03 17:44:44"
        );
        let l = life(&[300], &[9000]);
        let at = |text: &str| Some(stamp(text));
        let inside = at(
            "[2026-06-03 17:50:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        );
        assert_eq!(when(&l, &tb(5000, "x"), inside, Some(&w)), When::InWindow);
        let before = at(
            "[2026-06-03 17:40:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        );
        assert_eq!(
            when(&l, &tb(5000, "x"), before, Some(&w)),
            When::BeforeWindow
        );
        // vLLM prints no year.
        let after = at(
            "(APIServer pid=204529) ERROR 06-03 18:16:00 [core.py:710] Traceback (most recent call last):",
        );
        assert_eq!(when(&l, &tb(5000, "x"), after, Some(&w)), When::AfterWindow);
        // A day later is after, whatever the clock.
        let next_day = at("ERROR 06-04 17:50:00 [core.py:710] Traceback (most recent call last):");
        assert_eq!(
            when(&l, &tb(5000, "x"), next_day, Some(&w)),
            When::AfterWindow
        );
        // No time printed: cannot be placed, so it counts.
        assert_eq!(when(&l, &tb(5000, "x"), None, Some(&w)), When::Unplaced);
        // The client never finished: open window.
        let open = Window {
            end: None,
            ..w.clone()
        };
        let late = at("[2026-06-03 19:00:00 TP0] x");
        assert_eq!(when(&l, &tb(5000, "x"), late, Some(&open)), When::InWindow);
    }

    /// aiperf's benchmark.log prints a clock only: a profiling phase that
    /// began at 23:50 and a vLLM crash printed at 00:05 the next day are
    /// 15 minutes apart, not 23h45 (never "before the window", a pass).
    #[test]
    fn a_clock_only_window_across_midnight_is_not_trusted() {
        let start = stamp(
            "23:50:00.120 NOTICE   Phase profiling started | target: 1800.0s duration (runner.py:303)",
        );
        let open = Window {
            start: Some(Mark { at: Some(start) }),
            end: None,
        };
        let l = life(&[300], &[9000]);
        let at = |text: &str| Some(stamp(text));
        let after_midnight = at(
            "(EngineCore_DP0 pid=163) ERROR 06-04 00:05:00 [core.py:710] Traceback (most recent call last):",
        );
        let w = when(&l, &tb(5000, "x"), after_midnight, Some(&open));
        assert!(w.spoils(), "{w:?}");
        // The phase ended at 00:20 (clock only): the crash is not after it.
        let closed = Window {
            end: Some(Mark {
                at: Some(stamp(
                    "00:20:00.125 NOTICE   Phase profiling complete | completed=59, cancelled=16, errors=0 (runner.py:662)",
                )),
            }),
            ..open.clone()
        };
        let w = when(&l, &tb(5000, "x"), after_midnight, Some(&closed));
        assert!(w.spoils(), "{w:?}");
        // An hour before the start, the same evening: before the window.
        let early = at(
            "(EngineCore_DP0 pid=163) ERROR 06-03 22:50:00 [core.py:710] Traceback (most recent call last):",
        );
        assert_eq!(
            when(&l, &tb(5000, "x"), early, Some(&open)),
            When::BeforeWindow
        );
    }

    /// vLLM prints no year: a phase that began 2026-12-31 23:50 (aiperf's
    /// epoch stats) and a crash printed `01-01 00:05` are minutes apart,
    /// not a year before.
    #[test]
    fn a_date_without_a_year_across_new_year_is_not_trusted() {
        let open = Window {
            start: Some(Mark {
                at: Some(Stamp::from_epoch_ns(1798761000120000000)),
            }),
            end: None,
        };
        assert_eq!(
            open.start.as_ref().unwrap().at.unwrap().to_string(),
            "2026-12-31 23:50:00"
        );
        let l = life(&[300], &[9000]);
        let new_year = Some(stamp(
            "(EngineCore_DP0 pid=163) ERROR 01-01 00:05:00 [core.py:710] Traceback (most recent call last):",
        ));
        let w = when(&l, &tb(5000, "x"), new_year, Some(&open));
        assert!(w.spoils(), "{w:?}");
        let same_evening = Some(stamp(
            "(EngineCore_DP0 pid=163) ERROR 12-31 22:50:00 [core.py:710] Traceback (most recent call last):",
        ));
        assert_eq!(
            when(&l, &tb(5000, "x"), same_evening, Some(&open)),
            When::BeforeWindow
        );
    }

    /// srt-slurm's driver: no server life in it, its lines placed by time
    /// against its own benchmark window (benchmark_stage.py wording).
    #[test]
    fn a_driver_line_is_placed_by_its_time_alone() {
        let mark = |line: &str| Mark {
            at: Some(stamp(line)),
        };
        let w = Window {
            start: Some(mark(
                "2026-10-29 04:21:40 [INFO] Running sa-bench benchmark",
            )),
            end: Some(mark(
                "2026-10-29 04:58:02 [INFO] Benchmark completed successfully",
            )),
        };
        let rec = |event: &str| {
            crate::check::judge::tests::rec(
                "sweep_4411.log",
                5,
                JOB_ABORTED,
                serde_json::json!({ "event": event }),
                None,
            )
        };
        let died = Some(stamp(
            "2026-10-29 04:31:10 [ERROR] Critical process 'decode_w0' exited with code 137",
        ));
        assert_eq!(
            when_in_driver(&rec("exited"), died, Some(&w)),
            When::InWindow
        );
        let cancelled = Some(stamp(
            "slurmstepd: error: *** JOB 4411 ON gb200-nv-01 CANCELLED AT 2026-10-29T05:00:00 DUE TO TIME LIMIT ***",
        ));
        assert_eq!(
            when_in_driver(&rec("cancelled"), cancelled, Some(&w)),
            When::AfterWindow
        );
        assert_eq!(
            when_in_driver(&rec("cancelled"), cancelled, None),
            When::Unplaced
        );
        assert_eq!(
            when_in_driver(&rec("unhealthy"), died, Some(&w)),
            When::NeverServed
        );
    }

    #[test]
    fn crashes_describe_the_point_when_and_where() {
        use crate::check::judge::tests::{rec, scan};
        let serving = rec(
            "server.log",
            2,
            LIFECYCLE,
            serde_json::json!({ "event": "serving" }),
            None,
        );
        let oom = rec(
            "server.log",
            10,
            "error.oom",
            serde_json::json!({ "message": "torch.OutOfMemoryError: HIP out of memory." }),
            None,
        );
        let died = rec(
            "sweep_4411.log",
            5,
            JOB_ABORTED,
            serde_json::json!({ "event": "unhealthy" }),
            None,
        );
        let s = scan(vec![serving, oom, died]);
        let scope = Scope::new("run".into(), vec!["a.zip".into()], vec![("a.zip", &s)]);
        let notes: Vec<String> = crashes(&scope)
            .iter()
            .map(|c| format!("{} ({})", c.describe(), c.record.citation))
            .collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("crash of a.zip while the server was up, not placeable")
                && notes[0].ends_with("(a.zip!server.log:10)"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("the point measured nothing")
                && notes[1].ends_with("(a.zip!sweep_4411.log:5)"),
            "{notes:?}"
        );
    }

    #[test]
    fn times_as_the_logs_print_them() {
        let s = stamp("[2026-06-03 17:37:40 TP0] Load weight end.");
        assert_eq!(
            (s.year, s.date, s.secs),
            (Some(2026), Some((6, 3)), 63460.0)
        );
        let s = stamp(
            "(Worker_TP1 pid=4036455) ERROR 06-04 07:06:27 [multiproc_executor.py:962] Traceback (most recent call last):",
        );
        assert_eq!((s.year, s.date, s.secs), (None, Some((6, 4)), 25587.0));
        let s = stamp(
            "17:44:44.293 NOTICE   Phase profiling started | target: 1800.0s duration (runner.py:303)",
        );
        assert_eq!((s.date, s.secs), (None, 63884.293));
        let s =
            stamp("(Worker_TP0 pid=4036454) [2026-06-04 07:01:27,183] LMCache INFO: GPU KV Format");
        assert_eq!(s.secs, 25287.183);
        let s = stamp("[10/29/2026-04:21:13] [TRT-LLM] [I] TensorRT-LLM version: 1.1.0rc2");
        assert_eq!((s.year, s.date), (Some(2026), Some((10, 29))));
        assert_eq!(Stamp::of_line("Traceback (most recent call last):"), None);
        assert_eq!(Stamp::of_line("99:99:99 x"), None);
    }
}
