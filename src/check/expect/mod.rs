//! Expectation kinds judged by code of their own (one file each), apart
//! from the general judging in `judge.rs`.

pub(super) mod agree;
pub(in crate::check) mod left_out;
pub(super) mod pareto;
pub(super) mod same;
