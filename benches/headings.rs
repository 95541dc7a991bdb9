//! Benchmark: one document of 10k, 30k and 100k headings through `kgroute
//! plan` and an offline `kgroute ingest` (the real binary, so every
//! per-heading path is in it: tree, routing, unmatched titles, extraction,
//! graph, reports). Prints the wall time and the CPU time (user + system of
//! the child, which load on a shared machine does not inflate) per size,
//! and the 100k/10k ratio of CPU time: linear paths give about 10x; the
//! quadratic dedup of unmatched titles gave 77 s at 100k (47x the 10k time).
//!
//! `cargo bench --bench headings` (add `--profile dev` to reuse the debug
//! build; the figures are then slower but the ratio is what matters).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// A contract of `n` numbered sections, each a heading none of the indices
/// knows (so every one is an unmatched title) and a sentence.
fn document(n: usize) -> String {
    let mut s = String::from("# MASTER AGREEMENT\n\n");
    for i in 1..=n {
        s.push_str(&format!(
            "## Section {i}. Bespoke Provision Number {i} Of Kind {}\n\nThe Borrower shall deliver item {i} to the Agent.\n\n",
            i % 97
        ));
    }
    s
}

/// CPU seconds (user + system) of the children reaped so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(u.ru_utime) + secs(u.ru_stime)
}

/// Runs kgroute; (wall seconds, CPU seconds).
fn run(args: &[&str], dir: &Path) -> (f64, f64) {
    let cpu = children_cpu();
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_kgroute"))
        .args(args)
        .current_dir(dir)
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("NEO4J_URI")
        .output()
        .expect("kgroute runs");
    let secs = t.elapsed().as_secs_f64();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (secs, children_cpu() - cpu)
}

fn main() {
    let index = concat!(env!("CARGO_MANIFEST_DIR"), "/indices/credit_agreement.yaml");
    let dir = tempfile::tempdir().expect("temp dir");
    let sizes: Vec<usize> = std::env::var("HEADINGS")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 30_000, 100_000]);
    let mut ingest_times = Vec::new();
    for &n in &sizes {
        let doc = dir.path().join(format!("h{n}.md"));
        std::fs::write(&doc, document(n)).expect("write document");
        let doc = doc.to_string_lossy().into_owned();
        let plan = run(
            &["plan", &doc, "--index", index, "--out", &format!("plan{n}")],
            dir.path(),
        );
        let ingest = run(
            &[
                "ingest",
                &doc,
                "--index",
                index,
                "--out",
                &format!("b{n}"),
                "--history",
                "h.csv",
                "--quiet",
            ],
            dir.path(),
        );
        println!(
            "headings {n:>7}: plan {:7.2} s wall {:7.2} s CPU, ingest {:7.2} s wall {:7.2} s CPU",
            plan.0, plan.1, ingest.0, ingest.1
        );
        ingest_times.push((n, ingest.1));
    }
    if let (Some(&(n0, t0)), Some(&(n1, t1))) = (ingest_times.first(), ingest_times.last()) {
        if n1 > n0 {
            println!(
                "ingest {n1}/{n0} headings: CPU time x{:.1} for size x{:.1} (linear: about the same)",
                t1 / t0,
                n1 as f64 / n0 as f64
            );
        }
    }
}
