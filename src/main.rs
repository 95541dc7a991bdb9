//! Thin entry point: parse, run, map the outcome to an exit code
//! (0 ok, 1 finished with failures, 2 fatal). A reader that closed our
//! stdout (`kgroute tree big.md | head -1`) wanted no more: that ends the
//! run quietly with 0, whether the write came back as an error (through
//! `std::io` or `serde_json`) or as `println!`'s panic.

use clap::Parser;
use kgroute::cli::Cli;
use kgroute::cmd::Outcome;
use std::process::ExitCode;

/// A batch allocates many small strings and vectors (words, titles,
/// paragraphs); mimalloc serves them in a fraction of the system
/// allocator's time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let cli = Cli::parse();
    match cli.run() {
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
        let io = c.downcast_ref::<std::io::Error>().map(|e| e.kind());
        let json = c
            .downcast_ref::<serde_json::Error>()
            .and_then(|e| e.io_error_kind());
        io.or(json) == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// `println!` panics when stdout is a closed pipe ("failed printing to
/// stdout: Broken pipe"); any command printing that way would end with
/// exit 101 and a panic message. The hook turns exactly that panic into a
/// quiet exit 0 and leaves every other panic to the default hook.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if payload.contains("failed printing to stdout") && payload.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
