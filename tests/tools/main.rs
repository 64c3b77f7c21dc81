//! Tests that need a program besides Rust and Python's standard library
//! (DuckDB's Python package, actionlint, the sqlite3 shell). libtest cannot decide at run time
//! that a test is skipped, so this target has its own small harness: a test
//! whose tool is missing is printed `ignored, SKIP: <why>` and counted as
//! ignored in the summary, never as `ok`; under CI (`ARTISCAN_CI` set, as
//! `.ci/run` sets it) a missing tool fails the test instead.
//! Arguments: an optional name filter; libtest's flags are accepted and
//! ignored.

mod cases;
// The doc-block runner the cli target uses; here for the blocks that need
// sqlite3 (`blocks` is only the cli target's).
#[allow(dead_code)]
#[path = "../cli/doc_blocks.rs"]
mod doc_blocks;

use std::process::ExitCode;

/// What a test needs, and how to tell whether this machine has it.
pub struct Tool {
    pub name: &'static str,
    pub install: &'static str,
    pub present: fn() -> bool,
}

pub struct Case {
    pub name: &'static str,
    pub needs: &'static [&'static Tool],
    pub run: fn(),
}

fn main() -> ExitCode {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let list = std::env::args().any(|a| a == "--list");
    let ci = std::env::var_os("ARTISCAN_CI").is_some();
    let cases: Vec<&Case> = cases::CASES
        .iter()
        .filter(|c| filter.as_ref().is_none_or(|f| c.name.contains(f.as_str())))
        .collect();
    if list {
        for c in &cases {
            println!("{}: test", c.name);
        }
        return ExitCode::SUCCESS;
    }
    println!("\nrunning {} tests", cases.len());
    let (mut passed, mut failed, mut ignored) = (0, Vec::new(), 0);
    for c in &cases {
        let missing: Vec<&Tool> = c.needs.iter().copied().filter(|t| !(t.present)()).collect();
        if !missing.is_empty() && !ci {
            let why: Vec<String> = missing
                .iter()
                .map(|t| format!("{} not installed ({})", t.name, t.install))
                .collect();
            println!("test {} ... ignored, SKIP: {}", c.name, why.join("; "));
            ignored += 1;
            continue;
        }
        let result = if missing.is_empty() {
            std::panic::catch_unwind(c.run).map_err(|_| String::new())
        } else {
            let names: Vec<&str> = missing.iter().map(|t| t.name).collect();
            Err(format!("needs {} (CI installs it)", names.join(", ")))
        };
        match result {
            Ok(()) => {
                println!("test {} ... ok", c.name);
                passed += 1;
            }
            Err(why) => {
                println!("test {} ... FAILED {why}", c.name);
                failed.push(c.name);
            }
        }
    }
    let status = if failed.is_empty() { "ok" } else { "FAILED" };
    if !failed.is_empty() {
        println!("\nfailures:");
        for f in &failed {
            println!("    {f}");
        }
    }
    println!(
        "\ntest result: {status}. {passed} passed; {} failed; {ignored} ignored; 0 measured; {} filtered out\n",
        failed.len(),
        cases::CASES.len() - cases.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
