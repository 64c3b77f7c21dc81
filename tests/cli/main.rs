//! Integration tests: the built binary on the committed `samples/`.
//! One test binary; each module covers one command.

mod harness;

mod archive_edges;
mod archives;
mod audit;
mod audit_current;
mod check;
mod cite;
mod diff;
mod docs;
mod env_forms;
mod evals;
mod golden;
mod grep;
mod grep_flags;
mod hostile;
mod hostile_attacks;
mod hostile_output;
mod junk_by_content;
mod ls;
mod member_glob;
mod packs;
mod pareto;
mod progress;
mod results;
mod run_shapes;
mod scan;
mod schema;
mod show;
mod silence;
mod usage;
mod verdict_block;
mod verifier;
mod what_ran;
mod wordings;
