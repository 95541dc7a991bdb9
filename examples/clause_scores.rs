//! Prints the clause model's scores of a document's paragraphs, with the
//! terms behind each: why the register marks a clause kind, or holds the
//! rules' reading of one for review.
//!
//! Usage: clause_scores FILE [--min SCORE] [--grep TEXT]
//! (`--min`: the lowest score shown, 0.02 by default, the model's
//! agreement threshold; `--grep`: only paragraphs holding TEXT).

use kgroute::clause_model::{active, AGREES};
use kgroute::extract::rules::paragraphs_of;
use kgroute::tree::{build_tree, SourceText};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut min = AGREES;
    let mut grep: Option<String> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--min" => min = args.next().unwrap_or_default().parse()?,
            "--grep" => grep = args.next(),
            _ if file.is_none() => file = Some(a),
            other => anyhow::bail!(
                "unknown argument {other}; usage: clause_scores FILE [--min SCORE] [--grep TEXT]"
            ),
        }
    }
    let file = file
        .ok_or_else(|| anyhow::anyhow!("usage: clause_scores FILE [--min SCORE] [--grep TEXT]"))?;
    let model = active().map_err(|e| anyhow::anyhow!("{e}"))?;
    let source = SourceText::read(std::path::Path::new(&file), true)?;
    let tree = build_tree(&source);
    for node in tree.iter() {
        let text = source.byte_span_text(node.start_byte, node.end_byte);
        for p in paragraphs_of(text) {
            if grep.as_deref().is_some_and(|g| !p.contains(g)) {
                continue;
            }
            let scores = model.score(&node.title, &p);
            let mut ranked: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
            let shown: Vec<&(usize, f32)> =
                ranked.iter().filter(|(_, s)| *s >= min).take(3).collect();
            if shown.is_empty() && grep.is_none() {
                continue;
            }
            println!("§{} {} | {:.100}", node.node_id, node.title, p);
            for (k, s) in ranked
                .iter()
                .take(if grep.is_some() { 3 } else { shown.len() })
            {
                let why: Vec<String> = model
                    .explain(&node.title, &p, *k, 5)
                    .into_iter()
                    .map(|(f, w)| format!("{f} {w:+.1}"))
                    .collect();
                println!(
                    "    {:.3} {:<34} {}",
                    s,
                    model.categories()[*k],
                    why.join(", ")
                );
            }
        }
    }
    Ok(())
}
