//! Routing on meaning with the shipped credit-agreement index: the titles
//! the issue found wrong or new, and the evaluation against the expert gold
//! files (invariants recomputed from the JSON, not pinned figures).

use super::util::{corpora, repo};
use kgroute::index::{GraphabilityIndex, MatchContext, MatchMethod, Tier};
use kgroute::route::eval;

fn credit() -> GraphabilityIndex {
    GraphabilityIndex::load(&[repo().join("indices/credit_agreement.yaml")]).unwrap()
}

#[test]
fn titles_every_credit_agreement_has_are_known() {
    let idx = credit();
    for (title, entry) in [
        ("Choice of Law", "Governing Law"),
        ("Severability of Provisions", "Severability"),
        ("Entire Agreement", "Entire Agreement"),
        ("Sale of Assets", "Sale of Assets"),
        ("Cross Default", "Events of Default"),
        ("Setoff", "Setoff"),
        ("Right of Set-off", "Setoff"),
        ("Appointment and Authority", "Appointment and Authorization"),
        ("Rights as a Lender", "Agent and Affiliates"),
    ] {
        let m = idx.match_title(title);
        assert_eq!(m.entry.as_deref(), Some(entry), "{title}: {m:?}");
    }
    assert!(idx.match_title("Merger").tier.is_some_and(Tier::is_sent));
}

#[test]
fn valuable_text_is_not_matched_to_boilerplate() {
    let idx = credit();
    let j = idx.match_title("Judgments");
    assert_ne!(j.entry.as_deref(), Some("Judgment Currency"));
    assert!(j.tier.is_some_and(Tier::is_sent), "{j:?}");
    let r = idx.match_title("Rates Applicable After Default");
    assert_ne!(r.entry.as_deref(), Some("Interest Rates"));
    assert!(r.tier.is_none_or(Tier::is_sent), "{r:?}");
    let parents = ["Guaranty".to_string()];
    let w = idx.match_heading(
        "Waivers",
        &MatchContext {
            parents: &parents,
            ..Default::default()
        },
    );
    assert_eq!(w.method, MatchMethod::Context, "{w:?}");
    assert!(w.tier.is_some_and(Tier::is_sent), "{w:?}");
    let plain = idx.match_heading("Waivers", &MatchContext::default());
    assert_eq!(plain.tier, Some(Tier::VeryLow));
}

#[test]
fn every_match_names_why() {
    let idx = credit();
    for t in [
        "Limitation on Acquisitions",
        "Mergers, Consolidations and Sales of Assets",
    ] {
        let m = idx.match_title(t);
        assert!(m.entry.is_some(), "{t}");
        assert!(
            m.score >= idx.fuzzy_threshold() && m.score <= 1.0,
            "{t}: {m:?}"
        );
        assert_ne!(m.runner_up, m.entry, "{t}");
    }
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn gold_evaluation_adds_up() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let idx = credit();
    for name in eval::TUNING.iter().chain(eval::CHECKING) {
        let p = corpora().join(format!("gold/wide__credit_agreements__{name}.json"));
        let f = eval::evaluate_file(&p, &idx).unwrap();
        assert_eq!(
            f.sections,
            f.perfect + f.deviation + f.mismatch + f.new,
            "{name}"
        );
        // The oracle is exactly the expert's Low / Very Low text.
        let g: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let secs = g["sections"].as_array().unwrap();
        let low: u64 = secs
            .iter()
            .filter(|s| matches!(s["tier"].as_str(), Some("low" | "very_low")))
            .map(|s| s["chars"].as_u64().unwrap())
            .sum();
        let all: u64 = secs.iter().map(|s| s["chars"].as_u64().unwrap()).sum();
        assert_eq!(
            (f.chars_oracle as u64, f.chars_total as u64),
            (low, all),
            "{name}"
        );
        assert!(f.chars_cut <= f.chars_total);
        assert!(f.relations_kept <= f.relations_medium_plus);
        // Definitions carry the most relations of every file: never skipped.
        assert!(f.recall() > 90.0, "{name}: {}", f.recall());
    }
}

/// Headings that name a party by the short name its opening defines
/// (`Indemnification by Acme`) match like the same heading without it.
#[test]
fn a_heading_naming_a_party_matches_as_the_plain_heading() {
    use kgroute::route::{plan, RouteOptions};
    use kgroute::tree::{build_tree, SourceText};
    let idx = GraphabilityIndex::load(&[repo().join("indices/commercial.yaml")]).unwrap();
    let body = "Each party shall perform its obligations under this Agreement in a timely manner. ";
    let mut text = String::from(
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Acme Widgets, Inc., a \
         Delaware corporation having its place of business at 1 Main Street, Dover \
         (\"Acme\"), and Beta Retail LLC (hereinafter \"Beta\").\n\n",
    );
    let headings = [
        "1.1 Definitions",
        "2.1 Indemnification by Acme",
        "2.2 Indemnification by Beta",
        "2.3 Indemnification",
        "3.1 Acme Trademarks",
        "3.2 Trademarks",
    ];
    for h in headings {
        text.push_str(&format!("{h}. {}\n\n", body.repeat(4)));
    }
    let tree = build_tree(&SourceText::from_text("supply.txt", &text));
    assert_eq!(tree.party_names, vec!["Acme", "Beta"]);
    let p = plan(&tree, &idx, &RouteOptions::default());
    let entry = |name: &str| {
        p.sections
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} not in {:?}", p.sections))
            .matched
            .entry
            .clone()
    };
    let plain = entry("Indemnification");
    assert!(plain.is_some());
    assert_eq!(entry("Indemnification by Acme"), plain);
    assert_eq!(entry("Indemnification by Beta"), plain);
    assert_eq!(entry("Acme Trademarks"), entry("Trademarks"));
    assert!(entry("Trademarks").is_some());
}

/// A numbered clause titled `Signatures` whose text is a counterparts
/// provision (`12.9. Signatures. This Agreement may be signed in two
/// counterparts ...`, a CUAD consulting agreement) is a clause, sent;
/// a signature page that opens with the signing formula stays noise.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_clause_titled_signatures_is_sent_and_the_signature_page_is_noise() {
    use kgroute::route::{plan_document_in, Route, RouteOptions};
    use kgroute::tree::NodeKind;
    let Some(corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let set = kgroute::index::IndexSet::load(&[repo().join("indices")]).unwrap();
    let path = corpora
        .join("cuad/consulting/drivendeliveries_inc_05_22_2020_ex_10_4_consulting_agreement.txt");
    let (_, _, plan, _) =
        plan_document_in(&path, &set, None, &RouteOptions::default(), true).unwrap();
    let s = plan
        .sections
        .iter()
        .find(|s| s.title.starts_with("12.9"))
        .expect("the Signatures clause");
    assert_eq!((s.kind, s.route), (NodeKind::Section, Route::Llm), "{s:?}");

    let dir = super::util::tempdir();
    let p = dir.path().join("signed.txt");
    let body = "The Consultant shall provide the services described in this Agreement with due care and skill, and the Company shall pay the fees when due.\n\n";
    let text = format!(
        "1. Services\n\n{}2. Fees\n\n{}3. Signatures\n\nIN WITNESS WHEREOF, the parties have executed this Agreement as of the date first written above.\n\nACME INC.\n\nBy: /s/ Jane Roe\nName: Jane Roe\nTitle: President\n",
        body.repeat(3),
        body.repeat(3)
    );
    std::fs::write(&p, text).unwrap();
    let (_, _, plan, _) = plan_document_in(&p, &set, None, &RouteOptions::default(), true).unwrap();
    let s = plan
        .sections
        .iter()
        .find(|s| s.title == "3. Signatures")
        .unwrap();
    assert_eq!(
        (s.kind, s.route),
        (NodeKind::Signature, Route::Noise),
        "{s:?}"
    );
}
