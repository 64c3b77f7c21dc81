//! The SQLite store: opening and migrating it (`open`), writing one
//! artifact's results (all of them, replacing the old ones, in the caller's
//! transaction: `write`), and reading results back as the scan's records
//! (`read`). The tables themselves are listed once, in `super::tables`.

mod open;
mod read;
mod write;

pub(crate) use open::{SCHEMA, explain, open, open_for_reading, read_only_uri, sidecar};
pub(crate) use read::{
    AGGREGATE_COLS, EVIDENCE_COLS, Prior, VERDICT_COLS, aggregate_from_row, coverage_record,
    evidence_from_row, get_fingerprint, load_prior, load_scan, verdict_from_row, verdict_status,
};
pub(crate) use write::{
    FingerprintRow, Prepared, Stamp, VerdictRow, insert_verdict, meta, put_fingerprint, set_meta,
    touch, write_artifact,
};

/// A new store in memory, for the tests of each part.
#[cfg(test)]
fn memory_store() -> rusqlite::Connection {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    c.execute_batch(SCHEMA).unwrap();
    c
}
