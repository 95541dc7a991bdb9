//! From what people type to a CUAD category: one place for `kgroute
//! contracts --has/--lacks` and `ask --contracts`, so `non-compete`,
//! `noncompete`, `cap on liability`, `MFN` and `ROFR` name the same
//! category everywhere, and a miss says which names are near.

use crate::extract::facts_vocabulary::CATEGORIES;
use crate::search::reader::analysed;

/// The CUAD categories a question names: a category whose name's words
/// (stemmed) all occur in the question; when one such name's words are
/// a subset of another's, the longer name wins; when some names are said
/// in order (at most one word between), only the longest of those.
pub fn categories_in(question: &str) -> Vec<&'static str> {
    let q = analysed(question);
    let mut found: Vec<(&'static str, Vec<String>, bool)> = Vec::new();
    for c in CATEGORIES {
        let words = category_words(c);
        if words.is_empty() || !words.iter().all(|w| q.contains(w)) {
            continue;
        }
        let run = in_order(&q, &words);
        found.push((c, words, run));
    }
    // A name whose words another found name holds is that one's part.
    let all = found.clone();
    found.retain(|(_, w, _)| {
        !all.iter()
            .any(|(_, o, _)| o.len() > w.len() && w.iter().all(|x| o.contains(x)))
    });
    // When some names are said as a run, the others are incidental words;
    // of those said, the longest name is the category asked about (a
    // question describing `Competitive Restriction Exception` names the
    // `Non-Compete` it is an exception to).
    if found.iter().any(|f| f.2) {
        found.retain(|f| f.2);
        let most = found.iter().map(|f| f.1.len()).max().unwrap_or(0);
        found.retain(|f| f.1.len() == most);
    }
    found.into_iter().map(|f| f.0).collect()
}

/// A category's name as the search analyser reads it (stemmed, without
/// stop words), `-` and `/` read as spaces.
fn category_words(category: &str) -> Vec<String> {
    analysed(&category.replace(['-', '/'], " "))
}

/// True when `words` occur in `q` in order, at most one other word
/// between two of them (`Affiliate IP License-Licensee` says the category
/// `Affiliate License-Licensee`).
fn in_order(q: &[String], words: &[String]) -> bool {
    (0..q.len()).any(|start| {
        let mut at = start;
        for (i, w) in words.iter().enumerate() {
            let reach = if i == 0 { at + 1 } else { at + 2 };
            match (at..reach.min(q.len())).find(|&k| &q[k] == w) {
                Some(k) => at = k + 1,
                None => return false,
            }
        }
        true
    })
}

/// Lower-case letters and digits only: `Non-Compete`, `non compete` and
/// `NON_COMPETE` are all `noncompete`.
fn squashed(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The names a category answers to beside its own: its relation type, the
/// initials of its words when three or more (`MFN`), and each of the
/// alternatives a `/` joins (`Rofr`, `Rofo`, `Rofn`).
fn short_names(category: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = category
        .split([' ', '-', '/'])
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() >= 3 {
        out.push(words.iter().filter_map(|w| w.chars().next()).collect());
    }
    if category.contains('/') && !category.contains(' ') {
        out.extend(category.split('/').map(str::to_string));
    }
    out.into_iter().map(|s| squashed(&s)).collect()
}

/// Why a typed name is not one category.
#[derive(Debug, Clone, PartialEq)]
pub enum CategoryMiss {
    /// No category is near; the nearest names by spelling.
    Unknown {
        typed: String,
        nearest: Vec<&'static str>,
    },
    /// Several categories fit the words typed.
    Ambiguous {
        typed: String,
        candidates: Vec<&'static str>,
    },
}

impl std::fmt::Display for CategoryMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CategoryMiss::Unknown { typed, nearest } => write!(
                f,
                "{typed:?} is not a contract category; did you mean {}? (the 39 CUAD categories, e.g. \"non-compete\", \"cap on liability\", \"MFN\")",
                quoted_or(nearest)
            ),
            CategoryMiss::Ambiguous { typed, candidates } => write!(
                f,
                "{typed:?} fits several contract categories: {}; say which",
                quoted_or(candidates)
            ),
        }
    }
}

impl std::error::Error for CategoryMiss {}

fn quoted_or(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// The one category `typed` names: its name or relation type in any case
/// and punctuation, a short name ([`short_names`]), all of its words in a
/// phrase ([`categories_in`]: `liability cap`), or words only one
/// category's name holds (`escrow`).
pub fn resolve(typed: &str) -> Result<&'static str, CategoryMiss> {
    let s = squashed(typed);
    if let Some(c) = CATEGORIES.iter().find(|c| squashed(c) == s) {
        return Ok(c);
    }
    let short: Vec<&'static str> = CATEGORIES
        .iter()
        .copied()
        .filter(|c| !s.is_empty() && short_names(c).contains(&s))
        .collect();
    if short.len() == 1 {
        return Ok(short[0]);
    }
    let said = categories_in(typed);
    if said.len() == 1 {
        return Ok(said[0]);
    }
    let words = analysed(&typed.replace(['-', '/'], " "));
    let holding: Vec<&'static str> = CATEGORIES
        .iter()
        .copied()
        .filter(|c| {
            let cw = category_words(c);
            !words.is_empty() && words.iter().all(|w| cw.contains(w))
        })
        .collect();
    match holding.len() {
        1 => Ok(holding[0]),
        0 if said.len() > 1 => Err(CategoryMiss::Ambiguous {
            typed: typed.to_string(),
            candidates: said,
        }),
        0 => Err(CategoryMiss::Unknown {
            typed: typed.to_string(),
            nearest: nearest(&s, 3),
        }),
        _ => Err(CategoryMiss::Ambiguous {
            typed: typed.to_string(),
            candidates: holding,
        }),
    }
}

/// The `n` categories whose squashed names are fewest edits from `s`.
fn nearest(s: &str, n: usize) -> Vec<&'static str> {
    let mut by: Vec<(usize, &'static str)> = CATEGORIES
        .iter()
        .map(|c| {
            let mut d = edits(s, &squashed(c));
            for short in short_names(c) {
                d = d.min(edits(s, &short));
            }
            (d, *c)
        })
        .collect();
    by.sort();
    by.into_iter().take(n).map(|(_, c)| c).collect()
}

/// Levenshtein distance over characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_names_its_categories() {
        assert_eq!(
            categories_in("Which contracts have a non-compete?"),
            vec!["Non-Compete"]
        );
        assert_eq!(
            categories_in("which contracts have a cap on liability"),
            vec!["Cap On Liability"]
        );
        assert_eq!(
            categories_in("Which agreements grant a non-transferable license?"),
            vec!["Non-Transferable License"]
        );
        assert_eq!(
            categories_in("Affiliate IP License-Licensee: a license grant to a licensee"),
            vec!["Affiliate License-Licensee"]
        );
        // All of a name's words, in another order: still that category.
        assert_eq!(
            categories_in("Which law governs the agreement?"),
            vec!["Governing Law"]
        );
        assert_eq!(
            categories_in("Which contracts mention the weather?"),
            Vec::<&str>::new()
        );
        assert_eq!(
            categories_in("Which contracts have a governing law clause?"),
            vec!["Governing Law"]
        );
    }

    #[test]
    fn what_people_type_resolves_to_one_category() {
        for (typed, want) in [
            ("non-compete", "Non-Compete"),
            ("Noncompete", "Non-Compete"),
            ("NON_COMPETE", "Non-Compete"),
            ("cap on liability", "Cap On Liability"),
            ("liability cap", "Cap On Liability"),
            ("MFN", "Most Favored Nation"),
            ("ROFR", "Rofr/Rofo/Rofn"),
            ("rofn", "Rofr/Rofo/Rofn"),
            ("governing law", "Governing Law"),
            ("escrow", "Source Code Escrow"),
            ("Termination for convenience", "Termination For Convenience"),
        ] {
            assert_eq!(resolve(typed), Ok(want), "{typed}");
        }
    }

    #[test]
    fn a_miss_says_what_is_near_and_a_vague_name_what_it_could_be() {
        let miss = resolve("non-compte").unwrap_err();
        match &miss {
            CategoryMiss::Unknown { nearest, .. } => assert_eq!(nearest[0], "Non-Compete"),
            other => panic!("{other:?}"),
        }
        assert!(
            miss.to_string().contains("did you mean \"Non-Compete\""),
            "{miss}"
        );
        match resolve("license").unwrap_err() {
            CategoryMiss::Ambiguous { candidates, .. } => {
                assert!(candidates.contains(&"License Grant"), "{candidates:?}");
                assert!(candidates.contains(&"Non-Transferable License"));
            }
            other => panic!("{other:?}"),
        }
    }
}
