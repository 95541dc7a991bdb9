//! The concept table: phrases that name one thing in different words.
//!
//! Token similarity cannot know that `Choice of Law` is `Governing Law` or
//! that `Right of Set-off` is `Setoff`; the index says so in its
//! `concepts:` list (one group of phrases per concept) and this module
//! rewrites every phrase of a group to one concept token before matching.
//! Living in the YAML keeps synonyms per document type and reviewable.

use super::tokens::stems;

/// Phrases as stem sequences, longest first, each with its concept token;
/// and by their first stem, the positions of the phrases that start with
/// it (in that order), so a word is compared only with the phrases it
/// could begin: every heading is read through the table of every type.
#[derive(Debug, Clone, Default)]
pub struct Concepts {
    phrases: Vec<(Vec<String>, String)>,
    by_first: foldhash::HashMap<String, Vec<usize>>,
}

impl Concepts {
    /// Builds the table from the YAML groups; a group's first phrase names
    /// the concept.
    pub fn new(groups: &[Vec<String>]) -> Self {
        let mut phrases = Vec::new();
        for g in groups {
            let Some(first) = g.first() else { continue };
            let token = format!("@{}", stems(first).join("_"));
            for p in g {
                let s = stems(p);
                if !s.is_empty() {
                    phrases.push((s, token.clone()));
                }
            }
        }
        phrases.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        let mut by_first: foldhash::HashMap<String, Vec<usize>> = Default::default();
        for (i, (p, _)) in phrases.iter().enumerate() {
            by_first.entry(p[0].clone()).or_default().push(i);
        }
        Self { phrases, by_first }
    }

    /// Replaces every phrase of the table found in `words` (left to right,
    /// longest phrase first) by its concept token.
    pub fn apply(&self, words: Vec<String>) -> Vec<String> {
        if self.phrases.is_empty() {
            return words;
        }
        let mut out = Vec::with_capacity(words.len());
        let mut i = 0;
        'outer: while i < words.len() {
            let starting = self.by_first.get(&words[i]).map_or(&[][..], Vec::as_slice);
            for (p, token) in starting.iter().map(|&k| &self.phrases[k]) {
                if words.len() - i >= p.len() && words[i..i + p.len()] == p[..] {
                    out.push(token.clone());
                    i += p.len();
                    continue 'outer;
                }
            }
            out.push(words[i].clone());
            i += 1;
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.phrases.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_of_a_group_become_one_token() {
        let c = Concepts::new(&[
            vec![
                "Governing Law".into(),
                "Choice of Law".into(),
                "Applicable Law".into(),
            ],
            vec!["Setoff".into(), "Right of Set-off".into(), "Set off".into()],
        ]);
        assert_eq!(
            c.apply(stems("Choice of Law")),
            c.apply(stems("Governing Law"))
        );
        assert_eq!(c.apply(stems("Right of Setoff")), c.apply(stems("Set-Off")));
        assert_eq!(
            c.apply(stems("Governing Law; Jurisdiction")),
            ["@govern_law", "jurisdict"]
        );
    }
}
