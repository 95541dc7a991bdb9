//! Progress output for a batch: an indicatif bar on a terminal, one plain
//! line per document otherwise (CI, pipes), nothing with `--quiet`.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// Running totals shown next to the bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals {
    pub sections_done: u64,
    pub sections_to_send: u64,
    /// Title-mapping requests of the documents so far (their tokens and
    /// cost are in the figures below, with the sections').
    pub title_requests: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
}

pub enum Progress {
    Bar(ProgressBar),
    Lines {
        total: usize,
        done: usize,
        /// Documents done and sections read at the last offline heartbeat.
        heard: (usize, u64),
    },
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
                heard: (0, 0),
            }
        }
    }

    /// Updates the running totals (bar only; plain output prints per document).
    pub fn update(&self, t: &Totals) {
        if let Progress::Bar(bar) = self {
            bar.set_message(totals_line(t));
        }
    }

    /// The periodic heartbeat: totals with requests in flight, retries and
    /// waits (the bar's message, or one plain line), so a stalled run shows.
    /// `tokens_per_s` is the answers' streaming rate since the last line.
    pub fn tick(
        &mut self,
        t: &Totals,
        c: &crate::extract::CounterSnapshot,
        tokens_per_s: Option<f64>,
    ) {
        let line = heartbeat_line(t, c, tokens_per_s);
        match self {
            Progress::Bar(bar) => bar.set_message(line),
            Progress::Lines { .. } if c.requests + c.title_requests > 0 || c.waiting > 0 => {
                crate::stdout::line(format_args!("  ... {line}"))
            }
            Progress::Lines { done, heard, .. } => {
                if let Some(l) = offline_heartbeat(*done, heard, t, c) {
                    crate::stdout::line(l);
                }
            }
            Progress::Quiet => {}
        }
    }

    /// One document finished (or failed); `line` describes it.
    pub fn document_done(&mut self, line: &str) {
        match self {
            Progress::Bar(bar) => {
                bar.println(line);
                bar.inc(1);
            }
            Progress::Lines { total, done, .. } => {
                *done += 1;
                crate::stdout::line(format_args!("[{done}/{total}] {line}"));
            }
            Progress::Quiet => {}
        }
    }

    /// A message that is always shown unless quiet (what runs, what is offline).
    pub fn note(&self, line: &str) {
        match self {
            Progress::Bar(bar) => bar.println(line),
            Progress::Lines { .. } => crate::stdout::line(line),
            Progress::Quiet => {}
        }
    }

    pub fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// Offline, document lines are the progress; only while one document
/// holds them back (a large one) do its sections say how far the rules
/// are. `heard` is what the last heartbeat saw, updated.
fn offline_heartbeat(
    done: usize,
    heard: &mut (usize, u64),
    t: &Totals,
    c: &crate::extract::CounterSnapshot,
) -> Option<String> {
    let line = (done == heard.0 && c.sections_done > heard.1).then(|| {
        format!(
            "  ... {} of {} sections read by the rules",
            c.sections_done, t.sections_to_send
        )
    });
    *heard = (done, c.sections_done);
    line
}

/// The bar's running totals; tokens and cost are the whole spend (sections
/// and title mapping), as in the batch headline.
fn totals_line(t: &Totals) -> String {
    let titles = if t.title_requests > 0 {
        format!(" (+{} title mapping)", t.title_requests)
    } else {
        String::new()
    };
    format!(
        "sections {}/{}{titles}  tokens {} in / {} out  ~${:.4}",
        t.sections_done, t.sections_to_send, t.tokens_in, t.tokens_out, t.cost_usd
    )
}

/// The heartbeat: section requests, and the title-mapping requests apart.
/// With a streaming rate, the tokens per second; with cut answers, stalls
/// or split pieces, their counts.
fn heartbeat_line(
    t: &Totals,
    c: &crate::extract::CounterSnapshot,
    tokens_per_s: Option<f64>,
) -> String {
    let titles = if c.title_requests > 0 {
        format!(" + {} title mapping", c.title_requests)
    } else {
        String::new()
    };
    let mut line = format!(
        "sections {}/{}, requests {}{titles} ({} in flight), retries {}, waiting {}, failed {}",
        t.sections_done,
        t.sections_to_send,
        c.requests,
        c.in_flight,
        c.retries,
        c.waiting,
        c.sections_failed
    );
    if let Some(r) = tokens_per_s {
        line.push_str(&format!(", {r:.1} tokens/s"));
    }
    if c.answers_cut + c.stalls + c.splits + c.answers_repeated > 0 {
        line.push_str(&format!(
            ", cut {}, looped {}, stalled {}, split {}",
            c.answers_cut, c.answers_repeated, c.stalls, c.splits
        ));
    }
    line
}

/// Documents from this size on get a line when they start: one of 200 MB
/// took 99 s with nothing shown.
pub const LARGE_DOCUMENT_BYTES: u64 = 10 * 1024 * 1024;

/// `big.txt: 200.0 MB, reading and routing (large document)` for a
/// document of at least [`LARGE_DOCUMENT_BYTES`]; `None` for the others.
pub fn large_document_line(name: &str, path: &std::path::Path) -> Option<String> {
    let bytes = std::fs::metadata(path).ok()?.len();
    (bytes >= LARGE_DOCUMENT_BYTES).then(|| {
        format!(
            "{name}: {:.1} MB, reading and routing (large document)",
            bytes as f64 / 1e6
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::CounterSnapshot;

    #[test]
    fn offline_sections_are_heard_only_while_no_document_line_comes() {
        let t = Totals {
            sections_to_send: 900,
            ..Totals::default()
        };
        let c = |n: u64| CounterSnapshot {
            sections_done: n,
            ..CounterSnapshot::default()
        };
        let mut heard = (0, 0);
        assert_eq!(
            offline_heartbeat(0, &mut heard, &t, &c(120)).as_deref(),
            Some("  ... 120 of 900 sections read by the rules")
        );
        // Nothing new: nothing said.
        assert_eq!(offline_heartbeat(0, &mut heard, &t, &c(120)), None);
        // A document finished since: its line said it.
        assert_eq!(offline_heartbeat(1, &mut heard, &t, &c(300)), None);
        assert!(offline_heartbeat(1, &mut heard, &t, &c(310)).is_some());
    }

    #[test]
    fn a_large_document_gets_a_line_and_a_small_one_none() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.txt");
        let f = std::fs::File::create(&big).unwrap();
        // Sparse: the size is what counts, not the bytes on disk.
        f.set_len(LARGE_DOCUMENT_BYTES + 1).unwrap();
        let small = dir.path().join("small.txt");
        std::fs::write(&small, "Section 1. Term.").unwrap();
        assert_eq!(
            large_document_line("big.txt", &big).as_deref(),
            Some("big.txt: 10.5 MB, reading and routing (large document)")
        );
        assert_eq!(large_document_line("small.txt", &small), None);
    }

    #[test]
    fn title_mapping_requests_show_apart_from_the_sections() {
        let t = Totals {
            sections_done: 3,
            sections_to_send: 9,
            title_requests: 2,
            tokens_in: 120,
            tokens_out: 40,
            cost_usd: 0.01,
        };
        let c = CounterSnapshot {
            requests: 4,
            title_requests: 2,
            in_flight: 1,
            ..CounterSnapshot::default()
        };
        assert_eq!(
            heartbeat_line(&t, &c, None),
            "sections 3/9, requests 4 + 2 title mapping (1 in flight), retries 0, waiting 0, failed 0"
        );
        assert!(totals_line(&t).starts_with("sections 3/9 (+2 title mapping)  tokens 120 in"));
        let cut = CounterSnapshot {
            answers_cut: 1,
            splits: 1,
            ..c
        };
        assert!(heartbeat_line(&t, &cut, Some(12.34))
            .ends_with("failed 0, 12.3 tokens/s, cut 1, looped 0, stalled 0, split 1"));
        let none = CounterSnapshot {
            title_requests: 0,
            ..c
        };
        assert!(
            heartbeat_line(&t, &none, None).starts_with("sections 3/9, requests 4 (1 in flight)")
        );
    }
}
