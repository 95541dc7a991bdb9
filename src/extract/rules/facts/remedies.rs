//! Remedies and what outlives the agreement: a breach or a default and
//! what the other party may then do, services and duties after
//! termination, third-party beneficiaries.

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;

pub(super) static RULES: [Rule; 3] = [
    // `Upon termination or expiration, Distributor shall return ...`,
    // `... shall survive termination`.
    Rule {
        category: "Post-Termination Services",
        any: &["terminat", "expir"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:upon|after|following|on|in\s+the\s+event\s+of|prior\s+to|at\s+the\s+time\s+of|subsequent\s+to)\s+(?:the\s+)?(?:any\s+)?(?:effective\s+date\s+of\s+(?:the\s+)?|date\s+of\s+)?(?:termination|expiration|expiry)\b[^.;]{0,250}?\b(?:shall|will|may|must|agrees?)\b|\b(?:termination|expiration)\b[^.;]{0,80}?\b(?:for\s+a\s+period|wind[\s\-]?down|transition|sell[\s\-]off)",
            )
        }),
        // Not when what ends is a warranty, support or notice period
        // rather than the agreement, nor a restriction running after it
        // (a non-compete's own kind), the return of confidential
        // information, or rights accrued before it.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:shall|will)\s+(?:expire|not\s+be\s+deemed)\b|\bholding\s+over\b|\b(?:expiration|expiry|end)\s+of\s+(?:the\s+|such\s+|any\s+such\s+)?(?:warranty|support|initial|renewal|sell-?off|cure|notice|such|maintenance)\b[^.;]{0,20}?\b(?:period|term)\b|\bnot\b[^.;]{0,80}?\b(?:solicit|compete|hire|recruit)|\b(?:return|destroy|erase|delete|stop\s+using|cease\s+using)\w*\b[^.;]{0,200}?\bconfidential\s+information\b|\bconfidential\s+information\b[^.;]{0,120}?\b(?:return|destroy|erase|delete)|\b(?:rights?\s+or\s+obligations|obligations)\s+accrued\b|\baccrued\s+(?:or\s+existing\s+)?as\s+of\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: Target::Clause("Obligation"),
    },
    // `If Licensee breaches ..., Licensor may terminate this Agreement`.
    Rule {
        category: "Remedy For",
        any: &["breach", "default"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:breach|default)\w*\b[^.;]{0,200}?\b(?:may|shall\s+(?:have\s+the\s+right|be\s+entitled))\b[^.;]{0,40}?\b(?:terminat|suspend|withhold|recover|seek|declare|cure|set\s+off|offset|injunct)",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: Target::Clause("Right"),
    },
    Rule {
        category: "Third Party Beneficiary",
        any: &["beneficiar"],
        // A beneficiary of the agreement or its provisions (`intended
        // third party beneficiaries`, `express beneficiaries of Section
        // 9`), not of an instrument it speaks of (a letter of credit, a
        // land trust, Indebtedness, an insurance policy).
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:third[\s-]+part(?:y|ies)|intended|express(?:ly)?|direct)\s+(?:third[\s-]+part(?:y|ies)\s+)?beneficiar(?:y|ies)\b|\bbeneficiar(?:y|ies)\s+(?:of|to|under|in\s+respect\s+of)\s+(?:(?:this|these|the|such|each|all|any|its)\s+)?(?:agreement|addendum|amendment|provisions?|sections?|articles?|paragraphs?|clauses?|covenants?|indemnit\w*|obligations?|representations?|terms?|rights?)\b|\bbeneficiar(?:y|ies)\s+(?:hereof|hereunder|hereto)\b",
            )
        }),
        // `There are no third party beneficiaries`, `shall not have rights
        // as a third party beneficiary`: the opposite clause.
        unless: Some(Lazy::new(|| {
            ci(r"\b(?:no|not|nothing|neither|nor|none)\b[^.;]{0,160}?\bbeneficiar")
        })),
        // A third party's right to enforce, not any beneficiary (of a letter
        // of credit, of Indebtedness, of an insurance policy).
        also: Some(Lazy::new(|| {
            ci(r"\bthird[\s-]+part(?:y|ies)\b|\bintended\b|\bexpress(?:ly)?\b|\benforce")
        })),
        source: Source::Party,
        target: Target::Clause("Right"),
    },
];
