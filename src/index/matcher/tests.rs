use super::*;
use std::path::PathBuf;

fn entry(title: &str, aliases: &[&str], tier: Tier) -> IndexEntry {
    IndexEntry {
        title: title.into(),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
        note: None,
        tier,
        source: PathBuf::from("test.yaml"),
        line: 1,
    }
}

const T: f64 = 0.75;

fn matcher() -> Matcher {
    Matcher::new(
        &[
            entry("Definitions", &["Defined Terms"], Tier::VeryHigh),
            entry("Mergers and Sales of Assets", &[], Tier::VeryHigh),
            entry("Commitment Schedule", &["Commitments"], Tier::VeryHigh),
            entry("Negative Pledge", &[], Tier::High),
            entry("Liens", &[], Tier::Medium),
            entry("Governing Law", &[], Tier::VeryLow),
            entry("Subsidiaries", &[], Tier::Medium),
            entry("Notices", &[], Tier::VeryLow),
            entry("Judgment Currency", &[], Tier::Low),
            entry("Judgments", &["Judgment Default"], Tier::High),
            entry("Interest Rates", &[], Tier::Low),
            entry("No Waivers", &["Waivers"], Tier::VeryLow),
            entry("Guaranty Waivers", &["Waivers by Guarantor"], Tier::Medium),
            entry("Setoff", &[], Tier::Medium),
            entry("Severability", &[], Tier::VeryLow),
            entry("Entire Agreement", &["Integration"], Tier::VeryLow),
            entry("Payment of Taxes", &[], Tier::Low),
            entry(
                "Events of Default",
                &["Events of Default; Remedies"],
                Tier::VeryHigh,
            ),
            entry("Remedies", &[], Tier::High),
            entry("Notice of Borrowing", &[], Tier::Low),
        ],
        &["Subsidiaries".to_string(), "Guarantors".to_string()],
        &["Table of Contents".to_string()],
        &[
            vec![
                "Governing Law".into(),
                "Choice of Law".into(),
                "Applicable Law".into(),
            ],
            vec!["Setoff".into(), "Right of Set-off".into(), "Set off".into()],
            vec!["Guaranty".into(), "Guarantee".into(), "Guarantor".into()],
        ],
    )
}

#[test]
fn exact_alias_fuzzy_none() {
    let m = matcher();
    let r = m.match_title("Section 1.01 Definitions", T);
    assert_eq!(
        (r.method, r.entry.as_deref()),
        (MatchMethod::Exact, Some("Definitions"))
    );
    let r = m.match_title("1.01 Defined Terms", T);
    assert_eq!(
        (r.method, r.tier),
        (MatchMethod::Alias, Some(Tier::VeryHigh))
    );
    let r = m.match_title("Schedule 2.01A Commitments", T);
    assert_eq!(r.entry.as_deref(), Some("Commitment Schedule"));
    let r = m.match_title("Mergers, Consolidations and Sales of Assets", T);
    assert_eq!(r.method, MatchMethod::Fuzzy);
    assert_eq!(r.entry.as_deref(), Some("Mergers and Sales of Assets"));
    assert!(r.score >= T && r.score < 1.0, "{}", r.score);
    let r = m.match_title("Benchmark Replacement Setting", T);
    assert_eq!((r.method, r.tier, r.entry), (MatchMethod::None, None, None));
}

#[test]
fn synonyms_spelling_and_stems_meet() {
    let m = matcher();
    for t in ["Choice of Law", "Applicable Law"] {
        let r = m.match_title(t, T);
        assert_eq!(r.entry.as_deref(), Some("Governing Law"), "{t}");
        assert_eq!(r.method, MatchMethod::Concept, "{t}");
    }
    assert_eq!(
        m.match_title("GOVERNING LAWS", T).method,
        MatchMethod::Exact
    );
    for t in ["Right of Set-off", "Set-Off", "Right of Setoff"] {
        assert_eq!(m.match_title(t, T).entry.as_deref(), Some("Setoff"), "{t}");
    }
    assert_eq!(
        m.match_title("Severability of Provisions", T)
            .entry
            .as_deref(),
        Some("Severability")
    );
}

#[test]
fn head_concept_guard() {
    let m = matcher();
    let r = m.match_title("Judgments", T);
    assert_eq!(
        (r.entry.as_deref(), r.tier),
        (Some("Judgments"), Some(Tier::High))
    );
    let r = m.match_title("Judgment", T);
    assert_eq!(r.entry.as_deref(), Some("Judgments"));
    // Shares `rate` but not the meaning: stays new rather than Low.
    let r = m.match_title("Rates Applicable After Default", T);
    assert_eq!(r.method, MatchMethod::None, "{r:?}");
    // A shared modifier alone is not a match.
    let r = m.match_title("Currency Conversion", T);
    assert_ne!(r.entry.as_deref(), Some("Judgment Currency"));
}

#[test]
fn breadcrumb_settles_ambiguous_titles() {
    let m = matcher();
    let plain = m.match_heading("Waivers", &MatchContext::default(), T);
    assert_eq!(plain.entry.as_deref(), Some("No Waivers"));
    let parents = ["Guaranty".to_string()];
    let r = m.match_heading(
        "Waivers",
        &MatchContext {
            parents: &parents,
            ..Default::default()
        },
        T,
    );
    assert_eq!(
        (r.entry.as_deref(), r.method, r.tier),
        (
            Some("Guaranty Waivers"),
            MatchMethod::Context,
            Some(Tier::Medium)
        )
    );
    assert_eq!(r.runner_up.as_deref(), Some("No Waivers"));
    let parents = ["Miscellaneous".to_string()];
    let r = m.match_heading(
        "Waivers",
        &MatchContext {
            parents: &parents,
            ..Default::default()
        },
        T,
    );
    assert_eq!(r.entry.as_deref(), Some("No Waivers"));
}

#[test]
fn a_name_with_its_own_entry_is_not_read_as_its_parents_entry() {
    let m = matcher();
    let parents = ["Events of Default".to_string()];
    let ctx = MatchContext {
        parents: &parents,
        ..Default::default()
    };
    // `Remedies` has an entry of its own: the article it sits in does not
    // turn it into `Events of Default`, though a key holds both words.
    let r = m.match_heading("Remedies", &ctx, T);
    assert_eq!(
        (r.entry.as_deref(), r.method),
        (Some("Remedies"), MatchMethod::Exact)
    );
    // The stemmer reads `Borrower` as `Borrowing`; the parent's word must
    // be the key's word as written (or its concept), so `Notices` under
    // the borrower's covenants stays the notices clause.
    let parents = ["Covenants of Borrower".to_string()];
    let r = m.match_heading(
        "Notices",
        &MatchContext {
            parents: &parents,
            ..Default::default()
        },
        T,
    );
    assert_eq!(r.entry.as_deref(), Some("Notices"), "{r:?}");
    // A name without an entry of its own still reads its parent's.
    let r = m.match_heading("Remedies upon an Event", &ctx, T);
    assert_eq!(r.entry.as_deref(), Some("Events of Default"), "{r:?}");
}

#[test]
fn two_entries_take_the_higher_tier() {
    let m = matcher();
    let r = m.match_title("Section 5.08 Liens; Negative Pledge", T);
    assert_eq!(r.tier, Some(Tier::High));
    assert_eq!(r.entry.as_deref(), Some("Negative Pledge"));
    let r = m.match_title("Negative Pledge; Liens", T);
    assert_eq!(r.tier, Some(Tier::High));
    let r = m.match_title("Liens and Negative Pledge", T);
    assert_eq!(r.tier, Some(Tier::High));
    let r = m.match_title("Notices, Severability and Integration", T);
    assert_eq!(r.tier, Some(Tier::VeryLow));
}

#[test]
fn unknown_part_keeps_a_skipped_title_new() {
    let m = matcher();
    // Governing Law is Very Low but the other half is unknown: sent as new.
    let r = m.match_title("Governing Law; Benchmark Replacement", T);
    assert_eq!(r.method, MatchMethod::None);
    // Liens is sent anyway, so the known half decides.
    let r = m.match_title("Liens; Benchmark Replacement", T);
    assert_eq!(r.tier, Some(Tier::Medium));
}

#[test]
fn runner_up_is_another_entry() {
    let m = matcher();
    let r = m.match_title("Judgment Currency", T);
    assert_eq!(r.entry.as_deref(), Some("Judgment Currency"));
    if let Some(ru) = &r.runner_up {
        assert_ne!(ru, "Judgment Currency");
    }
}

#[test]
fn anchors_are_pinned_very_high() {
    let m = matcher();
    let r = m.match_title("Schedule 5.13 Subsidiaries", T);
    assert!(r.anchor);
    assert_eq!(r.tier, Some(Tier::VeryHigh));
    let r = m.match_title("Guarantors", T);
    assert!(r.anchor);
    assert_eq!(r.tier, Some(Tier::VeryHigh));
}

#[test]
fn noise_and_reserved() {
    let m = matcher();
    assert!(m.match_title("TABLE OF CONTENTS", T).noise);
    let r = m.match_title("Section 2.12 [Reserved]", T);
    assert!(r.reserved && r.tier.is_none());
}

#[test]
fn compound_parts() {
    assert_eq!(
        split_parts("Notes; Loan Accounts"),
        vec!["Notes".to_string(), "Loan Accounts".to_string()]
    );
    assert_eq!(
        split_parts("Sharing of Payments, Etc."),
        vec!["Sharing of Payments".to_string()]
    );
    assert_eq!(split_parts("Mergers and Sales").len(), 2);
}

#[test]
fn a_party_name_the_index_does_not_know_is_read_past() {
    let m = matcher();
    let own = ["Miltenyi".to_string(), "Notices".to_string()];
    let ctx = MatchContext {
        own_names: &own,
        ..Default::default()
    };
    // Without the document's names the company name dilutes the title.
    let plain = m.match_heading("Setoff by Miltenyi", &MatchContext::default(), T);
    assert_eq!(plain.entry, None, "{plain:?}");
    let r = m.match_heading("Setoff by Miltenyi", &ctx, T);
    assert_eq!(r.entry.as_deref(), Some("Setoff"), "{r:?}");
    // Possessive and compound forms: the separators stay.
    let r = m.match_heading("Miltenyi's Liens; Negative Pledge", &ctx, T);
    assert_eq!(r.entry.as_deref(), Some("Negative Pledge"), "{r:?}");
    // A defined name the index knows is a word of the title, kept.
    let r = m.match_heading("Notices", &ctx, T);
    assert_eq!(r.entry.as_deref(), Some("Notices"));
    // A title that is only a party name matches nothing.
    let r = m.match_heading("Miltenyi", &ctx, T);
    assert_eq!(r.entry, None, "{r:?}");
}

/// The cache keys on what decides a match: the same name under another
/// parent, or another own name, is matched afresh, and every cached
/// answer (asked twice, in any order) is the uncached one.
#[test]
fn cached_matches_are_the_uncached_ones_in_every_context() {
    let m = matcher();
    let guaranty = vec!["Article X Guaranty".to_string()];
    let deep = vec![
        "Article X Guaranty".to_string(),
        "Section 10.1 General".to_string(),
        "Miscellaneous".to_string(),
    ];
    let own = vec!["Miltenyi".to_string()];
    let contexts = [
        MatchContext::default(),
        MatchContext {
            parents: &guaranty,
            own_names: &[],
        },
        MatchContext {
            parents: &deep,
            own_names: &[],
        },
        MatchContext {
            parents: &guaranty,
            own_names: &own,
        },
    ];
    let names = [
        "Waivers",
        "Defined Terms",
        "Liens; Negative Pledge",
        "Judgments",
        "Waivers by Miltenyi",
        "Remedies",
        "",
    ];
    for round in 0..2 {
        for ctx in contexts.iter().rev().chain(contexts.iter()) {
            for name in names {
                assert_eq!(
                    m.match_heading(name, ctx, T),
                    m.match_heading_uncached(name, ctx, T),
                    "round {round}: {name:?} under {:?}",
                    ctx.parents
                );
            }
        }
    }
    let plain = m.match_heading("Waivers", &contexts[0], T);
    let under = m.match_heading("Waivers", &contexts[1], T);
    assert_ne!(plain.entry, under.entry, "context still decides");
}
