//! Match quality: how a section's predicted tier compares with the tier its
//! extraction actually earned: a perfect match, a deviation of one tier, or
//! a mismatch a reviewer should look at.

use crate::extract::{SectionExtraction, SectionStatus};
use crate::route::{Route, RoutedSection};
use serde::{Deserialize, Serialize};

/// The alignment class of one section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchQuality {
    /// Predicted tier == actual tier.
    Perfect,
    /// One tier apart.
    Deviation,
    /// Two or more tiers apart.
    Mismatch,
    /// Title not in the index (a coverage gap); always scanned.
    New,
    /// In the index but skipped: no actual tier.
    NotScanned,
    /// Sent, but its extraction failed (the status says why): no actual
    /// tier, out of the alignment statistics; a `--resume` sends it again.
    Failed,
    /// A noise title: never sent, out of the alignment statistics.
    Noise,
    /// No text of its own (structural heading, `[Reserved]`).
    Empty,
}

impl MatchQuality {
    /// The CSV / JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchQuality::Perfect => "perfect",
            MatchQuality::Deviation => "deviation",
            MatchQuality::Mismatch => "mismatch",
            MatchQuality::New => "new",
            MatchQuality::NotScanned => "not_scanned",
            MatchQuality::Failed => "failed",
            MatchQuality::Noise => "noise",
            MatchQuality::Empty => "empty",
        }
    }

    /// Counts in the alignment statistics (everything but noise, empty and
    /// failed).
    pub fn is_aligned_section(self) -> bool {
        !matches!(
            self,
            MatchQuality::Noise | MatchQuality::Empty | MatchQuality::Failed
        )
    }
}

impl std::fmt::Display for MatchQuality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The actual tier of an extraction, unless it failed.
pub fn actual_tier(extraction: Option<&SectionExtraction>) -> Option<crate::index::Tier> {
    extraction
        .filter(|e| !matches!(e.status, SectionStatus::Failed(_)))
        .map(|e| e.actual_tier)
}

/// Classifies one section. Noise and empty routes win; then a failed
/// extraction is `failed`; then a section with no predicted tier is `new`
/// (whether or not it was scanned); then one without an extraction is
/// `not_scanned`; otherwise the tier distance decides.
pub fn classify(section: &RoutedSection, extraction: Option<&SectionExtraction>) -> MatchQuality {
    if section.route == Route::Noise || section.matched.noise {
        return MatchQuality::Noise;
    }
    if section.route == Route::Empty {
        return MatchQuality::Empty;
    }
    if extraction.is_some_and(|e| matches!(e.status, SectionStatus::Failed(_))) {
        return MatchQuality::Failed;
    }
    let Some(predicted) = section.predicted_tier else {
        return MatchQuality::New;
    };
    let Some(actual) = actual_tier(extraction) else {
        return MatchQuality::NotScanned;
    };
    match predicted.rank().abs_diff(actual.rank()) {
        0 => MatchQuality::Perfect,
        1 => MatchQuality::Deviation,
        _ => MatchQuality::Mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Tier;
    use crate::report::testdata::{extraction, section};

    #[test]
    fn tier_distance_decides_alignment() {
        let s = section("0001", "Definitions", Some(Tier::VeryHigh), Route::Llm, 100);
        let cases = [
            (Tier::VeryHigh, MatchQuality::Perfect),
            (Tier::High, MatchQuality::Deviation),
            (Tier::Medium, MatchQuality::Mismatch),
            (Tier::VeryLow, MatchQuality::Mismatch),
        ];
        for (actual, want) in cases {
            let e = extraction("0001", actual, 0);
            assert_eq!(classify(&s, Some(&e)), want, "actual {actual}");
        }
    }

    #[test]
    fn unknown_titles_are_new_even_when_scanned() {
        let s = section("0002", "Types of Advances", None, Route::Llm, 800);
        assert_eq!(classify(&s, None), MatchQuality::New);
        let e = extraction("0002", Tier::Low, 1);
        assert_eq!(classify(&s, Some(&e)), MatchQuality::New);
    }

    #[test]
    fn skipped_sections_are_not_scanned_and_failed_ones_failed() {
        let s = section(
            "0003",
            "Governing Law",
            Some(Tier::VeryLow),
            Route::Skip,
            300,
        );
        assert_eq!(classify(&s, None), MatchQuality::NotScanned);
        let mut e = extraction("0003", Tier::High, 5);
        e.status = SectionStatus::Failed("timeout".into());
        let sent = section("0003", "Litigation", Some(Tier::High), Route::Llm, 300);
        assert_eq!(classify(&sent, Some(&e)), MatchQuality::Failed);
        let new = section("0006", "Bespoke Clause", None, Route::Llm, 300);
        assert_eq!(classify(&new, Some(&e)), MatchQuality::Failed);
        assert!(!MatchQuality::Failed.is_aligned_section());
    }

    #[test]
    fn noise_and_empty_routes_win() {
        let s = section("0004", "Table of Contents", None, Route::Noise, 900);
        assert_eq!(classify(&s, None), MatchQuality::Noise);
        let s = section("0005", "ARTICLE I", None, Route::Empty, 10);
        assert_eq!(classify(&s, None), MatchQuality::Empty);
    }
}
