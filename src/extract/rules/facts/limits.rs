//! Limits: exclusivity, non-compete and its exceptions, no-solicit,
//! non-disparagement, rights of first refusal, change of control,
//! anti-assignment, audit rights, insurance, covenants not to sue and
//! third-party beneficiaries. The target is the clause (a `Covenant` for
//! a restriction, a `Right` for what a party may do, an `Obligation` for
//! what it must); the source the first party named.

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;

const COVENANT: Target = Target::Clause("Covenant");
const RIGHT: Target = Target::Clause("Right");
const OBLIGATION: Target = Target::Clause("Obligation");

pub(super) static RULES: [Rule; 12] = [
    Rule {
        category: "Exclusivity",
        any: &["exclusiv", "sole ", "solely"],
        pattern: Lazy::new(|| {
            ci(
                r"(?:^|[^\-])\bexclusive\b(?:(?:,?\s+[\w\-]+){0,4}?,?\s+(?:right|licen[cs]e|distribut|supplier|provider|agent|represent|partner|basis|reseller|sales|marketing|rights|manufactur))|\b(?:purchas|buy|sell|distribut|order|obtain|sourc|procur|suppl|market|promot|resell|manufactur|licens)\w*\s+(?:[\w,\-]+\s+){0,6}?exclusively\b|\bexclusively\s+(?:from|through|to|with)\b|\bon\s+an\s+exclusive\s+basis\b|\b(?:licen[cs]e|right|appointment)s?\b[^.;]{0,60}?\bshall\s+be\s+exclusive\b|\bsole\s+(?:and\s+exclusive\s+)?(?:supplier|distributor|provider|source|agent|representative|reseller|manufacturer)\b|\bexclusivity\b",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(
                r"\bexclusive\s+(?:remedy|remedies|jurisdiction|venue|forum|property|owner|ownership|use\s+of\s+the\s+parties)\b|\bsole\s+and\s+exclusive\s+(?:remedy|property|owner)|\bsolely\s+and\s+exclusively\s+(?:as|for|in\s+connection)|\bnon-?\s?exclusive\b[^.;]{0,200}?\bexclusively\b|\bexclusive\s+licen[cs]e\w*\b[^.;]{0,40}?\b(?:with|to)\s+(?:other|third)|\bscope\s+of\s+any\s+(?:such\s+)?exclusive",
            )
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Non-Compete",
        any: &[
            "compet",
            "similar",
            "same",
            "identical",
            "engag",
            "participat",
            "interest",
            "involv",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:not|no|refrain\s+from|neither)\b[^.;]{0,160}?\b(?:compet(?:e|ing|itive|ition)|competitor)\b|\bnon-?compet|\b(?:not|neither|nor|refrain\s+from)\b[^.;]{0,120}?\b(?:engag\w*|participat\w*|be\s+(?:engaged|interested|involved)|(?:own|operat|conduct)\w*|carry\s+on)\b[^.;]{0,160}?\b(?:similar|same|identical)\b|\b(?:not|neither|nor|refrain\s+from)\b[^.;]{0,160}?\b(?:engag\w*|participat\w*|interest\w*|involv\w*)\s+in\s+(?:any|the|a|such)\s+(?:[\w\-]+\s+){0,3}?(?:business|project|venture|enterprise)\b",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(
                r"\bcompetitive\s+(?:bid|pric|rates?)\b|\bcompetent\b|\bnotwithstanding\b|\bnothing\s+(?:in\s+this|herein)\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: COVENANT,
    },
    // `Notwithstanding the foregoing, X may sell competing products ...`.
    Rule {
        category: "Competitive Restriction Exception",
        any: &[
            "notwithstanding",
            "nothing",
            "except",
            "shall not prevent",
            "shall not restrict",
            "shall not prohibit",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:notwithstanding|nothing\s+(?:in\s+this|herein|contained)|shall\s+not\s+(?:prevent|restrict|prohibit|preclude|limit)|except\s+(?:for|that))\b[^.;]{0,250}?\b(?:compet(?:e|es|ed|ing|itive|ition|itions|itor|itors)\b|exclusiv(?:e|ity)\b|non-?solicit)",
            )
        }),
        // A carve-out from a competitive restriction: not from an
        // exclusive remedy, forum or ownership, nor a clause set forth
        // `exclusively` here, nor the court's injunctive relief.
        unless: Some(Lazy::new(|| {
            ci(
                r"\bexclusive(?:ly)?\s+(?:remed|jurisdiction|venue|forum|property|owner|set\s+forth|provided|stated)|\bsole\s+and\s+exclusive\s+(?:remed|property|owner)|\binjunctive\b|\bnon-?\s?exclusive|\bnot\s+exclusive|\bexclusive\s+of\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "No-Solicit Of Employees",
        any: &["solicit", "hire", "employ"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:not|no|neither|nor|refrain\s+from)\b[^.;]{0,120}?\b(?:solicit\w*|recruit\w*|hir(?:e|es|ed|ing)|induc(?:e|es|ed|ing)|entic(?:e|es|ed|ing)|employ(?:s|ing)?)\b[^.;]{0,120}?\b(?:employees?|personnel|staff|consultants|contractors)\b|\bnon-?solicit",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:general\s+solicitation|shall\s+employ\s+(?:qualified|sufficient|adequate))|\bresponsib\w*\s+for\s+(?:the\s+)?hiring\b|\bnot\s+(?:be\s+)?obligated\s+to\b|\bbut\s+not\s+the\s+obligation\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: COVENANT,
    },
    Rule {
        category: "No-Solicit Of Customers",
        any: &["solicit", "divert", "induce", "interfere"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:solicit|divert|induce|entice|interfere)\w*\b[^.;]{0,160}?\b(?:customers?|clients?|merchants|accounts|suppliers|distributors|franchisees)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: COVENANT,
    },
    Rule {
        category: "Non-Disparagement",
        any: &["disparag", "derogatory", "detrimental", "negative"],
        pattern: Lazy::new(|| {
            ci(
                r"\bdisparag|\bderogatory\b|\bnegative\s+(?:statements?|comments?|remarks?)\b|\b(?:reflect|comment)\w*\s+(?:adversely|negatively|unfavou?rably)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: COVENANT,
    },
    Rule {
        category: "Rofr/Rofo/Rofn",
        any: &[
            "first",
            "option",
            "prior to",
            "before",
            "negotiat",
            "opportunity",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\bright\s+of\s+first\s+(?:refusal|offer|negotiation)\b|\bfirst\s+(?:right|option|opportunity)\s+(?:of\s+refusal\s+)?(?:to|of)\b|\b(?:right|option)\s+to\s+(?:match|negotiate|purchase|acquire|obtain)\b|\bbefore\s+(?:offering|selling|granting|entering)\b[^.;]{0,120}?\bthird\s+part|\b(?:shall|will|must)\s+first\s+(?:offer|notify|contact|present|negotiate|provide|approach|consult)\b|\bexclusive\s+(?:good[\s-]+faith\s+)?negotiations?\b|\bnegotiate\s+exclusively\b|\b(?:an|the)\s+opportunity\s+to\s+(?:match|negotiate|enter\s+into|make\s+an\s+offer|bid|acquire|purchase|participate)\b",
            )
        }),
        // A right to deal with a third party (`the right to negotiate and
        // obtain a license from such Third Party`) is no preference over
        // one.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:right|option)\s+to\s+(?:negotiate|obtain|acquire|purchase)\b[^.;]{0,80}?\b(?:from|with)\s+(?:a|any|such|the|that)\s+third[\s-]+part",
            )
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Change Of Control",
        any: &[
            "control",
            "merger",
            "merge",
            "acqui",
            "substantially all",
            "ownership",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\bchanges?\s+(?:of|in)\s+(?:the\s+)?(?:[\w\-]+,?\s+(?:or\s+|and\s+)?){0,4}?(?:control|ownership)\b|\bownership\s+change\b|\bcontrol\b[^.;]{0,60}?\bshall\s+pass\b|\b(?:merger|merges?|consolidat\w+|reorganiz\w+)\b[^.;]{0,120}?\b(?:with|into|other\s+entity|another|third|involving)\b|\b(?:sale|transfer|acquisition)\s+of\s+(?:all\s+or\s+)?substantially\s+all\b|\b(?:acquires?|acquired\s+by)\b[^.;]{0,80}?\b(?:control|majority|fifty\s+percent|50\s*%|voting)",
            )
        }),
        // A merger a party may assign in without anyone's say is the
        // opposite of a change-of-control clause: nothing follows from it.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:either|each|any)\s+(?:party|of\s+the\s+parties)\b[^.;]{0,20}?\b(?:may|shall\s+(?:be\s+entitled|have\s+the\s+right)\s+to)\s+(?:freely\s+|also\s+)?(?:assign|transfer)\w*\b[^.;]{0,160}?\b(?:without\b|in\s+connection\s+with|to\s+(?:a|any|its)\s+(?:successor|acquir|purchaser))|\bno\s+(?:such\s+)?consent\s+(?:shall|will)\s+be\s+required|\bnot\s+be\s+(?:considered|deemed)\s+(?:to\s+be\s+)?(?:an?\s+)?(?:assignment|transfer)",
            )
        })),
        // What a lawyer marks is what follows from the change: a consent,
        // a notice, a right to terminate, a deemed assignment.
        also: Some(Lazy::new(|| {
            ci(
                r"\bterminat|\bconsent|\bapprov|\bnoti(?:ce|fy|fication)|\bdeemed\b[^.;]{0,30}?\bassign|\bassign|\btransfer|\boption\b|\bright\s+to\b",
            )
        })),
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Anti-Assignment",
        any: &["assign", "transfer", "delegat"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:assign|transfer|delegate|sub-?contract|sublicense)\w*\b[^.;]{0,200}?\b(?:without\s+(?:the\s+)?(?:prior\s+)?(?:express\s+)?(?:written\s+)?(?:consent|approval|permission)|consent\s+of)|\b(?:not|no)\b[^.;]{0,60}?\b(?:assign|transfer|delegate)\w*\b[^.;]{0,120}?\b(?:agreement|rights|obligations|interest)|\b(?:assignable|transferable)\b[^.;]{0,60}?\bwithout\b|\bany\s+(?:purported\s+|attempted\s+)?assignment\b[^.;]{0,120}?\b(?:void|null|invalid)",
            )
        }),
        // A duty to try to assign (`use reasonable efforts to ... assign its
        // rights to another of its offices`) restricts no assignment.
        unless: Some(Lazy::new(|| {
            ci(r"\befforts\s+to\b[^.;]{0,120}?\b(?:assign|transfer)")
        })),
        also: None,
        source: Source::Party,
        target: COVENANT,
    },
    Rule {
        category: "Audit Rights",
        any: &["audit", "inspect", "examin", "books", "records"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:audit|audits|auditing)\b|\b(?:inspect|examin|review)\w*\b[^.;]{0,120}?\b(?:books|records|accounts|facilit\w*|plants?|sites?)\b|\b(?:books|records)\b[^.;]{0,120}?\b(?:inspect|examin|review|available)\w*",
            )
        }),
        // A financial statement's audit (`audit opinion`, `Audit Committee`,
        // `year-end audit adjustments`, `the scope of the audit`) or a tax
        // authority's is no right to audit a party.
        unless: Some(Lazy::new(|| {
            ci(
                r"\baudit\s+(?:opinion|committee|adjustments?)s?\b|\baudited\s+(?:annual\s+|quarterly\s+)?(?:consolidated\s+)?(?:financial|balance)\b|\bagreed[\s-]+upon\s+procedures\b|\bnot\s+an\s+audit\b|\bannual\s+audit\b|\bscope\s+of\s+(?:the|its|such|their)\s+audit\b|\bauditing\s+(?:practices|standards|matters)\b|\btax\w*\b[^.;]{0,60}?\baudits?\b|\baudits?\b[^.;]{0,60}?\b(?:with\s+respect\s+to|relating\s+to|in\s+respect\s+of|of)\s+(?:any\s+)?taxe?s?\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: RIGHT,
    },
    Rule {
        category: "Insurance",
        any: &["insur"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:maintain|carry|obtain|procure|keep|purchase|provide)\w*\b[^.;]{0,160}?\binsur(?:ance|ed)\b|\binsurance\b[^.;]{0,160}?\b(?:shall|will|must)\s+(?:be\s+)?(?:maintain|carr|obtain|procur|keep|includ|name|provid|cover)|\b(?:additional(?:ly)?\s+insured|certificates?\s+of\s+insurance|self-?insur\w*)\b|\binsur(?:ance|ed)\b[^.;]{0,80}?\b(?:coverage|limits?|amount)\s+of\b",
            )
        }),
        // Insurance a party may keep but need not is no duty to insure.
        unless: Some(Lazy::new(|| {
            ci(
                r"\bfederal\s+deposit\s+insurance\b|\bsocial\s+insurance\b|\bnot\s+(?:be\s+)?(?:obligated|required)\s+to\b",
            )
        })),
        also: None,
        source: Source::Party,
        target: OBLIGATION,
    },
    Rule {
        category: "Covenant Not To Sue",
        any: &[
            "sue",
            "challenge",
            "contest",
            "claim",
            "action",
            "dispute",
            "attack",
            "oppose",
            "question",
            "impair",
            "adversely",
            "jeopardi",
            "prejudice",
            "dilute",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\bnot\s+to\s+sue\b|\b(?:not|never|no)\b[^.;]{0,80}?\b(?:challenge|contest|attack|oppose|dispute|impair|question)\w*\b[^.;]{0,160}?\b(?:validity|ownership|enforceability|rights?|title|patents?|trademarks?|marks?|intellectual\s+property)|\b(?:not|never)\b[^.;]{0,60}?\b(?:bring|assert|institute|commence|file)\b[^.;]{0,80}?\b(?:claim|action|suit|proceeding)s?\b[^.;]{0,100}?\b(?:infring|patent|intellectual)|\b(?:challeng|contest|attack|oppos|disput|question)\w*\s+(?:(?:or|and/or|and)\s+\w+\s+)?(?:the\s+|its\s+|any\s+)?(?:validity|enforceability|ownership)\b|\b(?:not|never|no)\b[^.;]{0,100}?\b(?:impair|adversely\s+affect|jeopardi[sz]e|prejudice|dilute)\w*\b[^.;]{0,120}?\b(?:rights?|title|goodwill|validity)\b[^.;]{0,80}?\b(?:marks?|trademarks?|patents?|intellectual\s+property|copyrights?|names?|logos?)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: COVENANT,
    },
];
