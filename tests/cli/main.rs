//! Integration tests: the built binary on the committed `samples/`.
//! One test binary; each module covers one command.

mod harness;

mod archives;
mod audit;
mod check;
mod cite;
mod corpus;
mod grep;
mod hostile;
mod packs;
mod scan;
mod schema;
