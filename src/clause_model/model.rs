//! A clause model as data: per category a bias and sparse weights over
//! [`super::features`], read from a small text file and scored as a
//! logistic regression (the probability that a paragraph is, or holds, a
//! clause of the category).
//!
//! The file is plain text so that a reviewer can read why a paragraph
//! scored as it did and diff one model against the next:
//!
//! ```text
//! # comment lines
//! categories<TAB>Anti-Assignment<TAB>Audit Rights<TAB>...
//! bias<TAB>-4.1 -5.0 ...
//! documents<TAB>103 65 ...
//! w<TAB><feature><TAB><category index>:<weight> <category index>:<weight> ...
//! ```

use super::features::Tokens;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A trained model: the categories it scores, and for each its bias and
/// the weights of the features it learned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClauseModel {
    categories: Vec<String>,
    bias: Vec<f32>,
    /// Per category, how many training documents held a clause of it: a
    /// model that saw a kind in a handful of contracts has not learned it.
    documents: Vec<u32>,
    weights: FeatureTable,
    /// The same weights by the feature's 64-bit hash ([`feature_hash`]):
    /// scoring hashes each word and word pair once, then sorts, dedups and
    /// looks up integers, never comparing strings. Two of a model's
    /// ~100,000 features sharing a hash is a one-in-10^9 event, checked
    /// when the table is built.
    by_hash: HashedTable,
}

/// A paragraph's clause score: the highest category probability, that
/// category, and the features that weigh most for it, strongest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TopScore {
    pub score: f32,
    pub category: usize,
    pub terms: Vec<(String, f32)>,
}

/// A feature of a paragraph and its (category index, weight) pairs.
type Weighed<'m, 't> = (&'t str, &'m [(u16, f32)]);

/// The highest logit and its category (the first on a tie).
fn highest(z: &[f32]) -> (f32, usize) {
    let (k, best) = z
        .iter()
        .copied()
        .enumerate()
        .fold(
            (0, f32::NEG_INFINITY),
            |m, (k, x)| if x > m.1 { (k, x) } else { m },
        );
    (best, k)
}

/// The `n` weighed features with the largest weight for `category`, by
/// magnitude, then by name.
fn strongest(weighed: &[Weighed<'_, '_>], category: usize, n: usize) -> Vec<(String, f32)> {
    let mut found: Vec<(&str, f32)> = weighed
        .iter()
        .filter_map(|&(f, ws)| {
            let w = ws.iter().find(|(k, _)| usize::from(*k) == category)?.1;
            Some((f, w))
        })
        .collect();
    let order = |a: &(&str, f32), b: &(&str, f32)| {
        b.1.abs().total_cmp(&a.1.abs()).then_with(|| a.0.cmp(b.0))
    };
    if n == 0 {
        return Vec::new();
    }
    if found.len() > n {
        found.select_nth_unstable_by(n - 1, order);
        found.truncate(n);
    }
    found.sort_by(order);
    found.into_iter().map(|(f, w)| (f.to_string(), w)).collect()
}

/// Feature -> (category index, weight).
type FeatureTable = HashMap<String, Vec<(u16, f32)>>;

/// Feature hash -> its (category index, weight) pairs, laid out in one
/// array (features in sorted order) so the table's slots stay small: a
/// paragraph's lookups touch less memory.
///
/// Most of a paragraph's features (nearly every word pair) are not in the
/// model, and each miss would still probe the table, which is larger than
/// a core's cache. A bit per 2^20 hash values in front of it (128 KiB,
/// one bit set per feature) answers most misses from the cache: a clear
/// bit means the feature is not in the table.
#[derive(Debug, Clone, PartialEq, Default)]
struct HashedTable {
    slots: HashMap<u64, (u32, u32), IdentityHash>,
    weights: Vec<(u16, f32)>,
    present: Vec<u64>,
}

/// Bits of [`HashedTable::present`]: 2^20.
const PRESENT_BITS: u32 = 20;

impl HashedTable {
    fn get(&self, h: u64) -> Option<&[(u16, f32)]> {
        if !self.may_hold(h) {
            return None;
        }
        let &(at, len) = self.slots.get(&h)?;
        Some(&self.weights[at as usize..(at + len) as usize])
    }

    /// The bit of a hash: bits the table's own probing does not start
    /// from (it takes the lowest bits for the slot and the highest for
    /// its tags).
    fn bit(h: u64) -> usize {
        ((h >> 24) & ((1 << PRESENT_BITS) - 1)) as usize
    }

    fn may_hold(&self, h: u64) -> bool {
        let b = Self::bit(h);
        self.present
            .get(b / 64)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    }

    fn mark(&mut self, h: u64) {
        let b = Self::bit(h);
        self.present[b / 64] |= 1 << (b % 64);
    }
}

/// A feature's hash: fixed, so that a model's table and a paragraph's
/// features agree in every process.
fn feature_hash(feature: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x006b_6772_6f75_7465).hash_one(feature)
}

/// The hash of a `u64` key that already is a hash.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct IdentityHash;

impl std::hash::BuildHasher for IdentityHash {
    type Hasher = IdentityHasher;
    fn build_hasher(&self) -> IdentityHasher {
        IdentityHasher(0)
    }
}

#[derive(Debug, Default)]
struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed here; any other input still hashes.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The hashed table of `weights`; `None` when two features share a hash.
fn by_hash(weights: &FeatureTable) -> Option<HashedTable> {
    let mut features: Vec<&String> = weights.keys().collect();
    features.sort_unstable();
    let mut out = HashedTable {
        slots: HashMap::with_capacity_and_hasher(features.len(), IdentityHash),
        weights: Vec::with_capacity(weights.values().map(Vec::len).sum()),
        present: vec![0; (1 << PRESENT_BITS) / 64],
    };
    for f in features {
        let ws = &weights[f];
        let at = out.weights.len() as u32;
        out.weights.extend_from_slice(ws);
        let h = feature_hash(f);
        if out.slots.insert(h, (at, ws.len() as u32)).is_some() {
            return None;
        }
        out.mark(h);
    }
    Some(out)
}

/// What is wrong with a model file, with its line.
#[derive(Debug, thiserror::Error)]
#[error("clause model line {line}: {what}")]
pub struct ModelError {
    pub line: usize,
    pub what: String,
}

impl ClauseModel {
    /// A model of these categories with these biases and weights
    /// (`weights[feature]` lists `(category index, weight)`).
    pub fn new(
        categories: Vec<String>,
        bias: Vec<f32>,
        documents: Vec<u32>,
        weights: HashMap<String, Vec<(u16, f32)>>,
    ) -> ClauseModel {
        assert_eq!(categories.len(), bias.len(), "one bias per category");
        assert_eq!(categories.len(), documents.len(), "one count per category");
        let by_hash = by_hash(&weights).expect("two features of a trained model share a hash");
        ClauseModel {
            categories,
            bias,
            documents,
            weights,
            by_hash,
        }
    }

    /// How many training documents held a clause of the category (0 when
    /// the file does not say).
    pub fn documents(&self, category: usize) -> u32 {
        self.documents.get(category).copied().unwrap_or(0)
    }

    /// The categories, in score order.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }

    /// The index of a category (exact CUAD spelling, any case).
    pub fn category_index(&self, category: &str) -> Option<usize> {
        self.categories
            .iter()
            .position(|c| c.eq_ignore_ascii_case(category))
    }

    /// Features with at least one weight.
    pub fn feature_count(&self) -> usize {
        self.weights.len()
    }

    /// The probability, per category, that the paragraph `text` under the
    /// section titled `title` is a clause of that category.
    pub fn score(&self, title: &str, text: &str) -> Vec<f32> {
        self.logits(title, text).into_iter().map(sigmoid).collect()
    }

    /// Per category, the weighted sum before the logistic.
    fn logits(&self, title: &str, text: &str) -> Vec<f32> {
        let tokens = Tokens::of(title, text);
        self.weigh(&tokens).0
    }

    /// Per category, the weighted sum before the logistic, and each
    /// feature of the paragraph the model has weights for, with them.
    /// Features are hashed once and deduplicated by hash; the sums run in
    /// hash order, so a score does not depend on the word order.
    fn weigh<'m, 't>(&'m self, tokens: &'t Tokens) -> (Vec<f32>, Vec<Weighed<'m, 't>>) {
        let mut features: Vec<(u64, &str)> = Vec::with_capacity(tokens.feature_count());
        features.extend(tokens.all_features().map(|f| (feature_hash(f), f)));
        features.sort_unstable_by_key(|f| f.0);
        features.dedup_by_key(|f| f.0);
        let x = feature_value(features.len());
        let mut z: Vec<f32> = self.bias.clone();
        let mut weighed = Vec::new();
        for (h, feature) in features {
            if let Some(ws) = self.by_hash.get(h) {
                for &(k, w) in ws {
                    z[usize::from(k)] += x * w;
                }
                weighed.push((feature, ws));
            }
        }
        (z, weighed)
    }

    /// The highest of [`ClauseModel::score`]'s probabilities and its
    /// category, with one logistic instead of one per category (the
    /// logistic is monotone): what routing by content asks of every
    /// paragraph.
    pub fn top(&self, title: &str, text: &str) -> (f32, usize) {
        let z = self.logits(title, text);
        let (best, k) = highest(&z);
        (sigmoid(best), k)
    }

    /// [`ClauseModel::top`] with the `n` features that weigh most for the
    /// top category ([`ClauseModel::explain`]), read from the same pass
    /// over the paragraph's features.
    pub fn top_explained(&self, title: &str, text: &str, n: usize) -> TopScore {
        let tokens = Tokens::of(title, text);
        let (z, weighed) = self.weigh(&tokens);
        let (best, category) = highest(&z);
        TopScore {
            score: sigmoid(best),
            category,
            terms: strongest(&weighed, category, n),
        }
    }

    /// The `n` features of the paragraph that weigh most for `category`,
    /// strongest first, with their weights: why it scored as it did.
    pub fn explain(
        &self,
        title: &str,
        text: &str,
        category: usize,
        n: usize,
    ) -> Vec<(String, f32)> {
        let tokens = Tokens::of(title, text);
        strongest(&self.weigh(&tokens).1, category, n)
    }

    /// Reads a model from its text form.
    pub fn parse(text: &str) -> Result<ClauseModel, ModelError> {
        let err = |line: usize, what: &str| ModelError {
            line,
            what: what.to_string(),
        };
        let mut categories: Option<Vec<String>> = None;
        let mut bias: Option<Vec<f32>> = None;
        let mut documents: Option<Vec<u32>> = None;
        let mut weights = FeatureTable::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, rest) = line
                .split_once('\t')
                .ok_or_else(|| err(n, "no tab after the first field"))?;
            match key {
                "categories" => {
                    categories = Some(rest.split('\t').map(str::to_string).collect());
                }
                "bias" => {
                    let cats = categories
                        .as_ref()
                        .ok_or_else(|| err(n, "`bias` before `categories`"))?;
                    let b: Vec<f32> = rest
                        .split(' ')
                        .map(|v| {
                            v.parse::<f32>()
                                .map_err(|_| err(n, "a bias is not a number"))
                        })
                        .collect::<Result<_, _>>()?;
                    if b.len() != cats.len() {
                        return Err(err(n, "not one bias per category"));
                    }
                    bias = Some(b);
                }
                "documents" => {
                    let cats = categories
                        .as_ref()
                        .ok_or_else(|| err(n, "`documents` before `categories`"))?;
                    let d: Vec<u32> = rest
                        .split(' ')
                        .map(|v| {
                            v.parse::<u32>()
                                .map_err(|_| err(n, "a count is not a number"))
                        })
                        .collect::<Result<_, _>>()?;
                    if d.len() != cats.len() {
                        return Err(err(n, "not one count per category"));
                    }
                    documents = Some(d);
                }
                "w" => {
                    let (feature, rest) = rest
                        .split_once('\t')
                        .ok_or_else(|| err(n, "no tab after the feature"))?;
                    let cats = categories
                        .as_ref()
                        .ok_or_else(|| err(n, "a weight before `categories`"))?;
                    let mut ws = Vec::new();
                    for pair in rest.split(' ') {
                        let (k, w) = pair
                            .split_once(':')
                            .ok_or_else(|| err(n, "a weight is not `index:value`"))?;
                        let k: u16 = k
                            .parse()
                            .map_err(|_| err(n, "a category index is not a number"))?;
                        if usize::from(k) >= cats.len() {
                            return Err(err(n, "a category index past the categories"));
                        }
                        let w: f32 = w.parse().map_err(|_| err(n, "a weight is not a number"))?;
                        ws.push((k, w));
                    }
                    if weights.insert(feature.to_string(), ws).is_some() {
                        return Err(err(n, "a feature listed twice"));
                    }
                }
                _ => return Err(err(n, "not `categories`, `bias` or `w`")),
            }
        }
        let categories = categories.ok_or_else(|| err(0, "no `categories` line"))?;
        let bias = bias.ok_or_else(|| err(0, "no `bias` line"))?;
        let documents = documents.unwrap_or_else(|| vec![0; categories.len()]);
        let by_hash = by_hash(&weights).ok_or_else(|| {
            err(
                0,
                "two features share a hash; retrain, or report this model",
            )
        })?;
        Ok(ClauseModel {
            categories,
            bias,
            documents,
            weights,
            by_hash,
        })
    }

    /// The text form [`ClauseModel::parse`] reads, features sorted, under
    /// the given comment lines.
    pub fn to_text(&self, comments: &[String]) -> String {
        let mut out = String::new();
        for c in comments {
            for l in c.lines() {
                let _ = writeln!(out, "# {l}");
            }
        }
        let _ = writeln!(out, "categories\t{}", self.categories.join("\t"));
        let bias: Vec<String> = self.bias.iter().map(|b| fmt_weight(*b)).collect();
        let _ = writeln!(out, "bias\t{}", bias.join(" "));
        let documents: Vec<String> = self.documents.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "documents\t{}", documents.join(" "));
        let mut features: Vec<&String> = self.weights.keys().collect();
        features.sort();
        for f in features {
            let ws: Vec<String> = self.weights[f]
                .iter()
                .map(|(k, w)| format!("{k}:{}", fmt_weight(*w)))
                .collect();
            let _ = writeln!(out, "w\t{f}\t{}", ws.join(" "));
        }
        out
    }
}

/// Four decimals: below the noise of training, and a diff of two models
/// shows what moved.
fn fmt_weight(w: f32) -> String {
    let s = format!("{w:.4}");
    if s == "-0.0000" {
        "0.0000".to_string()
    } else {
        s
    }
}

/// The value of each present feature of a paragraph with `n` features:
/// `1 / sqrt(n)`, so that the vector has unit length and a long paragraph
/// does not score high for holding many words.
pub(super) fn feature_value(n: usize) -> f32 {
    1.0 / (n.max(1) as f32).sqrt()
}

pub(super) fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> ClauseModel {
        let mut w = HashMap::new();
        // Feature values are 1/sqrt(n): weights of a few units per word.
        w.insert("insurance".to_string(), vec![(0u16, 16.0f32)]);
        w.insert("h:insurance".to_string(), vec![(0, 8.0)]);
        w.insert("assign".to_string(), vec![(1, 20.0), (0, -4.0)]);
        ClauseModel::new(
            vec!["Insurance".into(), "Anti-Assignment".into()],
            vec![-3.0, -3.0],
            vec![40, 90],
            w,
        )
    }

    #[test]
    fn scores_are_probabilities_that_follow_the_weights() {
        let m = tiny();
        let s = m.score("Insurance", "Supplier shall maintain insurance.");
        assert!(s[0] > 0.9 && s[1] < 0.1, "{s:?}");
        let s = m.score("", "Neither party may assign this Agreement.");
        assert!(s[1] > 0.8 && s[0] < 0.05, "{s:?}");
    }

    #[test]
    fn the_text_form_reads_back_to_the_same_model() {
        let m = tiny();
        let text = m.to_text(&["trained on nothing".to_string()]);
        assert!(text.starts_with("# trained on nothing\n"));
        assert_eq!(ClauseModel::parse(&text).unwrap(), m);
    }

    #[test]
    fn explain_names_the_heaviest_features_first() {
        let m = tiny();
        let e = m.explain("Insurance", "maintain insurance", 0, 5);
        assert_eq!(e[0].0, "insurance");
        assert_eq!(e[1].0, "h:insurance");
    }

    /// Scoring by hashed features gives what the feature table gives, on
    /// the shipped model and paragraphs with numbers, compounds, repeats
    /// and a title.
    #[test]
    fn hashed_scoring_is_the_feature_tables_scoring() {
        let m = crate::clause_model::shipped();
        let by_table = |title: &str, text: &str| -> Vec<f32> {
            let fs = crate::clause_model::features(title, text);
            let x = feature_value(fs.len());
            let mut z = m.bias.clone();
            for f in &fs {
                for &(k, w) in m.weights.get(f).map_or(&[][..], Vec::as_slice) {
                    z[usize::from(k)] += x * w;
                }
            }
            z.into_iter().map(sigmoid).collect()
        };
        for (title, text) in [
            ("Section 9. Insurance", "Supplier shall maintain insurance of $1,000,000.50 at all times; insurance shall name the Company."),
            ("", "Neither party may assign this Agreement without the prior written consent of the other party, such consent not to be unreasonably withheld."),
            ("ARTICLE IV Non-Competition", "During the Term and for two (2) years after, the Distributor shall not sell competing products, non-compete, non-compete."),
            ("Term", ""),
        ] {
            // The same sums in another order: equal to float rounding.
            let (a, b) = (m.score(title, text), by_table(title, text));
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-4 * y.abs().max(1e-6), "{text}: {a:?} vs {b:?}");
            }
        }
    }

    /// One pass gives what scoring and explaining give apart.
    #[test]
    fn top_explained_is_top_with_explain() {
        let m = crate::clause_model::shipped();
        for (title, text) in [
            ("Assignment", "Neither party may assign this Agreement without the prior written consent of the other party."),
            ("", "This Agreement shall be governed by the laws of the State of New York."),
            ("Notices", ""),
        ] {
            let t = m.top_explained(title, text, 5);
            let (score, category) = m.top(title, text);
            assert_eq!((t.score, t.category), (score, category), "{text}");
            assert_eq!(t.terms, m.explain(title, text, category, 5), "{text}");
            assert!(t.terms.len() <= 5);
            assert!(t.terms.windows(2).all(|w| w[0].1.abs() >= w[1].1.abs()), "{:?}", t.terms);
        }
        assert!(!m
            .top_explained("Assignment", "Neither party may assign this Agreement.", 3)
            .terms
            .is_empty());
    }

    #[test]
    fn a_damaged_file_is_refused_with_its_line() {
        let bad = "categories\tA\tB\nbias\t0 0\nw\tword\t0:1 7:2\n";
        let e = ClauseModel::parse(bad).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.to_string().contains("past the categories"), "{e}");
        let e = ClauseModel::parse("categories\tA\nbias\t0 0\n").unwrap_err();
        assert!(e.to_string().contains("one bias per category"), "{e}");
        assert!(ClauseModel::parse("w\tword\t0:1\n").is_err());
        assert!(ClauseModel::parse("categories\tA\nbias\t0\nword\t0:1\n").is_err());
    }
}
