//! Integration tests: the built binary on the committed `samples/`.
//! One test binary; each module covers one command.

mod harness;

mod archive_edges;
mod archives;
mod audit;
mod audit_current;
mod check;
mod cite;
mod crash_timing;
mod diff;
mod docs;
mod env_forms;
mod evals;
mod golden;
mod golden_support;
mod grep;
mod hostile;
mod hostile_attacks;
mod hostile_output;
mod images;
mod junk_by_content;
mod launch_roles;
mod long_lines;
mod ls;
mod member_glob;
mod packs;
mod pareto;
mod pareto_copies;
mod progress;
mod results;
mod run_shapes;
mod run_split;
mod scan;
mod schema;
mod show;
mod silence;
mod usage;
mod verdict_block;
mod verdict_support;
mod verifier;
mod what_ran;
mod wordings;
