//! Entity identity: which entities are the same node. Kept apart from the
//! graph builder so the rule is small, documented and tested on its own.
//!
//! Rule: a name is normalised by Unicode lower-casing and collapsing every run
//! of characters that are not letters or digits into one space
//! (`JPMorgan Chase Bank, N.A.` and `JPMORGAN  CHASE BANK N.A` both become
//! `jpmorgan chase bank n a`). Organisations, people and jurisdictions are
//! global: their key is `<type>:<normalised name>`, shared by every document.
//! Everything else (defined terms, roles, obligations, amounts, ...) is scoped
//! to its document: `<doc_id>/<type>:<normalised name>`.
//!
//! Organisations get a stronger rule ([`org_canonical`]), because the same
//! bank is written `JPMorgan Chase Bank`, `JPMorgan Chase Bank, N.A.` and
//! `JPMORGAN CHASE BANK, NATIONAL ASSOCIATION` across (and inside)
//! documents: legal suffixes are folded to one abbreviation (`Incorporated`
//! = `Inc.`, `Corporation` = `Corp.`, `Company` = `Co.`, `Limited` = `Ltd.`,
//! `L.L.C.` = `LLC`, `L.P.`), `&` is `and`, a leading `The` goes, and the
//! national-bank designator (`N.A.`, `National Association`) is dropped: it
//! is a charter form, never what tells two banks apart. Which spelling a
//! merged node shows is [`name_rank`]'s choice.

/// Entity types (compared case-insensitively) whose nodes are shared across
/// documents.
pub const GLOBAL_TYPES: [&str; 4] = ["organization", "organisation", "person", "jurisdiction"];

/// Lower-cases `name` and collapses punctuation and whitespace runs into
/// single spaces. Returns an empty string for a name with no letters or digits.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// The type part of a key: the type name lower-cased, `organisation` spelt
/// `organization` so both spellings meet.
pub fn type_key(entity_type: &str) -> String {
    let t = entity_type.trim().to_lowercase();
    if t == "organisation" {
        "organization".to_string()
    } else {
        t
    }
}

/// True when entities of this type are shared across documents.
pub fn is_global(entity_type: &str) -> bool {
    let t = entity_type.trim().to_lowercase();
    GLOBAL_TYPES.contains(&t.as_str())
}

/// Legal-form words and the one abbreviation each is folded to.
const LEGAL_FORMS: [(&str, &str); 5] = [
    ("incorporated", "inc"),
    ("corporation", "corp"),
    ("company", "co"),
    ("limited", "ltd"),
    ("l l c", "llc"),
];

/// The canonical name of an organisation, from its name as written:
/// `The Walt Disney Company` and `WALT DISNEY CO.` both give `walt disney
/// co`; `HSBC Bank USA, National Association` and `HSBC Bank USA, N.A.`
/// both give `hsbc bank usa`. Returns an empty string when nothing is left.
pub fn org_canonical(name: &str) -> String {
    let norm = normalize_name(&name.replace('&', " and "));
    let mut words: Vec<String> = Vec::new();
    // Runs of single letters are initials written with dots: `n a`, `l p`,
    // `u s` become `na`, `lp`, `us`.
    let mut initials = String::new();
    for w in norm.split(' ').filter(|w| !w.is_empty()) {
        if w.chars().count() == 1 && w.chars().all(char::is_alphabetic) {
            initials.push_str(w);
            continue;
        }
        if !initials.is_empty() {
            words.push(std::mem::take(&mut initials));
        }
        words.push(w.to_string());
    }
    if !initials.is_empty() {
        words.push(initials);
    }
    let mut joined = format!(" {} ", words.join(" "));
    for (long, short) in LEGAL_FORMS {
        joined = joined.replace(&format!(" {long} "), &format!(" {short} "));
    }
    joined = joined.replace(" national association ", " na ");
    let mut words: Vec<&str> = joined.split_whitespace().collect();
    if words.first() == Some(&"the") && words.len() > 1 {
        words.remove(0);
    }
    while words.len() > 1 && words.last() == Some(&"na") {
        words.pop();
    }
    words.join(" ")
}

/// How good a spelling is as the name to show, higher is better: a name
/// written in mixed case beats one in capitals (`Walt Disney Company` over
/// `WALT DISNEY COMPANY`), a name without a word left in capitals by
/// title-casing beats one with it (`Walt` over `WALT`), and among the rest
/// more capitals inside words win (`JPMorgan` over `Jpmorgan`), as they are
/// what a writer typed and title-casing never makes.
pub fn name_rank(name: &str) -> i64 {
    let words: Vec<&str> = name
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    if words.is_empty() {
        return 0;
    }
    let all_caps = |w: &str| {
        w.chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
    };
    let caps_words = words.iter().filter(|w| all_caps(w)).count();
    let mostly_caps = caps_words * 2 > words.len();
    // Capital words with a vowel and four letters or more (`WALT`, `BANK`)
    // in an otherwise mixed-case name: left over by title-casing.
    let leftover = words
        .iter()
        .filter(|w| {
            let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
            all_caps(w)
                && letters.len() >= 4
                && letters.iter().any(|c| "AEIOU".contains(*c))
                && !w.contains('.')
        })
        .count() as i64;
    let inner_caps = words
        .iter()
        .map(|w| {
            let mut cs = w.chars().filter(|c| c.is_alphabetic());
            cs.next();
            let rest: Vec<char> = cs.collect();
            let has_lower = rest.iter().any(|c| c.is_lowercase());
            if has_lower {
                rest.iter().filter(|c| c.is_uppercase()).count() as i64
            } else {
                0
            }
        })
        .sum::<i64>();
    let mut rank = 1_000_000;
    if mostly_caps {
        rank -= 500_000;
    }
    rank - leftover * 10_000 + inner_caps.min(99) * 100
}

/// Words that name a class of things, not one thing: a definition that
/// says "a Person" or "this Agreement" describes its term, it does not link
/// it to a node everything else links to.
pub const CLASS_WORDS: [&str; 10] = [
    "person",
    "persons",
    "agreement",
    "this agreement",
    "entity",
    "document",
    "contract",
    "instrument",
    "property",
    "law",
];

/// True when an entity of this type and (normalised) name is a class word;
/// roles are kept (`Lender` is the document's lender role).
pub fn is_class_word(entity_type: &str, normalized: &str) -> bool {
    !matches!(type_key(entity_type).as_str(), "role" | "organization")
        && CLASS_WORDS.contains(&normalized)
}

/// True for an organisation type (either spelling).
pub fn is_org(entity_type: &str) -> bool {
    type_key(entity_type) == "organization"
}

/// The identity key of an entity with the given (already normalised) name.
pub fn entity_key(doc_id: &str, entity_type: &str, normalized: &str) -> String {
    if is_global(entity_type) {
        format!("{}:{normalized}", type_key(entity_type))
    } else {
        format!("{doc_id}/{}:{normalized}", type_key(entity_type))
    }
}

/// A Neo4j label from an ontology type name: characters outside
/// `[A-Za-z0-9_]` become `_`, a leading digit gets a `_` prefix. Returns
/// `None` when nothing usable is left.
pub fn sanitize_label(type_name: &str) -> Option<String> {
    let mut s: String = type_name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.chars().all(|c| c == '_') {
        return None;
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    Some(s)
}

/// True for a valid relationship type of the graph: `[A-Z_][A-Z0-9_]*`.
pub fn is_valid_relation_type(t: &str) -> bool {
    let mut chars = t.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_names_meet() {
        assert_eq!(
            normalize_name("JPMorgan Chase Bank, N.A."),
            normalize_name("JPMORGAN  CHASE BANK N.A")
        );
        assert_eq!(
            normalize_name("JPMorgan Chase Bank, N.A."),
            "jpmorgan chase bank n a"
        );
        assert_ne!(
            normalize_name("Chase Bank"),
            normalize_name("JPMorgan Chase Bank")
        );
    }

    #[test]
    fn legal_forms_and_designators_fold_together() {
        let same = [
            [
                "JPMorgan Chase Bank",
                "JPMorgan Chase Bank, N.A.",
                "JPMORGAN CHASE BANK, NATIONAL ASSOCIATION",
            ],
            [
                "HSBC Bank USA, N.A.",
                "HSBC Bank USA, National Association",
                "HSBC BANK USA, N.A.",
            ],
            [
                "The Walt Disney Company",
                "WALT DISNEY CO.",
                "Walt Disney Company",
            ],
            [
                "Acme Holdings, L.L.C.",
                "ACME HOLDINGS LLC",
                "Acme Holdings, LLC",
            ],
            [
                "Standard & Poor's Financial Services LLC",
                "Standard and Poor's Financial Services LLC",
                "STANDARD & POOR'S FINANCIAL SERVICES L.L.C.",
            ],
            [
                "Emerson Electric Co.",
                "Emerson Electric Company",
                "EMERSON ELECTRIC CO.",
            ],
            ["Cummins Inc.", "Cummins Incorporated", "CUMMINS INC"],
        ];
        for group in same {
            let keys: Vec<String> = group.iter().map(|n| org_canonical(n)).collect();
            assert!(keys.iter().all(|k| k == &keys[0]), "{group:?} -> {keys:?}");
        }
        // Different legal persons stay apart: the bank is not its holding
        // company, nor a securities affiliate.
        let apart = [
            ("Bank of America, N.A.", "Bank of America Corporation"),
            ("Wells Fargo Bank, N.A.", "Wells Fargo Securities, LLC"),
            ("Citibank, N.A.", "Citigroup Global Markets Inc."),
            ("AT&T Corp.", "AT&T Capital Corporation"),
        ];
        for (a, b) in apart {
            assert_ne!(org_canonical(a), org_canonical(b), "{a} / {b}");
        }
        assert_eq!(org_canonical("N.A."), "na");
        assert_eq!(org_canonical("!!"), "");
    }

    #[test]
    fn the_written_mixed_case_spelling_ranks_first() {
        let best = |names: &[&str]| {
            names
                .iter()
                .max_by_key(|n| name_rank(n))
                .map(|n| n.to_string())
                .unwrap()
        };
        assert_eq!(
            best(&[
                "WALT DISNEY COMPANY",
                "WALT Disney Company",
                "Walt Disney Company"
            ]),
            "Walt Disney Company"
        );
        assert_eq!(
            best(&[
                "JPMORGAN CHASE BANK, N.A.",
                "Jpmorgan Chase Bank, N.A.",
                "JPMorgan Chase Bank, N.A."
            ]),
            "JPMorgan Chase Bank, N.A."
        );
        assert_eq!(
            best(&["HSBC BANK USA, N.A.", "HSBC Bank USA, N.A."]),
            "HSBC Bank USA, N.A."
        );
    }

    #[test]
    fn hostile_and_empty_names() {
        assert_eq!(normalize_name("\"`})-[:X]->(\n"), "x");
        assert_eq!(normalize_name("!!! ,,"), "");
        assert_eq!(normalize_name("Société Générale"), "société générale");
    }

    #[test]
    fn scope_of_keys() {
        assert_eq!(
            entity_key("d1", "Organization", "acme"),
            "organization:acme"
        );
        assert_eq!(
            entity_key("d1", "organisation", "acme"),
            "organization:acme"
        );
        assert_eq!(
            entity_key("d1", "DefinedTerm", "borrower"),
            "d1/definedterm:borrower"
        );
        assert_ne!(
            entity_key("d1", "Role", "borrower"),
            entity_key("d2", "Role", "borrower")
        );
    }

    #[test]
    fn labels_and_relation_types() {
        assert_eq!(
            sanitize_label("DefinedTerm").as_deref(),
            Some("DefinedTerm")
        );
        assert_eq!(
            sanitize_label("Legal Entity`)").as_deref(),
            Some("Legal_Entity__")
        );
        assert_eq!(sanitize_label("9x").as_deref(), Some("_9x"));
        assert_eq!(sanitize_label("`"), None);
        assert!(is_valid_relation_type("ROLE_OF"));
        assert!(!is_valid_relation_type("role_of"));
        assert!(!is_valid_relation_type("X]->(n) DETACH DELETE n//"));
        assert!(!is_valid_relation_type("1X"));
        assert!(!is_valid_relation_type(""));
    }
}
