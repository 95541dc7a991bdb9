//! "Which contracts ...?" evaluated (issue 35 item 2), run by
//! `scripts/ask-eval --contracts BATCH`: every CUAD category question
//! (`Category: description` from categories.json) asked with
//! `ask --contracts` over an ingested batch of the 260 CUAD contracts;
//! contract precision and recall against labels.json per category and
//! macro, per half (in each type folder, sorted names, even tune, odd
//! check), beside the retrieval-only ranking (contracts whose best section
//! scores at least half the best's).
//!
//! Usage: cargo run --example ask_contracts -- CUAD_DIR BATCH

use kgroute::ask::which_contracts::{
    agreeing, categories_in, facts_of, shares, Agreement, AGREEMENT, RETRIEVAL_POOL,
    RETRIEVAL_SHARE,
};
use kgroute::extract::facts_vocabulary::category_relation_type;
use kgroute::search::SearchIndex;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(
        args.first()
            .map(String::as_str)
            .unwrap_or("../shared/corpora/cuad"),
    );
    let batch = PathBuf::from(args.get(1).map(String::as_str).unwrap_or("/tmp/ask-cuad"));
    let labels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("labels.json"))?)?;
    let cats: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("categories.json"))?)?;
    let labels = labels.as_object().expect("labels.json is an object");

    // Half of each labelled file.
    let mut by_type: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for k in labels.keys() {
        let t = k.split('/').next().unwrap_or_default().to_string();
        by_type.entry(t).or_default().push(k.clone());
    }
    let mut tune_of: HashMap<String, bool> = HashMap::new();
    for ks in by_type.values_mut() {
        ks.sort();
        for (i, k) in ks.iter().enumerate() {
            tune_of.insert(k.clone(), i % 2 == 0);
        }
    }
    // doc id -> labels key, from the batch's document lines.
    let mut key_of: HashMap<String, String> = HashMap::new();
    kgroute::sink::parts::each_line(&batch.join("graph"), |line| {
        if !line.contains("\"kind\":\"document\"") {
            return Ok(());
        }
        let v: serde_json::Value = serde_json::from_str(line)?;
        let path = v["path"].as_str().unwrap_or_default();
        let mut parts = path.rsplit('/');
        if let (Some(f), Some(t)) = (parts.next(), parts.next()) {
            key_of.insert(
                v["doc_id"].as_str().unwrap_or_default().to_string(),
                format!("{t}/{f}"),
            );
        }
        Ok(())
    })?;
    let index = SearchIndex::open(&batch)?;

    // Label names -> their question.
    let mut names: Vec<String> = labels
        .values()
        .filter_map(|e| e["clauses"].as_object())
        .flat_map(|c| c.keys().cloned())
        .filter(|n| n != "Document Name" && n != "Parties")
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    names.sort();
    println!(
        "{} contracts in the batch; {} categories\n",
        key_of.len(),
        names.len()
    );
    println!(
        "{:<36} {:>4} | {:>17} {:>17} | {:>17} {:>17}",
        "category", "", "tune graph P/R", "tune retr. P/R", "check graph P/R", "check retr. P/R"
    );
    let mut macro_: [[(f64, f64); 2]; 2] = [[(0.0, 0.0); 2]; 2];
    let mut counted = [0usize; 2];
    let mut mapped_wrong = 0;
    let mut grid = vec![[(0.0f64, 0.0f64); 2]; GRID.len()];
    for name in &names {
        let cat = |c: &&serde_json::Value| c["category"].as_str().unwrap_or_default().to_string();
        let exact = cats
            .iter()
            .find(|c| category_relation_type(&cat(c)) == category_relation_type(name));
        let Some(c) = exact.or_else(|| cats.iter().find(|c| same_category(&cat(c), name))) else {
            eprintln!("ask-contracts: `{name}` has no question in categories.json; left out");
            continue;
        };
        let q = format!(
            "{}: {}",
            c["category"].as_str().unwrap_or_default(),
            c["description"].as_str().unwrap_or_default()
        );
        let mapped = categories_in(&q);
        if !mapped
            .iter()
            .any(|m| category_relation_type(m) == category_relation_type(name))
        {
            mapped_wrong += 1;
            eprintln!("ask-contracts: `{name}` mapped to {mapped:?}");
        }
        let facts = facts_of(&batch, &mapped)?;
        let sh = shares(&index, &q, RETRIEVAL_POOL)?;
        let keyed = |docs: Vec<&str>| -> HashSet<String> {
            docs.into_iter()
                .filter_map(|d| key_of.get(d).cloned())
                .collect()
        };
        let retr = keyed(
            sh.iter()
                .filter(|(_, (s, _))| *s >= RETRIEVAL_SHARE)
                .map(|(d, _)| d.as_str())
                .collect(),
        );
        // What `ask --contracts` lists with each way of agreeing (the
        // retrieval fallback when the graph has no fact of the category).
        let said_by = |how: &Agreement| -> HashSet<String> {
            if facts.is_empty() {
                retr.clone()
            } else {
                keyed(agreeing(facts.keys(), &sh, how))
            }
        };
        for (g, how) in GRID.iter().enumerate() {
            let set = said_by(how);
            for (h, tune) in [true, false].into_iter().enumerate() {
                if let Some((p, r)) = pr(&set, labels, &tune_of, name, tune) {
                    grid[g][h].0 += p;
                    grid[g][h].1 += r;
                }
            }
        }
        let said = said_by(&AGREEMENT);
        let (said, retr): (HashSet<&str>, HashSet<&str>) = (
            said.iter().map(String::as_str).collect(),
            retr.iter().map(String::as_str).collect(),
        );
        let mut line = format!("{name:<36}      |");
        for (h, tune) in [true, false].into_iter().enumerate() {
            let truth: HashSet<&str> = labels
                .iter()
                .filter(|(k, e)| {
                    tune_of.get(*k) == Some(&tune)
                        && e["clauses"][name.as_str()]
                            .as_array()
                            .is_some_and(|a| !a.is_empty())
                })
                .map(|(k, _)| k.as_str())
                .collect();
            if truth.is_empty() {
                line += &format!(" {:>17} {:>17} |", "-", "-");
                continue;
            }
            counted[h] += 1;
            for (m, set) in [&said, &retr].into_iter().enumerate() {
                let mine: HashSet<&str> = set
                    .iter()
                    .copied()
                    .filter(|k| tune_of.get(*k) == Some(&tune))
                    .collect();
                let tp = mine.intersection(&truth).count() as f64;
                let p = if mine.is_empty() {
                    0.0
                } else {
                    tp / mine.len() as f64
                };
                let r = tp / truth.len() as f64;
                macro_[h][m].0 += p;
                macro_[h][m].1 += r;
                line += &format!(" {:>8.0}/{:<3.0}({:>3})", 100.0 * p, 100.0 * r, truth.len());
            }
            line += " |";
        }
        println!("{line}");
    }
    println!();
    for (h, half) in ["tune", "check"].into_iter().enumerate() {
        let n = counted[h].max(1) as f64;
        println!(
            "{half:5} macro over {} categories: --contracts P {:.1}% R {:.1}%; retrieval only P {:.1}% R {:.1}%",
            counted[h],
            100.0 * macro_[h][0].0 / n,
            100.0 * macro_[h][0].1 / n,
            100.0 * macro_[h][1].0 / n,
            100.0 * macro_[h][1].1 / n
        );
    }
    println!("questions mapped to another category: {mapped_wrong}");
    println!("\nways of agreeing (confirm: share a fact's contract needs; alone: share a contract without one needs):");
    for (g, how) in GRID.iter().enumerate() {
        let mut line = format!("confirm {:.2} alone {:.2}:", how.confirm, how.alone);
        for (h, half) in ["tune", "check"].into_iter().enumerate() {
            let n = counted[h].max(1) as f64;
            line += &format!(
                "  {half} P {:.1}% R {:.1}%",
                100.0 * grid[g][h].0 / n,
                100.0 * grid[g][h].1 / n
            );
        }
        println!("{line}");
    }
    Ok(())
}

const GRID: &[Agreement] = &[
    Agreement {
        confirm: 0.0,
        alone: 2.0,
    },
    Agreement {
        confirm: 0.05,
        alone: 2.0,
    },
    Agreement {
        confirm: 0.1,
        alone: 2.0,
    },
    Agreement {
        confirm: 0.15,
        alone: 2.0,
    },
    Agreement {
        confirm: 0.2,
        alone: 2.0,
    },
    Agreement {
        confirm: 0.3,
        alone: 2.0,
    },
    Agreement {
        confirm: 0.0,
        alone: 0.7,
    },
    Agreement {
        confirm: 0.0,
        alone: 0.8,
    },
    Agreement {
        confirm: 0.0,
        alone: 0.9,
    },
    Agreement {
        confirm: 0.1,
        alone: 0.7,
    },
    Agreement {
        confirm: 0.1,
        alone: 0.8,
    },
    Agreement {
        confirm: 0.15,
        alone: 0.8,
    },
    Agreement {
        confirm: 0.2,
        alone: 0.9,
    },
];

/// Precision and recall of `set` (label keys) for `name` on one half;
/// `None` when the half has no labelled contract.
fn pr(
    set: &HashSet<String>,
    labels: &serde_json::Map<String, serde_json::Value>,
    tune_of: &HashMap<String, bool>,
    name: &str,
    tune: bool,
) -> Option<(f64, f64)> {
    let truth: HashSet<&str> = labels
        .iter()
        .filter(|(k, e)| {
            tune_of.get(*k) == Some(&tune)
                && e["clauses"][name].as_array().is_some_and(|a| !a.is_empty())
        })
        .map(|(k, _)| k.as_str())
        .collect();
    if truth.is_empty() {
        return None;
    }
    let mine: HashSet<&str> = set
        .iter()
        .map(String::as_str)
        .filter(|k| tune_of.get(*k) == Some(&tune))
        .collect();
    let tp = mine.intersection(&truth).count() as f64;
    let p = if mine.is_empty() {
        0.0
    } else {
        tp / mine.len() as f64
    };
    Some((p, tp / truth.len() as f64))
}

/// `Notice Period To Terminate Renewal` (labels) is `Notice to Terminate
/// Renewal` in categories.json: the same when one's words hold the other's.
fn same_category(a: &str, b: &str) -> bool {
    let words = |s: &str| -> HashSet<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (x, y) = (words(a), words(b));
    x == y || (x.len() >= 2 && x.is_subset(&y)) || (y.len() >= 2 && y.is_subset(&x))
}
