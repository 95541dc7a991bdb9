//! Dates and periods: when the agreement was made, when it takes effect,
//! when its term ends, how it renews, the notice that stops a renewal,
//! how long a warranty lasts.

use super::{ci, Rule, Source, Target};
use once_cell::sync::Lazy;

/// A sentence about another duration than the agreement's: what survives
/// it, a duty that lasts past it (`for the term of this Agreement and for
/// five (5) years thereafter`), an exclusivity, a payment schedule, a
/// commitment window (`within the first six months of the term`); or a
/// definition (`"Wedge Products" shall mean ...`). Its date or period is no
/// expiry.
macro_rules! other_duration {
    () => {
        concat!(
            r"\bsurviv|\bexclusivity\b|\b(?:shall|will)\s+pay\b|\bcommits?\s+to\b|\bafter\s+(?:the\s+)?(?:expiration|termination|expiry)\b",
            r#"|\band\s+for\s+[^.;]{0,40}\bthereafter\b|^\s*(?:\d+(?:\.\d+)*\s*)?["“][^"”]{1,80}["”]\s+(?:shall\s+)?means?\b"#
        )
    };
}

/// A sentence that opens on what follows the initial term (`Thereafter,
/// this Agreement shall automatically continue until ...`, `After the
/// Initial Term, ...`): it tells how the agreement goes on, not when its
/// initial term ends.
macro_rules! after_initial {
    () => {
        r"^\W*(?:\(?[a-z0-9]{1,3}[.)]\s*)?(?:thereafter|after\s+(?:the\s+(?:expiration\s+of\s+the\s+)?)?initial\s+term|following\s+the\s+(?:expiration\s+of\s+the\s+)?initial\s+term|upon\s+(?:the\s+)?expiration\s+of\s+the\s+initial\s+term)\b"
    };
}

/// Another document's date: `that certain agreement effective as of`,
/// `an assignment dated as of`, `previously entered into a Selling
/// Agreement, effective as of`, `the Appraisal Report dated effective as
/// of`. This agreement's own is `this Agreement`.
macro_rules! another_document {
    () => {
        r"\bthat\s+certain\b|\bpreviously\b|\ban?\s+(?:[\w-]+\s+){0,3}(?:agreement|contract|letter|licen[cs]e|lease|amendment|assignment|memorandum|order|note|plan)\b,?\s+(?:dated|effective)\b|\b(?:report|appraisal|certificate|opinion|policy|survey|statement|invoice)\s+dated\b"
    };
}

pub(super) static RULES: [Rule; 11] = [
    // `This Agreement is made and entered into as of March 1, 2020`,
    // `dated this 8th day of May, 2014`. An agreement that only says when
    // it takes effect (`This Development Agreement is entered into and
    // effective as of September 30, 2019`) is dated by that day; one that
    // says both (`made as of March 14, 2012 but effective as of March 1,
    // 2012`) by the day it was made, the date after the trigger.
    Rule {
        category: "Agreement Date",
        any: &[
            "dated", "made", "entered", "executed", "day of", "as of", "accepted",
        ],
        pattern: Lazy::new(|| {
            ci(&[
                r"\b(?:dated|made|entered\s+into|executed|signed|concluded|accepted)\b[^.;]{0,60}?\b(?:as\s+of|on|this|of|effective)\b|\bagreement\b[^.;]{0,40}?\bas\s+of\b|\bthis\s+[\d_]+\s*(?:st|nd|rd|th)?\s+day\s+of\b|\bas\s+of\s+the\s+[\d_]+\s*(?:st|nd|rd|th|s\s?t|n\s?d|r\s?d|t\s?h)?\s+day\s+of\b",
                // `THIS AGENCY AGREEMENT, dated November 9, 2005`, `dated
                // for reference March 13, 1996`: the date right after.
                r"|\bdated\s+(?:for\s+reference\s+)?(?:",
                &super::values::date_source(),
                ")",
            ]
            .concat())
        }),
        unless: Some(Lazy::new(|| {
            ci(concat!(
                r"\bamend|\bthat\s+certain\b|\bwhereas\b|\b(?:prior|original|existing)\s+agreement\b|\b(?:letter|certificate|opinion|confidentiality\s+agreement|non-?disclosure\s+agreement|agreement\s+between\s+the\s+parties)\b[^;]{0,120}?\bdated\b|",
                // Another agreement between named parties: `the Restaurant
                // Development Agreement between BKC and International Fast
                // Food Corporation dated March 14, 1997`. This one says
                // `This`.
                r"\bthe\s+(?:[\w-]+\s+){0,4}?agreement\s+(?:between|among)\b[^.;]{0,120}?\bdated\b|",
                another_document!()
            ))
        })),
        // This agreement's date, not one it mentions: `this`, `hereto`,
        // or the agreement naming itself (`SERVICES AGREEMENT, dated as of
        // April 1, 2019 (the "Agreement")`).
        also: Some(Lazy::new(|| {
            ci(
                r#"\b(?:this|hereby|hereto|accepted)\b|\(\s*(?:the\s+|this\s+)?["“]agreement["”]\s*\)|\bas\s+of\s+the\s+[\d_]+\s*(?:st|nd|rd|th|s\s?t|n\s?d|r\s?d|t\s?h)?\s+day\s+of\b"#,
            )
        })),
        source: Source::Agreement,
        target: Target::Date,
    },
    // A document that is an amendment dates itself as one: `This SIXTH
    // AMENDMENT AGREEMENT, dated as of December 29, 2022 (this
    // "Amendment")`. The rule above leaves amendments alone (an
    // agreement's text names the dates of its amendments and of the
    // agreements it amends); this one reads only the sentence that opens
    // on the document naming itself (past a title in capitals), and the
    // date right after it.
    Rule {
        category: "Agreement Date",
        any: &["amendment"],
        pattern: Lazy::new(|| {
            ci(
                r"^\W*(?:\d+\s+)?(?-i:(?:[A-Z0-9][A-Z0-9,.&'’-]*\s+){0,12})?this\s+(?:[\w-]+\s+){0,4}?amendment\b[^.;]{0,160}?\b(?:dated|made|entered\s+into|executed)\b[^.;]{0,40}?\b(?:as\s+of|on|this)\b",
            )
        }),
        unless: None,
        also: None,
        source: Source::Agreement,
        target: Target::Date,
    },
    // An agreement that its opening leaves undated is dated where it is
    // signed: `Title: VP R&D Date: November 5, 2019`, `Dated: July 6,
    // 2020` before the signatures. The register takes an agreement date
    // from the opening first, so this one counts only when the opening
    // has none; a form's blank `Date: ________` has no day to read.
    Rule {
        category: "Agreement Date",
        any: &["date"],
        pattern: Lazy::new(|| {
            ci(&[
                r"(?:(?:\b(?:by|name|title|signature)\s*:|/s/)[^;]{0,120}?\bdated?|^\W*dated)\s*:\s*(?:",
                &super::values::date_source(),
                ")",
            ]
            .concat())
        }),
        unless: Some(Lazy::new(|| ci(another_document!()))),
        also: None,
        source: Source::Agreement,
        target: Target::Date,
    },
    // `effective as of March 1, 2020`, `(the "Effective Date")`.
    Rule {
        category: "Effective Date",
        any: &["effective"],
        pattern: Lazy::new(|| {
            ci(&[
                r#"\beffective\s+(?:as\s+of|on|from|upon)\b|"effective\s+date"|\beffective\s+date\b[^.;]{0,30}\b(?:means|shall\s+(?:mean|be))\b|\bshall\s+(?:become|be)\s+effective\b|^\s*effective\s+date\s*:"#,
                // A cover field run into the title: `STRATEGIC ALLIANCE
                // AGREEMENT Effective Date: April 17, 2017 THIS ...`.
                r"|\beffective\s+date\s*:\s*(?:",
                &super::values::date_source(),
                ")",
            ]
            .concat())
        }),
        unless: Some(Lazy::new(|| ci(another_document!()))),
        also: None,
        source: Source::Agreement,
        target: Target::Date,
    },
    // `The term of this Agreement shall commence ... and continue for five
    // years`, `shall expire on`, `remain in effect until`. The agreement
    // may call itself by its initials (`This OMA shall expire upon ...`).
    Rule {
        category: "Expiration Date",
        any: &[
            "term",
            "expire",
            "until",
            "effect",
            "period of",
            "valid",
            "perpetu",
            "indefinite",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:initial\s+term\s+(?:of|shall|will|is|be|\(|[\x22“])|term\s+of\s+this\s+(?:(?:[\w-]+\s+){0,4}?(?:agreement|contract)|(?-i:[A-Z]{2,5}\b))|this\s+(?:(?:[\w-]+\s+){0,4}?(?:agreement|contract)|(?-i:[A-Z]{2,5}\b))\s+shall\s+(?:have\s+a\s+term|be\s+for\s+(?:a|the)\s+(?:term|period))|(?:this\s+(?:(?:[\w-]+\s+){0,4}?(?:agreement|contract|lease)|(?-i:[A-Z]{2,5}\b))|the\s+[\x22“]?\s*term\s*[\x22”]?)(?:\b|\s)[^.;]{0,80}?(?:shall|will)\s+(?:expire|terminate)\s+(?:on|at|upon)\b|(?:continue|remain)\s+(?:to\s+be\s+)?(?:in\s+(?:full\s+)?(?:force\s+and\s+)?effect|in\s+full\s+force|effective|valid)\s+(?:until|for|through|beginning)|(?:agreement|term|contract)\b[^.;]{0,80}?\b(?:be|remain)\s+valid\s+for\b|this\s+(?:(?:[\w-]+\s+){0,4}?(?:agreement|contract)|(?-i:[A-Z]{2,5}\b))\s+(?:is|shall\s+be|will\s+be)\s+for\s+a\s+(?:term|period)\b|(?:this\s+agreement|the\s+term)\b[^.;]{0,120}?\b(?:shall|will)\s+continue\s+until\b|term\s+of\s+(?:this|the)\s+(?:franchise|licen[cs]e|lease)\s+(?:shall|will|is)\b|(?:agreement|term)\b[^.;]{0,80}\b(?:shall\s+)?(?:continue|remain|be\s+in\s+effect)\s+for\s+(?:a\s+(?:period|term)\s+of\s+)?\S+|(?:agreement|term|contract)\b[^.;]{0,120}?\b(?:continue|remain)\b[^.;]{0,60}?\b(?:perpetually|indefinitely|in\s+perpetuity|for\s+perpetuity)\b|\bexpir(?:e|es|ation)\s+(?:date|on)\b)",
            )
        }),
        unless: Some(Lazy::new(|| {
            ci(concat!(
                r"\bduring\s+the\s+(?:initial\s+)?term\b|\bconfidentiality\s+agreement\b|",
                after_initial!(),
                "|",
                other_duration!()
            ))
        })),
        also: None,
        source: Source::Agreement,
        target: Target::Period,
    },
    // The term ends at a date: the same clause when it names one.
    Rule {
        category: "Expiration Date",
        any: &[
            "expire",
            "until",
            "terminate on",
            "through",
            "expiration date",
            "termination date",
            "expiry date",
            "end date",
            "later than",
            "end on",
            "end as of",
            "ends on",
            "ends at",
        ],
        // `in no event later than February 28, 2013`: the latest day the
        // term may end is its end when the clause names no earlier date
        // (read first: the trigger ends where the date begins).
        pattern: Lazy::new(|| {
            ci(&format!(
                r"\b(?:this\s+(?:agreement|contract|lease|(?-i:[A-Z]{{2,5}}\b))|the\s+[\x22“]?\s*term\s*[\x22”]?|initial\s+term)\b[^.;]{{0,200}}?\bin\s+no\s+event\s+later\s+than\b|\b(?:this\s+(?:agreement|contract|lease|(?-i:[A-Z]{{2,5}}\b))|the\s+[\x22“]?\s*term\s*[\x22”]?|initial\s+term)\b[^.;]{{0,120}}?\b(?:expire|terminate|until|through|ending\s+on)\b|\b(?:this\s+(?:agreement|contract|lease|(?-i:[A-Z]{{2,5}}\b))|the\s+[\x22“]?\s*term\s*[\x22”]?|initial\s+term)\b[^.;]{{0,120}}?\bends?\s+(?:on|as\s+of|at)\s+(?:{d})|^\s*(?:expiration|termination|expiry|end)\s+date\s*:",
                d = super::values::date_source()
            ))
        }),
        // `effective as of the Effective Date and shall continue through
        // December 31, 2021` names the end; `effective as of <a date>` is
        // the start.
        unless: Some(Lazy::new(|| {
            ci(concat!(
                r"\b(?:renew|dated)\b|\beffective\s+as\s+of\s+(?:the\s+)?(?:\d|_|(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b)|",
                after_initial!(),
                "|",
                other_duration!()
            ))
        })),
        also: None,
        source: Source::Agreement,
        target: Target::Date,
    },
    // A field or table line that gives the term as two dates: `TERM OF
    // EXECUTION From January 30, 2012 until July 29, 2012`, `INITIAL
    // DISTRIBUTION PERIOD: April 15, 2000 through October 15, 2000`. Only
    // a capitalised field name at the line's start: within a sentence,
    // `the period from January 1 through March 31` is a window, not the
    // term.
    Rule {
        category: "Expiration Date",
        any: &["term", "period"],
        pattern: Lazy::new(|| {
            ci(&format!(
                r"^\s*(?-i:(?:[A-Z][A-Za-z]*\s+){{0,3}}(?:TERM|PERIOD|Term|Period)(?:\s+(?:OF|Of|of)\s+[A-Z][A-Za-z]*)?)\s*:?\s*(?:from\s+)?(?:{d})\s*(?:through|until|to|thru|-)\s*(?:{d})",
                d = super::values::date_source()
            ))
        }),
        unless: None,
        also: None,
        source: Source::Agreement,
        target: Target::Date,
    },
    // `shall automatically renew for successive one-year periods`.
    Rule {
        category: "Renewal Term",
        any: &["renew", "extend", "extension"],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:automatically|successive|additional|further|renewal)\b[^.;]{0,80}?\b(?:renew(?:ed|s|al)?|extend(?:ed|s)?|extension)\b|\b(?:renew(?:ed|s|al)?|extend(?:ed|s)?)\b[^.;]{0,80}?\b(?:successive|additional|further|automatically|renewal\s+(?:term|period))\b",
            )
        }),
        // A term the parties may extend if both agree later is no renewal
        // term: nothing renews unless a new agreement says so.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:renew\w*|extend\w*|extension)\b[^.;]{0,120}?\b(?:by|upon|with|pursuant\s+to|subject\s+to|on|through)\s+(?:the\s+)?(?:written\s+)?mutual(?:ly)?\s+(?:written\s+)?(?:agreement|consent|agreed)|\b(?:renew\w*|extend\w*)\b[^.;]{0,120}?\bif\s+(?:both\s+)?(?:the\s+)?parties\s+(?:mutually\s+)?(?:so\s+)?agree|\bparties\s+(?:may\s+)?(?:mutually\s+)?agree\w*\s+(?:in\s+writing\s+)?to\s+(?:renew|extend)",
            )
        })),
        // What renews is the agreement or its term, not a review period.
        also: Some(Lazy::new(|| {
            ci(r"\b(?:agreement|term|contract|lease|licen[cs]e)\b")
        })),
        source: Source::Agreement,
        target: Target::Period,
    },
    // `unless either party gives notice of non-renewal at least ninety (90)
    // days before the end of the then-current term`.
    Rule {
        category: "Notice Period To Terminate Renewal",
        any: &[
            "renew",
            "expiration",
            "end of the",
            "then-current",
            "then current",
        ],
        pattern: Lazy::new(|| {
            ci(
                r"\b(?:notice|notify|notifies)\b[^.;]{0,160}?\b(?:prior\s+to|before|preceding|in\s+advance\s+of)\s+(?:the\s+)?(?:end|expiration|expiry|commencement|anniversary)\b|\b(?:non-?renewal|not\s+to\s+renew|intention\s+not\s+to\s+(?:renew|extend)|elect(?:s)?\s+not\s+to\s+renew)\b|\brenew[^.;]{0,200}?\bunless\b[^.;]{0,200}?\bnotice\b",
            )
        }),
        // The notice that stops this agreement's renewal: not one about an
        // insurance policy, a breach and its cure, or a notice that
        // exercises an option or asks to renew.
        unless: Some(Lazy::new(|| {
            ci(
                r"\bpolic(?:y|ies)\b|\binsurance\b|\bcoverage\b|\bbreach(?:es|ed)?\b|\bcure[sd]?\b|\b(?:desires?|wish(?:es)?|intent(?:ion)?|intends?|election|elects?|choice|chooses?|decision|decides?|interested\s+in|wants?)\s+to\s+(?:renew|extend)\b|\brenewal\s+notice\b|\bnotice\s+of\s+(?:its|your|their|the)\s+(?:choice|intent(?:ion)?|desire|election|decision)\s+to\s+(?:renew|extend)\b|\bso\s+elects?\b|\bexercis\w*\b[^.;]{0,40}?\b(?:option|right)\b",
            )
        })),
        // The notice stops a renewal: the sentence speaks of one.
        also: Some(Lazy::new(|| {
            ci(
                r"\brenew|\bextend|\bextension\b|\bautomatic|\bsuccessive\b|\bthen[\s-]+current\b|\bevergreen\b",
            )
        })),
        source: Source::Party,
        target: Target::Period,
    },
    // `warrants that the Products will be free from defects for a period
    // of twelve (12) months`, `Warranty Period`.
    Rule {
        category: "Warranty Duration",
        any: &["warrant", "defect"],
        pattern: Lazy::new(|| {
            ci(
                r"\bwarrant(?:y|ies|s|ed)?\b[^.;]{0,200}?\b(?:for\s+(?:a\s+period\s+of\s+)?|within\s+|period\s+of\s+)(?:[a-z]+\s+)?\(?\d+\)?\s*(?:days|months|years)|\bwarranty\s+period\b|\b(?:days|months|years)\s+(?:from|after|following)\s+(?:the\s+)?(?:date\s+of\s+)?(?:delivery|shipment|acceptance|installation)\b|\b(?:free\s+(?:from|of)\s+(?:any\s+)?(?:material\s+)?defects?|defect\w*\s+in\s+(?:design\s+|materials?|workmanship)|defective)\b[^.;]{0,200}?\b(?:for\s+(?:a\s+period\s+of\s+)?|within\s+|period\s+of\s+)(?:[a-z]+\s+)?\(?\d+\)?\s*(?:calendar\s+)?(?:days|months|years)|\b(?:for\s+(?:a\s+period\s+of\s+)?|within\s+|period\s+of\s+)(?:[a-z]+\s+)?\(?\d+\)?\s*(?:calendar\s+)?(?:days|months|years)\b[^.;]{0,200}?\b(?:free\s+(?:from|of)\s+(?:any\s+)?(?:material\s+)?defects?|defect\w*\s+in\s+(?:materials?|workmanship))",
            )
        }),
        unless: None,
        also: None,
        source: Source::Party,
        target: Target::Period,
    },
    // `either party may terminate this Agreement for any reason upon ninety
    // (90) days written notice`.
    Rule {
        category: "Termination For Convenience",
        any: &["terminat"],
        pattern: Lazy::new(|| {
            ci(
                r"\bterminat\w*\b[^.;]{0,160}?\b(?:for\s+(?:any\s+reason|convenience|no\s+reason)|without\s+(?:cause|reason)|at\s+any\s+time[^.;]{0,80}?\bnotice|in\s+its\s+(?:sole\s+)?discretion|with\s+or\s+without\s+cause|for\s+any\s+or\s+no\s+reason)|\b(?:for\s+any\s+reason|for\s+convenience|without\s+cause|at\s+any\s+time)\b[^.;]{0,80}?\bterminat|^[^,;:]{0,60}?\b(?:may|can)\s+(?:also\s+)?(?:terminate\s+this\s+agreement|be\s+terminated)\b(?:\s+by\s+(?:either|any|each)\s+part(?:y|ies))?\s+(?:at\s+any\s+time\s+)?(?:upon|by\s+(?:giving|providing)|on|with)\s+(?:(?:at\s+least\s+|not\s+less\s+than\s+|no\s+less\s+than\s+)?(?:(?:[a-z\-]+\s+)?\(?\d+\)?|\[[\s*]+\])\s*(?:calendar\s+|business\s+)?(?:days?|months?)(?:['’]s?)?\s*)?(?:prior\s+|advance\s+)?(?:written\s+)?(?:notice|notification)(?:\s+thereof)?(?:\s+(?:to|thereof\s+to)\s+the\s+other(?:\s+part(?:y|ies))?)?\s*\.?\s*$",
            )
        }),
        // `Upon termination for any reason, ...`: what follows an ended
        // agreement, not a right to end it.
        unless: Some(Lazy::new(|| {
            ci(
                r"\b(?:upon|after|following|on)\s+(?:the\s+)?(?:any\s+)?(?:expiration\s+or\s+)?termination\s+(?:of\s+this\s+agreement\s+)?for\s+any\s+reason",
            )
        })),
        // What ends is the agreement (or an order under it), not one
        // lender's commitment a borrower may cancel for its costs.
        also: Some(Lazy::new(|| {
            ci(
                r"\b(?:this|the|such|any|each)\s+(?:agreement|contract|lease|licen[cs]e|arrangement|engagement|relationship|order|purchase\s+order|sow|statement\s+of\s+work|term|services?|program|plan|appointment|schedule|exhibit|addendum)\b|\bterminat\w*\s+(?:it|this|the\s+same)\b|\bhereunder\b",
            )
        })),
        source: Source::Party,
        target: Target::Period,
    },
];
