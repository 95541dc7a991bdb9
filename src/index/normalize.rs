//! Title normalisation shared by matching, reports and suggestions.

/// Normalises a section title for matching: strips numbering and
/// article/section words, case, punctuation. (Placeholder; issue 3 owns it.)
pub fn normalize_title(title: &str) -> String {
    title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !matches!(*w, "section" | "article"))
        .collect::<Vec<_>>()
        .join(" ")
}
