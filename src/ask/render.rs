//! Prints an [`super::Answer`]: for people (document, breadcrumb, lines,
//! then the whole section) or as JSON for tools.

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
        let _ = writeln!(
            out,
            "#{} {} §{} lines {}-{} (score {:.2})",
            s.rank, p.doc_name, p.node_id, p.start_line, p.end_line, s.score
        );
        let _ = writeln!(out, "   {}", crate::report::sanitize_title(&p.breadcrumb));
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
        for r in &g.relations {
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

/// The answer as pretty JSON.
pub fn json(a: &Answer) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(a)?)
}
