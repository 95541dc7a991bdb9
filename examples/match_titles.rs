//! Prints how the shipped credit index matches titles read from stdin
//! (one per line): method, entry, tier, score, runner-up. A tuning aid.
use kgroute::index::GraphabilityIndex;
use std::io::BufRead;
fn main() -> anyhow::Result<()> {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or(repo.join("indices/credit_agreement.yaml"));
    let idx = GraphabilityIndex::load(&[path])?;
    for line in std::io::stdin().lock().lines() {
        let t = line?;
        let m = idx.match_title(&t);
        println!(
            "{t}\t{:?}\t{}\t{}\t{:.3}\t{}",
            m.method,
            m.entry.as_deref().unwrap_or("-"),
            m.tier.map_or("new".into(), |t| t.key().to_string()),
            m.score,
            m.runner_up.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}
