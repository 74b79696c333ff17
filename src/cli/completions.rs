//! `tafl completions SHELL`: the shell's completion script for `tafl`, made
//! from the same definition the command line is parsed with, so it never
//! falls behind a new flag.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;

/// `tafl completions` arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the script.
///
/// # Errors
/// Stdout cannot be written.
pub fn run(args: &CompletionsArgs) -> std::io::Result<()> {
    std::io::stdout().write_all(&script(args.shell))
}

/// The completion script of `shell`.
fn script(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tafl", &mut script);
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_s_script_completes_every_subcommand() {
        let command = Cli::command();
        let subcommands: Vec<&str> = command
            .get_subcommands()
            .map(|sub| sub.get_name())
            .collect();
        assert!(subcommands.contains(&"completions"), "{subcommands:?}");
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let script = String::from_utf8(script(shell)).expect("a script is text");
            for subcommand in &subcommands {
                assert!(script.contains(subcommand), "{shell}: no {subcommand}");
            }
            // A flag of a subcommand too, not just the names.
            assert!(
                script.contains("openings-file"),
                "{shell}: no --openings-file"
            );
        }
    }
}
