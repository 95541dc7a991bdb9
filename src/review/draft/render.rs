//! The drafted index as YAML: the format `index check` and `review`
//! read, one entry per list item (so `review --write` can edit it line by
//! line), each entry preceded by a comment with its evidence.

use super::{Draft, DraftEntry};
use crate::index::Tier;
use crate::review::scalar::yaml_scalar;
use std::fmt::Write;

/// How many bespoke titles the closing comment names.
const BESPOKE_SHOWN: usize = 80;

fn evidence(e: &DraftEntry, total_docs: usize) -> String {
    let g = &e.group;
    let tiers: Vec<String> = Tier::ALL
        .iter()
        .filter_map(|t| g.tiers.get(t).map(|n| format!("{} {n}", t.key())))
        .collect();
    let mut s = format!(
        "{}/{} documents, {} sections, median {} chars; actual: {}",
        g.docs.len(),
        total_docs,
        g.sections,
        g.median_chars(),
        tiers.join(", ")
    );
    if e.anchor {
        let _ = write!(
            s,
            "; anchor: its names are used by later sections in {}/{} documents",
            g.anchor_docs.len(),
            g.docs.len()
        );
    }
    s
}

pub fn render(d: &Draft) -> String {
    let o = &d.options;
    let mut out = String::new();
    let batches: Vec<String> = o.batches.iter().map(|b| b.display().to_string()).collect();
    let _ = writeln!(
        out,
        "# Graphability index for `{}`, DRAFTED by `kgroute index draft` from\n\
         # {} documents ({} sections) of the calibrated batch(es) {}.\n\
         #\n\
         # Every entry is a title group found in at least {} documents, at the tier\n\
         # its sections actually earned (the highest tier a third of them reached),\n\
         # with the evidence in the comment above it; anchors (sections whose names\n\
         # the later sections use) are pinned Very High. Titles found in fewer\n\
         # documents are bespoke and listed at the end, not entered. Review it like\n\
         # any index: ingest the next batch with `--calibrate`, then `kgroute review`.",
        o.doc_type,
        d.documents.len(),
        d.sections,
        batches.join(", "),
        o.min_docs
    );
    if d.unscanned > 0 {
        let _ = writeln!(
            out,
            "#\n# WARNING: {} sections were not scanned (batch not ingested with\n\
             # --calibrate): their groups' tiers lean on the sections that were.",
            d.unscanned
        );
    }
    let _ = writeln!(out, "document_type: {}", yaml_scalar(&o.doc_type, false));
    if let Some(base) = &o.extends {
        let _ = writeln!(out, "extends: {}", yaml_scalar(base, false));
    }
    out.push_str("version: \"draft-1\"\n");
    let _ = writeln!(
        out,
        "description: {}",
        yaml_scalar(
            &format!(
                "Drafted from {} calibrated documents; review before use.",
                d.documents.len()
            ),
            false
        )
    );
    out.push_str(
        "\nontology:                           # the types the batch's extractions used\n",
    );
    out.push_str("  entity_types:\n");
    for (t, n) in &d.entity_types {
        let _ = writeln!(
            out,
            "    {}: {}",
            yaml_scalar(t, false),
            yaml_scalar(&format!("seen {n} times in the drafting batch"), false)
        );
    }
    out.push_str("  relation_types:\n");
    for (t, n) in &d.relation_types {
        let _ = writeln!(
            out,
            "    {}: {}",
            yaml_scalar(t, false),
            yaml_scalar(&format!("seen {n} times in the drafting batch"), false)
        );
    }
    let anchors: Vec<&DraftEntry> = d.entries.iter().filter(|e| e.anchor).collect();
    if !anchors.is_empty() {
        out.push_str(
            "\nanchors:                            # pinned Very High whatever their density\n",
        );
        for e in &anchors {
            let _ = writeln!(out, "  - {}", yaml_scalar(&e.title, false));
        }
    }
    out.push_str(
        "\ndetect:                             # document-type detection (src/index/doctype.rs)\n",
    );
    let list = |v: &[String]| {
        v.iter()
            .map(|s| yaml_scalar(s, true))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "  titles: [{}]", list(&d.detect.titles));
    let _ = writeln!(out, "  terms: [{}]", list(&d.detect.terms));
    for (p, why) in &d.detect.taken {
        match why.strip_prefix("common: ") {
            Some(common) => {
                let _ = writeln!(out, "  # left out: `{p}` (common to contracts: {common})");
            }
            None => {
                let _ = writeln!(out, "  # left out: `{p}` (index `{why}` detects with it)");
            }
        }
    }
    let total = d.documents.len();
    for tier in Tier::ALL {
        let mine: Vec<&DraftEntry> = d.entries.iter().filter(|e| e.tier == tier).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}:", tier.key());
        for e in mine {
            let _ = writeln!(out, "  # {}", evidence(e, total));
            let _ = writeln!(out, "  - title: {}", yaml_scalar(&e.title, false));
            if !e.aliases.is_empty() {
                let a: Vec<String> = e.aliases.iter().map(|a| yaml_scalar(a, true)).collect();
                let _ = writeln!(out, "    aliases: [{}]", a.join(", "));
            }
        }
    }
    if !d.unrated.is_empty() {
        out.push_str("\n# Generic but never scanned (no actual tier), left out:\n");
        for t in &d.unrated {
            let _ = writeln!(out, "#   {t}");
        }
    }
    if !d.bespoke.is_empty() {
        let _ = writeln!(
            out,
            "\n# Bespoke: {} title groups in fewer than {} documents, left out (new and sent):",
            d.bespoke.len(),
            d.options.min_docs
        );
        for (t, n) in d.bespoke.iter().take(BESPOKE_SHOWN) {
            let _ = writeln!(
                out,
                "#   {} ({n} document{})",
                t.replace('\n', " "),
                if *n == 1 { "" } else { "s" }
            );
        }
        if d.bespoke.len() > BESPOKE_SHOWN {
            let _ = writeln!(out, "#   ... and {} more", d.bespoke.len() - BESPOKE_SHOWN);
        }
    }
    out
}
