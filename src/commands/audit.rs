//! `artiscan audit`: batch audit of historical runs into SQLite (stub; see issue 6).

use std::io::Write;

/// Arguments of `artiscan audit` (and its subcommands).
#[derive(clap::Args, Debug)]
pub struct AuditArgs {
    /// Folders or artifacts to audit
    pub paths: Vec<String>,
}

pub fn run(_args: AuditArgs, _out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    writeln!(err, "artiscan: audit is not implemented yet")?;
    Ok(2)
}
