use super::super::common::builder::Builder;
use super::*;

fn run(text: &str, parties: &[&str]) -> Vec<(String, String, String)> {
    let mut b = Builder {
        parties: parties.iter().map(|p| p.to_string()).collect(),
        ..Builder::default()
    };
    facts_with(&mut b, "", &[text.to_string()], None);
    b.finish()
        .relations
        .into_iter()
        .map(|r| (r.source, r.relation_type, r.target))
        .collect()
}

fn has(out: &[(String, String, String)], ty: &str, source: &str, target: &str) -> bool {
    out.iter()
        .any(|(s, t, d)| t == ty && s == source && d.contains(target))
}

#[test]
fn sentences_split_at_ends_not_abbreviations() {
    let p = "Acme Inc. shall pay. Beta Co. may not. Then (a) this.";
    let spans: Vec<&str> = sentences(p).iter().map(|&(s, e)| &p[s..e]).collect();
    assert_eq!(
        spans,
        vec![
            "Acme Inc. shall pay.",
            "Beta Co. may not.",
            "Then (a) this."
        ]
    );
}

#[test]
fn dates_of_the_agreement() {
    let out = run(
        "This Distribution Agreement is made and entered into as of March 1, 2020 by and between Acme and Beta.",
        &[],
    );
    assert!(
        has(&out, "AGREEMENT_DATE", "Agreement", "March 1, 2020"),
        "{out:?}"
    );
    let out = run(
        "This Agreement shall be effective as of the 8th day of May, 2014 (the \"Effective Date\").",
        &[],
    );
    assert!(
        has(&out, "EFFECTIVE_DATE", "Agreement", "8th day of May, 2014"),
        "{out:?}"
    );
    // An agreement that says only when it takes effect is dated that day.
    assert!(
        has(&out, "AGREEMENT_DATE", "Agreement", "8th day of May, 2014"),
        "{out:?}"
    );
}

/// The day an agreement was made, when its opening also says when it takes
/// effect, and when only its signatures date it.
#[test]
fn an_agreement_is_dated_the_day_it_was_made() {
    for (text, date) in [
        ("THIS AGENCY AGREEMENT, dated November 9, 2005 (\"Agreement\"), between Acme and Beta.", "November 9, 2005"),
        ("THIS AGREEMENT, dated for reference March 13, 1996, is made BETWEEN: Acme Corp. and Beta Ltd.", "March 13, 1996"),
        ("This Development Agreement (\"this Agreement\") is entered into and effective as of September 30, 2019 (\"Effective Date\") by and between Acme and Beta.", "September 30, 2019"),
        ("THIS AGREEMENT is made as of this March 14, 2012 but effective as of March 1, 2012 (\"Effective Date\") by and between Acme and Beta.", "March 14, 2012"),
        ("This Maintenance and Support Agreement (this \"Agreement\") is entered on this 9th day of October, 2001 and is deemed effective as of October 1, 2001 (the \"Effective Date\").", "9th day of October, 2001"),
        ("Acme Inc. By: /s/ Jane Roe Name: Jane Roe Title: President Date: October 2, 2017", "October 2, 2017"),
        ("DATED: April 8, 2020 SCULPTOR CAPITAL LP", "April 8, 2020"),
    ] {
        let out = run(text, &[]);
        assert!(has(&out, "AGREEMENT_DATE", "Agreement", date), "{text}: {out:?}");
    }
    // Another agreement between named parties dates that agreement; a
    // form's blank date field dates nothing.
    for text in [
        "Subject to the Restaurant Development Agreement between BKC and International Fast Food Corporation dated March 14, 1997, (the \"Development Agreement\"), this Agreement sets the locations.",
        "Acme Inc. By: ____________ Name: ____________ Title: ____________ Date: ____________",
    ] {
        let out = run(text, &[]);
        assert!(!has_type(&out, "AGREEMENT_DATE"), "{text}: {out:?}");
    }
}

#[test]
fn renewal_and_its_notice() {
    let out = run(
        "This Agreement shall automatically renew for successive one (1) year periods unless either party gives notice of non-renewal at least ninety (90) days prior to the end of the then-current term.",
        &[],
    );
    assert!(
        has(&out, "RENEWAL_TERM", "Agreement", "one (1) year"),
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|(_, t, _)| t == "NOTICE_PERIOD_TO_TERMINATE_RENEWAL"),
        "{out:?}"
    );
}

#[test]
fn money_caps_and_royalties_name_the_party_and_amount() {
    let out = run(
        "Licensee shall pay Licensor a royalty of five percent (5%) of Net Sales. In no event shall Licensor's aggregate liability exceed $100,000.",
        &["Licensee", "Licensor"],
    );
    assert!(
        has(&out, "REVENUE_PROFIT_SHARING", "Licensee", "5%"),
        "{out:?}"
    );
    assert!(
        has(&out, "CAP_ON_LIABILITY", "Licensor", "$100,000"),
        "{out:?}"
    );
}

#[test]
fn grants_and_limits() {
    let out = run(
        "Licensor hereby grants to Licensee a non-exclusive, non-transferable, perpetual license to use the Software. Distributor shall not sell any products that compete with the Products.",
        &["Licensee", "Licensor", "Distributor"],
    );
    for ty in [
        "LICENSE_GRANT",
        "NON_TRANSFERABLE_LICENSE",
        "IRREVOCABLE_OR_PERPETUAL_LICENSE",
    ] {
        assert!(
            out.iter().any(|(s, t, _)| t == ty && s == "Licensor"),
            "{ty}: {out:?}"
        );
    }
    assert!(!out.iter().any(|(_, t, _)| t == "EXCLUSIVITY"), "{out:?}");
    assert!(
        out.iter()
            .any(|(s, t, _)| t == "NON_COMPETE" && s == "Distributor"),
        "{out:?}"
    );
}

#[test]
fn governing_law_worded_every_way() {
    for (text, place) in [
        (
            "The laws of the State of New York shall govern this Agreement.",
            "New York",
        ),
        ("This Agreement is governed by English law.", "English"),
        (
            "THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF DELAWARE.",
            "Delaware",
        ),
    ] {
        let out = run(text, &[]);
        assert!(
            has(&out, "GOVERNING_LAW", "Agreement", place),
            "{text}: {out:?}"
        );
    }
}

#[test]
fn evidence_is_a_sentence_window_not_the_section() {
    let long = format!(
        "{} Licensee shall maintain insurance with reputable insurers. {}",
        "Words of a long clause that goes on. ".repeat(20),
        "More words that follow the clause. ".repeat(20)
    );
    let mut b = Builder {
        parties: ["Licensee".to_string()].into_iter().collect(),
        ..Builder::default()
    };
    facts_with(&mut b, "", &[long], None);
    let out = b.finish();
    let r = out
        .relations
        .iter()
        .find(|r| r.relation_type == "INSURANCE")
        .expect("insurance fact");
    assert_eq!(
        r.evidence,
        "Licensee shall maintain insurance with reputable insurers."
    );
    assert!(out
        .relations
        .iter()
        .all(|r| r.evidence.len() <= FACT_EVIDENCE_CHARS));
}

#[test]
fn sec_exhibit_numbers_are_no_cross_references() {
    let refs = super::super::common::text::section_refs(
        "Exhibit 10.16 CONFIDENTIAL. The Products are listed in Exhibit A and Exhibit 2.",
    );
    assert_eq!(refs, vec!["Exhibit A".to_string(), "Exhibit 2".to_string()]);
}

/// A sentence of two clauses with two subjects: each fact takes its own
/// clause's subject, and each value the one its words speak of.
#[test]
fn each_fact_takes_its_own_clause_subject_and_value() {
    let out = run(
        "During the Term the Buyer shall purchase at least eighty percent (80%) of its annual requirements for bearings from the Supplier, and the Supplier shall not sell drive assemblies to any competitor of the Buyer.",
        &["Buyer", "Supplier"],
    );
    assert!(has(&out, "MINIMUM_COMMITMENT", "Buyer", "80"), "{out:?}");
    assert!(
        out.iter()
            .any(|(s, t, _)| t == "NON_COMPETE" && s == "Supplier"),
        "{out:?}"
    );
    assert!(
        !out.iter()
            .any(|(s, t, _)| t == "NON_COMPETE" && s == "Buyer"),
        "{out:?}"
    );
    let out = run(
        "This Agreement continues for an initial term of five (5) years, renewing automatically for successive one-year periods unless either Party gives notice of non-renewal at least one hundred eighty (180) days before expiry.",
        &[],
    );
    assert!(
        has(&out, "RENEWAL_TERM", "Agreement", "one-year"),
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|(_, t, d)| t == "NOTICE_PERIOD_TO_TERMINATE_RENEWAL"
                && d == "one hundred eighty (180) days"),
        "{out:?}"
    );
}

/// One reading gives the register's governing law and the graph's
/// `GOVERNED_BY`, so the two cannot disagree; a sentence that speaks of
/// construing the agreement but names no place gives neither.
#[test]
fn governing_law_is_read_once_for_the_register_and_the_graph() {
    for (text, place) in [
        (
            "This Agreement shall be interpreted, construed and enforced in all respects in \
             accordance with the laws of the State of Illinois, except with regards to its rules \
             regarding choice of law.",
            Some("Illinois"),
        ),
        (
            "The validity of this Agreement shall be governed by the laws of England and Wales.",
            Some("England and Wales"),
        ),
        (
            "The laws of the State of New York shall govern this Agreement.",
            Some("New York"),
        ),
        (
            "This agreement shall be interpreted and enforced in accordance with the provisions \
             hereof without the aid of any rule of law requiring construction against the drafter.",
            None,
        ),
    ] {
        let out = run(text, &[]);
        let of = |ty: &str| -> Vec<&String> {
            out.iter()
                .filter(|(s, t, _)| t == ty && s == "Agreement")
                .map(|(_, _, d)| d)
                .collect()
        };
        assert_eq!(of("GOVERNING_LAW"), of(GOVERNED_BY), "{text}");
        match place {
            Some(p) => assert_eq!(of(GOVERNED_BY), [p], "{text}"),
            None => assert!(of("GOVERNING_LAW").is_empty(), "{text}: {out:?}"),
        }
    }
}

/// A notice period is the notice's own, never the renewal term the same
/// sentence names; a notice that names no period gives none.
#[test]
fn a_notice_period_is_read_from_the_notice_not_the_renewal_term() {
    let notice = |text: &str| -> Vec<String> {
        run(text, &["Supplier", "Buyer"])
            .into_iter()
            .filter(|(_, t, _)| t == "NOTICE_PERIOD_TO_TERMINATE_RENEWAL")
            .map(|(_, _, d)| d)
            .collect()
    };
    let after = notice(
        "This Agreement shall be automatically renewed for successive one year periods unless \
         either party gives written notice of termination to the other party at least thirty \
         (30) days prior to the end of the then-current term.",
    );
    assert!(after.iter().any(|d| d.contains("(30) days")), "{after:?}");
    assert!(!after.iter().any(|d| d.contains("year")), "{after:?}");
    let before = notice(
        "This Agreement renews for successive terms of two (2) years each unless a party gives \
         ninety (90) days' prior written notice of non-renewal to the other party.",
    );
    assert!(before.iter().any(|d| d.contains("(90) days")), "{before:?}");
    assert!(
        !before.iter().any(|d| d.contains("(2) years")),
        "{before:?}"
    );
    let none = notice(
        "This Agreement shall be renewed for one (1) additional twelve month period unless either \
         party shall notify the other in writing of its intention not to renew.",
    );
    // The clause is the fact (for a reviewer to check), not its term.
    assert!(
        none.iter().all(|d| d.starts_with("This Agreement")),
        "{none:?}"
    );
}

/// What survives the agreement, an exclusivity, a payment schedule or a
/// commitment window has a duration of its own: no expiry of the
/// agreement. The agreement's own term is one.
#[test]
fn another_durations_period_is_no_expiry() {
    let expiry = |text: &str| has_type(&run(text, &[]), "EXPIRATION_DATE");
    assert!(expiry(
        "The term of this Agreement shall be for a period of two (2) years from the Effective Date."
    ));
    for other in [
        "Sections 6.3, 7, 9 and 10 of this Agreement shall survive and continue in full force and effect for a period of two years from the expiration or termination of this Agreement.",
        "MA commits to purchase a minimum of 100 Units within the first six months of the term of this Agreement, and this Agreement shall remain in effect until the Units are delivered.",
        "Licensee's term of exclusivity with respect to the Clips shall expire on October 29, 2005.",
        "Each party agrees that, for the term of this Agreement and for five (5) years thereafter, it shall not disclose the other's Confidential Information.",
        "1.22 \"Wedge Products\" shall mean Products fulfilled from the Effective Date of this Agreement until December 31, 1998.",
    ] {
        assert!(!expiry(other), "{other}");
    }
}

fn has_type(out: &[(String, String, String)], ty: &str) -> bool {
    out.iter().any(|(_, t, _)| t == ty)
}

/// A renewal lasts months or years; the days in its sentence are the
/// notice that stops it.
#[test]
fn a_renewal_term_is_never_its_notices_days() {
    let out = run(
        "Thereafter, this agreement will renew automatically from year to year unless cancelled \
         in writing by either Party giving the other written notice of such cancellation a \
         minimum of sixty (60) days prior to the end of the term.",
        &[],
    );
    assert!(
        !out.iter()
            .any(|(_, t, d)| t == "RENEWAL_TERM" && d.contains("(60) days")),
        "{out:?}"
    );
    let out = run(
        "This Agreement will automatically renew for successive one-year terms unless terminated \
         by either party by providing the other with 30 days written notice.",
        &[],
    );
    assert!(
        has(&out, "RENEWAL_TERM", "Agreement", "one-year"),
        "{out:?}"
    );
}

/// The facts of one paragraph under a title, read with the shipped clause
/// model: the relations' types, and the candidates held for review.
fn with_model(title: &str, text: &str) -> (Vec<String>, Vec<crate::extract::Candidate>) {
    let mut b = Builder::default();
    facts_with(
        &mut b,
        title,
        &[text.to_string()],
        Some(crate::clause_model::shipped()),
    );
    let out = b.finish();
    (
        out.relations.into_iter().map(|r| r.relation_type).collect(),
        out.candidates,
    )
}

/// An accountants' representation names an audit report, which a rule
/// for audit rights reads; it is no right to audit, and the model does
/// not agree: the fact is held for review, with why, and leaves no clause
/// entity behind. The rules alone would assert it.
#[test]
fn a_rule_the_clause_model_does_not_agree_with_is_held_for_review() {
    let text = "Wolf & Company, P.C., which has certified certain financial statements and supporting schedules of the Company included in the Registration Statement, the Preliminary Prospectus, the Prospectus and the Free Writing Prospectuses containing an audit report, are independent public accountants as required by the Act and the rules and regulations of the Commission thereunder.";
    let alone = run(text, &["Company"]);
    assert!(
        alone.iter().any(|(_, t, _)| t == "AUDIT_RIGHTS"),
        "the rules alone read it: {alone:?}"
    );
    let (types, held) = with_model("Representations and Warranties", text);
    assert!(!types.iter().any(|t| t == "AUDIT_RIGHTS"), "{types:?}");
    let c = held
        .iter()
        .find(|c| c.relation.relation_type == "AUDIT_RIGHTS")
        .expect("held for review");
    assert!(
        c.why.contains("clause model scores the paragraph"),
        "{}",
        c.why
    );
    assert!(
        c.relation.evidence.contains("audit report"),
        "{:?}",
        c.relation
    );
    let mut b = Builder::default();
    facts_with(
        &mut b,
        "Representations and Warranties",
        &[text.to_string()],
        Some(crate::clause_model::shipped()),
    );
    let target = &c.relation.target;
    assert!(
        !b.finish().entities.iter().any(|e| &e.name == target),
        "a held fact leaves no clause entity in the graph"
    );
}

/// A survival clause is no duty to serve after termination: the rules
/// read none from it.
#[test]
fn a_survival_clause_is_no_post_termination_duty() {
    let text = "Sections 2.3, 5.2, 5.3, 5.4, 8.4, 8.5, 11.1, 11.2, 11.3 and 11.6 and Articles VII, IX, X, XII, and XV shall survive any expiration or termination of this Agreement.";
    assert!(!run(text, &[])
        .iter()
        .any(|(_, t, _)| t == "POST_TERMINATION_SERVICES"));
    let text = "Upon expiration or termination of this Agreement, Distributor may sell off its remaining inventory of Products for a period of six (6) months.";
    assert!(run(text, &["Distributor"])
        .iter()
        .any(|(_, t, _)| t == "POST_TERMINATION_SERVICES"));
}

/// Where both read the clause, it is asserted as before.
#[test]
fn a_clause_the_rules_and_the_model_agree_on_is_asserted() {
    let text = "Licensee shall, at its own expense, maintain comprehensive general liability insurance in an amount of not less than $1,000,000 per occurrence, naming Licensor as an additional insured.";
    let (types, held) = with_model("Insurance", text);
    assert!(types.iter().any(|t| t == "INSURANCE"), "{types:?} {held:?}");
    assert!(held.is_empty(), "{held:?}");
}

/// A consequential-damages exclusion is what CUAD's lawyers mark as a cap
/// on liability; no rule reads it so, the model does on its own.
#[test]
fn a_clause_kind_the_model_alone_reads_is_asserted_from_its_sentence() {
    let text = "14.1 NEITHER PARTY SHALL HAVE ANY LIABILITY FOR ANY INDIRECT, SPECIAL, PUNITIVE OR CONSEQUENTIAL DAMAGES INCLUDING, WITHOUT THE LIMITATION, LOSS OF PROFIT OR BUSINESS OPPORTUNITIES, WHETHER OR NOT THE PARTY WAS ADVISED OF THE POSSIBILTY OF SUCH.";
    assert!(
        !run(text, &[])
            .iter()
            .any(|(_, t, _)| t == "CAP_ON_LIABILITY"),
        "no rule reads it"
    );
    let (types, _) = with_model("Limitation of Liability", text);
    assert!(types.iter().any(|t| t == "CAP_ON_LIABILITY"), "{types:?}");
}

/// Value categories (dates, law, renewal, notice) are the rules' own: the
/// model neither holds nor adds them.
#[test]
fn facts_with_values_are_not_gated_by_the_model() {
    let text = "This Agreement shall be governed by and construed in accordance with the laws of the State of New York, without regard to its conflict of laws principles.";
    let (types, held) = with_model("Miscellaneous", text);
    assert!(types.iter().any(|t| t == "GOVERNING_LAW"), "{types:?}");
    assert!(held.is_empty(), "{held:?}");
}

/// A definition says what a word means: no clause kind comes from it,
/// whether its paragraph is numbered or not, while a value still may.
#[test]
fn a_definition_states_no_clause_kind() {
    let text = "1.26 \"Change in Control\" means, with respect to a Person, the acquisition, directly or indirectly, by a Person of fifty percent or more of the voting power of such Person, or a merger or consolidation of such Person with another entity.";
    let out = run(text, &[]);
    assert!(
        !out.iter().any(|(_, t, _)| t == "CHANGE_OF_CONTROL"),
        "{out:?}"
    );
    let out = run(
        "\"Exclusivity Period\" has the meaning set forth in Section 6.1, during which Licensee shall not sell competing products.",
        &[],
    );
    assert!(
        !out.iter()
            .any(|(_, t, _)| t == "EXCLUSIVITY" || t == "NON_COMPETE"),
        "{out:?}"
    );
    // The operative clause itself still is one.
    let out = run(
        "Either Party may terminate this Agreement upon a Change in Control of the other Party, by written notice within thirty (30) days of the Change in Control.",
        &[],
    );
    assert!(
        out.iter().any(|(_, t, _)| t == "CHANGE_OF_CONTROL"),
        "{out:?}"
    );
}

/// `non-exclusive` in any spelling PDF text leaves is the opposite of an
/// exclusivity, and `exclusively` as the way a thing is used or owned is
/// none; buying or selling exclusively through a party is one.
#[test]
fn exclusivity_needs_exclusive_dealing_not_the_word() {
    for text in [
        "WHEREAS, Licensor shall convey a Non Exclusive license to the Licensee solely for Licensee's use in the field of foreign exchange.",
        "Party A agrees to license the non- exclusive right to use the intellectual property pursuant to this Agreement to Party B.",
        "During the term of this Agreement the Location shall be used exclusively for the purpose of operating a Burger King Restaurant.",
        "Consultant and the Company agree that all Innovations will be works made for hire owned exclusively by the Company.",
    ] {
        let out = run(text, &["Licensor", "Licensee", "Party A", "Company"]);
        assert!(!out.iter().any(|(_, t, _)| t == "EXCLUSIVITY"), "{text}: {out:?}");
    }
    for text in [
        "Distributor shall purchase the Products exclusively from Supplier during the Term of this Agreement.",
        "Licensor hereby appoints Distributor as its exclusive distributor of the Products in the Territory.",
    ] {
        let out = run(text, &["Distributor", "Supplier", "Licensor"]);
        assert!(out.iter().any(|(_, t, _)| t == "EXCLUSIVITY"), "{text}: {out:?}");
    }
}

/// An exclusive right reads as one with adjectives between (`exclusive,
/// royalty free, perpetual license`, `exclusive worldwide right`) or said
/// of the licence after it (`The license ... shall be exclusive`).
#[test]
fn an_exclusive_licence_reads_through_its_adjectives() {
    for text in [
        "During the Term, each Party hereby provides a worldwide, exclusive, royalty free, perpetual license of such Intellectual Property Rights for use by each licensee.",
        "T&B hereby grants to LEA the sole and exclusive worldwide right and license in and to the Licensed Intellectual Property.",
        "The license hereby granted shall be exclusive as to the products described in subparagraphs 2.(a)(1) and (2) of this Agreement.",
    ] {
        let out = run(text, &["T&B", "LEA"]);
        assert!(out.iter().any(|(_, t, _)| t == "EXCLUSIVITY"), "{text}: {out:?}");
    }
}

/// A change-of-control clause says what follows from the change (consent,
/// notice, termination); a merger a party may assign in freely, or a
/// merger named for another reason, is none.
#[test]
fn a_change_of_control_clause_needs_its_consequence() {
    for text in [
        "Notwithstanding the foregoing, either party may assign this Agreement without the other party's prior written consent in the event of a merger, acquisition, reorganization, change in control, or sale of all or substantially all of its assets.",
        "A change of control of Rogers shall not be considered an assignment of this Agreement.",
        "Common Stock has not been registered under the 1933 Act and shares of PSS Common Stock received pursuant to the Merger with the Company can only be sold following registration.",
    ] {
        let out = run(text, &[]);
        assert!(!out.iter().any(|(_, t, _)| t == "CHANGE_OF_CONTROL"), "{text}: {out:?}");
    }
    for text in [
        "Either Party may terminate this Agreement upon written notice if the other Party undergoes a change of control.",
        "Neither party may assign this Agreement, including by merger or consolidation with another entity, without the prior written consent of the other party.",
    ] {
        let out = run(text, &[]);
        assert!(out.iter().any(|(_, t, _)| t == "CHANGE_OF_CONTROL"), "{text}: {out:?}");
    }
}

/// A competitive-restriction exception carves something out of a
/// non-compete, an exclusivity or a no-solicit; an exception to a
/// warranty, an exclusive owner or a court's relief is none.
#[test]
fn a_competitive_restriction_exception_is_a_carve_out_of_a_restriction() {
    for text in [
        "EXCEPT AS EXCLUSIVELY SET FORTH IN THIS PARAGRAPH, COMPANY DOES NOT MAKE ANY EXPRESS OR IMPLIED WARRANTIES.",
        "Notwithstanding anything in this Agreement to the contrary, each Party shall have the right to seek injunctive or other equitable relief from a court of competent jurisdiction.",
        "Except as otherwise provided in this Agreement, the Company shall be the sole and exclusive owner of the Policy.",
    ] {
        let out = run(text, &["Company"]);
        assert!(
            !out.iter().any(|(_, t, _)| t == "COMPETITIVE_RESTRICTION_EXCEPTION"),
            "{text}: {out:?}"
        );
    }
    let text = "Notwithstanding the foregoing, nothing in this Section shall prevent Distributor from selling products that compete with the Products outside the Territory.";
    let out = run(text, &["Distributor"]);
    assert!(
        out.iter()
            .any(|(_, t, _)| t == "COMPETITIVE_RESTRICTION_EXCEPTION"),
        "{out:?}"
    );
}

/// The date of another document (a letter, a confidentiality agreement
/// between the parties) is not this agreement's date.
#[test]
fn another_documents_date_is_not_the_agreement_date() {
    for text in [
        "Except as expressly provided in this Section 10.6 and in Paragraph 8 of the Confidentiality Agreement between the Parties dated October 2, 2002, this Agreement supersedes all prior agreements.",
        "(i) Concurrently with the execution of this Agreement, the Agent shall receive a letter from Wolf & Co., P.C., dated as of the date hereof and addressed to the Agent, dated December 31, 2013.",
    ] {
        let out = run(text, &[]);
        assert!(!out.iter().any(|(_, t, _)| t == "AGREEMENT_DATE"), "{text}: {out:?}");
    }
    let out = run("This Distribution Agreement is made and entered into as of March 1, 2020 by and between Acme and Beta.", &[]);
    assert!(out.iter().any(|(_, t, _)| t == "AGREEMENT_DATE"), "{out:?}");
}

/// The notice that stops a renewal of this agreement: not an insurance
/// policy's, not a notice of breach, not one that exercises an option or
/// asks to renew.
#[test]
fn a_notice_period_is_the_one_that_stops_the_renewal() {
    for text in [
        "Each policy will include a provision requiring notice to the other party at least thirty (30) days prior to any cancellation, non-renewal, or material modification of the policy.",
        "(a) Either party hereto shall have the right to terminate this Agreement after thirty (30) days written notice to the other in the event the other is in breach of this Agreement unless the breaching party cures the breach before the expiration of such period.",
        "3. You have given us written notice of your desire to renew at least six (6) months but not more than twelve (12) months prior to the end of the term;",
        "Provided, however, that if ACSI so elects by written notice delivered to Company at least ten (10) days prior to the end of Year 2, Company shall instead issue shares to ACSI.",
    ] {
        let out = run(text, &[]);
        assert!(
            !out.iter().any(|(_, t, _)| t == "NOTICE_PERIOD_TO_TERMINATE_RENEWAL"),
            "{text}: {out:?}"
        );
    }
    let out = run("This Agreement shall automatically renew for successive one-year terms unless either party gives the other written notice of non-renewal at least sixty (60) days prior to the end of the then-current term.", &[]);
    assert!(
        has(
            &out,
            "NOTICE_PERIOD_TO_TERMINATE_RENEWAL",
            "Agreement",
            "sixty (60) days"
        ) || out
            .iter()
            .any(|(_, t, d)| t == "NOTICE_PERIOD_TO_TERMINATE_RENEWAL" && d.contains("sixty")),
        "{out:?}"
    );
}

/// A recital says what the parties intend, not what binds them: no
/// clause kind comes from one.
#[test]
fn a_recital_states_no_clause_kind() {
    let text = "WHEREAS, Licensor shall convey an exclusive license to the Licensee solely for Licensee's use in the field of foreign exchange, and Licensee shall not compete with Licensor in the Territory.";
    let out = run(text, &["Licensor", "Licensee"]);
    assert!(
        !out.iter()
            .any(|(_, t, _)| t == "EXCLUSIVITY" || t == "NON_COMPETE" || t == "LICENSE_GRANT"),
        "{out:?}"
    );
}

/// A start date is the one the agreement's own words name: not the end a
/// later verb names, not another document's (`an assignment dated`).
#[test]
fn a_start_date_is_never_an_end_or_another_documents() {
    for text in [
        "The term of this Agreement shall commence as of the Effective Date and, unless earlier terminated in accordance with this Agreement, shall terminate on June 30, 2010.",
        "Licensor succeeded to the rights of Fox through an assignment dated as of October 1, 2005 by and between Fox Licensing and Fox Mobile.",
        "Where the Conditions Precedent have not been met by January 31, 2001, for any reason whatsoever, then this Agreement shall be deemed terminated as of that date.",
    ] {
        let out = run(text, &[]);
        assert!(
            !out.iter()
                .any(|(_, t, _)| t == "AGREEMENT_DATE" || t == "EFFECTIVE_DATE"),
            "{text}: {out:?}"
        );
    }
    let out = run(
        "This Supplement shall become effective upon execution of the SOW and expire February 26, 1999 unless terminated.",
        &[],
    );
    assert!(!has_type(&out, "EFFECTIVE_DATE"), "{out:?}");
    let out = run(
        "This INTELLECTUAL PROPERTY AGREEMENT is entered into as of June 26, 2015 (the \"Effective Date\"), between RemainCo and SpinCo.",
        &[],
    );
    assert!(
        has(&out, "EFFECTIVE_DATE", "Agreement", "June 26, 2015"),
        "{out:?}"
    );
    assert!(
        has(&out, "AGREEMENT_DATE", "Agreement", "June 26, 2015"),
        "{out:?}"
    );
}

/// A term the parties may extend if both agree later renews nothing; an
/// automatic renewal from year to year renews for a year.
#[test]
fn a_renewal_by_mutual_agreement_is_no_renewal_term() {
    for text in [
        "After the Initial Term, the term of the Agreement may be extended by a further period of five (5) years by mutual written agreement by the parties in the form of an amendment to this Agreement.",
        "This Agreement may be renewed for an additional one year term (\"Renewal Term\") upon mutual written agreement of the Parties.",
        "The review period may be extended for an additional sixty (60) days if a representative of the non-publishing Party can demonstrate a reasonable need for such extension.",
    ] {
        let out = run(text, &[]);
        assert!(!has_type(&out, "RENEWAL_TERM"), "{text}: {out:?}");
    }
    let text = "This Agreement will automatically renew at the end of the Initial Term on a year to year basis (each, a \"Renewal Term\"), unless either Party notifies the other at least 30 days prior to the end of the Initial Term or then current Renewal Term of its intention not to renew this Agreement (a \"Termination Notice\").";
    let out = run(text, &[]);
    assert!(
        has(&out, "RENEWAL_TERM", "Agreement", "one year"),
        "{out:?}"
    );
    // The notice's period is the one the notifying words give, though the
    // sentence ends on another `Notice`.
    assert!(
        out.iter()
            .any(|(_, t, d)| t == "NOTICE_PERIOD_TO_TERMINATE_RENEWAL" && d == "30 days"),
        "{out:?}"
    );
}

/// Federal law applies everywhere: beside a state, the state's law
/// governs the contract.
#[test]
fn a_state_beside_federal_law_is_the_governing_law() {
    for (text, state) in [
        ("This Agreement shall be governed in all respects by the laws of the United States and the State of Florida, except for conflict of laws provisions.", "Florida"),
        ("This Agreement and its interpretation shall be governed by the laws of the United States and, to the extent not inconsistent therewith, by the laws of the Commonwealth of Kentucky without regard to conflicts of laws rules.", "Kentucky"),
    ] {
        let out = run(text, &[]);
        assert!(has(&out, "GOVERNING_LAW", "Agreement", state), "{text}: {out:?}");
        assert!(!has(&out, "GOVERNING_LAW", "Agreement", "United States"), "{out:?}");
    }
}

/// A renewal's period follows its words: not the initial term's before
/// them; `annual` is a year and `an unlimited period` perpetual.
#[test]
fn a_renewal_term_is_its_own_period_not_the_initial_terms() {
    let out = run(
        "Unless earlier terminated as provided herein, this Agreement continues in effect for an initial term of seven (7) years (\"Initial Term\") and will automatically renew for one or more annual periods after the Initial Term unless either party gives notice of non-renewal at least ninety (90) days before the end of the then-current term.",
        &[],
    );
    assert!(
        has(&out, "RENEWAL_TERM", "Agreement", "one year"),
        "{out:?}"
    );
    assert!(!has(&out, "RENEWAL_TERM", "Agreement", "seven"), "{out:?}");
    let out = run(
        "This Agreement shall remain in full force for ten (10) years after the First Commercial Sale, and shall thereafter automatically renew for an unlimited period of time unless otherwise terminated.",
        &[],
    );
    assert!(
        has(&out, "RENEWAL_TERM", "Agreement", "perpetual"),
        "{out:?}"
    );
}

/// A notice that asks for a renewal, or one about an insurance policy,
/// is no notice that stops the agreement's renewal.
#[test]
fn a_notice_to_ask_for_renewal_is_no_notice_to_stop_it() {
    for text in [
        "If either party wishes to extend the Initial Term it shall provide notice to the other not later than 180 days, nor sooner than 270 days, before the end of the Initial Term.",
        "You agree to give us written notice of your choice to renew at least six (6) months before the end of the term of this Agreement.",
        "Should you choose to renew the Franchise, you must provide us with written notice of that intent no earlier than two (2) years and no later than one (1) year before the expiration of the Initial Term.",
        "Each Party shall provide the other Party with prompt written notice of any cancellation, non-renewal or material change in such insurance, and at least thirty (30) days prior to the end of coverage.",
        "Metavante shall provide a written renewal notice to Customer at least twelve (12) months prior to the expiration of the Initial Term (the \"Renewal Notice\").",
    ] {
        let out = run(text, &[]);
        assert!(
            !has_type(&out, "NOTICE_PERIOD_TO_TERMINATE_RENEWAL"),
            "{text}: {out:?}"
        );
    }
}

/// What follows the initial term (`Thereafter, ...`) and a duty that lasts
/// after the agreement ends state no expiry.
#[test]
fn what_follows_the_initial_term_is_no_expiry() {
    for text in [
        "Thereafter, this Agreement shall automatically continue in effect until either party gives the other at least six (6) months prior written notice of termination.",
        "After the Initial Term, this Agreement shall continue on a month to month basis until terminated by either party upon thirty (30) days prior written notice.",
        "This right to audit shall extend throughout the term of this Agreement and for one year after expiration or termination of this Agreement.",
        "(b) the number of unexpired whole months remaining between the Effective Date of Termination and the expiration of the Initial Term.",
    ] {
        let out = run(text, &[]);
        assert!(!has_type(&out, "EXPIRATION_DATE"), "{text}: {out:?}");
    }
}

/// Another document's date is no date of this agreement, however it is
/// worded; the law of a republic or of England and Wales is read whole.
#[test]
fn another_documents_dates_and_whole_jurisdictions() {
    for text in [
        "Works available under this Agreement, including, without limitation that certain agreement effective as of June 25, 2013 among NFL Enterprises LLC and PFHOF.",
        "D. ICC and the Phoenix Parties have previously entered into a Selling Agreement, effective as of December 1, 2002, pursuant to which ICC sells the products.",
    ] {
        let out = run(text, &[]);
        assert!(
            !has_type(&out, "EFFECTIVE_DATE") && !has_type(&out, "AGREEMENT_DATE"),
            "{text}: {out:?}"
        );
    }
    let out = run("Law application It will be governed by the law of the People's Republic of China, otherwise by the United Nations Convention.", &[]);
    assert!(has(&out, "GOVERNING_LAW", "Agreement", "China"), "{out:?}");
    assert!(
        !has(&out, "GOVERNING_LAW", "Agreement", "People"),
        "{out:?}"
    );
    let out = run(
        "This Agreement is governed by the laws of England and Wales.",
        &[],
    );
    assert!(
        has(&out, "GOVERNING_LAW", "Agreement", "England and Wales"),
        "{out:?}"
    );
}

/// Each typed fact says who read it and how sure the model is: a clause
/// the rules and the model agree on, one the model alone reads, a value,
/// and a held rule each carry their basis and the model's score.
#[test]
fn each_fact_says_who_read_it_and_the_models_score() {
    let read = |title: &str, text: &str| {
        let mut b = Builder::default();
        facts_with(
            &mut b,
            title,
            &[text.to_string()],
            Some(crate::clause_model::shipped()),
        );
        b.finish()
    };
    let basis_of = |out: &super::super::common::builder::RulesOutput, ty: &str| {
        out.relations
            .iter()
            .find(|r| r.relation_type == ty)
            .and_then(|r| r.reading)
            .map(|r| (r.basis, r.score().unwrap_or(-1.0)))
    };
    let out = read("Insurance", "Licensee shall, at its own expense, maintain comprehensive general liability insurance in an amount of not less than $1,000,000 per occurrence, naming Licensor as an additional insured.");
    let (basis, score) = basis_of(&out, "INSURANCE").expect("asserted with a reading");
    assert_eq!(basis, Basis::RuleAndModel);
    assert!(score >= clause_model::AGREES, "{score}");
    let out = read("Limitation of Liability", "14.1 NEITHER PARTY SHALL HAVE ANY LIABILITY FOR ANY INDIRECT, SPECIAL, PUNITIVE OR CONSEQUENTIAL DAMAGES INCLUDING, WITHOUT THE LIMITATION, LOSS OF PROFIT OR BUSINESS OPPORTUNITIES, WHETHER OR NOT THE PARTY WAS ADVISED OF THE POSSIBILTY OF SUCH.");
    let (basis, score) = basis_of(&out, "CAP_ON_LIABILITY").expect("the model's fact");
    assert_eq!(basis, Basis::Model);
    assert!(score >= clause_model::ALONE, "{score}");
    let out = read("Governing Law", "This Agreement shall be governed by and construed in accordance with the laws of the State of New York, without regard to its conflict of laws principles.");
    let (basis, score) = basis_of(&out, "GOVERNING_LAW").expect("a value fact");
    assert!(matches!(basis, Basis::Rule | Basis::RuleAndModel));
    assert!((0.0..=1.0).contains(&score), "{score}");
    // Relations that are no typed fact carry no reading.
    assert!(out
        .relations
        .iter()
        .filter(|r| r.relation_type == GOVERNED_BY)
        .all(|r| r.reading.is_none()));
    let out = read("Representations and Warranties", "Wolf & Company, P.C., which has certified certain financial statements and supporting schedules of the Company included in the Registration Statement, the Preliminary Prospectus, the Prospectus and the Free Writing Prospectuses containing an audit report, are independent public accountants as required by the Act and the rules and regulations of the Commission thereunder.");
    let held = out
        .candidates
        .iter()
        .find(|c| c.relation.relation_type == "AUDIT_RIGHTS")
        .expect("held");
    let r = held.relation.reading.expect("a held fact's reading");
    assert_eq!(r.basis, Basis::Rule);
    assert!(r.score().unwrap() < clause_model::AGREES);
}

/// What a reviewer found typed on a word, not a clause: cash in escrow,
/// no third-party beneficiaries, insurance one need not keep, copies of
/// records, a size test in revenues, a lease's rent, a policy compared
/// with itself, a heading; and a conditional's `If` read into a party.
#[test]
fn a_category_needs_its_clause_not_its_word() {
    for (text, ty) in [
        ("Upon the execution of this Agreement, Buyer shall immediately deposit an aggregate amount equal to $900,000 in cash into the Escrow Account with the Escrow Agent.", "SOURCE_CODE_ESCROW"),
        ("The Loan Parties shall not have rights as a third party beneficiary of any of such provisions.", "THIRD_PARTY_BENEFICIARY"),
        ("There are no third party beneficiaries of this Agreement.", "THIRD_PARTY_BENEFICIARY"),
        ("Landlord may, but is not obligated to, maintain such other insurance as Landlord deems appropriate.", "INSURANCE"),
        ("Buyer acknowledges that Sellers have the right to retain originals or copies of all of books and records relating to the Assets.", "AUDIT_RIGHTS"),
        ("(c) the aggregate revenues and the total Assets of non-wholly owned Subsidiaries of the Borrower do not exceed 10% of the revenues of the Borrower and its Subsidiaries.", "REVENUE_PROFIT_SHARING"),
        ("(a) The Minimum Annual Rent and Monthly Rental Installments payable during the first Renewal Term shall be no less than the amounts payable for the last year.", "MINIMUM_COMMITMENT"),
        ("The Company shall obtain D&O Insurance with terms, conditions, retentions and limits of liability that are no less favorable than the coverage provided under the Company's existing policies.", "MOST_FAVORED_NATION"),
        ("10.4 Inspection of Property, Books and Records, Discussions and Audits of Collateral.", "AUDIT_RIGHTS"),
    ] {
        let out = run(text, &["Buyer", "Landlord", "Company", "Borrower"]);
        assert!(!has_type(&out, ty), "{text}: {out:?}");
    }
    for (text, ty) in [
        ("Licensor shall deposit the Source Code of the Licensed Software with the escrow agent within thirty days.", "SOURCE_CODE_ESCROW"),
        ("The Indemnified Parties are intended third party beneficiaries of Section 8.", "THIRD_PARTY_BENEFICIARY"),
        ("Licensee shall pay Licensor a royalty of five percent (5%) of Net Sales.", "REVENUE_PROFIT_SHARING"),
        ("Supplier shall offer Buyer prices no less favorable than those offered to any other customer for like quantities.", "MOST_FAVORED_NATION"),
    ] {
        let out = run(text, &["Licensor", "Licensee", "Supplier", "Buyer"]);
        assert!(has_type(&out, ty), "{text}: {out:?}");
    }
    let out = run(
        "If Tenant timely contests such statement, Tenant shall have the right to audit Landlord's books and records for the year in question.",
        &["Tenant", "Landlord"],
    );
    assert!(out.iter().all(|(s, _, _)| !s.starts_with("If ")), "{out:?}");
}

/// A heading run into the text names a topic; a clause in capitals is
/// still a clause.
#[test]
fn a_heading_is_no_clause_but_capitals_are() {
    assert!(is_heading(
        "10.4 Inspection of Property, Books and Records, Discussions."
    ));
    assert!(is_heading("6.4. Termination for a Change of Control."));
    assert!(!is_heading("c. IN NO EVENT SHALL Erchonia BE LIABLE FOR ANY LOSS OF PROFIT OR ANY OTHER COMMERCIAL DAMAGE."));
    assert!(!is_heading(
        "Licensee shall maintain insurance with Licensor named as an additional insured."
    ));
}

/// A most-favoured term in the words contracts use for it.
#[test]
fn most_favoured_terms_in_their_wordings() {
    for text in [
        "NTC agrees that the Product Prices, benefits and allowances offered to ALFA AESAR shall not be less favorable than those offered on Products provided to agents, distributors or marketed directly by NTC to any customers.",
        "The parties agree that Client will not be charged a higher fee than what is being made available by EFS to its other Clients for similar services.",
        "iVillage shall provide Hertz with an opportunity to enter into such a relationship with iVillage, on not less favorable terms than those offered to any other automobile rental company.",
    ] {
        let out = run(text, &[]);
        assert!(has_type(&out, "MOST_FAVORED_NATION"), "{text}: {out:?}");
    }
}

/// A kind fires on its words, not on a longer word that holds them:
/// `competent` is no competition, `employees` no hiring, `non-exclusive`
/// no exclusivity, `in order to` no purchase order; and not on the
/// clause saying the opposite or another kind.
#[test]
fn a_kind_fires_on_its_words_not_on_words_that_hold_them() {
    for (text, ty) in [
        ("Notwithstanding the foregoing, the receiving party may disclose confidential information to the extent required by a court of competent jurisdiction.", "COMPETITIVE_RESTRICTION_EXCEPTION"),
        ("Except as otherwise provided in this Agreement, all payments due under this Agreement are exclusive of value added taxes.", "COMPETITIVE_RESTRICTION_EXCEPTION"),
        ("Under no circumstances shall the employees of one party be deemed to be employees of the other for any purpose.", "NO_SOLICIT_OF_EMPLOYEES"),
        ("Neither Party shall have any responsibility for the hiring, termination or compensation of the other Party's employees.", "NO_SOLICIT_OF_EMPLOYEES"),
        ("The Distributor shall deposit funds in order to maintain a total Deposit of at least $50,000.", "MINIMUM_COMMITMENT"),
        ("There is no minimum amount of Product that Buyer must purchase in any year.", "MINIMUM_COMMITMENT"),
        ("Nothing in this Agreement shall create a joint venture, co-ownership or partnership between the parties.", "JOINT_IP_OWNERSHIP"),
        ("Each Party will own all of its inventions and other Intellectual Property Rights made under this Agreement.", "IP_OWNERSHIP_ASSIGNMENT"),
        ("Upon termination of this Agreement for any reason, Distributor shall return all unsold Products.", "TERMINATION_FOR_CONVENIENCE"),
        ("For twelve months after the termination of this Agreement, Consultant shall not solicit any employee of the Company.", "POST_TERMINATION_SERVICES"),
    ] {
        let out = run(text, &["Distributor", "Buyer", "Consultant", "Company"]);
        assert!(!has_type(&out, ty), "{text}: {out:?}");
    }
    for (text, ty) in [
        ("Nothing in this Agreement shall prevent Licensee from selling products that compete with the Products outside the Territory.", "COMPETITIVE_RESTRICTION_EXCEPTION"),
        ("During the Term, neither party shall solicit or hire any employee of the other party.", "NO_SOLICIT_OF_EMPLOYEES"),
        ("Buyer shall purchase at least 10,000 units of Product in each Contract Year.", "MINIMUM_COMMITMENT"),
        ("All inventions made jointly by the parties shall be jointly owned by the parties.", "JOINT_IP_OWNERSHIP"),
        ("Either party may terminate this Agreement for any reason upon ninety days written notice.", "TERMINATION_FOR_CONVENIENCE"),
    ] {
        let out = run(text, &["Licensee", "Buyer", "Distributor"]);
        assert!(has_type(&out, ty), "{text}: {out:?}");
    }
}

/// The clause model alone marks a kind only from a sentence holding the
/// kind's own words: an exclusion of consequential damages is no carve-out
/// from a cap, a termination for breach none for convenience.
#[test]
fn the_model_alone_needs_the_kinds_own_words() {
    assert!(!model_alone_may(
        "Uncapped Liability",
        "IN NO EVENT SHALL EITHER PARTY BE LIABLE FOR ANY INDIRECT, INCIDENTAL OR CONSEQUENTIAL DAMAGES."
    ));
    assert!(model_alone_may(
        "Uncapped Liability",
        "The foregoing limitation shall not apply to a party's gross negligence or willful misconduct."
    ));
    assert!(!model_alone_may(
        "Termination For Convenience",
        "Either party may terminate this Agreement in the event of a material breach by the other party."
    ));
    assert!(!model_alone_may(
        "Exclusivity",
        "Licensor grants Licensee a limited, non-exclusive license to use the Marks."
    ));
    assert!(!model_alone_may(
        "Change Of Control",
        "Neither party may assign this Agreement without the prior written consent of the other party."
    ));
    // A kind with no such words is the model's to mark.
    assert!(model_alone_may(
        "Insurance",
        "Supplier shall carry coverage."
    ));
}

/// A term is read before the renewal its sentence goes on to, and in the
/// words contracts use for it.
#[test]
fn a_term_is_read_before_its_renewal_and_in_its_own_words() {
    for (text, period) in [
        ("This Agreement shall be for the term of one year; thereafter, the Agreement shall renew automatically for successive one-year terms.", "one year"),
        ("This Agreement shall remain effective for two (2) years from and after the Effective Date.", "two (2) years"),
        ("This Agreement is for a term (the \"Term\") of 12 months from the Effective Date.", "12 months"),
        ("This Agreement shall be valid for a period of five (5) years with automatic renewal.", "five (5) years"),
    ] {
        let out = run(text, &[]);
        assert!(
            out.iter().any(|(_, t, d)| t == "EXPIRATION_DATE" && d.contains(period)),
            "{text}: {out:?}"
        );
    }
    // A sentence that opens with its renewal gives no term.
    let out = run(
        "The term of this Agreement shall automatically renew for successive one (1) year periods unless either party objects.",
        &[],
    );
    assert!(!has_type(&out, "EXPIRATION_DATE"), "{out:?}");
}

/// The agreement's own date in the short and plain forms it takes: a
/// short definition, a cover field, dashes, a title naming itself.
#[test]
fn the_agreements_dates_in_their_short_forms() {
    for (text, ty, date) in [
        ("\"Effective Date\" means October 31, 2019.", "EFFECTIVE_DATE", "October 31, 2019"),
        ("Effective Date: April 17, 2017", "EFFECTIVE_DATE", "April 17, 2017"),
        ("Expiration Date: August 31, 2006", "EXPIRATION_DATE", "August 31, 2006"),
        ("This Agreement is entered into as of 12-23-2019 by and between the parties.", "AGREEMENT_DATE", "12-23-2019"),
        ("SERVICES AGREEMENT, dated as of April 1, 2019 (the \"Agreement\"), is made by Acme and Beta.", "AGREEMENT_DATE", "April 1, 2019"),
        ("SECOND AMENDMENT TO REVOLVING CREDIT AGREEMENT This SECOND AMENDMENT TO REVOLVING CREDIT AGREEMENT (this \u{201c} Amendment \u{201d}), dated as of December 27, 2022, is entered into by and among Stone Point and Capital One, as Administrative Agent, to that certain Revolving Credit Agreement dated as of December 29, 2020.", "AGREEMENT_DATE", "December 27, 2022"),
        ("STRATEGIC ALLIANCE AGREEMENT Effective Date: April 17, 2017 THIS STRATEGIC ALLIANCE AGREEMENT is entered into by the parties.", "EFFECTIVE_DATE", "April 17, 2017"),
        ("TERMINATION DATE: September 30, 1997", "EXPIRATION_DATE", "September 30, 1997"),
        ("(a) This OMA shall expire upon the earlier of (i) the first anniversary of the Effective Date and (ii) the date all Shares are sold.", "EXPIRATION_DATE", "OMA"),
        ("The \"Term\" shall begin on the date hereof and shall expire December 31, 2023.", "EXPIRATION_DATE", "December 31, 2023"),
        ("The Term shall commence on the date of this Agreement and, unless earlier terminated, shall end as of December 31, 2000.", "EXPIRATION_DATE", "December 31, 2000"),
        ("This License Agreement shall have a term of five (5) years commencing as of the effective date hereof.", "EXPIRATION_DATE", "five (5) years"),
        ("This Agreement shall continue indefinitely unless sooner terminated as provided herein.", "EXPIRATION_DATE", "This Agreement"),
        ("TERM OF EXECUTION From January 30, 2012 until July 29, 2012", "EXPIRATION_DATE", "2012"),
        ("INITIAL DISTRIBUTION PERIOD: April 15, 2000 through October 15, 2000 (6 Months from the date first written above)", "EXPIRATION_DATE", "2000"),
        ("This Agreement shall be effective as of the Effective Date and shall continue in effect through December 31, 2021 and any Renewal Term.", "EXPIRATION_DATE", "December 31, 2021"),
        ("This Agreement shall terminate five (5) years following the date of launch of the Site, but in no event later than February 28, 2013.", "EXPIRATION_DATE", "February 28, 2013"),
        ("This Reseller Agreement is entered into as of the 1st day of June, 2004 by and between Acme Ltd., Bl. D, and Beta Inc.", "AGREEMENT_DATE", "June, 2004"),
    ] {
        let out = run(text, &[]);
        assert!(
            out.iter().any(|(_, t, d)| t == ty && d.contains(date)),
            "{text}: {out:?}"
        );
    }
    // A short sentence gives no clause kind.
    let out = run("Licensee shall not compete.", &["Licensee"]);
    assert!(!has_type(&out, "NON_COMPETE"), "{out:?}");
    // Another agreement's date is not this one's.
    let out = run("Reference is made to the Supply Agreement, dated as of April 1, 2019 between Acme and Beta.", &[]);
    assert!(!has_type(&out, "AGREEMENT_DATE"), "{out:?}");
    // Two dates inside a sentence are a window, not the term; a term that
    // starts at a date it names is no end.
    for text in [
        "Royalties for the period from January 1, 1999 through March 31, 1999 shall be paid within thirty days.",
        "This Agreement shall be effective as of March 1, 2020 and shall renew each year.",
        "This Development Agreement is entered into on April 15, 2010 by and between Cargill, Incorporated through its Bio Technology Development Center and Bioamber.",
    ] {
        let out = run(text, &[]);
        assert!(!has_type(&out, "EXPIRATION_DATE"), "{text}: {out:?}");
    }
}

/// Clause kinds in more of the words contracts use for them.
#[test]
fn clause_kinds_in_more_of_their_words() {
    for (text, ty) in [
        ("EXCEPT FOR BREACHES OF SECTION 11, IN NO EVENT SHALL EITHER PARTY BE LIABLE FOR ANY CONSEQUENTIAL DAMAGES.", "UNCAPPED_LIABILITY"),
        ("Neither party shall be liable to the other for any indirect, incidental or consequential damages.", "CAP_ON_LIABILITY"),
        ("Distributor shall purchase a minimum of 5,000 units in each calendar quarter.", "MINIMUM_COMMITMENT"),
        ("Licensee may sublicense its rights under this Agreement to its Affiliates without consent.", "AFFILIATE_LICENSE_LICENSEE"),
        ("Either party may terminate this Agreement upon thirty (30) days prior written notice to the other party.", "TERMINATION_FOR_CONVENIENCE"),
        ("Any change in the ownership or control of Distributor shall require the consent of Supplier.", "CHANGE_OF_CONTROL"),
    ] {
        let out = run(text, &["Distributor", "Licensee", "Supplier"]);
        assert!(has_type(&out, ty), "{text}: {out:?}");
    }
    // A service level is no purchase commitment.
    let out = run(
        "Provider shall maintain availability of a minimum of 99.5% in each month.",
        &["Provider"],
    );
    assert!(!has_type(&out, "MINIMUM_COMMITMENT"), "{out:?}");
}

/// An exhibit's form states the form's date and law, not the contract's;
/// a law imagined `as if` is chosen by no one; a clause's opening words in
/// capitals name no party.
#[test]
fn no_fact_from_an_exhibits_form_an_imagined_law_or_a_clauses_opening() {
    let form = "THIS SUBORDINATION AGREEMENT is entered into as of February 3, 2020 by and between Lender and Tenant. This Agreement shall be governed by the laws of the State of Illinois.";
    let mut b = Builder::default();
    facts_with(&mut b, "EXHIBIT J FORM OF SNDA", &[form.to_string()], None);
    assert!(b.finish().relations.is_empty());
    let mut b = Builder::default();
    facts_with(
        &mut b,
        "FORM OF SUPPLY AGREEMENT",
        &[form.to_string()],
        None,
    );
    assert!(
        !b.finish().relations.is_empty(),
        "a contract filed as a form is the contract"
    );
    let mut b = Builder::default();
    facts_with(
        &mut b,
        "EXHIBIT 10.1 FORM OF SUPPLY AGREEMENT",
        &[form.to_string()],
        None,
    );
    assert!(
        !b.finish().relations.is_empty(),
        "a filing's exhibit number is no attached form"
    );
    let out = run("The rights of the parties shall be effective to the same extent as if this Agreement were governed by the laws of the United States.", &[]);
    assert!(!has_type(&out, "GOVERNING_LAW"), "{out:?}");
    let out = run("EXCEPT FOR A PARTY'S OBLIGATIONS UNDER ARTICLE 13, IN NO EVENT SHALL EITHER PARTY'S LIABILITY EXCEED THE FEES PAID.", &[]);
    assert!(
        out.iter()
            .all(|(s, _, _)| !s.to_ascii_uppercase().starts_with("EXCEPT")),
        "{out:?}"
    );
}

/// `including, but not limited to` limits nothing, and a termination for
/// convenience ends the agreement, not one lender's commitment.
#[test]
fn no_cap_from_not_limited_to_and_no_convenience_in_a_commitment() {
    let out = run("The Loan Parties agree to indemnify and hold the Collateral Agent harmless against any and all costs, claims, damages, liabilities, losses and expenses (including, but not limited to, court costs and attorneys fees) incurred by it.", &[]);
    assert!(!has_type(&out, "CAP_ON_LIABILITY"), "{out:?}");
    let out = run(
        "In no event shall Supplier's liability be limited to less than the fees paid.",
        &["Supplier"],
    );
    assert!(has_type(&out, "CAP_ON_LIABILITY"), "{out:?}");
    let out = run("The Borrowers may terminate, in whole but not in part, the Commitment of such Lender at any time upon five (5) Business Days' prior written notice to the Terminated Lender.", &[]);
    assert!(!has_type(&out, "TERMINATION_FOR_CONVENIENCE"), "{out:?}");
}

/// A federal court sits in the state its district names; a beneficiary
/// is a third party's only when the clause says so; excluded liquidated
/// damages are none.
#[test]
fn a_federal_forum_a_third_partys_benefit_and_excluded_damages() {
    let out = run("The Borrower hereby submits to the nonexclusive jurisdiction of the United States District Court for the Southern District of New York and of any New York State court sitting in New York City.", &["Borrower"]);
    assert!(
        out.iter()
            .any(|(_, t, d)| t == "SUBMITS_TO_JURISDICTION" && d == "New York"),
        "{out:?}"
    );
    let out = run("Any holder or beneficiary of such Indebtedness shall be entitled to accelerate its maturity upon such default.", &[]);
    assert!(!has_type(&out, "THIRD_PARTY_BENEFICIARY"), "{out:?}");
    let out = run("The Indemnified Parties are intended third party beneficiaries of Section 8 and may enforce it.", &[]);
    assert!(has_type(&out, "THIRD_PARTY_BENEFICIARY"), "{out:?}");
    let out = run("Neither the Distributor nor the Company shall have a liability for consequential or liquidated damages pertaining to late delivery.", &["Distributor"]);
    assert!(!has_type(&out, "LIQUIDATED_DAMAGES"), "{out:?}");
    let out = run("Upon termination of this Agreement Distributor shall have no further right to use the Names.", &["Distributor"]);
    assert!(
        out.iter().all(|(s, _, _)| !s.starts_with("Agreement")),
        "{out:?}"
    );
    let out = run("Supplier shall have no liability for any penalties or liquidated damages imposed on Customer by its own customers.", &["Supplier"]);
    assert!(!has_type(&out, "LIQUIDATED_DAMAGES"), "{out:?}");
}

/// A licence grant is a sentence that grants one, not one that speaks of
/// a licence granted elsewhere or denies one; an audit right is a right to
/// audit a party, not a financial statement's audit.
#[test]
fn a_grant_and_an_audit_need_their_operative_words() {
    for (text, ty, expected) in [
        ("Licensor hereby grants to Licensee a non-exclusive license to use the Software in the Territory.", "LICENSE_GRANT", true),
        ("Company is hereby granted and shall have a non-exclusive, royalty-free, perpetual license to make and use each Item.", "LICENSE_GRANT", true),
        ("Upon the expiration or termination of the Term, the license granted under Section 2 of this Agreement will terminate.", "LICENSE_GRANT", false),
        ("Except as specifically authorized by this Agreement, no license is granted under this Agreement to Corio to distribute the Software.", "LICENSE_GRANT", false),
        ("Licensee has no right to sublicense any rights granted hereunder without the prior written consent of Licensor.", "LICENSE_GRANT", false),
        ("Licensee shall permit Licensor to audit its books and records relating to the Products once per calendar year.", "AUDIT_RIGHTS", true),
        ("The deposit shall be waived if the audit opinion in the Company's annual report on Form 10-K contains no going concern qualification.", "AUDIT_RIGHTS", false),
    ] {
        let out = run(text, &["Licensor", "Licensee", "Company"]);
        assert_eq!(has_type(&out, ty), expected, "{text}: {out:?}");
    }
}

/// Words of a clause kind in a sentence of another kind: a financial
/// statement's audit, a tax audit, an immunity from courts, a counterfactual
/// law, a section cited by its caption, other contracts' clauses listed in
/// a representation.
#[test]
fn a_kinds_words_in_another_kind_of_sentence_make_no_fact() {
    for (text, ty) in [
        ("Such statements present fairly the financial condition of the Borrower, subject only to normal year-end audit adjustments.", "AUDIT_RIGHTS"),
        ("The parties shall cooperate in connection with the filing of Tax Returns and any audit, litigation or other proceeding with respect to Taxes.", "AUDIT_RIGHTS"),
        ("Such ownership interest does not result in or provide such Lender with immunity from the jurisdiction of courts within the United States.", "SUBMITS_TO_JURISDICTION"),
        ("Default Rights could be exercised under the U.S. Special Resolution Regime if the Supported QFC and the Loan Documents were governed by the laws of the United States or a state of the United States.", "GOVERNING_LAW"),
        ("obligation and rights in property) were governed by the laws of the United States or a state of the United States.", "GOVERNING_LAW"),
        ("provisions below applicable notwithstanding that the Loan Documents and any Supported QFC may in fact be stated to be governed by the laws of the State of New York and/or of the United States or any other state of the United States):", "GOVERNING_LAW"),
        ("No express grant of license rights in certain Intellectual Property Rights shall be construed as implying the grant of any rights by the Licensor Party or another member of the Licensor Group in any other Intellectual Property Rights.", "AFFILIATE_LICENSE_LICENSOR"),
        ("This Agreement shall terminate and become void (other than Section 3.3 (Deposit), Section 6.9 (Break-Up Fee) and Article X, which shall survive).", "LIQUIDATED_DAMAGES"),
        ("(xiii) all Contracts that contain a covenant restricting the ability of the Company to solicit any customers or employees of any Person.", "NO_SOLICIT_OF_CUSTOMERS"),
        ("\u{201c} Eligible Institution \u{201d} means any depository institution, organized under the laws of the United States or any state, the deposits of which are insured to the fullest extent permitted by Applicable Law and which is subject to supervision by federal or state banking authorities.", "GOVERNING_LAW"),
    ] {
        let out = run(text, &["Borrower", "Lender", "Company"]);
        assert!(!has_type(&out, ty), "{text}: {out:?}");
    }
    // The forum clause itself stays.
    let out = run(
        "Each party irrevocably submits to the exclusive jurisdiction of the courts of the State of New York for any action arising out of this Agreement.",
        &[],
    );
    assert!(has_type(&out, "SUBMITS_TO_JURISDICTION"), "{out:?}");
}

/// A form left inside the section before it (`EXHIBIT A` then `FORM OF
/// PLEDGE AGREEMENT`) states the form's clauses, not the contract's; a
/// contract that is itself filed as a form keeps its own.
#[test]
fn a_form_inside_a_section_ends_its_facts() {
    let clause = "The Pledgor shall not assign or transfer any of its rights under this Agreement without the prior written consent of the Collateral Agent.";
    let mut b = Builder::default();
    let paragraphs = [
        "Any provision of this Agreement held invalid in any jurisdiction shall be ineffective only to the extent of such invalidity.".to_string(),
        "EXHIBIT A".to_string(),
        "FORM OF PLEDGE AGREEMENT".to_string(),
        clause.to_string(),
    ];
    facts_with(&mut b, "SECTION 7. Severability", &paragraphs, None);
    let out = b.finish();
    assert!(
        !out.relations
            .iter()
            .any(|r| r.relation_type == "ANTI_ASSIGNMENT"),
        "{:?}",
        out.relations
    );
    let mut b = Builder::default();
    let own = ["FORM OF PLEDGE AGREEMENT".to_string(), clause.to_string()];
    facts_with(&mut b, "Preamble", &own, None);
    assert!(b
        .finish()
        .relations
        .iter()
        .any(|r| r.relation_type == "ANTI_ASSIGNMENT"));
}

/// A cover page's field set out as two paragraphs is read as one.
#[test]
fn a_cover_field_over_two_paragraphs_dates_the_agreement() {
    let mut b = Builder::default();
    let paragraphs = [
        "MANUFACTURING SERVICES AGREEMENT".to_string(),
        "EFFECTIVE DATE".to_string(),
        "JUNE 1, 1998".to_string(),
    ];
    facts_with(&mut b, "Preamble", &paragraphs, None);
    let out = b.finish();
    assert!(
        out.relations
            .iter()
            .any(|r| r.relation_type == "EFFECTIVE_DATE" && r.target.contains("1998")),
        "{:?}",
        out.relations
    );
}

/// A forum named by the kind of court (`the State and Federal courts in
/// California`) is the place after it, not `State`.
#[test]
fn a_forum_is_the_place_not_the_kind_of_court() {
    let out = run(
        "Borrower and Bank each submit to the exclusive jurisdiction of the State and Federal courts in California for any action arising under this Agreement.",
        &["Borrower", "Bank"],
    );
    let forum: Vec<&str> = out
        .iter()
        .filter(|(_, t, _)| t == "SUBMITS_TO_JURISDICTION")
        .map(|(_, _, d)| d.as_str())
        .collect();
    assert_eq!(forum, ["California"], "{out:?}");
}

/// A term that begins at a date and ends at an anniversary is no end at
/// its start date.
#[test]
fn a_terms_start_date_is_not_its_end() {
    let out = run(
        "The term of this Agreement will begin on February 1, 1998 and end on the first anniversary of the date of this Agreement.",
        &[],
    );
    assert!(
        !out.iter()
            .any(|(_, t, d)| t == "EXPIRATION_DATE" && d == "February 1, 1998"),
        "{out:?}"
    );
}
