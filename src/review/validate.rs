//! Re-validation of an edited index: everything `kgroute index check`
//! checks for one file, plus that the line scanner of [`super::editor`]
//! agrees with a real YAML parser about every entry (so an edit never leaves
//! a file the scanner misreads).

use super::editor::IndexText;
use crate::index::Tier;
use serde_yaml_ng::Value;
use std::path::Path;

/// Every problem found, each naming the file, line and fix; empty when valid.
pub fn check_index_text(path: &Path, text: &str) -> Vec<String> {
    let (_, problems) = crate::index::check::check_text(path, text);
    let mut problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    problems.extend(layout_problems(path, text));
    problems
}

/// Whether the editor's line scanner reads the same entries, in the same
/// tiers, as a YAML parser does.
pub fn layout_problems(path: &Path, text: &str) -> Vec<String> {
    let doc: Value = match crate::index::yaml_guard::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("{}: not valid YAML: {e}", path.display())],
    };
    let mut problems = Vec::new();
    let mut parsed_titles: Vec<(Tier, String)> = Vec::new();
    for tier in Tier::ALL {
        let Some(Value::Sequence(items)) = doc.get(tier.key()) else {
            continue;
        };
        for item in items {
            let title = match item {
                Value::String(s) => s.as_str(),
                _ => match item.get("title").and_then(Value::as_str) {
                    Some(t) => t,
                    None => continue,
                },
            };
            parsed_titles.push((tier, title.to_string()));
        }
    }
    match IndexText::new(text).all_entries() {
        Ok(scanned) => {
            let scanned: Vec<(Tier, String)> =
                scanned.into_iter().map(|e| (e.tier, e.title)).collect();
            if scanned != parsed_titles {
                problems.push(format!(
                    "{}: the tier lists are laid out in a way the review editor cannot follow \
                     (keep tier keys at column 0 and one list item per `- ` line)",
                    path.display()
                ));
            }
        }
        Err(e) => problems.push(format!("{}: {e}", path.display())),
    }
    problems
}
