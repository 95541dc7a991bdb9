//! Training a [`ClauseModel`]: one logistic regression per category over
//! the same binary features, fitted by FTRL-proximal (per-feature adaptive
//! steps with an L1 term). The L1 term is why the shipped file stays
//! small and readable: a feature that does not help a category gets no
//! weight for it at all.
//!
//! Deterministic: the examples are visited in an order drawn from a fixed
//! seed, so the same data and parameters give the same file.

use super::model::{sigmoid, ClauseModel};
use std::collections::{BTreeMap, HashMap};

/// One training paragraph: its features and the categories it holds.
#[derive(Debug, Clone)]
pub struct Example {
    pub features: Vec<String>,
    /// Indices into the categories the model is trained for.
    pub positive: Vec<u16>,
    /// The document it comes from: a feature seen in fewer than
    /// [`Params::min_documents`] documents is not learned, so the model
    /// keeps words of the clause kind, not of one contract.
    pub document: usize,
}

/// Training settings; [`Params::default`] is what the shipped model used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub alpha: f32,
    pub beta: f32,
    pub l1: f32,
    pub l2: f32,
    pub epochs: usize,
    /// How much a positive paragraph's error weighs against a negative
    /// one's: clause paragraphs are a few in a hundred, and unweighted the
    /// model learns that saying no is almost always right.
    pub positive_weight: f32,
    pub min_documents: usize,
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            alpha: 2.0,
            beta: 1.0,
            l1: 0.3,
            l2: 1.0,
            epochs: 30,
            positive_weight: 4.0,
            min_documents: 3,
            seed: 0x006b_6772_6f75_7465,
        }
    }
}

impl std::fmt::Display for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FTRL-proximal alpha {} beta {} l1 {} l2 {}, {} epochs, positives weighing {}, features seen in {}+ documents, seed {:#x}",
            self.alpha, self.beta, self.l1, self.l2, self.epochs, self.positive_weight, self.min_documents, self.seed
        )
    }
}

/// Per-coordinate FTRL state of one weight.
#[derive(Clone, Copy, Default)]
struct Coord {
    z: f32,
    n: f32,
}

impl Coord {
    fn weight(&self, p: &Params, l1: f32) -> f32 {
        if self.z.abs() <= l1 {
            return 0.0;
        }
        -(self.z - self.z.signum() * l1) / ((p.beta + self.n.sqrt()) / p.alpha + p.l2)
    }

    fn update(&mut self, p: &Params, g: f32, w: f32) {
        let sigma = ((self.n + g * g).sqrt() - self.n.sqrt()) / p.alpha;
        self.z += g - sigma * w;
        self.n += g * g;
    }
}

/// Trains a model of `categories` on `examples`.
pub fn train(categories: &[String], examples: &[Example], p: &Params) -> ClauseModel {
    let k = categories.len();
    let vocab = vocabulary(examples, p.min_documents);
    let encoded: Vec<Vec<u32>> = examples
        .iter()
        .map(|e| {
            e.features
                .iter()
                .filter_map(|f| vocab.get(f).copied())
                .collect()
        })
        .collect();
    // Each feature's value, as scoring gives it: one over the root of
    // the paragraph's feature count.
    let scales: Vec<f32> = examples
        .iter()
        .map(|e| super::model::feature_value(e.features.len()))
        .collect();
    let mut coords = vec![Coord::default(); vocab.len() * k];
    let mut bias = vec![Coord::default(); k];
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = p.seed;
    let mut y = vec![0f32; k];
    let mut w = Vec::new();
    for _ in 0..p.epochs {
        shuffle(&mut order, &mut rng);
        for &i in &order {
            y.iter_mut().for_each(|v| *v = 0.0);
            for &c in &examples[i].positive {
                y[usize::from(c)] = 1.0;
            }
            for c in 0..k {
                let wb = bias[c].weight(p, 0.0);
                w.clear();
                w.extend(
                    encoded[i]
                        .iter()
                        .map(|&f| coords[f as usize * k + c].weight(p, p.l1)),
                );
                let x = scales[i];
                let g = (sigmoid(wb + x * w.iter().sum::<f32>()) - y[c])
                    * if y[c] > 0.0 { p.positive_weight } else { 1.0 };
                bias[c].update(p, g, wb);
                for (&f, &wf) in encoded[i].iter().zip(&w) {
                    coords[f as usize * k + c].update(p, g * x, wf);
                }
            }
        }
    }
    let names = {
        let mut v: Vec<(&String, u32)> = vocab.iter().map(|(f, &i)| (f, i)).collect();
        v.sort_by_key(|(_, i)| *i);
        v
    };
    let mut weights: HashMap<String, Vec<(u16, f32)>> = HashMap::new();
    for (f, i) in names {
        let ws: Vec<(u16, f32)> = (0..k)
            .filter_map(|c| {
                let w = coords[i as usize * k + c].weight(p, p.l1);
                // What the text form would print as zero is no weight.
                (w.abs() >= 5e-5).then_some((c as u16, w))
            })
            .collect();
        if !ws.is_empty() {
            weights.insert(f.clone(), ws);
        }
    }
    let bias = bias.iter().map(|b| b.weight(p, 0.0)).collect();
    let mut documents = vec![std::collections::BTreeSet::new(); k];
    for e in examples {
        for &c in &e.positive {
            documents[usize::from(c)].insert(e.document);
        }
    }
    let documents = documents.iter().map(|d| d.len() as u32).collect();
    ClauseModel::new(categories.to_vec(), bias, documents, weights)
}

/// Features seen in at least `min_documents` documents, numbered in
/// sorted order (so numbering does not depend on the examples' order).
fn vocabulary(examples: &[Example], min_documents: usize) -> HashMap<String, u32> {
    let mut seen: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for e in examples {
        for f in &e.features {
            let s = seen.entry(f.as_str()).or_insert((usize::MAX, 0));
            if s.0 != e.document {
                *s = (e.document, s.1 + 1);
            }
        }
    }
    seen.into_iter()
        .filter(|(_, (_, docs))| *docs >= min_documents)
        .enumerate()
        .map(|(i, (f, _))| (f.to_string(), i as u32))
        .collect()
}

/// Fisher-Yates with a 64-bit LCG: the same seed, the same order, on
/// every platform.
fn shuffle(v: &mut [usize], state: &mut u64) {
    for i in (1..v.len()).rev() {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = ((*state >> 33) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(text: &str, positive: &[u16], document: usize) -> Example {
        Example {
            features: super::super::features("", text),
            positive: positive.to_vec(),
            document,
        }
    }

    /// A toy corpus where one word marks one category: the model must
    /// find it, weigh nothing that does not help, and score unseen text
    /// by it.
    #[test]
    fn learns_the_word_that_marks_a_category_and_nothing_else() {
        let cats = vec!["Insurance".to_string(), "Audit Rights".to_string()];
        let mut examples = Vec::new();
        for d in 0..30 {
            examples.push(ex(
                "the supplier shall maintain insurance coverage",
                &[0],
                d,
            ));
            examples.push(ex("the buyer may audit the books and records", &[1], d));
            examples.push(ex("the supplier shall deliver the goods on time", &[], d));
            examples.push(ex("the buyer shall pay the price", &[], d));
        }
        // Seen in one document only: never learned.
        examples.push(ex("zebulon insurance", &[0], 99));
        let m = train(&cats, &examples, &Params::default());
        let s = m.score("", "Licensee shall keep insurance in force");
        assert!(s[0] > 0.5 && s[1] < 0.2, "{s:?}");
        let s = m.score("", "Licensor may audit Licensee");
        assert!(s[1] > 0.5 && s[0] < 0.2, "{s:?}");
        let s = m.score("", "Licensee shall deliver the price");
        assert!(s[0] < 0.2 && s[1] < 0.2, "{s:?}");
        assert!(m.explain("", "zebulon", 0, 3).is_empty());
        // The same data gives the same model.
        assert_eq!(m, train(&cats, &examples, &Params::default()));
    }
}
