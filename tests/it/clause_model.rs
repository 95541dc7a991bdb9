//! The shipped clause model against the shared CUAD contracts it was not
//! trained on (the checking half of the fixed split), and its provenance:
//! trained from these labels, on the tuning half only.

use super::util;
use kgroute::clause_model::{shipped, SHIPPED_TEXT};
use kgroute::extract::facts_vocabulary::CATEGORIES;
use kgroute::extract::rules::paragraphs_of;
use kgroute::tree::{build_tree, SourceText};
use sha2::Digest;
use std::collections::BTreeMap;

/// Area under the ROC curve: the chance that a random contract with the
/// clause kind scores above a random one without it.
fn auc(yes: &[f32], no: &[f32]) -> f64 {
    let mut wins = 0.0;
    for &y in yes {
        for &n in no {
            wins += if y > n {
                1.0
            } else if y == n {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (yes.len() * no.len()) as f64
}

#[test]
fn the_shipped_model_is_whole_and_names_how_it_was_made() {
    let m = shipped();
    assert_eq!(
        m.categories(),
        CATEGORIES,
        "the categories typed facts hold"
    );
    assert!(m.feature_count() > 1_000, "{}", m.feature_count());
    for want in [
        "rebuilt by scripts/train-clause-model",
        "trained on the tuning half of the shared CUAD split",
        "cuad/labels.json sha256 ",
        "FTRL-proximal",
    ] {
        assert!(
            SHIPPED_TEXT.lines().take(10).any(|l| l.contains(want)),
            "the model file says `{want}`"
        );
    }
}

/// On contracts it never saw, the model's best paragraph score tells the
/// contracts that have a clause kind from those that do not, for every
/// kind it has learned (CUAD's own per-contract answers as truth); and the
/// labels it was trained from are the shared ones, unchanged.
#[test]
fn on_the_checking_half_the_model_ranks_contracts_with_a_clause_kind_first() {
    let Some(corpora) = util::corpora_or_skip() else {
        return;
    };
    let cuad = corpora.join("cuad");
    let labels = std::fs::read(cuad.join("labels.json")).unwrap();
    let hash: String = sha2::Sha256::digest(&labels)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(
        SHIPPED_TEXT.contains(&format!("cuad/labels.json sha256 {hash}")),
        "the shipped model was trained from other labels than {}; rebuild it with scripts/train-clause-model",
        cuad.join("labels.json").display()
    );
    let answers: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cuad.join("answers.json")).unwrap()).unwrap();
    let m = shipped();
    let learned: Vec<usize> = (0..m.categories().len())
        .filter(|&k| m.say(&vec![0.0; m.categories().len()], k).is_some())
        .collect();
    assert!(learned.len() >= 15, "{} kinds learned", learned.len());
    let mut by_kind: BTreeMap<usize, (Vec<f32>, Vec<f32>)> = BTreeMap::new();
    for (path, check) in util::cuad_documents() {
        if !check {
            continue;
        }
        let key = format!(
            "{}/{}",
            path.parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy(),
            path.file_name().unwrap().to_string_lossy()
        );
        let source = SourceText::read(&path, true).unwrap();
        let tree = build_tree(&source);
        let mut best = vec![0f32; m.categories().len()];
        for node in tree.iter() {
            let text = source.byte_span_text(node.start_byte, node.end_byte);
            for p in paragraphs_of(text) {
                for (k, s) in m.score(&node.title, &p).into_iter().enumerate() {
                    best[k] = best[k].max(s);
                }
            }
        }
        for &k in &learned {
            let yes = answers[key.as_str()][m.categories()[k].as_str()]
                .as_str()
                .is_some_and(|a| !a.is_empty() && !a.eq_ignore_ascii_case("no"));
            let e = by_kind.entry(k).or_default();
            if yes {
                e.0.push(best[k]);
            } else {
                e.1.push(best[k]);
            }
        }
    }
    let mut weak = Vec::new();
    let mut sum = 0.0;
    let mut n = 0;
    for (k, (yes, no)) in &by_kind {
        if yes.len() < 5 || no.len() < 5 {
            continue;
        }
        let a = auc(yes, no);
        sum += a;
        n += 1;
        if a < 0.75 {
            weak.push(format!("{} {a:.2}", m.categories()[*k]));
        }
    }
    let mean = sum / n as f64;
    assert!(mean >= 0.88, "mean AUC {mean:.3} over {n} kinds");
    assert!(
        weak.is_empty(),
        "kinds the model barely tells apart: {weak:?}"
    );
}
