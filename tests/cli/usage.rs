//! Reaching users: shell completions, the man page, the GitHub Action.

use crate::harness::*;
use std::process::Command;

#[test]
fn completions_are_valid_shell_and_know_the_commands() {
    let bash = artiscan(&["completions", "bash"]);
    assert_eq!(bash.code, 0, "{}", bash.stderr);
    for word in ["grep", "scan", "check", "cite", "ls", "--max-depth"] {
        assert!(bash.stdout.contains(word), "bash completion lacks {word}");
    }
    let syntax = Command::new("bash")
        .args(["-n", "-c", &bash.stdout])
        .status()
        .expect("run bash -n");
    assert!(syntax.success(), "bash completion script does not parse");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let run = artiscan(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("artiscan"), "{shell}");
    }
    assert_eq!(
        artiscan(&["completions", "tcsh"]).code,
        2,
        "unknown shell is a usage error"
    );
}

#[test]
fn man_page_is_roff_with_every_command() {
    let run = artiscan(&["man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".TH artiscan 1"), "roff title line");
    assert!(run.stdout.contains(".SH NAME"));
    for cmd in ["grep", "scan", "check", "cite", "audit", "ls"] {
        assert!(
            run.stdout.contains(&format!("artiscan\\-{cmd}(1)")),
            "man page lacks {cmd}"
        );
        // Each command's own page documents its options.
        let page = artiscan(&["man", cmd]);
        assert_eq!(page.code, 0, "{cmd}: {}", page.stderr);
        assert!(
            page.stdout.contains(&format!(".TH artiscan-{cmd} 1")),
            "{cmd}"
        );
    }
    let grep = artiscan(&["man", "grep"]).stdout;
    assert!(
        grep.contains("\\-\\-fixed\\-strings"),
        "grep page lists its flags"
    );
    assert_eq!(artiscan(&["man", "nosuch"]).code, 2);
}
