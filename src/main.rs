//! Thin entry point: parse, run, map the outcome to an exit code
//! (0 ok, 1 finished with failures, 2 fatal).

use clap::Parser;
use kgroute::cli::Cli;
use kgroute::cmd::{self, Outcome};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cmd::run(cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::PartialFailure) => ExitCode::from(1),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("kgroute: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// `kgroute tree big.txt | head` must not end in an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
