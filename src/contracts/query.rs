//! The register's query engine: filters and groupings over a batch's
//! [`RegisterRow`]s, shared by `kgroute contracts` and `ask --contracts`
//! so both answer the same question the same way. Everything is read from
//! the rows in memory; nothing here touches the graph.

use crate::extract::facts_vocabulary::CATEGORIES;
pub use crate::register::read::{
    facts_of, name_key, period_days, value_of, PartialDate, EXPIRATION_DATE, GOVERNING_LAW,
    NOTICE_PERIOD, RENEWAL_TERM,
};
use crate::register::read::{renews_automatically, words};
use crate::register::{RegisterFact, RegisterParty, RegisterRow};
use std::collections::BTreeMap;

/// What to keep; every filter given must hold (they are ANDed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Categories the contract must hold a fact of.
    pub has: Vec<&'static str>,
    /// Categories it must hold no fact of.
    pub lacks: Vec<&'static str>,
    /// One of the contract's parties goes by this name (any of its names,
    /// legal forms, case and punctuation aside).
    pub party: Option<String>,
    /// A party has this role (with `party`: that party).
    pub role: Option<String>,
    /// Its governing law names this place.
    pub law: Option<String>,
    /// With `law`: its governing law is known and names another place
    /// ("not governed by New York law"). A contract whose law was not
    /// found is not listed: its law is not known to be another.
    pub not_law: bool,
    /// With `party`: no party of it goes by that name ("not with Acme").
    pub not_party: bool,
    pub doc_type: Option<String>,
    /// It expires wholly before this date (a `perpetual` one never does).
    pub expires_before: Option<PartialDate>,
    /// It expires wholly after this date (a `perpetual` one does).
    pub expires_after: Option<PartialDate>,
    /// It renews automatically: its renewal cell says so (not an option to
    /// renew, nor a renewal by mutual agreement).
    pub renews: bool,
    /// Its renewal can be stopped with at most this many days' notice.
    pub notice_max: Option<u32>,
}

/// One fact shown beside a contract because a filter read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown<'a> {
    pub category: &'static str,
    pub fact: &'a RegisterFact,
}

/// A contract that passes, with the facts that made it pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    pub row: &'a RegisterRow,
    /// The party `--party`/`--role` matched.
    pub party: Option<&'a RegisterParty>,
    pub facts: Vec<Shown<'a>>,
}

/// The rows that pass `q`, in register order.
pub fn select<'a>(rows: &'a [RegisterRow], q: &Query) -> Vec<Hit<'a>> {
    rows.iter().filter_map(|r| matches(r, q)).collect()
}

/// `Some` with what it showed when `row` passes every filter of `q`.
pub fn matches<'a>(row: &'a RegisterRow, q: &Query) -> Option<Hit<'a>> {
    let mut facts: Vec<Shown<'a>> = Vec::new();
    for c in &q.has {
        facts.push(Shown {
            category: c,
            fact: facts_of(row, c).first()?,
        });
    }
    if q.lacks.iter().any(|c| !facts_of(row, c).is_empty()) {
        return None;
    }
    if let Some(t) = &q.doc_type {
        if !same_words(&row.doc_type, t) {
            return None;
        }
    }
    if q.not_party {
        let n = q.party.as_deref().unwrap_or_default();
        if row.parties.iter().any(|p| party_named(p, n)) {
            return None;
        }
    }
    let by_party = q.party.is_some() && !q.not_party;
    let party = if by_party || q.role.is_some() {
        Some(row.parties.iter().find(|p| {
            q.party
                .as_deref()
                .filter(|_| by_party)
                .is_none_or(|n| party_named(p, n))
                && q.role.as_deref().is_none_or(|r| {
                    p.roles
                        .iter()
                        .any(|have| contains_run(&words(have), &words(r)))
                })
        })?)
    } else {
        None
    };
    // Each filter reads the row's chosen cell (its first fact), as every
    // other view of the register does: a contract has one governing law
    // and one expiry, so it cannot be listed under two.
    if let Some(place) = &q.law {
        let f = facts_of(row, GOVERNING_LAW)
            .first()
            .filter(|f| law_names(f, place) != q.not_law)?;
        show(&mut facts, GOVERNING_LAW, f);
    }
    if q.expires_before.is_some() || q.expires_after.is_some() {
        let f = facts_of(row, EXPIRATION_DATE).first().filter(|f| {
            let Some(e) = Expiry::of(f) else {
                return false;
            };
            q.expires_before.as_ref().is_none_or(|d| e.before(d))
                && q.expires_after.as_ref().is_none_or(|d| e.after(d))
        })?;
        show(&mut facts, EXPIRATION_DATE, f);
    }
    if q.renews {
        // The chosen renewal cell, and only a renewal that needs no one to
        // act: an option to renew is no automatic renewal.
        let f = facts_of(row, RENEWAL_TERM)
            .first()
            .filter(|f| renews_automatically(f))?;
        show(&mut facts, RENEWAL_TERM, f);
    }
    if let Some(max) = q.notice_max {
        let f = facts_of(row, NOTICE_PERIOD)
            .iter()
            .find(|f| period_days(f).is_some_and(|d| d <= max))?;
        show(&mut facts, NOTICE_PERIOD, f);
    }
    Some(Hit { row, party, facts })
}

fn show<'a>(facts: &mut Vec<Shown<'a>>, category: &'static str, fact: &'a RegisterFact) {
    if !facts.iter().any(|s| std::ptr::eq(s.fact, fact)) {
        facts.push(Shown { category, fact });
    }
}

/// True when `part` is non-empty and occurs in `whole` as a run.
fn contains_run(whole: &[String], part: &[String]) -> bool {
    !part.is_empty() && whole.windows(part.len()).any(|w| w == part)
}

/// True when `a` and `b` have the same words (case and punctuation
/// aside), and some.
pub fn same_words(a: &str, b: &str) -> bool {
    let (a, b) = (words(a), words(b));
    !a.is_empty() && a == b
}

/// True when one of the party's names holds `name`'s words, legal forms
/// aside (`acme` names `Acme Widgets, Inc.`).
pub fn party_named(p: &RegisterParty, name: &str) -> bool {
    let want = name_key(name);
    std::iter::once(&p.name)
        .chain(&p.aliases)
        .any(|n| contains_run(&name_key(n), &want))
}

/// Words of a governing-law value that say the law, not the place.
const LAW_WORDS: &[&str] = &["the", "laws", "law", "of", "state", "commonwealth"];

fn place_words(s: &str) -> Vec<String> {
    words(s)
        .into_iter()
        .filter(|w| !LAW_WORDS.contains(&w.as_str()))
        .collect()
}

/// True when the fact's place (normal form, else its text) names `place`.
fn law_names(f: &RegisterFact, place: &str) -> bool {
    contains_run(&place_words(value_of(f)), &place_words(place))
}

/// When a contract ends, as its expiration fact says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expiry {
    Perpetual,
    On(PartialDate),
}

impl Expiry {
    fn of(f: &RegisterFact) -> Option<Self> {
        let v = value_of(f);
        if v.trim().eq_ignore_ascii_case("perpetual") {
            return Some(Expiry::Perpetual);
        }
        PartialDate::parse(v).map(Expiry::On)
    }

    /// Wholly before `d`: its last possible day precedes `d`'s first.
    fn before(self, d: &PartialDate) -> bool {
        matches!(self, Expiry::On(e) if e.last < d.first)
    }

    /// Wholly after `d`: its first possible day follows `d`'s last.
    fn after(self, d: &PartialDate) -> bool {
        match self {
            Expiry::Perpetual => true,
            Expiry::On(e) => e.first > d.last,
        }
    }
}

/// What `--count-by` groups on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CountBy {
    Law,
    Type,
    Party,
    Category,
}

/// Said where a contract has no value for the field.
pub const NONE_KEY: &str = "(none)";

/// Contracts per value of `by`, most first then by name. A contract counts
/// once under each of its parties (names compared as [`name_key`]) and
/// each category it holds.
pub fn count_by(hits: &[Hit], by: CountBy) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<Vec<String>, (String, usize)> = BTreeMap::new();
    let mut add = |label: &str| {
        let e = counts
            .entry(name_key(label))
            .or_insert_with(|| (label.to_string(), 0));
        e.1 += 1;
    };
    for h in hits {
        let mut keys: Vec<String> = match by {
            CountBy::Law => facts_of(h.row, GOVERNING_LAW)
                .first()
                .map(|f| value_of(f).to_string())
                .into_iter()
                .collect(),
            CountBy::Type => vec![h.row.doc_type.clone()],
            CountBy::Party => h.row.parties.iter().map(|p| p.name.clone()).collect(),
            CountBy::Category => CATEGORIES
                .iter()
                .filter(|c| !facts_of(h.row, c).is_empty())
                .map(|c| c.to_string())
                .collect(),
        };
        keys.retain(|k| !name_key(k).is_empty());
        if keys.is_empty() {
            keys.push(NONE_KEY.to_string());
        }
        let mut seen: Vec<Vec<String>> = Vec::new();
        for k in keys {
            let key = name_key(&k);
            if !seen.contains(&key) {
                seen.push(key);
                add(&k);
            }
        }
    }
    let mut out: Vec<(String, usize)> = counts.into_values().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::extract::facts_vocabulary::category_relation_type;

    pub(crate) fn fact(
        value: &str,
        normalized: Option<&str>,
        node: &str,
        lines: (usize, usize),
    ) -> RegisterFact {
        RegisterFact {
            value: value.into(),
            normalized: normalized.map(str::to_string),
            node_id: node.into(),
            start_line: lines.0,
            end_line: lines.1,
            quote: value.into(),
            ..Default::default()
        }
    }

    pub(crate) fn row(
        doc: &str,
        doc_type: &str,
        parties: &[(&str, &[&str], &[&str])],
        facts: &[(&str, RegisterFact)],
    ) -> RegisterRow {
        let mut r = RegisterRow {
            doc_id: doc.into(),
            path: format!("{doc}.txt"),
            doc_type: doc_type.into(),
            ..Default::default()
        };
        for (name, aliases, roles) in parties {
            r.parties.push(RegisterParty {
                name: name.to_string(),
                aliases: aliases.iter().map(|s| s.to_string()).collect(),
                roles: roles.iter().map(|s| s.to_string()).collect(),
            });
        }
        for (cat, f) in facts {
            r.facts
                .entry(category_relation_type(cat))
                .or_default()
                .push(f.clone());
        }
        r
    }

    /// Three contracts unlike in every field a filter reads.
    pub(crate) fn rows() -> Vec<RegisterRow> {
        vec![
            row(
                "a",
                "supply",
                &[
                    ("Acme Widgets, Inc.", &["Acme"], &["Supplier"]),
                    ("Beta LLC", &[], &["Buyer"]),
                ],
                &[
                    (
                        GOVERNING_LAW,
                        fact(
                            "the laws of the State of New York",
                            Some("New York"),
                            "12.1",
                            (40, 44),
                        ),
                    ),
                    (
                        "Non-Compete",
                        fact("shall not compete", None, "7", (20, 25)),
                    ),
                    (
                        EXPIRATION_DATE,
                        fact("May 31, 2015", Some("2015-05-31"), "2", (5, 6)),
                    ),
                    (
                        RENEWAL_TERM,
                        fact("successive one year terms", Some("1 year"), "2", (5, 8)),
                    ),
                    (
                        NOTICE_PERIOD,
                        fact("thirty (30) days", Some("30 days"), "2", (7, 8)),
                    ),
                ],
            ),
            row(
                "b",
                "license",
                &[
                    ("ACME WIDGETS CORP", &[], &["Licensor"]),
                    ("Gamma Ltd.", &["Licensee"], &["Licensee"]),
                ],
                &[
                    (
                        GOVERNING_LAW,
                        fact("Delaware", Some("Delaware"), "9", (30, 31)),
                    ),
                    (
                        "Cap On Liability",
                        fact("shall not exceed the fees paid", None, "8", (26, 29)),
                    ),
                    (EXPIRATION_DATE, fact("2016", Some("2016"), "3", (9, 9))),
                    (
                        NOTICE_PERIOD,
                        fact("ninety days", Some("90 days"), "3", (9, 10)),
                    ),
                ],
            ),
            row(
                "c",
                "license",
                &[("Delta S.A.", &[], &["Licensee"])],
                &[
                    (
                        GOVERNING_LAW,
                        fact("laws of Ontario", Some("Ontario, Canada"), "10", (50, 51)),
                    ),
                    (
                        EXPIRATION_DATE,
                        fact("perpetual", Some("perpetual"), "4", (12, 12)),
                    ),
                    (
                        RENEWAL_TERM,
                        fact(
                            "This licence renews automatically each year",
                            Some("1 year"),
                            "4",
                            (12, 13),
                        ),
                    ),
                ],
            ),
        ]
    }

    /// `--law` and the expiry filters read the chosen cell, as
    /// `--count-by law` does: a second governing-law fact (a usury clause
    /// naming another state's law) or a second date lists the contract
    /// under neither.
    #[test]
    fn filters_read_the_chosen_cell_not_any_fact() {
        let rows = vec![row(
            "two",
            "commercial",
            &[],
            &[
                (
                    GOVERNING_LAW,
                    fact("laws of Delaware", Some("Delaware"), "20", (90, 91)),
                ),
                (
                    GOVERNING_LAW,
                    fact("usury laws of New York", Some("New York"), "8", (30, 31)),
                ),
                (
                    EXPIRATION_DATE,
                    fact("December 31, 2015", Some("2015-12-31"), "3", (9, 9)),
                ),
                (
                    EXPIRATION_DATE,
                    fact("June 30, 2035", Some("2035-06-30"), "12", (60, 60)),
                ),
            ],
        )];
        let q = |f: fn(&mut Query)| {
            let mut q = Query::default();
            f(&mut q);
            ids(&rows, &q)
        };
        assert_eq!(q(|q| q.law = Some("Delaware".into())), ["two"]);
        assert!(q(|q| q.law = Some("New York".into())).is_empty());
        let all = select(&rows, &Query::default());
        assert_eq!(count_by(&all, CountBy::Law), [("Delaware".to_string(), 1)]);
        assert_eq!(
            q(|q| q.expires_before = PartialDate::parse("2020")),
            ["two"]
        );
        assert!(q(|q| q.expires_after = PartialDate::parse("2030")).is_empty());
    }

    /// `--renews` answers from the chosen renewal cell, and an option to
    /// renew (a naive reading of "renew ... additional one year term")
    /// is not listed.
    #[test]
    fn an_option_to_renew_is_not_listed_as_renewing() {
        let renewal = |doc: &str, quote: &str| {
            row(
                doc,
                "commercial",
                &[],
                &[(RENEWAL_TERM, fact(quote, Some("1 year"), "9", (40, 41)))],
            )
        };
        let rows = vec![
            renewal(
                "auto",
                "This Agreement shall be automatically renewed for additional one year terms.",
            ),
            renewal(
                "option",
                "Distributor shall have the option to renew this Agreement for an additional one year term.",
            ),
        ];
        let q = Query {
            renews: true,
            ..Query::default()
        };
        assert_eq!(ids(&rows, &q), ["auto"]);
    }

    fn ids(rows: &[RegisterRow], q: &Query) -> Vec<String> {
        select(rows, q)
            .iter()
            .map(|h| h.row.doc_id.clone())
            .collect()
    }

    #[test]
    fn has_and_lacks_are_anded_and_show_the_fact_with_its_pointer() {
        let rows = rows();
        let q = Query {
            has: vec!["Non-Compete"],
            ..Default::default()
        };
        let hits = select(&rows, &q);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].facts[0].fact.pointer(), "§7 lines 20-25");
        let q = Query {
            lacks: vec!["Cap On Liability"],
            ..Default::default()
        };
        assert_eq!(ids(&rows, &q), ["a", "c"]);
        let q = Query {
            lacks: vec!["Cap On Liability", "Non-Compete"],
            ..Default::default()
        };
        assert_eq!(ids(&rows, &q), ["c"]);
        let q = Query {
            has: vec![RENEWAL_TERM],
            lacks: vec!["Non-Compete"],
            ..Default::default()
        };
        assert_eq!(ids(&rows, &q), ["c"]);
    }

    #[test]
    fn a_party_by_any_of_its_names_legal_forms_aside_and_with_its_role() {
        let rows = rows();
        let by = |name: Option<&str>, role: Option<&str>| {
            ids(
                &rows,
                &Query {
                    party: name.map(Into::into),
                    role: role.map(Into::into),
                    ..Default::default()
                },
            )
        };
        assert_eq!(by(Some("Acme Widgets Corporation"), None), ["a", "b"]);
        assert_eq!(by(Some("acme"), None), ["a", "b"]);
        assert_eq!(by(Some("Gamma Limited"), None), ["b"]);
        assert_eq!(by(Some("Delta SA"), None), ["c"]);
        assert_eq!(by(Some("Inc."), None), Vec::<String>::new());
        assert_eq!(by(None, Some("licensee")), ["b", "c"]);
        // The same party must be both.
        assert_eq!(by(Some("Acme"), Some("Licensor")), ["b"]);
        assert_eq!(by(Some("Acme"), Some("Licensee")), Vec::<String>::new());
    }

    #[test]
    fn law_type_renewal_and_notice() {
        let rows = rows();
        let q = |f: fn(&mut Query)| {
            let mut q = Query::default();
            f(&mut q);
            ids(&rows, &q)
        };
        assert_eq!(q(|q| q.law = Some("New York".into())), ["a"]);
        assert_eq!(q(|q| q.law = Some("state of new york".into())), ["a"]);
        assert_eq!(q(|q| q.law = Some("Canada".into())), ["c"]);
        assert_eq!(q(|q| q.law = Some("York New".into())), Vec::<String>::new());
        assert_eq!(q(|q| q.doc_type = Some("License".into())), ["b", "c"]);
        assert_eq!(q(|q| q.renews = true), ["a", "c"]);
        assert_eq!(q(|q| q.notice_max = Some(30)), ["a"]);
        assert_eq!(q(|q| q.notice_max = Some(90)), ["a", "b"]);
        assert_eq!(
            q(|q| {
                q.renews = true;
                q.notice_max = Some(60)
            }),
            ["a"]
        );
    }

    #[test]
    fn partial_dates_compare_by_what_they_say_and_perpetual_never_expires() {
        let rows = rows();
        let d = |s: &str| PartialDate::parse(s).unwrap();
        let before = |s: &str| {
            ids(
                &rows,
                &Query {
                    expires_before: Some(d(s)),
                    ..Default::default()
                },
            )
        };
        let after = |s: &str| {
            ids(
                &rows,
                &Query {
                    expires_after: Some(d(s)),
                    ..Default::default()
                },
            )
        };
        assert_eq!(before("2016"), ["a"]);
        // 2016 might end after 2016-06-01: not known to be before.
        assert_eq!(before("2016-06-01"), ["a"]);
        assert_eq!(before("2017-01"), ["a", "b"]);
        assert_eq!(after("2015-05"), ["b", "c"]);
        assert_eq!(after("2015-05-30"), ["a", "b", "c"]);
        assert_eq!(after("2016-12"), ["c"]);
        assert_eq!(PartialDate::parse("2015-13"), None);
        assert_eq!(PartialDate::parse("15-05-01"), None);
        assert_eq!(PartialDate::parse("May 2015"), None);
    }

    #[test]
    fn counts_group_names_that_differ_only_in_legal_form() {
        let rows = rows();
        let all = select(&rows, &Query::default());
        assert_eq!(
            count_by(&all, CountBy::Law),
            [
                ("Delaware".to_string(), 1),
                ("New York".into(), 1),
                ("Ontario, Canada".into(), 1)
            ]
        );
        assert_eq!(
            count_by(&all, CountBy::Type),
            [("license".to_string(), 2), ("supply".into(), 1)]
        );
        let parties = count_by(&all, CountBy::Party);
        assert_eq!(parties[0], ("Acme Widgets, Inc.".to_string(), 2));
        assert_eq!(parties.len(), 4);
        let cats = count_by(&all, CountBy::Category);
        assert!(cats.contains(&(EXPIRATION_DATE.to_string(), 3)), "{cats:?}");
        assert!(cats.contains(&("Non-Compete".to_string(), 1)), "{cats:?}");
        let none = count_by(
            &select(
                &rows,
                &Query {
                    lacks: vec![GOVERNING_LAW],
                    ..Default::default()
                },
            ),
            CountBy::Law,
        );
        assert!(none.is_empty());
    }
}
