//! Integration tests: the built binary on the committed `samples/`.
//! One test binary; each module covers one command.

mod harness;

mod archives;
mod audit;
mod check;
mod cite;
mod docs;
mod env_forms;
mod golden;
mod grep;
mod grep_flags;
mod hostile;
mod hostile_attacks;
mod hostile_output;
mod ls;
mod member_glob;
mod packs;
mod progress;
mod results;
mod scan;
mod schema;
mod show;
mod usage;
mod verifier;
mod wordings;
