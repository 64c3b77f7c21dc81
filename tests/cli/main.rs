//! Integration tests: the built binary on the committed `samples/`.
//! One test binary; each module covers one command.

mod harness;

mod archives;
mod audit;
mod check;
mod cite;
mod corpus;
mod env_forms;
mod golden;
mod grep;
mod hostile;
mod hostile_attacks;
mod hostile_output;
mod ls;
mod member_glob;
mod packs;
mod progress;
mod real_runs;
mod results;
mod scan;
mod schema;
mod show;
mod usage;
mod verdict_block;
mod verifier;
mod wordings;
