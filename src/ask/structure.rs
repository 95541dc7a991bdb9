//! Ranking sections with the tree's shape, after BM25 has scored them: a
//! section whose own text is a heading and little else (a title-only
//! article head, a one-line preamble) is discounted, since the question's
//! words matched its breadcrumb rather than anything it says; and the top
//! of the list is spread over parents (the breadcrumb's path without its
//! last step), so three subsections of one article do not push every other
//! candidate out of the first ranks. Both use only the section pointers:
//! nothing here knows what the question asks.

use super::SectionHit;
use std::collections::HashMap;

/// How the ranked sections are reshaped (neutral: `short_bytes` 0 and
/// `sibling_factor` 1.0 leave the BM25 order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeOptions {
    /// A section with fewer bytes than this counts as short (0: none)...
    pub short_bytes: usize,
    /// ...and its score is scaled by a linear ramp from this factor at 0
    /// bytes to 1 at `short_bytes`.
    pub short_factor: f32,
    /// Each section already ranked above with the same parent scales a
    /// candidate's score by this factor (1.0: no spreading).
    pub sibling_factor: f32,
}

impl ShapeOptions {
    /// The BM25 order as it is.
    pub const NONE: Self = Self {
        short_bytes: 0,
        short_factor: 1.0,
        sibling_factor: 1.0,
    };
}

/// The breadcrumb's path without its last step; `None` for a top-level
/// section (top-level sections are each other's siblings only in the
/// sense that every section of the contract is).
pub fn parent_of(breadcrumb: &str) -> Option<&str> {
    breadcrumb.rfind(" > ").map(|i| &breadcrumb[..i])
}

/// Scales the score of short sections (see [`ShapeOptions::short_bytes`])
/// and re-sorts.
pub fn discount_short(hits: &mut [SectionHit], o: &ShapeOptions) {
    if o.short_bytes == 0 || o.short_factor >= 1.0 {
        return;
    }
    for h in hits.iter_mut() {
        let len = h.pointer.end_byte.saturating_sub(h.pointer.start_byte);
        if len < o.short_bytes {
            let share = len as f32 / o.short_bytes as f32;
            h.score *= o.short_factor + (1.0 - o.short_factor) * share;
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// Greedy re-ranking of the first `top` places: each place takes the
/// candidate whose score, scaled by `sibling_factor` for each section of
/// the same parent already placed, is highest. Scores are left as BM25
/// gave them (after [`discount_short`]); only the order changes.
pub fn spread_parents(hits: Vec<SectionHit>, top: usize, sibling_factor: f32) -> Vec<SectionHit> {
    if sibling_factor == 1.0 || hits.len() < 2 {
        return hits;
    }
    let mut rest = hits;
    let mut out = Vec::with_capacity(top.min(rest.len()));
    let mut placed: HashMap<String, i32> = HashMap::new();
    while out.len() < top && !rest.is_empty() {
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for (i, h) in rest.iter().enumerate() {
            let n = parent_of(&h.pointer.breadcrumb)
                .and_then(|p| placed.get(p))
                .copied()
                .unwrap_or(0);
            let s = h.score * sibling_factor.powi(n);
            if s > best_score {
                best_score = s;
                best = i;
            }
            // Sorted by score: nothing further down can beat an unscaled one.
            if sibling_factor < 1.0 && n == 0 && i > best {
                break;
            }
        }
        let h = rest.remove(best);
        if let Some(p) = parent_of(&h.pointer.breadcrumb) {
            *placed.entry(p.to_string()).or_default() += 1;
        }
        out.push(h);
    }
    out.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SectionPointer;

    fn hit(crumb: &str, score: f32, bytes: usize) -> SectionHit {
        SectionHit {
            score,
            chunks: Vec::new(),
            pointer: SectionPointer {
                doc_id: "d".into(),
                doc_name: "d.txt".into(),
                doc_title: None,
                path: "d.txt".into(),
                node_id: crumb.into(),
                title: crumb.into(),
                breadcrumb: crumb.into(),
                start_byte: 0,
                end_byte: bytes,
                start_line: 1,
                end_line: 1,
                sha256: None,
            },
        }
    }

    fn crumbs(h: &[SectionHit]) -> Vec<&str> {
        h.iter().map(|h| h.pointer.breadcrumb.as_str()).collect()
    }

    #[test]
    fn the_parent_is_the_path_without_its_last_step() {
        assert_eq!(parent_of("9. IP > 9.1 Ownership"), Some("9. IP"));
        assert_eq!(parent_of("A > B > C"), Some("A > B"));
        assert_eq!(parent_of("Preamble"), None);
    }

    #[test]
    fn a_second_sibling_gives_way_to_another_parent_when_close() {
        let hits = vec![
            hit("9 > 9.1", 10.0, 900),
            hit("9 > 9.2", 9.0, 900),
            hit("4 > 4.1", 8.0, 900),
            hit("9 > 9.3", 7.0, 900),
        ];
        let out = spread_parents(hits.clone(), 3, 0.85);
        assert_eq!(crumbs(&out), ["9 > 9.1", "4 > 4.1", "9 > 9.2", "9 > 9.3"]);
        // Far behind, the other parent stays behind.
        let mut far = hits;
        far[2].score = 4.0;
        far[3].score = 3.0;
        let out = spread_parents(far, 3, 0.85);
        assert_eq!(crumbs(&out), ["9 > 9.1", "9 > 9.2", "4 > 4.1", "9 > 9.3"]);
    }

    #[test]
    fn top_level_sections_are_not_spread() {
        let hits = vec![
            hit("1. A", 10.0, 900),
            hit("2. B", 9.0, 900),
            hit("3 > 3.1", 8.5, 900),
        ];
        let out = spread_parents(hits, 3, 0.5);
        assert_eq!(crumbs(&out), ["1. A", "2. B", "3 > 3.1"]);
    }

    #[test]
    fn a_title_only_section_is_discounted() {
        let mut hits = vec![hit("ARTICLE 9", 10.0, 30), hit("9 > 9.1", 8.0, 900)];
        let o = ShapeOptions {
            short_bytes: 200,
            short_factor: 0.5,
            sibling_factor: 1.0,
        };
        discount_short(&mut hits, &o);
        assert_eq!(crumbs(&hits), ["9 > 9.1", "ARTICLE 9"]);
        assert!((hits[1].score - 10.0 * (0.5 + 0.5 * 30.0 / 200.0)).abs() < 1e-4);
    }
}
