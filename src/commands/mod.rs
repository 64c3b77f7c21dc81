//! The commands behind the CLI, callable without a process.

pub mod audit;
pub mod check;
pub mod cite;
pub mod grep;
pub mod packs;
pub mod scan;

/// What a command found, for the exit code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    pub found: bool,
    pub errors: bool,
}

impl Status {
    /// grep's convention: 0 found, 1 nothing found, 2 an error and nothing found.
    pub fn exit_code(self) -> i32 {
        match (self.found, self.errors) {
            (true, _) => 0,
            (false, false) => 1,
            (false, true) => 2,
        }
    }
}
