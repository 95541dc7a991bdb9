//! Money: revenue and profit shares, minimum commitments, caps on
//! liability and what escapes them, liquidated damages, price and volume
//! limits, most-favoured terms. The target is the amount or rate the
//! sentence names (else the clause); the source the first party named.

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;

pub(super) static RULES: [Rule; 8] = [
    Rule {
        category: "Revenue/Profit Sharing",
        any: &[
            "royalt",
            "revenue",
            "profit",
            "commission",
            "net sales",
            "gross sales",
            "%",
            "percent",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\broyalt(?:y|ies)\b|\b(?:revenue|profit)s?[\s\-]+shar|\bshare\s+of\s+(?:the\s+)?(?:net\s+|gross\s+)?(?:revenue|profit|proceeds|sales)|\bcommissions?\b[^.;]{0,80}?(?:%|percent)|(?:%|percent)[^.;]{0,60}?\bof\s+(?:all\s+|the\s+|its\s+)?(?:net\s+|gross\s+|total\s+)?(?:sales|revenues?|profits?|receipts|proceeds|income|fees\s+(?:received|collected))",
            )
        }),
        unless: Some(Lazy::new(|| ci(r"\bbrokers?\b|\bcommissions?\s+having\b"))),
        // A share is paid: `10% of the revenues` in a test of a
        // subsidiary's size is no revenue share.
        also: Some(Lazy::new(|| {
            ci(
                r"\b(?:pa(?:y|id|ys|yable|yment)|remit|due|owe|entitled|receive|earn|royalt|commission|shar(?:e|ed|ing))\w*",
            )
        })),
        source: Source::Party,
        target: Target::Amount,
    },
    Rule {
        category: "Minimum Commitment",
        any: &["minimum", "at least", "no less than", "not less than"],
        pattern: Lazy::new(|| {
            ci(
                r"\bminimum\s+(?:annual\s+|monthly\s+|quarterly\s+|purchase\s+|order\s+)*(?:purchase|order|quantit|volume|commitment|royalt|payment|fee|sales|requirement|amount|number|units)|\b(?:purchase|buy|sell)\b[^.;]{0,60}?\b(?:at\s+least|no\s+less\s+than|not\s+less\s+than)\b|\b(?:purchase\s+)?orders?\s+(?:for\s+|of\s+)?(?:at\s+least|no\s+less\s+than|not\s+less\s+than|a\s+minimum)\b|\ba\s+minimum\s+of\b|\bminimum\s+(?:(?:annual|yearly|monthly|quarterly|weekly|purchase|purchasing|order|performance|sales)\s+)*(?:purchas\w*|order|quantit|volume|commitment|royalt|payment|fee|sales|requirement|amount|number|units|performance|goals?|targets?|impressions|revenue|threshold|spend)",
            )
        }),
        // A lease's minimum rent is its rent, not a purchase commitment.
        // A time (`at least 30 days before`) or no minimum at all is no
        // commitment.
        unless: Some(Lazy::new(|| {
            ci(
                r"\brent(?:al)?\b|\b(?:at\s+least|no\s+less\s+than|not\s+less\s+than|a\s+minimum\s+of)\b[^.;]{0,40}?\b(?:days?|weeks?|months?|business)?\b[^.;]{0,10}?\b(?:after|before|prior\s+to|in\s+advance)\b|\bavailability\b|\bservice\s+levels?\b|\bSLA\b|\buptime\b|\bno\s+minimum\b|\bnot\s+(?:be\s+)?(?:required|obligated)\s+to\s+(?:purchase|order|buy)",
            )
        })),
        also: None,
        source: Source::Party,
        target: Target::Amount,
    },
    Rule {
        category: "Cap On Liability",
        any: &["liab", "damages"],
        pattern: Lazy::new(|| {
            ci(
                r"\bliab\w*\b[^.;]{0,200}?\b(?:shall\s+not\s+exceed|not\s+to\s+exceed|in\s+excess\s+of|exceed|(?:be|is|are|been)\s+limited\s+to|maximum|cap)\b|\bin\s+no\s+event\b[^.;]{0,200}?\bliab|\b(?:not|never)\s+be\s+liable\b[^.;]{0,200}?\b(?:indirect|incidental|consequential|special|punitive|exemplary|lost\s+profits)|\b(?:indirect|incidental|consequential|special|punitive)\b[^.;]{0,100}?\bdamages\b[^.;]{0,100}?\b(?:not\s+be\s+liable|no\s+liability|exclud|waive)|\baggregate\s+liability\b|\blimitation\s+of\s+liability\b|\b(?:neither|no)\b[^.;]{0,60}?\b(?:shall|will)\s+(?:be\s+)?(?:liable|responsible)\b[^.;]{0,200}?\b(?:indirect|incidental|consequential|special|punitive|exemplary|lost\s+profits)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: Target::Amount,
    },
    Rule {
        category: "Uncapped Liability",
        any: &["limitation", "liab", "shall not apply", "except", "nothing"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:limitations?|exclusions?|cap)\b[^.;]{0,200}?\b(?:shall\s+not\s+apply|do\s+not\s+apply|does\s+not\s+apply|will\s+not\s+apply|not\s+limit)\b|\b(?:shall\s+not\s+apply|not\s+apply)\b[^.;]{0,120}?\b(?:indemnif|gross\s+negligence|willful|wilful|fraud|confidential|infringement)|\bunlimited\s+liability\b|\bexcept(?:ing)?\b(?:[^.;]|\.\d){0,200}?\b(?:indemnif\w*|gross(?:ly)?\s+negligen\w*|wil+ful|fraud\w*|confidential\w*|infring\w*|misappropriat\w*)\b(?:[^.;]|\.\d){0,250}?\b(?:in\s+no\s+event|under\s+no\s+circumstances|neither\s+party|(?:shall|will)\s+not\s+be\s+liable|no\s+liability|liability)\b|\bexcept(?:ing)?\s+(?:for\s+|with\s+(?:respect|regard)\s+to\s+|as\s+(?:otherwise\s+)?(?:provided|set\s+forth)\s+in\s+|only\s+|in\s+connection\s+with\s+)?(?:[^.;]|\.\d){0,120}?\b(?:sections?|articles?|paragraphs?|clauses?)\s+\d(?:[^.;]|\.\d){0,250}?\b(?:in\s+no\s+event|under\s+no\s+circumstances|neither\s+party|(?:shall|will)\s+not\s+be\s+liable|liability)\b|\bnothing\s+(?:in|contained\s+in)\s+this\s+(?:section|article|clause|paragraph|agreement)\b(?:[^.;]|\.\d){0,80}?\b(?:limit|restrict|exclude)\w*\b(?:[^.;]|\.\d){0,80}?\b(?:liabilit\w*|damages|indemnif\w*)",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: Target::Clause("Right"),
    },
    Rule {
        category: "Liquidated Damages",
        any: &[
            "liquidated",
            "penalty",
            "termination fee",
            "break-up",
            "breakup",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\bliquidated\s+damages\b|\bas\s+a\s+penalty\b|\btermination\s+fee\b|\bbreak-?up\s+fee\b|\bpenalty\s+of\b",
            )
        }),
        // `shall have no liability for ... liquidated damages` excludes them;
        // a section cited by its caption (`Section 6.9 (Break-Up Fee)`) is
        // not the fee's clause.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:no|neither|nor|not)\b[^.;]{0,80}?\b(?:liab\w*|responsib\w*)\b[^.;]{0,80}?\bliquidated\s+damages\b|\b(?:sections?|articles?)\s+\d[\w.()]*\s*\(\s*(?:termination\s+fee|break-?up\s+fee|liquidated\s+damages)\s*\)",
            )
        })),
        also: None,
        source: Source::Party,
        target: Target::Amount,
    },
    Rule {
        category: "Price Restrictions",
        any: &["price", "pricing"],
        pattern: Lazy::new(|| {
            ci(
                r"\bpric(?:e|es|ing)\b[^.;]{0,100}?\b(?:shall\s+not\s+(?:increase|exceed|be\s+increased)|not\s+(?:be\s+)?(?:increase|change)d?|fixed\s+for|may\s+not\s+(?:increase|raise)|increase[sd]?\s+(?:by\s+)?(?:no|not)\s+more\s+than)",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: Target::Amount,
    },
    Rule {
        category: "Volume Restriction",
        any: &[
            "exceed",
            "maximum",
            "more than",
            "up to",
            "limit",
            "at most",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:maximum|exceed(?:s|ing)?|no\s+more\s+than|not\s+more\s+than|up\s+to|limited\s+to|at\s+most)\b[^.;]{0,60}?\b(?:units|quantit(?:y|ies)|volume|users|copies|seats|installations|licenses|subscribers|forecast|times\s+(?:per|each|a)|per\s+(?:month|year|week|day|quarter)|hours|persons|people|events|appearances|sessions|requests|technicians|personnel|batches|capacity|inventory)\b",
            )
        }),
        // A cap on what is owed is a cap on liability, not on volume.
        unless: Some(Lazy::new(|| ci(r"\bliab|\bdamages\b|\bindemn"))),
        also: None,
        source: Source::Party,
        target: Target::Amount,
    },
    Rule {
        category: "Most Favored Nation",
        any: &["favo", "lower price", "better", "lowest", "higher"],
        pattern: Lazy::new(|| {
            ci(
                r"\bmost\s+favou?red\b|\b(?:no\s+less|not\s+(?:be\s+)?less|at\s+least\s+as|more)\s+favou?rable\b|\b(?:no|not\s+(?:be\s+)?)\s*(?:greater|higher)\s+than\s+(?:the\s+)?(?:lowest|best)\b|\bhigher\s+(?:fees?|prices?|rates?)\s+than\b|\b(?:lower|lowest|better|best)\s+(?:price|prices|pricing|terms|rates?)\b[^.;]{0,120}?\b(?:than|offered|granted|any\s+other)",
            )
        }),
        unless: None,
        // Prices, or terms as good as another customer's: `no less
        // favorable than the coverage under the existing policies`
        // compares no one's.
        also: Some(Lazy::new(|| {
            ci(
                r"\bmost\s+favou?red\b|\b(?:pric|rates?\b|fees?\b|royalt|discount|charg)|\b(?:other|third|any|all|similarly\s+situated)\b[^.;]{0,40}?\b(?:customers?|licensees?|distributors?|purchasers?|buyers?|part(?:y|ies)|persons?|clients?|resellers?|suppliers?|vendors?|entit(?:y|ies)|compan(?:y|ies))\b",
            )
        })),
        source: Source::Party,
        target: Target::Clause("Right"),
    },
];
