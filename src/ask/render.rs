//! Prints an [`super::Answer`]: for people (document, breadcrumb, lines,
//! the graph facts found in that section, then the whole section) or as
//! JSON for tools. Facts sit under the section that shows them, so a
//! reader sees each fact beside its evidence; facts found elsewhere follow.

use super::Answer;
use std::fmt::Write;

/// The answer as text.
pub fn text(a: &Answer) -> String {
    let mut out = String::new();
    if let Some(ans) = &a.answer {
        let _ = writeln!(out, "{}\n", ans.text);
        if !ans.unknown_citations.is_empty() {
            let _ = writeln!(
                out,
                "warning: the answer cites sections it was not given: {}\n",
                ans.unknown_citations.join(", ")
            );
        }
    }
    if a.sections.is_empty() {
        if a.problems.is_empty() {
            let _ = writeln!(out, "no section matches: {}", a.question);
        } else {
            let _ = writeln!(
                out,
                "no section to return: the documents that match changed or cannot be read since they were ingested ({})",
                a.problems
                    .iter()
                    .map(|p| p.doc_name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        return out;
    }
    for s in &a.sections {
        let p = &s.pointer;
        // A filing named by its title, its file beside it.
        let doc = match &p.doc_title {
            Some(t) => format!("{} ({})", crate::report::sanitize_title(t), p.doc_name),
            None => p.doc_name.clone(),
        };
        let _ = writeln!(
            out,
            "#{} {} §{} lines {}-{} (score {:.2})",
            s.rank, doc, p.node_id, p.start_line, p.end_line, s.score
        );
        let _ = writeln!(out, "   {}", crate::report::sanitize_title(&p.breadcrumb));
        for r in facts_in(a, &p.doc_id, &p.node_id) {
            let _ = writeln!(out, "   fact: {}", fact(r));
            if crate::extract::facts_vocabulary::is_fact_relation(&r.rel_type) {
                // A typed fact: its evidence sentence under it.
                for pv in r
                    .provenance
                    .iter()
                    .filter(|pv| pv.doc_id == p.doc_id && pv.node_id == p.node_id)
                    .take(1)
                {
                    let _ = writeln!(out, "         evidence: \"{}\"", pv.evidence.trim());
                }
            }
        }
        let _ = writeln!(out);
        for line in s.text.trim_end().lines() {
            let _ = writeln!(out, "   {line}");
        }
        let _ = writeln!(out);
    }
    if let Some(g) = &a.grounding {
        for e in &g.entities {
            let secs: Vec<String> = e.sections.iter().map(|(_, n)| format!("§{n}")).collect();
            let _ = writeln!(
                out,
                "graph: {} ({}) mentioned in {}",
                crate::report::sanitize_title(&e.name),
                e.entity_type,
                secs.join(", ")
            );
        }
        let shown = |r: &super::grounding::GroundRelation| {
            r.provenance.iter().any(|p| {
                a.sections
                    .iter()
                    .any(|s| s.pointer.doc_id == p.doc_id && s.pointer.node_id == p.node_id)
            })
        };
        for r in g.relations.iter().filter(|r| !shown(r)) {
            let at: Vec<String> = r
                .provenance
                .iter()
                .map(|p| format!("[{} §{}]", p.doc_id, p.node_id))
                .collect();
            let _ = writeln!(
                out,
                "graph: {} -[{}]-> {} {}",
                crate::report::sanitize_title(&r.source),
                r.rel_type,
                crate::report::sanitize_title(&r.target),
                at.join(" ")
            );
        }
    }
    out
}

/// The grounding's relations found in section `node` of `doc`.
fn facts_in<'a>(
    a: &'a Answer,
    doc: &'a str,
    node: &'a str,
) -> impl Iterator<Item = &'a super::grounding::GroundRelation> {
    a.grounding
        .iter()
        .flat_map(|g| g.relations.iter())
        .filter(move |r| {
            r.provenance
                .iter()
                .any(|p| p.doc_id == doc && p.node_id == node)
        })
}

/// `Source -[TYPE]-> Target`, names sanitised; a typed fact as
/// `Category [TYPE]: party -> value`.
fn fact(r: &super::grounding::GroundRelation) -> String {
    if let Some(cat) = crate::extract::facts_vocabulary::CATEGORIES
        .iter()
        .find(|c| crate::extract::facts_vocabulary::category_relation_type(c) == r.rel_type)
    {
        return format!(
            "{cat} [{}]: {} -> {}",
            r.rel_type,
            crate::report::sanitize_title(&r.source),
            crate::report::sanitize_title(&r.target)
        );
    }
    format!(
        "{} -[{}]-> {}",
        crate::report::sanitize_title(&r.source),
        r.rel_type,
        crate::report::sanitize_title(&r.target)
    )
}

/// The answer as pretty JSON.
pub fn json(a: &Answer) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(a)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::grounding::{GroundRelation, Grounding, Provenance};
    use crate::ask::FoundSection;
    use crate::search::SectionPointer;

    fn section(node: &str) -> FoundSection {
        FoundSection {
            rank: 1,
            score: 1.0,
            pointer: SectionPointer {
                doc_id: "d".into(),
                doc_name: "d.txt".into(),
                doc_title: None,
                path: "d.txt".into(),
                node_id: node.into(),
                title: "Payment".into(),
                breadcrumb: "Payment".into(),
                start_byte: 0,
                end_byte: 4,
                start_line: 1,
                end_line: 1,
                sha256: None,
            },
            text: "The Buyer pays.".into(),
        }
    }

    fn rel(target: &str, node: &str) -> GroundRelation {
        GroundRelation {
            source: "Buyer".into(),
            rel_type: "PAYS".into(),
            target: target.into(),
            provenance: vec![Provenance {
                doc_id: "d".into(),
                node_id: node.into(),
                evidence: String::new(),
            }],
        }
    }

    #[test]
    fn a_fact_is_printed_under_the_section_that_shows_it_the_others_after() {
        let a = Answer {
            question: "what does the Buyer pay".into(),
            sections: vec![section("n3")],
            grounding: Some(Grounding::new(
                Vec::new(),
                vec![rel("Fee", "n3"), rel("Deposit", "n9")],
            )),
            answer: None,
            answer_error: None,
            problems: Vec::new(),
        };
        let t = text(&a);
        let fact_at = t.find("   fact: Buyer -[PAYS]-> Fee").expect(&t);
        assert!(fact_at < t.find("The Buyer pays.").unwrap(), "{t}");
        assert!(!t.contains("graph: Buyer -[PAYS]-> Fee"), "{t}");
        assert!(t.contains("graph: Buyer -[PAYS]-> Deposit [d §n9]"), "{t}");
    }
}
