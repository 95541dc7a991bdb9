//! Forum and law: the courts the parties submit to, where disputes are
//! heard or arbitrated, and governing law worded the ways `law.rs`'s
//! `governed by the laws of X` pattern does not read (`The laws of X shall
//! govern`, `governed by English law`, capitals).

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;

pub(super) static RULES: [Rule; 2] = [
    Rule {
        category: "Governing Law",
        any: &["law"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:governed|construed|interpreted|enforced|controlled)\s+(?:by|in\s+accordance\s+with|under|pursuant\s+to|according\s+to)\b[^.;]{0,100}?\blaws?\b|\blaws?\s+of\b[^.;]{0,120}?\b(?:shall|will)\s+(?:govern|apply|control)|\b(?:governing|applicable|choice\s+of)\s+law\b[^.;]{0,60}?\b(?:shall\s+be|is)\b",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(r"\bcompl(?:y|iance)\s+with\s+(?:all\s+)?(?:applicable\s+)?laws\b")
        })),
        also: None,
        source: Source::Agreement,
        target: Target::Place,
    },
    Rule {
        category: "Submits To Jurisdiction",
        any: &["jurisdiction", "venue", "courts", "arbitrat", "forum"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:exclusive|non-?exclusive)?\s*(?:jurisdiction|venue)\s+of\s+(?:the\s+)?(?:state\s+|federal\s+)?courts?\b|\bsubmits?\s+to\s+the\b[^.;]{0,60}?\bjurisdiction\b|\b(?:brought|heard|litigated|resolved|settled)\s+(?:exclusively\s+|only\s+)?(?:in|before|by)\s+(?:the\s+)?(?:state\s+or\s+federal\s+)?(?:courts?|arbitration)\b|\bfinally\s+(?:settled|resolved)\s+by\s+(?:binding\s+)?arbitration\b|\barbitration\s+(?:shall\s+be\s+)?(?:held|conducted)\s+in\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: Target::Place,
    },
];
