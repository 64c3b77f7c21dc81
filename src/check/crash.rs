//! When a crash happened. A traceback in a server log is a crash of the
//! serving process only while the server was up for the measurement: one
//! printed after the server shut down (uvicorn's `Application shutdown
//! complete`, `Finished server process [N]`), or a startup health probe
//! aborted before the server went on to serve (`... Abort request
//! rid='HEALTH_CHECK_...'` then `ready to roll`), measured nothing wrong.
//!
//! The markers are `server.lifecycle` records (event = serving | shutdown),
//! compared by line within one member. Written once here so that other
//! claims (a point's window, the Pareto and row checks) read the same
//! timing.

use super::scope::Scope;
use crate::domain::Evidence;
use crate::location::Location;
use std::collections::HashMap;

/// The rule whose records mark a server's life in its log.
pub(crate) const LIFECYCLE: &str = "server.lifecycle";

/// Why a traceback is not a crash of the measured server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Benign {
    /// Printed after the server shut down, before any restart.
    AfterShutdown,
    /// A startup health probe aborted; the server served afterwards.
    HealthCheck,
}

impl Benign {
    pub(crate) fn what(self) -> &'static str {
        match self {
            Benign::AfterShutdown => "printed after the server shut down",
            Benign::HealthCheck => "a startup health check aborted, the server serving afterwards",
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

fn event(r: &Evidence) -> Option<&str> {
    r.captures.as_ref()?.get("event")?.as_str()
}

/// Classifies each record by when it was printed in its member's life;
/// `None`: a crash of the server (or not decidable, which counts as one).
pub(crate) fn classify(scope: &Scope<'_>, records: &[&Evidence]) -> Vec<Option<Benign>> {
    let mut lives: HashMap<String, Life> = HashMap::new();
    for r in scope.records_of(LIFECYCLE) {
        let life = lives.entry(member(r)).or_default();
        match event(r) {
            Some("serving") => life.serving.push(r.location.line),
            Some("shutdown") => life.shutdown.push(r.location.line),
            _ => {}
        }
    }
    records
        .iter()
        .map(|r| {
            let life = lives.get(&member(r))?;
            when(life, r)
        })
        .collect()
}

fn when(life: &Life, r: &Evidence) -> Option<Benign> {
    let line = r.location.line;
    // The last shutdown before it, with no start of serving in between (a
    // restarted server is up again).
    let down = life.shutdown.iter().filter(|&&s| s < line).max();
    if let Some(&down) = down
        && !life.serving.iter().any(|&s| s > down && s < line)
    {
        return Some(Benign::AfterShutdown);
    }
    let message = r
        .captures
        .as_ref()
        .and_then(|c| c.get("exception_message"))
        .and_then(|m| m.as_str())
        .unwrap_or_default();
    if message.contains("HEALTH_CHECK") && life.serving.iter().any(|&s| s > line) {
        return Some(Benign::HealthCheck);
    }
    None
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

    #[test]
    fn after_shutdown_until_a_restart() {
        let l = life(&[10, 200], &[100]);
        assert_eq!(when(&l, &tb(50, "x")), None);
        assert_eq!(when(&l, &tb(150, "x")), Some(Benign::AfterShutdown));
        // Serving again at 200: a traceback after it is a crash.
        assert_eq!(when(&l, &tb(250, "x")), None);
    }

    #[test]
    fn a_health_probe_is_benign_only_if_the_server_served_afterwards() {
        let msg = "Request is disconnected from the client side (type 3). Abort request obj.rid='HEALTH_CHECK_1749031201.5'";
        assert_eq!(
            when(&life(&[80], &[]), &tb(40, msg)),
            Some(Benign::HealthCheck)
        );
        assert_eq!(when(&life(&[20], &[]), &tb(40, msg)), None);
        assert_eq!(when(&life(&[80], &[]), &tb(40, "CUDA error")), None);
    }
}
