//! Grants: the licence and its scope (exclusive, non-transferable,
//! irrevocable or perpetual, to or from affiliates, unlimited), who owns
//! the intellectual property and who assigns it. The target is the grant
//! (a `Right` named by its clause); the source the first party named,
//! usually the grantor.

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;

const RIGHT: Target = Target::Clause("Right");

pub(super) static RULES: [Rule; 9] = [
    Rule {
        category: "License Grant",
        any: &["licen"],
        pattern: Lazy::new(|| {
            ci(
                r"\bgrants?\b[^.;]{0,200}?\b(?:sub)?licen[cs]e|\b(?:is|are|be|been|was|were)\s+(?:hereby\s+)?granted\b[^.;]{0,200}?\b(?:sub)?licen[cs]e|\bhereby\s+licen[cs]es\b|\blicen[cs]e\s+(?:is\s+|are\s+)?hereby\s+granted\b|\blicen[cs]e\s+is\s+granted\b|\b(?:exclusive|non-?exclusive|royalty-?free|limited|fully\s+paid)[\s\-,]+(?:[a-z\-]+[\s,]+){0,4}licen[cs]e\s+(?:to|under)\b",
            )
        }),
        // A sentence that only speaks of a licence granted elsewhere (`the
        // license granted under Section 2 will terminate`) or denies one
        // (`no license is granted`, `does not acquire any right`, `has no
        // right to sublicense`) grants nothing.
        unless: Some(Lazy::new(|| {
            ci(
                r"\blicen[cs]es?\b[^.;]{0,60}?\bgranted\b[^.;]{0,160}?\b(?:shall|will)\s+(?:(?:immediately|automatically|forthwith|thereupon|also)\s+)?(?:terminate|cease|expire|revert|end)\b|\bno\s+(?:other\s+|additional\s+|implied\s+)?(?:rights?\s+or\s+)?licen[cs]es?\b[^.;]{0,60}?\b(?:is|are|shall\s+be|will\s+be|be)\s+(?:hereby\s+)?granted\b|\bnothing\b[^.;]{0,120}?\b(?:grant(?:s|ing)?|confer\w*)\b[^.;]{0,60}?\blicen[cs]e|\bdoes\s+not\s+(?:acquire|grant)\b|\bno\s+right\s+to\s+(?:sub-?licen[cs]e|grant)\b|\bnot\s+be\s+(?:deemed|construed)\s+(?:to\s+|as\s+)?(?:grant|a\s+licen)",
            )
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Non-Transferable License",
        any: &["transfer", "assignable", "sublicens"],
        pattern: Lazy::new(|| {
            ci(
                r"\bnon-?\s?transferable\b|\bnon-?\s?assignable\b|\bnon-?\s?sub-?licens(?:e|able)\b|\b(?:may|shall)\s+not\s+(?:sub-?license|sublicense|transfer|assign)\b[^.;]{0,80}?\blicen[cs]e|\blicen[cs]e\b[^.;]{0,120}?\b(?:not|non)[\s\-]?(?:transferable|assignable|sub-?licensable)\b|\bwithout\s+the\s+right\s+to\s+(?:sub-?license|transfer)",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Irrevocable Or Perpetual License",
        any: &["irrevocabl", "perpetu"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:irrevocabl[ey]|perpetual(?:ly)?|in\s+perpetuity)\b[^.;]{0,160}?\b(?:licen[cs]e|right)|\b(?:licen[cs]e|right)\b[^.;]{0,160}?\b(?:irrevocabl[ey]|perpetual(?:ly)?|in\s+perpetuity)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    // `... grants to Licensee and its Affiliates a licence`.
    Rule {
        category: "Affiliate License-Licensee",
        any: &["affiliate", "subsidiar", "sublicens", "sub-licens", "group"],
        pattern: Lazy::new(|| {
            ci(
                r"\bgrant(?:s|ed)?\b[^.;]{0,160}?\b(?:affiliates?|subsidiar(?:y|ies))\b[^.;]{0,160}?\blicen[cs]e|\blicen[cs]e\b[^.;]{0,160}?\b(?:to|by|for)\s+(?:\w+\s+){0,3}(?:and|or)\s+(?:its|their)\s+(?:affiliates?|subsidiar)|\b(?:affiliates?|subsidiar(?:y|ies))\b[^.;]{0,80}?\b(?:may|shall\s+be\s+entitled\s+to)\s+(?:use|exercise|sublicense)|\bsub-?licens\w*\b(?:[^.;]|\.\d){0,160}?\bto\s+(?:[\w'’\-]+\s+){0,3}?(?:its|their|any\s+of\s+its|such\s+party's)?\s*(?:wholly[\s-]owned\s+|majority[\s-]owned\s+)?(?:affiliates?|subsidiar(?:y|ies))\b|\bgrant(?:s|ed)?\b(?:\s+to)?\s+(?:\w+\s+){1,3}?(?:together\s+with|and)\s+(?:its|their)\s+(?:affiliates?|subsidiar(?:y|ies))\b[^.;]{0,160}?\bright|\bgrants?\b[^.;]{0,160}?\b(?:each\s+)?members?\s+of\s+the\s+\w+(?:\s+\w+)?\s+group\b",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(r"\b(?:licensor|grantor)(?:'s)?\s+(?:and\s+its\s+)?affiliates?\b")
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    // `Licensor and its Affiliates hereby grant ...`.
    Rule {
        category: "Affiliate License-Licensor",
        any: &["affiliate", "subsidiar", "group", "behalf", "for itself"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:affiliates?|subsidiar(?:y|ies))\b[^.;]{0,80}?\b(?:hereby\s+)?grants?\b[^.;]{0,200}?\blicen[cs]e|\blicen[cs]e\b[^.;]{0,200}?\b(?:owned|controlled|licensed)\s+by\s+(?:\w+\s+){0,3}(?:or|and)\s+(?:any\s+of\s+)?(?:its|their)\s+(?:affiliates?|subsidiar)|\b(?:licensor|grantor)(?:'s)?\s+(?:and\s+its\s+)?affiliates?\b[^.;]{0,120}?\blicen|\bgrants?\b[^.;]{0,160}?\b(?:each\s+)?members?\s+of\s+the\s+\w+(?:\s+\w+)?\s+group\b|\b(?:on\s+behalf\s+of\s+itself\s+and\s+its|for\s+itself\s+and\s+(?:as\s+representative\s+of\s+)?(?:its|all\s+other\s+members\s+of\s+the\s+\w+\s+group))\b[^.;]{0,80}?\bgrants?\b",
            )
        }),
        // `No ... shall be construed as implying the grant of any rights by
        // the Licensor Party or another member of the Licensor Group`: a
        // reservation, no grant.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:construed|deemed|interpreted)\s+(?:as\s+|to\s+be\s+)?(?:implying|an?\s+implied|granting|conferring)\b|\bno\s+implied\s+licen[cs]es?\b|\bby\s+implication\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Unlimited/All-You-Can-Eat-License",
        any: &["unlimited", "enterprise", "any number"],
        pattern: Lazy::new(|| {
            ci(
                r"\bunlimited\s+(?:number\s+of\s+)?(?:licen|users?|copies|use|right|seats|installations|access)|\benterprise[\s\-]wide\b|\bany\s+number\s+of\s+(?:copies|users|installations)|\bunlimited\b(?:,?\s+(?:and\s+)?[\w\-]+){0,6}?,?\s+(?:rights?|licen[cs]es?)\b|\bunlimited\s+(?:number\s+of\s+)?(?:calls|calling|minutes|usage|support|downloads|transactions|queries|viewings|streams|access)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Ip Ownership Assignment",
        any: &["own", "assign", "title", "vest", "property", "hire"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:hereby\s+)?(?:assigns?|transfers?|conveys?)\b[^.;]{0,120}?\b(?:right,?\s+title\s+and\s+interest|(?:all|such)\s+(?:[\w\-]+\s+){0,4}?rights?|all\s+(?:copyrights|patents|inventions|intellectual))\b|\b(?:shall|will)\s+(?:be\s+and\s+remain|become|be|remain)\s+(?:the\s+|its\s+|our\s+|their\s+|his\s+|her\s+|[\w\-]+['’]s\s+)?(?:sole\s+and\s+exclusive\s+|sole\s+|exclusive\s+)?(?:property|owner)|\b(?:shall|will)\s+(?:solely\s+|exclusively\s+)?own\b|\bworks?\s+made\s+for\s+hire\b|\b(?:shall|will)\s+(?:vest|be\s+vested)\b|\b(?:shall\s+be\s+)?owned\s+(?:solely\s+|exclusively\s+)by\b",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(
                r"\bjointly\b|\bjoint\s+ownership\b|\bthis\s+agreement\s+(?:shall|may)\s+not\s+be\s+assigned|\beach\s+(?:party|of\s+the\s+parties)\b[^.;]{0,80}?\b(?:own|retain)\b|\b(?:shall\s+not\s+(?:obtain|acquire)|acquires?\s+no|obtains?\s+no)\b[^.;]{0,60}?\b(?:rights?|title|interest)\b|\bhas\s+only\s+a\s+limited\b",
            )
        })),
        also: Some(Lazy::new(|| {
            ci(
                r"\b(?:intellectual\s+property|inventions?|patents?|copyrights?|trademarks?|know-how|technology|software|data|works?|deliverables|developments|improvements|results|materials|ip)\b",
            )
        })),
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Joint Ip Ownership",
        any: &["joint", "co-own", "together"],
        pattern: Lazy::new(|| {
            ci(
                r"\bjointly\s+(?:owned|own|developed|made|conceived|created|invented|hold)|\bjoint\s+(?:ownership|owners|inventions?|intellectual\s+property|ip|technology|patents?|works?|developments?|data)\b|\bowned\s+jointly\b|\bco-?own(?:ed|ership|ers?)?\b|\bundivided\s+(?:one-half\s+)?interest\b",
            )
        }),
        // Not the relationship disclaimer (`nothing creates a joint
        // venture, co-ownership or partnership`), and something owned.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:not|nor|no|nothing)\b[^.;]{0,120}?\b(?:co-?owner\w*|joint\s+venture|partnership)\b|\bpartnership\s+agreement\b|\bjoint\s+development\s+agreement\b",
            )
        })),
        also: Some(Lazy::new(|| {
            ci(
                r"\bown\w*|\btitle\b|\binterest\b|\bpatent|\binvent|\bintellectual\s+property\b|\bknow-?how\b|\bip\b|\bcopyright|\btechnology\b|\bdata\b|\bworks?\b|\blicen[cs]",
            )
        })),
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Source Code Escrow",
        any: &["escrow"],
        pattern: Lazy::new(|| ci(r"\bescrow\b")),
        unless: None,
        // What goes into escrow is code, not cash for the price.
        also: Some(Lazy::new(|| {
            ci(r"\b(?:source|object)\s+code\b|\bsoftware\b|\bdeposit\s+materials\b|\btechnology\b")
        })),
        source: Source::Party,
        target: RIGHT,
    },
];
