//! Sections longer than the character budget are split strictly inside
//! their own line span, at paragraph boundaries (blank lines), falling back
//! to line boundaries for a paragraph that alone exceeds the budget. Every
//! piece keeps the section's breadcrumb and node id; the results are merged
//! back into one extraction for the section.

use super::{Entity, Relation, SectionExtraction, SectionInput, SectionStatus};
use std::collections::HashMap;

/// Splits `input` into pieces of at most `budget` chars where possible
/// (a single line longer than the budget stays whole). Pieces carry their
/// own `start_line`/`end_line`; a section within the budget is returned as is.
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
    // A paragraph over budget becomes one unit per line.
    let size = |u: &[(usize, &str)]| u.iter().map(|(_, l)| l.chars().count() + 1).sum::<usize>();
    let mut fine: Vec<Vec<(usize, &str)>> = Vec::new();
    for u in units {
        if size(&u) > budget {
            fine.extend(u.into_iter().map(|x| vec![x]));
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
            let text = p.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
            SectionInput {
                start_line: input.start_line + first,
                end_line: (input.start_line + last).min(input.end_line.max(input.start_line)),
                text,
                ..input.clone()
            }
        })
        .collect()
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
        out.tokens_in += p.tokens_in;
        out.tokens_out += p.tokens_out;
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
        fn pieces_cover_the_section_in_order_within_its_span(
            lines in proptest::collection::vec("[a-z ]{0,120}", 1..80),
            budget in 50usize..400,
        ) {
            let text = lines.join("\n");
            let i = input(&text);
            let pieces = split_section(&i, budget);
            // Every non-blank line appears exactly once, in order, at its own line number.
            let mut seen = Vec::new();
            for p in &pieces {
                proptest::prop_assert!(p.start_line >= i.start_line && p.end_line <= i.end_line);
                for (k, l) in p.text.split('\n').enumerate() {
                    proptest::prop_assert_eq!(l, lines[p.start_line - i.start_line + k].as_str());
                    if !l.trim().is_empty() {
                        seen.push((p.start_line + k, l.to_string()));
                    }
                }
                if p.text.chars().count() > budget {
                    // Only a single line longer than the budget may exceed it.
                    proptest::prop_assert!(p.text.split('\n').filter(|l| !l.trim().is_empty()).count() == 1);
                }
            }
            let want: Vec<(usize, String)> = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(k, l)| (i.start_line + k, l.clone()))
                .collect();
            proptest::prop_assert_eq!(seen, want);
        }
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
            model_tier: Some(crate::index::Tier::Low),
            model_why: None,
            density_tier: crate::index::Tier::Low,
            actual_tier: crate::index::Tier::Low,
            tokens_in: 10,
            tokens_out: 5,
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
