//! Integration tests: extract. The offline rules extractor on the shared
//! corpus (sections sliced by line numbers from the real SEC filings), run
//! through the public [`Extractor`] so ontology pruning and tiers are real.

use super::util::corpus as corpus_path;
use kgroute::extract::{
    Extractor, ExtractorConfig, SectionExtraction, SectionInput, SectionStatus,
};
use kgroute::index::{DensityThresholds, Ontology, Tier};

/// The credit-agreement ontology of the brief, built in code.
pub fn credit_ontology() -> Ontology {
    let mut o = Ontology::default();
    for t in [
        "Organization",
        "Person",
        "Role",
        "DefinedTerm",
        "Facility",
        "Loan",
        "LetterOfCredit",
        "Obligation",
        "Covenant",
        "Asset",
        "Lien",
        "Amount",
        "Rate",
        "Period",
        "Jurisdiction",
        "EventOfDefault",
        "SectionRef",
    ] {
        o.entity_types.insert(t.into(), format!("a {t}"));
    }
    for r in [
        "BORROWS_FROM",
        "LENDS_TO",
        "GUARANTEES",
        "AGENT_FOR",
        "IS_A",
        "DEFINED_AS",
        "PART_OF",
        "SUBSIDIARY_OF",
        "GRANTS_LIEN_ON",
        "MUST_MAINTAIN",
        "RESTRICTS",
        "TRIGGERS",
        "REFERENCES",
        "HAS_ROLE",
        "OBLIGATED_TO",
    ] {
        o.relation_types.insert(r.into(), format!("{r} relation"));
    }
    o
}

fn lines(rel: &str) -> Vec<String> {
    let p = corpus_path(rel);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// The section whose heading is on `start` (1-based): up to the line before
/// the next Markdown heading.
fn md_section(rel: &str, start: usize, title: &str) -> SectionInput {
    let all = lines(rel);
    assert!(
        all[start - 1].contains(title),
        "line {start} of {rel} is {:?}",
        all[start - 1]
    );
    let end = (start..all.len())
        .find(|&i| all[i].starts_with('#'))
        .unwrap_or(all.len());
    input(rel, start, end, title, &all[start - 1..end].join("\n"))
}

/// Lines `start..=end` (1-based) of a corpus file.
fn span(rel: &str, start: usize, end: usize, title: &str) -> SectionInput {
    let all = lines(rel);
    input(rel, start, end, title, &all[start - 1..end].join("\n"))
}

fn input(rel: &str, start: usize, end: usize, title: &str, text: &str) -> SectionInput {
    let (label, name) = kgroute::tree::split_heading(title);
    SectionInput {
        doc_id: rel.into(),
        doc_type: "credit_agreement".into(),
        node_id: format!("{start:04}"),
        title: title.into(),
        label,
        name,
        breadcrumb: format!("[{title}]"),
        start_line: start,
        end_line: end,
        text: text.into(),
        anchor: false,
        parties: Vec::new(),
        registry: Default::default(),
    }
}

fn rules_extractor(o: Ontology) -> Extractor {
    Extractor::new(ExtractorConfig::default(), o, DensityThresholds::default()).unwrap()
}

fn run(ex: &Extractor, i: SectionInput) -> SectionExtraction {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(ex.extract(i))
}

fn has(x: &SectionExtraction, s: &str, t: &str, d: &str) -> bool {
    x.relations.iter().any(|r| {
        r.source.eq_ignore_ascii_case(s) && r.relation_type == t && r.target.eq_ignore_ascii_case(d)
    })
}

const EMERSON: &str = "credit_agreements/emerson_2018.md";

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_definitions_yield_hundreds_of_defined_terms() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    assert_eq!(ex.describe(), "offline rules extractor (no LLM configured)");
    let i = md_section(EMERSON, 267, "Section 1.01 Definitions");
    assert!(
        i.text.len() > 50_000,
        "the whole Definitions section: {}",
        i.text.len()
    );
    let x = run(&ex, i.clone());
    assert_eq!(x.status, SectionStatus::Ok);
    assert_eq!(x.extractor, "rules");
    let terms: Vec<&str> = x
        .entities
        .iter()
        .filter(|e| e.entity_type == "DefinedTerm")
        .map(|e| e.name.as_str())
        .collect();
    // The section has 187 definition paragraphs (some define two terms) and
    // more terms defined inline.
    assert!(terms.len() >= 190, "only {} defined terms", terms.len());
    assert!(
        x.entities.len() >= 250,
        "only {} entities",
        x.entities.len()
    );
    assert!(
        terms.contains(&"Modification") && terms.contains(&"Modify"),
        "two terms in one definition"
    );
    assert!(
        has(&x, "Facility LC", "REFERENCES", "Section 2.19.1"),
        "`is defined in Section 2.19.1`"
    );
    for t in [
        "Absolute Rate",
        "Agent",
        "Borrower",
        "Company",
        "JPMCB",
        "Facility Termination Date",
    ] {
        assert!(terms.contains(&t), "{t} missing");
    }
    // `"Fixed Rate Loan" means an Absolute Rate Loan.`
    assert!(
        has(&x, "Fixed Rate Loan", "IS_A", "Absolute Rate Loan"),
        "{:#?}",
        x.relations
    );
    // `"Advance" means a Ratable Advance or a Competitive Bid Advance`:
    // one of alternatives, no kind.
    assert!(!has(&x, "Advance", "IS_A", "Ratable Advance"));
    assert!(has(&x, "Company", "DEFINED_AS", "Emerson Electric Co."));
    assert!(has(&x, "Agent", "DEFINED_AS", "JPMCB"));
    assert!(has(&x, "Absolute Rate", "REFERENCES", "Section 2.05"));
    assert!(
        x.entities.iter().any(|e| e.entity_type == "Period"),
        "dates in definitions"
    );
    // Hand-checked: `"Multiemployer Plan" means a Plan ... the Company or
    // any member of the ERISA Group ...` mentions the Borrower's group but is
    // not defined as it; `"NYFRB Rate"` mentions the Designated Agent.
    for r in &x.relations {
        if r.relation_type == "DEFINED_AS" {
            assert!(
                r.evidence.contains(&format!("\"{}\"", r.source)),
                "a DEFINED_AS quotes its definition: {r:?}"
            );
        }
    }
    assert_eq!(
        x.actual_tier, x.density_tier,
        "no model rating: density decides"
    );
    assert_eq!(x.model_tier, None);
    // Deterministic.
    assert_eq!(run(&ex, i), x);
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_preamble_names_borrower_and_agent() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let x = run(&ex, span(EMERSON, 252, 263, "Preamble"));
    assert!(
        has(&x, "Emerson Electric Co.", "HAS_ROLE", "Borrower"),
        "{:#?}",
        x.relations
    );
    assert!(
        has(&x, "JPMorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"),
        "{:#?}",
        x.relations
    );
    // `..., as Agent.` says not for whom; Section 7.01 does.
    assert!(!x.relations.iter().any(|r| r.relation_type == "AGENT_FOR"));
    let appointment = run(
        &ex,
        md_section(EMERSON, 1610, "Section 7.01 Appointment and Authorization"),
    );
    assert!(
        has(&appointment, "Agent", "AGENT_FOR", "Lender"),
        "Each Lender irrevocably appoints and authorizes the Agent: {:#?}",
        appointment.relations
    );
    let jp = x
        .entities
        .iter()
        .find(|e| e.name.eq_ignore_ascii_case("JPMorgan Chase Bank, N.A."))
        .unwrap();
    assert_eq!(jp.entity_type, "Organization");
    assert!(
        jp.aliases
            .contains(&"JPMORGAN CHASE BANK, N.A.".to_string()),
        "the spelling as written is kept"
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn other_preambles_name_parties_and_administrative_agents() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let x = run(
        &ex,
        span("credit_agreements/coned_2020.txt", 590, 593, "Preamble"),
    );
    assert!(
        has(&x, "Consolidated Edison, Inc.", "HAS_ROLE", "Borrower"),
        "{:#?}",
        x.relations
    );
    assert!(
        has(
            &x,
            "Bank of America, N.A.",
            "HAS_ROLE",
            "Administrative Agent"
        ),
        "{:#?}",
        x.relations
    );
    let x = run(
        &ex,
        span(
            "credit_agreements/att_capital_1995.txt",
            185,
            185,
            "Preamble",
        ),
    );
    assert!(
        has(&x, "AT&T Capital Corporation", "HAS_ROLE", "Borrower"),
        "{:#?}",
        x.relations
    );
    assert!(has(
        &x,
        "Morgan Guaranty Trust Company of New York",
        "HAS_ROLE",
        "Agent"
    ));
    assert!(!x.relations.iter().any(|r| r.relation_type == "AGENT_FOR"));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_covenant_sections_yield_restrictions_and_obligations() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let x = run(
        &ex,
        md_section(EMERSON, 1500, "Section 5.06 Mergers and Sales of Assets"),
    );
    let cov = x
        .entities
        .iter()
        .find(|e| e.entity_type == "Covenant" && e.name.contains("Company will not consolidate"))
        .unwrap_or_else(|| panic!("{:#?}", x.entities));
    assert!(has(&x, &cov.name, "RESTRICTS", "Company"));
    let y = run(
        &ex,
        md_section(EMERSON, 1516, "Section 5.08 Negative Pledge"),
    );
    let pledge = y
        .entities
        .iter()
        .find(|e| {
            e.entity_type == "Covenant"
                && e.name
                    .starts_with("Neither the Company nor any Significant Subsidiary")
        })
        .unwrap_or_else(|| panic!("{:#?}", y.entities));
    assert!(has(&y, &pledge.name, "RESTRICTS", "Company"));
    assert!(has(&y, &pledge.name, "RESTRICTS", "Significant Subsidiary"));
    assert!(
        has(&y, &pledge.name, "RESTRICTS", "Lien"),
        "a negative pledge restricts liens"
    );
    // The listed exceptions belong to the covenant they follow.
    assert!(
        has(&y, &pledge.name, "REFERENCES", "$300,000,000"),
        "{:#?}",
        y.relations
    );
    // `25% of Consolidated Net Tangible Assets` is a share, not a rate.
    assert!(!y
        .relations
        .iter()
        .any(|r| r.target == "25%" || r.source == "25%"));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn types_outside_the_ontology_are_pruned_with_reasons() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let mut o = credit_ontology();
    o.entity_types.remove("SectionRef");
    o.relation_types.remove("IS_A");
    let ex = rules_extractor(o.clone());
    let x = run(&ex, md_section(EMERSON, 267, "Section 1.01 Definitions"));
    assert!(x
        .entities
        .iter()
        .all(|e| o.entity_types.contains_key(&e.entity_type)));
    assert!(x
        .relations
        .iter()
        .all(|r| o.relation_types.contains_key(&r.relation_type)));
    let sref = x
        .pruned
        .iter()
        .filter(|p| p.reason.contains("`SectionRef` is not in the ontology"))
        .count();
    let is_a = x
        .pruned
        .iter()
        .filter(|p| p.reason.contains("`IS_A` is not in the ontology"))
        .count();
    let dangling = x
        .pruned
        .iter()
        .filter(|p| p.reason.contains("is not an extracted entity"))
        .count();
    assert!(
        sref > 10 && is_a > 5 && dangling > 10,
        "{sref} {is_a} {dangling}"
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn every_corpus_document_extracts_within_the_ontology_in_order() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let o = credit_ontology();
    let ex = rules_extractor(o.clone());
    let mut inputs = Vec::new();
    for rel in [
        "credit_agreements/att_capital_1995.txt",
        "credit_agreements/coned_2020.txt",
        "credit_agreements/cummins_2020.txt",
        "credit_agreements/disney_2020.txt",
        EMERSON,
        "other/exicure_2020_office_lease.txt",
        "other/manufacturers_services_2000_outsourcing.txt",
    ] {
        let all = lines(rel);
        // 400-line windows stand in for sections until the tree stage lands.
        for (k, chunk) in all.chunks(400).enumerate() {
            let start = k * 400 + 1;
            inputs.push(input(
                rel,
                start,
                start + chunk.len() - 1,
                &format!("window {k}"),
                &chunk.join("\n"),
            ));
        }
    }
    let n = inputs.len();
    // The texts as quotes are cut from them: tags gone, quotes straight,
    // whitespace collapsed.
    let tag = regex::Regex::new(r"</?[A-Za-z][A-Za-z0-9]*[^<>]*>").unwrap();
    let texts: Vec<String> = inputs
        .iter()
        .map(|i| {
            tag.replace_all(&i.text, "")
                .replace(['\u{201C}', '\u{201D}'], "\"")
                .replace(['\u{2018}', '\u{2019}'], "'")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let keys: Vec<(String, String)> = inputs
        .iter()
        .map(|i| (i.doc_id.clone(), i.node_id.clone()))
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let out = rt.block_on(ex.extract_all(inputs));
    assert_eq!(out.len(), n);
    for (x, k) in out.iter().zip(&keys) {
        assert_eq!((&x.doc_id, &x.node_id), (&k.0, &k.1), "order preserved");
        assert_eq!(x.status, SectionStatus::Ok);
        assert!(x
            .entities
            .iter()
            .all(|e| o.entity_types.contains_key(&e.entity_type)));
        let names: std::collections::HashSet<String> = x
            .entities
            .iter()
            .flat_map(|e| {
                std::iter::once(e.name.to_lowercase())
                    .chain(e.aliases.iter().map(|a| a.to_lowercase()))
            })
            .collect();
        for r in &x.relations {
            assert!(o.relation_types.contains_key(&r.relation_type));
            assert!(
                names.contains(&r.source.to_lowercase())
                    && names.contains(&r.target.to_lowercase()),
                "{r:?}"
            );
        }
    }
    // Every quote starts on a word and holds what triggered its relation:
    // the cited section's number, the value, the organisation or term.
    let mut placed = 0;
    for (x, text) in out.iter().zip(&texts) {
        for r in &x.relations {
            let ev = r.evidence.to_lowercase();
            let head: String = r.evidence.chars().take(24).collect();
            if let Some(at) = text.find(&head) {
                placed += 1;
                assert!(
                    !(head.starts_with(char::is_alphanumeric)
                        && text[..at].ends_with(char::is_alphanumeric)),
                    "quote starts mid-word: {r:?}"
                );
            }
            let trigger = match r.relation_type.as_str() {
                "REFERENCES" => r.target.rsplit(' ').next().unwrap_or("").to_lowercase(),
                "AMOUNT_OF" | "RATE_OF" => r.source.split(' ').next().unwrap_or("").to_lowercase(),
                "DEFINED_AS" | "IS_A" => r.source.to_lowercase(),
                _ => String::new(),
            };
            assert!(
                ev.contains(&trigger),
                "{} lacks {trigger:?}: {r:?}",
                x.node_id
            );
        }
    }
    let total: usize = out.iter().map(|x| x.relations.len()).sum();
    assert!(
        placed * 2 > total,
        "only {placed} of {total} quotes found in their text"
    );
    assert_eq!(ex.counters().snapshot().sections_done as usize, n);
    assert_eq!(
        ex.counters().snapshot().requests,
        0,
        "the rules extractor makes no requests"
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn anchors_are_pinned_very_high_whatever_their_density() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let mut i = md_section(EMERSON, 1500, "Section 5.06 Mergers and Sales of Assets");
    let plain = run(&ex, i.clone());
    i.anchor = true;
    let pinned = run(&ex, i);
    assert_eq!(pinned.actual_tier, Tier::VeryHigh);
    assert_eq!(
        pinned.density_tier, plain.density_tier,
        "density is still recorded"
    );
    assert!(
        plain.density_tier > Tier::VeryHigh,
        "a sparse section: {}",
        plain.density_tier
    );
}

#[test]
fn an_empty_ontology_is_refused_with_the_fix() {
    let err = Extractor::new(
        ExtractorConfig::default(),
        Ontology::default(),
        DensityThresholds::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("add an `ontology:` block"), "{err}");
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_events_of_default_each_trigger_a_default() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let x = run(
        &ex,
        md_section(EMERSON, 1551, "Section 6.01 Events of Default"),
    );
    let events: Vec<&str> = x
        .entities
        .iter()
        .filter(|e| e.entity_type == "EventOfDefault")
        .map(|e| e.name.as_str())
        .collect();
    // Clauses (a) to (k) of Section 6.01.
    assert!(events.len() >= 10, "{events:?}");
    assert!(events
        .iter()
        .all(|e| has(&x, e, "TRIGGERS", "Event of Default")));
    assert!(
        x.density_tier <= Tier::Medium,
        "an events-of-default list is relation-dense: {}",
        x.density_tier
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn every_credit_agreement_yields_its_definitions() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    for rel in [
        "credit_agreements/att_capital_1995.txt",
        "credit_agreements/coned_2020.txt",
        "credit_agreements/cummins_2020.txt",
        "credit_agreements/disney_2020.txt",
        EMERSON,
    ] {
        let all = lines(rel);
        let x = run(
            &ex,
            input(rel, 1, all.len(), "whole document", &all.join("\n")),
        );
        let terms = x
            .entities
            .iter()
            .filter(|e| e.entity_type == "DefinedTerm")
            .count();
        let orgs = x
            .entities
            .iter()
            .filter(|e| e.entity_type == "Organization")
            .count();
        assert!(terms >= 90, "{rel}: {terms} defined terms");
        assert!(orgs >= 10, "{rel}: {orgs} organisations");
        assert!(
            x.relations.iter().any(|r| r.relation_type == "HAS_ROLE"),
            "{rel}: no party roles"
        );
    }
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn amounts_measure_the_covenant_they_belong_to_when_the_ontology_says_so() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let mut o = credit_ontology();
    o.relation_types
        .insert("AMOUNT_OF".into(), "Amount -> what it measures".into());
    o.relation_types
        .insert("RATE_OF".into(), "Rate -> what it applies to".into());
    let ex = rules_extractor(o);
    let y = run(
        &ex,
        md_section(EMERSON, 1516, "Section 5.08 Negative Pledge"),
    );
    let pledge = y
        .entities
        .iter()
        .find(|e| e.entity_type == "Covenant")
        .unwrap();
    assert!(
        has(&y, "$300,000,000", "AMOUNT_OF", &pledge.name),
        "{:#?}",
        y.relations
    );
    assert!(
        !has(&y, "25%", "RATE_OF", &pledge.name),
        "a share, not a rate"
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_subsidiaries_section_links_the_corporate_hierarchy() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let line = lines(EMERSON)
        .iter()
        .position(|l| l.starts_with("## Section 4.09 Subsidiaries"))
        .unwrap()
        + 1;
    let x = run(&ex, md_section(EMERSON, line, "Section 4.09 Subsidiaries"));
    assert!(
        has(&x, "Significant Subsidiary", "SUBSIDIARY_OF", "Company"),
        "{:#?}",
        x.relations
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_facility_section_says_who_lends_to_whom() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let x = run(&ex, md_section(EMERSON, 839, "Section 2.01 The Facility"));
    assert!(
        has(&x, "Lender", "LENDS_TO", "Borrower"),
        "{:#?}",
        x.relations
    );
}

/// Every section of a document, by the tree stage's line pointers.
fn tree_sections(rel: &str) -> Vec<SectionInput> {
    use kgroute::tree::{build_tree, SourceText};
    let src = SourceText::read(&corpus_path(rel), false).unwrap();
    let tree = build_tree(&src);
    tree.iter()
        .map(|n| SectionInput {
            doc_id: tree.doc_id.clone(),
            doc_type: "credit_agreement".into(),
            node_id: n.node_id.clone(),
            title: n.title.clone(),
            label: n.label.clone(),
            name: n.name.clone(),
            breadcrumb: n.breadcrumb.clone(),
            start_line: n.start_line,
            end_line: n.end_line,
            text: src.span_text(n.start_line, n.end_line).to_string(),
            anchor: false,
            parties: Vec::new(),
            registry: Default::default(),
        })
        .collect()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn rules_over_the_tree_of_every_credit_agreement() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for rel in [
        "credit_agreements/att_capital_1995.txt",
        "credit_agreements/coned_2020.txt",
        "credit_agreements/cummins_2020.txt",
        "credit_agreements/disney_2020.txt",
        EMERSON,
    ] {
        let inputs = tree_sections(rel);
        assert!(inputs.len() > 20, "{rel}: {} sections", inputs.len());
        let ids: Vec<String> = inputs.iter().map(|i| i.node_id.clone()).collect();
        let titles: Vec<String> = inputs.iter().map(|i| i.title.clone()).collect();
        let out = rt.block_on(ex.extract_all(inputs));
        assert_eq!(
            out.iter().map(|x| x.node_id.clone()).collect::<Vec<_>>(),
            ids,
            "{rel}: order"
        );
        assert!(out.iter().all(|x| x.status == SectionStatus::Ok));
        // The definitions section (the largest one titled so) is rich in terms.
        let defs = out
            .iter()
            .zip(&titles)
            .filter(|(_, t)| t.to_ascii_lowercase().contains("defin"))
            .map(|(x, _)| {
                x.entities
                    .iter()
                    .filter(|e| e.entity_type == "DefinedTerm")
                    .count()
            })
            .max()
            .unwrap_or(0);
        assert!(
            defs >= 80,
            "{rel}: best definitions section has {defs} defined terms"
        );
        // Somewhere a party is named in a role.
        assert!(
            out.iter()
                .any(|x| x.relations.iter().any(|r| r.relation_type == "HAS_ROLE")),
            "{rel}"
        );
        // Density tiers vary across sections: the rules tell sections apart.
        let tiers: std::collections::HashSet<Tier> = out.iter().map(|x| x.density_tier).collect();
        assert!(tiers.len() >= 3, "{rel}: tiers {tiers:?}");
    }
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_preamble_node_from_the_tree_names_the_parties() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let sections = tree_sections(EMERSON);
    let pre = sections
        .iter()
        .find(|s| s.node_id == "0000")
        .expect("preamble node 0000")
        .clone();
    let x = run(&ex, pre);
    assert!(
        has(&x, "Emerson Electric Co.", "HAS_ROLE", "Borrower"),
        "{:#?}",
        x.relations
    );
    assert!(has(&x, "JPMorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"));
}

/// Words that name a currency: no organisation starts with one.
const CURRENCY_WORDS: &[&str] = &[
    "Dollars", "Dollar", "Euros", "Euro", "British", "Pounds", "Sterling", "Japanese", "Yen",
];

fn org_names(x: &SectionExtraction) -> Vec<&str> {
    x.entities
        .iter()
        .filter(|e| e.entity_type == "Organization")
        .map(|e| e.name.as_str())
        .collect()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_organisations_are_clean_and_jpmorgan_is_one_entity() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let all = lines(EMERSON);
    let x = run(
        &ex,
        input(EMERSON, 1, all.len(), "whole document", &all.join("\n")),
    );
    let orgs = org_names(&x);
    let bad: Vec<&&str> = orgs
        .iter()
        .filter(|n| {
            let first = n.split_whitespace().next().unwrap_or("");
            CURRENCY_WORDS.contains(&first)
                || ["the", "each", "The", "Each", "USA", "Form"].contains(&first)
                || n.contains(" as ")
        })
        .collect();
    assert!(bad.is_empty(), "junk organisations: {bad:?}");
    let jp: Vec<&&str> = orgs
        .iter()
        .filter(|n| n.to_lowercase().contains("jpmorgan chase bank"))
        .collect();
    assert_eq!(jp, [&"JPMorgan Chase Bank, N.A."], "{orgs:?}");
    let e = x
        .entities
        .iter()
        .find(|e| e.name == "JPMorgan Chase Bank, N.A.")
        .unwrap();
    assert!(e.aliases.contains(&"JPMORGAN CHASE BANK, N.A.".to_string()));
    assert!(has(&x, "JPMorgan Chase Bank, N.A.", "HAS_ROLE", "Agent"));
    let icici: Vec<&&str> = orgs
        .iter()
        .filter(|n| n.contains("ICICI") || n.contains("Icici"))
        .collect();
    assert_eq!(icici, [&"ICICI Bank Limited"], "{orgs:?}");
    for (whole, part) in [
        (
            "Australia and New Zealand Banking Group Limited",
            "New Zealand Banking Group Limited",
        ),
        (
            "Industrial and Commercial Bank of China",
            "Commercial Bank of China",
        ),
    ] {
        assert!(
            orgs.contains(&whole) && !orgs.contains(&part),
            "{whole}: {orgs:?}"
        );
    }
    assert!(
        orgs.contains(&"Standard & Poor's Financial Services LLC")
            && !orgs.iter().any(|n| n.starts_with("Standard Standard")),
        "{orgs:?}"
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_payment_offices_schedule_names_one_bank() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let line = lines(EMERSON)
        .iter()
        .position(|l| l.starts_with("## SCHEDULE 1.1(b)"))
        .unwrap()
        + 1;
    // The schedule's heading and table, up to the exhibit that follows.
    let x = run(&ex, span(EMERSON, line, line + 32, "SCHEDULE 1.1(b)"));
    assert!(x.entities.len() < 10, "{:#?}", x.entities);
    assert_eq!(
        org_names(&x),
        ["JPMorgan Chase Bank, N.A."],
        "{:#?}",
        x.entities
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn no_credit_agreement_section_names_an_organisation_after_a_currency() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let ex = rules_extractor(credit_ontology());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for rel in [
        "credit_agreements/att_capital_1995.txt",
        "credit_agreements/coned_2020.txt",
        "credit_agreements/cummins_2020.txt",
        "credit_agreements/disney_2020.txt",
        EMERSON,
    ] {
        let out = rt.block_on(ex.extract_all(tree_sections(rel)));
        for x in &out {
            for n in org_names(x) {
                let first = n.split_whitespace().next().unwrap_or("");
                assert!(!CURRENCY_WORDS.contains(&first), "{rel} {}: {n}", x.node_id);
                assert!(!n.starts_with("Form of "), "{rel} {}: {n}", x.node_id);
            }
        }
    }
}

/// A section whose heading the filing's extraction ran into the middle of
/// a line is sent as its own text: from its heading to the next heading,
/// nothing of the section before it, on the lines it says it spans.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn sections_inside_a_line_are_sent_from_their_heading_on() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    use kgroute::route::{plan, RouteOptions};
    use kgroute::tree::{build_tree, SourceText};
    let src = SourceText::read(
        &corpus_path("wide/credit_agreements/jones_cable_1995.txt"),
        false,
    )
    .unwrap();
    let tree = build_tree(&src);
    let index = kgroute::index::GraphabilityIndex::default();
    let p = plan(&tree, &index, &RouteOptions::default());
    let doc = kgroute::extract::extractor::DocContext {
        doc_id: &tree.doc_id,
        doc_type: "credit",
        source: &src,
        parties: &tree.party_names,
        registry: &Default::default(),
    };
    let inputs = kgroute::extract::extractor::section_inputs(&p, &doc);
    let mut inside = 0;
    for (i, s) in inputs.iter().zip(
        p.sections
            .iter()
            .filter(|s| s.route == kgroute::route::Route::Llm),
    ) {
        assert_eq!(i.node_id, s.node_id);
        assert_eq!(
            i.text.split('\n').count(),
            i.end_line - i.start_line + 1,
            "{}",
            i.title
        );
        // The whole span, less the newline that ends its last line.
        let n = i.text.chars().count();
        assert!(
            s.chars == n || s.chars == n + 1,
            "{}: {n} of {}",
            i.title,
            s.chars
        );
        if s.start_byte > src.line_start(s.start_line) {
            inside += 1;
            let label = i.title.split(' ').next().unwrap();
            assert!(i.text.starts_with(label), "{}: {:.60?}", i.title, i.text);
        }
    }
    assert!(inside > 0, "no section of the run-together lines was sent");
}
