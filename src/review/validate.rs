//! Re-validation of an edited index: the tier lists still parse, every entry
//! has a title, no title or alias appears twice, and the line scanner of
//! [`super::editor`] agrees with a real YAML parser about every entry (so an
//! edit never leaves a file the scanner misreads).
//!
//! This checks what review edits; the full `kgroute index check` (ontology,
//! density, overlays) belongs to the index module.

use super::editor::IndexText;
use crate::index::{normalize_title, Tier};
use serde_yaml_ng::Value;
use std::collections::HashMap;

/// Every problem found, each naming the tier and entry; empty when valid.
pub fn check_index_text(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let doc: Value = match serde_yaml_ng::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not valid YAML: {e}")],
    };
    if !doc.is_mapping() {
        return vec!["the index must be a mapping (`document_type: ...`, tier lists)".into()];
    }
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut parsed_titles: Vec<(Tier, String)> = Vec::new();
    for tier in Tier::ALL {
        let items = match doc.get(tier.key()) {
            None | Some(Value::Null) => continue,
            Some(Value::Sequence(s)) => s,
            Some(_) => {
                problems.push(format!("`{}:` must be a list of entries", tier.key()));
                continue;
            }
        };
        for item in items {
            let (title, aliases) = match item {
                Value::String(s) => (s.clone(), Vec::new()),
                Value::Mapping(m) => {
                    for k in m.keys() {
                        let k = k.as_str().unwrap_or("?");
                        if !matches!(k, "title" | "aliases" | "note") {
                            problems.push(format!(
                                "{}: unknown key `{k}` in an entry (allowed: title, aliases, note)",
                                tier.key()
                            ));
                        }
                    }
                    let Some(title) = item.get("title").and_then(Value::as_str) else {
                        problems.push(format!("{}: an entry has no `title:`", tier.key()));
                        continue;
                    };
                    let aliases = match item.get("aliases") {
                        None | Some(Value::Null) => Vec::new(),
                        Some(Value::Sequence(s)) if s.iter().all(Value::is_string) => s
                            .iter()
                            .filter_map(|a| a.as_str().map(str::to_string))
                            .collect(),
                        Some(_) => {
                            problems.push(format!(
                                "{}: `{title}`: aliases must be a list of strings",
                                tier.key()
                            ));
                            Vec::new()
                        }
                    };
                    (title.to_string(), aliases)
                }
                _ => {
                    problems.push(format!(
                        "{}: an entry must be a title or a mapping with `title:`",
                        tier.key()
                    ));
                    continue;
                }
            };
            for name in std::iter::once(&title).chain(&aliases) {
                let key = normalize_title(name);
                let here = format!("`{name}` ({})", tier.key());
                if let Some(first) = seen.get(&key) {
                    problems.push(format!("{here} duplicates {first}"));
                } else {
                    seen.insert(key, here);
                }
            }
            parsed_titles.push((tier, title));
        }
    }
    match IndexText::new(text).all_entries() {
        Ok(scanned) => {
            let scanned: Vec<(Tier, String)> =
                scanned.into_iter().map(|e| (e.tier, e.title)).collect();
            if scanned != parsed_titles {
                problems.push(
                    "the tier lists are laid out in a way the review editor cannot follow \
                     (keep tier keys at column 0 and one list item per `- ` line)"
                        .into(),
                );
            }
        }
        Err(e) => problems.push(e.to_string()),
    }
    problems
}
