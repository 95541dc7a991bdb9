//! `scripts/train-clause-model`: trains the clause model on the tuning
//! half of the shared CUAD split (within each type folder, files sorted by
//! name: even positions tune, odd positions check) and writes it with the
//! comment lines that say how it was made.
//!
//! A training example is a paragraph as the rules read it (each tree
//! node's own text through `rules::paragraphs_of`) under its node's title;
//! it is labelled with every category whose lawyer-marked span covers at
//! least half of the shorter of the span and the paragraph (spans found by
//! collapsing whitespace on both sides, as `scripts/cuad-eval` does).
//! Paragraphs that cannot be placed in the collapsed text are left out,
//! not counted as negatives.
//!
//! `--scores FILE` also writes, per contract of both halves, the highest
//! score of each category and where it is: tuning contracts scored by
//! models trained without them (`--folds K`, by document), checking
//! contracts by the model trained on the whole tuning half. Those are the
//! scores a measurement may use; the model's scores of its own training
//! contracts are not.
//!
//! `--fold K/N LIST` trains on the tuning contracts at positions other
//! than K modulo N and writes the held-out ones' keys to LIST, so that an
//! ingest of those with `KGROUTE_CLAUSE_MODEL` set to the result measures
//! the tuning half without the model having seen it (`scripts/clause-model-folds`).
//!
//! Usage: train_clause_model [--corpora DIR] [--out FILE] [--scores FILE]
//!        [--fold K/N LIST] [--folds K] [--l1 X] [--l2 X] [--alpha X] [--epochs N] [--positive-weight X] [--min-documents N]

#[path = "cuad_eval/split.rs"]
mod split;

use kgroute::clause_model::train::{train, Example, Params};
use kgroute::clause_model::{features, ClauseModel};
use kgroute::extract::facts_vocabulary::CATEGORIES;
use kgroute::extract::rules::paragraphs_of;
use kgroute::tree::{build_tree, SourceText};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One contract's paragraphs, ready for training and scoring.
struct Contract {
    key: String,
    tune: bool,
    paragraphs: Vec<Paragraph>,
}

struct Paragraph {
    node_id: String,
    title: String,
    text: String,
    /// `None`: not placed in the text, so not labelled.
    positive: Option<Vec<u16>>,
}

fn main() -> anyhow::Result<()> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut corpora = std::env::var_os("KGROUTE_CORPORA")
        .map(PathBuf::from)
        .or_else(|| {
            repo.ancestors()
                .map(|a| a.join("shared/corpora"))
                .find(|p| p.is_dir())
        })
        .unwrap_or_else(|| repo.join("../shared/corpora"));
    let mut out = repo.join("indices/models/clauses.tsv");
    let mut scores: Option<PathBuf> = None;
    let mut folds = 5usize;
    // `--fold K/N`: train on the tuning contracts at positions not K
    // modulo N only, and list the others (the fold held out) to a file.
    let mut fold: Option<(usize, usize, PathBuf)> = None;
    let mut p = Params::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{a} needs a value"))
        };
        match a.as_str() {
            "--corpora" => corpora = PathBuf::from(value()?),
            "--out" => out = PathBuf::from(value()?),
            "--scores" => scores = Some(PathBuf::from(value()?)),
            "--folds" => folds = value()?.parse()?,
            "--fold" => {
                let v = value()?;
                let (k, n) = v
                    .split_once('/')
                    .ok_or_else(|| anyhow::anyhow!("--fold takes K/N"))?;
                let list = PathBuf::from(value()?);
                fold = Some((k.parse()?, n.parse()?, list));
            }
            "--l1" => p.l1 = value()?.parse()?,
            "--l2" => p.l2 = value()?.parse()?,
            "--alpha" => p.alpha = value()?.parse()?,
            "--epochs" => p.epochs = value()?.parse()?,
            "--positive-weight" => p.positive_weight = value()?.parse()?,
            "--min-documents" => p.min_documents = value()?.parse()?,
            other => anyhow::bail!(
                "unknown argument {other}; usage: train_clause_model [--corpora DIR] [--out FILE] [--scores FILE] [--folds K] [--l1 X] [--l2 X] [--alpha X] [--epochs N] [--positive-weight X] [--min-documents N]"
            ),
        }
    }
    let cuad = corpora.join("cuad");
    let labels_path = cuad.join("labels.json");
    anyhow::ensure!(
        labels_path.is_file(),
        "{}: no CUAD labels.json; pass --corpora DIR or set KGROUTE_CORPORA",
        cuad.display()
    );
    let labels_text = std::fs::read_to_string(&labels_path)?;
    let labels: serde_json::Value = serde_json::from_str(&labels_text)?;
    let categories: Vec<String> = CATEGORIES.iter().map(|c| c.to_string()).collect();
    let contracts = read_contracts(&cuad, &labels, &categories)?;
    let mut tune: Vec<&Contract> = contracts.iter().filter(|c| c.tune).collect();
    if let Some((k, n, list)) = &fold {
        let held: Vec<&str> = tune
            .iter()
            .enumerate()
            .filter(|(i, _)| i % n == *k)
            .map(|(_, c)| c.key.as_str())
            .collect();
        std::fs::write(list, held.join("\n") + "\n")?;
        tune = tune
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % n != *k)
            .map(|(_, c)| c)
            .collect();
        eprintln!(
            "fold {k}/{n}: {} contracts held out, listed in {}",
            held.len(),
            list.display()
        );
    }
    let placed = |cs: &[&Contract]| {
        cs.iter()
            .flat_map(|c| &c.paragraphs)
            .filter(|p| p.positive.is_some())
            .count()
    };
    let all: usize = tune.iter().map(|c| c.paragraphs.len()).sum();
    eprintln!(
        "tuning half: {} contracts, {} paragraphs ({} placed and labelled)",
        tune.len(),
        all,
        placed(&tune)
    );
    let model = train(&categories, &examples(&tune, |_| true), &p);
    let hash = sha256_hex(labels_text.as_bytes());
    let comments = vec![
        "kgroute clause model: the probability that a paragraph is a clause of each CUAD category".to_string(),
        "rebuilt by scripts/train-clause-model; do not edit by hand".to_string(),
        format!(
            "trained on the tuning half of the shared CUAD split: {} contracts, {} labelled paragraphs",
            tune.len(),
            placed(&tune)
        ),
        format!("cuad/labels.json sha256 {hash}"),
        format!("{p}"),
    ];
    let text = model.to_text(&comments);
    ClauseModel::parse(&text)?;
    std::fs::write(&out, &text)?;
    eprintln!(
        "wrote {} ({} features, {} bytes)",
        out.display(),
        model.feature_count(),
        text.len()
    );

    if let Some(path) = scores {
        let mut fold_models = Vec::new();
        for f in 0..folds {
            let m = train(&categories, &examples(&tune, |i| i % folds != f), &p);
            fold_models.push(m);
        }
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path)?);
        let mut tune_i = 0usize;
        for c in &contracts {
            let m = if c.tune {
                let m = &fold_models[tune_i % folds];
                tune_i += 1;
                m
            } else {
                &model
            };
            writeln!(w, "{}", serde_json::to_string(&contract_scores(c, m))?)?;
        }
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// The training examples of the contracts `keep` selects by position.
fn examples(contracts: &[&Contract], keep: impl Fn(usize) -> bool) -> Vec<Example> {
    let mut out = Vec::new();
    for (i, c) in contracts.iter().enumerate().filter(|(i, _)| keep(*i)) {
        for p in &c.paragraphs {
            if let Some(pos) = &p.positive {
                out.push(Example {
                    features: features(&p.title, &p.text),
                    positive: pos.clone(),
                    document: i,
                });
            }
        }
    }
    out
}

/// Per category: the highest score over the contract's paragraphs and
/// where; per paragraph its scores and the categories it is labelled with.
fn contract_scores(c: &Contract, m: &ClauseModel) -> serde_json::Value {
    let k = m.categories().len();
    let mut best = vec![(0f32, String::new()); k];
    let mut paragraphs = Vec::new();
    for (i, p) in c.paragraphs.iter().enumerate() {
        let s = m.score(&p.title, &p.text);
        for (j, &v) in s.iter().enumerate() {
            if v > best[j].0 {
                best[j] = (v, format!("{}#{i}", p.node_id));
            }
        }
        let high: serde_json::Map<String, serde_json::Value> = s
            .iter()
            .enumerate()
            .filter(|(_, v)| **v >= 0.05)
            .map(|(j, v)| {
                (
                    m.categories()[j].clone(),
                    serde_json::json!((v * 1000.0).round() / 1000.0),
                )
            })
            .collect();
        let pos: Vec<&String> = p
            .positive
            .iter()
            .flatten()
            .map(|&j| &m.categories()[usize::from(j)])
            .collect();
        paragraphs.push(serde_json::json!({
            "node": p.node_id, "chars": p.text.len(), "scores": high, "labels": pos,
            "placed": p.positive.is_some(),
        }));
    }
    let max: serde_json::Map<String, serde_json::Value> = m
        .categories()
        .iter()
        .zip(&best)
        .map(|(cat, (v, at))| {
            (
                cat.clone(),
                serde_json::json!([(v * 1000.0).round() / 1000.0, at]),
            )
        })
        .collect();
    serde_json::json!({
        "key": c.key,
        "half": if c.tune { "tune" } else { "check" },
        "max": max,
        "paragraphs": paragraphs,
    })
}

fn read_contracts(
    cuad: &Path,
    labels: &serde_json::Value,
    categories: &[String],
) -> anyhow::Result<Vec<Contract>> {
    let (tuning, checking) = split::split(cuad)?;
    let mut out = Vec::new();
    for (keys, tune) in [(tuning, true), (checking, false)] {
        for key in keys {
            let source = SourceText::read(&cuad.join(&key), true)?;
            let tree = build_tree(&source);
            let flat = collapsed(&source.text);
            let spans = spans_of(&labels[key.as_str()]["clauses"], categories, &flat);
            let mut paragraphs = Vec::new();
            let mut cursor = 0usize;
            for node in tree.iter() {
                let text = source.byte_span_text(node.start_byte, node.end_byte);
                for para in paragraphs_of(text) {
                    let needle = collapsed(&para);
                    let at = flat[cursor..]
                        .find(&needle)
                        .map(|i| i + cursor)
                        .or_else(|| flat.find(&needle));
                    let positive = at.filter(|_| needle.len() >= 20).map(|start| {
                        let end = start + needle.len();
                        cursor = end;
                        let mut pos: Vec<u16> = spans
                            .iter()
                            .filter(|(_, s, e)| {
                                let overlap = end.min(*e).saturating_sub(start.max(*s));
                                2 * overlap >= (e - s).min(end - start) && overlap > 0
                            })
                            .map(|(c, _, _)| *c)
                            .collect();
                        pos.sort_unstable();
                        pos.dedup();
                        pos
                    });
                    paragraphs.push(Paragraph {
                        node_id: node.node_id.clone(),
                        title: node.title.clone(),
                        text: para,
                        positive,
                    });
                }
            }
            out.push(Contract {
                key,
                tune,
                paragraphs,
            });
        }
    }
    Ok(out)
}

/// Every occurrence, in the collapsed text, of every labelled span of the
/// categories: `(category index, start, end)`.
fn spans_of(
    clauses: &serde_json::Value,
    categories: &[String],
    flat: &str,
) -> Vec<(u16, usize, usize)> {
    let mut out = Vec::new();
    let Some(obj) = clauses.as_object() else {
        return out;
    };
    for (cat, spans) in obj {
        let Some(k) = categories.iter().position(|c| c == cat) else {
            continue;
        };
        for span in spans.as_array().into_iter().flatten() {
            let Some(s) = span.as_str() else { continue };
            let needle = collapsed(s);
            if needle.len() < 8 {
                continue;
            }
            let mut from = 0;
            while let Some(i) = flat[from..].find(&needle) {
                let start = from + i;
                out.push((k as u16, start, start + needle.len()));
                from = start + needle.len();
            }
        }
    }
    out
}

/// The text with quotes straightened (as the rules clean it) and every
/// run of whitespace one space.
fn collapsed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = true;
    for c in text.chars() {
        let c = match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            c => c,
        };
        if c.is_whitespace() {
            if !space {
                out.push(' ');
                space = true;
            }
        } else {
            out.push(c);
            space = false;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
