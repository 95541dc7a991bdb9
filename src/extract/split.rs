//! Sections longer than the character budget are split strictly inside
//! their own line span, at paragraph boundaries (blank lines), falling back
//! to line boundaries for a paragraph that alone exceeds the budget, and to
//! sentence ends for a single line that does (real filings have lines of
//! 3,000-50,000 characters; a sentence longer than the budget is cut
//! between words). [`halve`] cuts one piece in two the same way, nearest
//! its middle, when its answer did not fit. Every piece keeps the
//! section's breadcrumb and node id; the results are merged back into one
//! extraction for the section.

use super::{Entity, Relation, SectionExtraction, SectionInput, SectionStatus};
use std::collections::HashMap;

/// Splits `input` into pieces of at most `budget` chars (a single word
/// longer than the budget is cut inside). Pieces carry their own
/// `start_line`/`end_line`; a section within the budget is returned as is.
pub fn split_section(input: &SectionInput, budget: usize) -> Vec<SectionInput> {
    let budget = budget.max(1);
    if input.text.chars().count() <= budget {
        return vec![input.clone()];
    }
    // Units: paragraphs (runs of lines ended by a blank line), each a list of
    // (line offset, line text).
    let lines: Vec<&str> = input.text.split('\n').collect();
    let mut units: Vec<Vec<(usize, &str)>> = Vec::new();
    let mut cur: Vec<(usize, &str)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        cur.push((i, l));
        if l.trim().is_empty() {
            units.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        units.push(cur);
    }
    // A paragraph over budget becomes one unit per line, and a line over
    // budget one unit per run of sentences within it.
    let size = |u: &[(usize, &str)]| u.iter().map(|(_, l)| l.chars().count() + 1).sum::<usize>();
    let mut fine: Vec<Vec<(usize, &str)>> = Vec::new();
    for u in units {
        if size(&u) > budget {
            for (i, l) in u {
                if l.chars().count() + 1 > budget {
                    fine.extend(line_fragments(l, budget).into_iter().map(|f| vec![(i, f)]));
                } else {
                    fine.push(vec![(i, l)]);
                }
            }
        } else {
            fine.push(u);
        }
    }
    let mut pieces: Vec<Vec<(usize, &str)>> = Vec::new();
    let mut acc: Vec<(usize, &str)> = Vec::new();
    for u in fine {
        if !acc.is_empty() && size(&acc) + size(&u) > budget {
            pieces.push(std::mem::take(&mut acc));
        }
        acc.extend(u);
    }
    if !acc.is_empty() {
        pieces.push(acc);
    }
    pieces
        .into_iter()
        .filter(|p| p.iter().any(|(_, l)| !l.trim().is_empty()))
        .map(|p| {
            let first = p.first().map(|x| x.0).unwrap_or(0);
            let last = p.last().map(|x| x.0).unwrap_or(0);
            // Fragments of one line join without a break: the text is the
            // source's.
            let mut text = String::new();
            for (k, (i, l)) in p.iter().enumerate() {
                if k > 0 && p[k - 1].0 != *i {
                    text.push('\n');
                }
                text.push_str(l);
            }
            SectionInput {
                start_line: input.start_line + first,
                end_line: (input.start_line + last).min(input.end_line.max(input.start_line)),
                text,
                ..input.clone()
            }
        })
        .collect()
}

/// Byte offsets just after each sentence end of `s` (`.`, `;`, `?`, `!`
/// followed by whitespace), the whitespace included in the first part.
fn sentence_ends(s: &str) -> Vec<usize> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if matches!(b[i], b'.' | b';' | b'?' | b'!') && b[i + 1].is_ascii_whitespace() {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < b.len() {
                out.push(j);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte offsets after each run of whitespace (word starts) of `s`.
fn word_starts(s: &str) -> Vec<usize> {
    let b = s.as_bytes();
    (1..b.len())
        .filter(|&i| b[i - 1].is_ascii_whitespace() && !b[i].is_ascii_whitespace())
        .collect()
}

/// Cuts one line into fragments of at most `budget` chars: runs of whole
/// sentences; a sentence over budget between words; a word over budget at
/// a char boundary. The fragments concatenate to the line.
fn line_fragments(line: &str, budget: usize) -> Vec<&str> {
    let budget = budget.max(1);
    let mut out = Vec::new();
    let mut rest = line;
    while rest.chars().count() > budget {
        // The byte offset of the budget-th char.
        let limit = rest
            .char_indices()
            .nth(budget)
            .map_or(rest.len(), |(i, _)| i);
        let cut = sentence_ends(rest)
            .into_iter()
            .rev()
            .find(|&c| c <= limit)
            .or_else(|| word_starts(rest).into_iter().rev().find(|&c| c <= limit))
            .filter(|&c| c > 0)
            .unwrap_or(limit);
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Cuts a piece in two nearest its middle: at a blank line, else a line
/// break, else a sentence end, else (a piece over 400 chars) between words.
/// `None` when the piece is one short sentence: nothing smaller to ask.
/// Both halves keep the breadcrumb and carry their own line span.
pub fn halve(piece: &SectionInput) -> Option<(SectionInput, SectionInput)> {
    let t = piece.text.as_str();
    let mid = t.len() / 2;
    let nonblank = |c: usize| !t[..c].trim().is_empty() && !t[c..].trim().is_empty();
    let nearest = |cands: Vec<usize>| {
        cands
            .into_iter()
            .filter(|&c| nonblank(c))
            .min_by_key(|&c| c.abs_diff(mid))
    };
    let paragraphs: Vec<usize> = t.match_indices("\n\n").map(|(i, _)| i + 1).collect();
    let lines: Vec<usize> = t.match_indices('\n').map(|(i, _)| i + 1).collect();
    let cut = nearest(paragraphs)
        .or_else(|| nearest(lines))
        .or_else(|| nearest(sentence_ends(t)))
        .or_else(|| {
            (t.chars().count() > 400)
                .then(|| nearest(word_starts(t)))
                .flatten()
        })?;
    let line_of = |byte: usize| piece.start_line + t[..byte].matches('\n').count();
    let (a, b) = t.split_at(cut);
    let a_end = line_of(a.trim_end().len());
    let b_start = line_of(cut + (b.len() - b.trim_start().len()));
    Some((
        SectionInput {
            text: a.trim_end_matches('\n').to_string(),
            end_line: a_end.min(piece.end_line.max(piece.start_line)),
            ..piece.clone()
        },
        SectionInput {
            text: b.trim_start_matches('\n').to_string(),
            start_line: b_start,
            ..piece.clone()
        },
    ))
}

/// Merges the extractions of a section's pieces: entities deduplicated by
/// name and type (aliases united), relations deduplicated, pruned items,
/// tokens and the highest model tier kept. Any failed piece fails the
/// section (naming the piece); all pieces cached means cached. Tiers are
/// left for the caller to recompute over the whole section.
pub fn merge(parts: Vec<SectionExtraction>) -> Option<SectionExtraction> {
    let n = parts.len();
    let mut it = parts.into_iter().enumerate();
    let (_, mut out) = it.next()?;
    if let SectionStatus::Failed(r) = &out.status {
        if n > 1 {
            out.status = SectionStatus::Failed(format!("piece 1 of {n}: {r}"));
        }
    }
    let mut ents: HashMap<(String, String), usize> = out
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| ((e.name.to_lowercase(), e.entity_type.clone()), i))
        .collect();
    for (i, p) in it {
        for e in p.entities {
            add_entity(&mut out.entities, &mut ents, e);
        }
        for r in p.relations {
            add_relation(&mut out.relations, r);
        }
        out.pruned.extend(p.pruned);
        out.ends_added.extend(p.ends_added);
        out.tokens_in += p.tokens_in;
        out.tokens_out += p.tokens_out;
        out.tokens_cached += p.tokens_cached;
        // Tier orders Very High first: keep the highest rating.
        if let Some(t) = p.model_tier {
            if out.model_tier.is_none_or(|o| t < o) {
                out.model_tier = Some(t);
                out.model_why = p.model_why;
            }
        }
        out.status = match (&out.status, p.status) {
            (SectionStatus::Failed(r), _) => SectionStatus::Failed(r.clone()),
            (_, SectionStatus::Failed(r)) => {
                SectionStatus::Failed(format!("piece {} of {n}: {r}", i + 1))
            }
            (SectionStatus::Cached, SectionStatus::Cached) => SectionStatus::Cached,
            _ => SectionStatus::Ok,
        };
    }
    Some(out)
}

fn add_entity(list: &mut Vec<Entity>, idx: &mut HashMap<(String, String), usize>, e: Entity) {
    let key = (e.name.to_lowercase(), e.entity_type.clone());
    match idx.get(&key) {
        Some(&i) => {
            for a in e.aliases {
                if !list[i].aliases.contains(&a) {
                    list[i].aliases.push(a);
                }
            }
        }
        None => {
            idx.insert(key, list.len());
            list.push(e);
        }
    }
}

fn add_relation(list: &mut Vec<Relation>, r: Relation) {
    let same = |x: &Relation| {
        x.source.eq_ignore_ascii_case(&r.source)
            && x.relation_type == r.relation_type
            && x.target.eq_ignore_ascii_case(&r.target)
    };
    if !list.iter().any(same) {
        list.push(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(text: &str) -> SectionInput {
        SectionInput {
            doc_id: "d".into(),
            doc_type: "credit_agreement".into(),
            node_id: "0002".into(),
            title: "Definitions".into(),
            label: None,
            name: "Definitions".into(),
            breadcrumb: "[Article 1 > Definitions]".into(),
            start_line: 100,
            end_line: 100 + text.split('\n').count() - 1,
            text: text.into(),
            anchor: false,
            parties: Vec::new(),
            registry: Default::default(),
        }
    }

    #[test]
    fn short_section_is_one_piece() {
        let i = input("a\n\nb");
        assert_eq!(split_section(&i, 100), vec![i]);
    }

    #[test]
    fn pieces_respect_budget_and_paragraphs_and_cover_the_span() {
        let paras: Vec<String> = (0..30)
            .map(|i| format!("Paragraph {i} {}", "x".repeat(40)))
            .collect();
        let text = paras.join("\n\n");
        let i = input(&text);
        let pieces = split_section(&i, 200);
        assert!(pieces.len() > 5);
        for p in &pieces {
            assert!(p.text.chars().count() <= 200, "{}", p.text.len());
            assert_eq!(p.breadcrumb, i.breadcrumb);
            assert!(p.start_line >= i.start_line && p.end_line <= i.end_line);
            // Starts on a paragraph boundary.
            assert!(p.text.starts_with("Paragraph"), "{:?}", p.text);
        }
        let joined: String = pieces.iter().map(|p| p.text.replace('\n', "")).collect();
        assert_eq!(joined, text.replace('\n', ""));
        // Line pointers agree with the original text.
        let lines: Vec<&str> = text.split('\n').collect();
        for p in &pieces {
            assert_eq!(
                lines[p.start_line - i.start_line],
                p.text.split('\n').next().unwrap()
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn pieces_cover_the_section_in_order_within_budget_and_span(
            lines in proptest::collection::vec("[a-z .;]{0,300}", 1..60),
            budget in 50usize..400,
        ) {
            let text = lines.join("\n");
            let i = input(&text);
            let pieces = split_section(&i, budget);
            for p in &pieces {
                proptest::prop_assert!(p.start_line >= i.start_line && p.end_line <= i.end_line);
                proptest::prop_assert!(p.start_line <= p.end_line);
                // Every piece fits, long lines included.
                proptest::prop_assert!(p.text.chars().count() <= budget, "{} > {}", p.text.chars().count(), budget);
                // Its first line is (a part of) the line it says it starts on.
                let first = p.text.split('\n').next().unwrap();
                proptest::prop_assert!(lines[p.start_line - i.start_line].contains(first));
            }
            // Nothing lost or repeated: the pieces' text is the section's.
            let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            let joined: String = pieces.iter().map(|p| squash(&p.text)).collect();
            proptest::prop_assert_eq!(joined, squash(&text));
        }
    }

    #[test]
    fn a_long_single_line_is_cut_at_sentence_ends() {
        let sentence =
            |k: usize| format!("The Borrower shall pay amount {k} to the Lender on demand. ");
        let line: String = (0..200).map(sentence).collect();
        let text = format!("Heading\n{line}\nlast line");
        let i = input(&text);
        let pieces = split_section(&i, 1_000);
        assert!(pieces.len() >= 12, "{}", pieces.len());
        // The short heading line is packed with the long line's first
        // sentences.
        assert!(
            pieces[0]
                .text
                .starts_with("Heading\nThe Borrower shall pay amount 0 "),
            "{:?}",
            pieces[0].text
        );
        assert_eq!((pieces[0].start_line, pieces[0].end_line), (100, 101));
        for p in &pieces {
            assert!(p.text.chars().count() <= 1_000);
            // Every cut is at a sentence end: pieces end with a full stop
            // (and its space), or are the section's last line.
            let t = p.text.trim_end();
            assert!(t.ends_with('.') || t.ends_with("last line"), "{t:?}");
        }
        // The long line's fragments all say they are on line 101.
        assert!(pieces[1..pieces.len() - 1]
            .iter()
            .all(|p| p.start_line == 101 && p.end_line == 101));
    }

    #[test]
    fn halves_at_structure_then_sentences_and_not_below_a_sentence() {
        let i = input("para one a\nline two\n\npara two a\nline four");
        let (a, b) = halve(&i).unwrap();
        assert_eq!(a.text, "para one a\nline two");
        assert_eq!(b.text, "para two a\nline four");
        assert_eq!((a.start_line, a.end_line), (100, 101));
        assert_eq!((b.start_line, b.end_line), (103, 104));
        let one_line = input("First sentence here. Second one there. Third.");
        let (a, b) = halve(&one_line).unwrap();
        assert_eq!(a.text, "First sentence here. ");
        assert_eq!(b.text, "Second one there. Third.");
        assert_eq!((b.start_line, b.end_line), (100, 100));
        assert!(halve(&input("Just one short sentence.")).is_none());
    }

    #[test]
    fn merge_dedups_and_fails_when_a_piece_fails() {
        let e = |n: &str| Entity {
            name: n.into(),
            entity_type: "Role".into(),
            aliases: vec![],
            description: String::new(),
        };
        let base = SectionExtraction {
            doc_id: "d".into(),
            node_id: "1".into(),
            entities: vec![e("A")],
            relations: vec![],
            pruned: vec![],
            candidates: vec![],
            ends_added: vec![],
            model_tier: Some(crate::index::Tier::Low),
            model_why: None,
            density_tier: crate::index::Tier::Low,
            actual_tier: crate::index::Tier::Low,
            tokens_in: 10,
            tokens_out: 5,
            tokens_cached: 0,
            extractor: "rules".into(),
            status: SectionStatus::Ok,
        };
        let mut b = base.clone();
        b.entities = vec![e("a"), e("B")];
        b.model_tier = Some(crate::index::Tier::High);
        let m = merge(vec![base.clone(), b.clone()]).unwrap();
        assert_eq!(m.entities.len(), 2);
        assert_eq!(m.tokens_in, 20);
        assert_eq!(m.model_tier, Some(crate::index::Tier::High));
        assert_eq!(m.status, SectionStatus::Ok);
        b.status = SectionStatus::Failed("boom".into());
        let m = merge(vec![base, b]).unwrap();
        assert_eq!(m.status, SectionStatus::Failed("piece 2 of 2: boom".into()));
    }
}
