//! Crashes by when they happened: the API other claims use (the Pareto
//! check leaves spoiled points out, the rows name the point and time). The
//! timing itself (the client's measurement window, the server's life) is
//! in [`super::window`].
//!
//! - [`windows`]`(scope) -> HashMap<artifact, Window>`: each artifact's
//!   measurement window (`Window { client, start: Option<Mark>, end:
//!   Option<Mark> }`, a `Mark` being `{ citation, at: Option<Stamp> }`).
//! - [`crashes`]`(scope) -> Vec<Crash>`: every crash record of the scope
//!   (main-context tracebacks, out-of-memory errors) with `when: When`,
//!   `at: Option<Stamp>` (the time its line printed) and `artifact`;
//!   `When::spoils()` says whether it spoiled the measurement (never came
//!   up, inside the window, or not placeable), `Crash::describe()` the
//!   sentence for a reason or note.
//! - [`spoiled`]`(scope, artifact) -> Vec<Crash>`: the crashes that make
//!   that artifact's point invalid evidence.

// The API of the Pareto check and the rows (issue 42), used as they land.
#[allow(unused_imports)]
pub(crate) use super::window::{Crash, Mark, Stamp, When, Window, crashes, windows};
pub(crate) use super::window::{DRIVER, LIFECYCLE, WINDOW};

use super::scope::Scope;
use crate::domain::Evidence;

/// Why a record is not a crash of the measured server (a noted [`When`]).
pub(crate) type Benign = When;

/// Classifies each record by when it was printed; `None`: a crash that
/// spoiled the measurement (or not decidable, which counts as one).
pub(crate) fn classify<'a>(scope: &Scope<'a>, records: &[&'a Evidence]) -> Vec<Option<Benign>> {
    super::window::classify(scope, records)
        .into_iter()
        .map(|c| (!c.when.spoils()).then_some(c.when))
        .collect()
}
