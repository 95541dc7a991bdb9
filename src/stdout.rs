//! Lines for standard output that survive a closed pipe or a full disk.
//!
//! `println!` panics when stdout is gone (`kgroute ingest DIR | head -2`
//! closes it after two lines), which ended a batch after one document with
//! exit 101. Progress and headline lines are informational: the documents,
//! reports and manifest are the batch's output. So a failed write here is
//! remembered, later lines are dropped, and the run goes on to save what
//! it does and exit with its own 0/1 code. A closed pipe is silent (the
//! reader wanted no more); any other error is said once on stderr.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` and a newline to stdout, flushed; does nothing once a
/// write has failed.
pub fn line(text: impl std::fmt::Display) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()) {
        if !CLOSED.swap(true, Ordering::Relaxed) && e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("kgroute: stdout: {e}; further progress lines are dropped, the run goes on");
        }
    }
}

/// Whether a write to stdout has failed (later lines were dropped).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}
