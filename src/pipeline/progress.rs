//! Progress output for a batch: an indicatif bar on a terminal, one plain
//! line per document otherwise (CI, pipes), nothing with `--quiet`.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// Running totals shown next to the bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals {
    pub sections_done: u64,
    pub sections_to_send: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
}

pub enum Progress {
    Bar(ProgressBar),
    Lines { total: usize, done: usize },
    Quiet,
}

impl Progress {
    pub fn new(documents: usize, quiet: bool) -> Progress {
        if quiet {
            Progress::Quiet
        } else if std::io::stdout().is_terminal() && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(documents as u64).with_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} docs  {msg}  (ETA {eta})",
                )
                .expect("static template"),
            );
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            Progress::Bar(bar)
        } else {
            Progress::Lines {
                total: documents,
                done: 0,
            }
        }
    }

    /// Updates the running totals (bar only; plain output prints per document).
    pub fn update(&self, t: &Totals) {
        if let Progress::Bar(bar) = self {
            bar.set_message(format!(
                "sections {}/{}  tokens {} in / {} out  ~${:.4}",
                t.sections_done, t.sections_to_send, t.tokens_in, t.tokens_out, t.cost_usd
            ));
        }
    }

    /// The periodic heartbeat: totals with requests in flight, retries and
    /// waits (the bar's message, or one plain line), so a stalled run shows.
    pub fn tick(&self, t: &Totals, c: &crate::extract::CounterSnapshot) {
        let line = format!(
            "sections {}/{}, requests {} ({} in flight), retries {}, waiting {}, failed {}",
            t.sections_done,
            t.sections_to_send,
            c.requests,
            c.in_flight,
            c.retries,
            c.waiting,
            c.sections_failed
        );
        match self {
            Progress::Bar(bar) => bar.set_message(line),
            Progress::Lines { .. } if c.requests > 0 || c.waiting > 0 => {
                println!("  ... {line}")
            }
            _ => {}
        }
    }

    /// One document finished (or failed); `line` describes it.
    pub fn document_done(&mut self, line: &str) {
        match self {
            Progress::Bar(bar) => {
                bar.println(line);
                bar.inc(1);
            }
            Progress::Lines { total, done } => {
                *done += 1;
                println!("[{done}/{total}] {line}");
            }
            Progress::Quiet => {}
        }
    }

    /// A message that is always shown unless quiet (what runs, what is offline).
    pub fn note(&self, line: &str) {
        match self {
            Progress::Bar(bar) => bar.println(line),
            Progress::Lines { .. } => println!("{line}"),
            Progress::Quiet => {}
        }
    }

    pub fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
