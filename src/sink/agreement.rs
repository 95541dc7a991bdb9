//! The register row of a document as Neo4j nodes, written in the
//! document's own transaction so the `Agreement` is never out of step with
//! the graph it abstracts:
//!
//! - `(:Agreement {doc_id, path, title, doc_type, governing_law,
//!   expiration, expiration_date, effective_date, agreement_date,
//!   renewal_term, notice_days, categories})-[:ABSTRACT_OF]->(:Document)`;
//!   `*_date` are Neo4j `date`s, set only where the register's ISO date is
//!   complete (the text of a partial one stays in `expiration`);
//! - `(:Organization {name_key, name, aliases})-[:PARTY_TO {doc_id, role,
//!   roles}]->(:Agreement)`, one organisation per name with its legal form
//!   aside (the key `kgroute contracts --party` compares);
//! - `(:Agreement)-[:HAS_FACT]->(:Fact {doc_id, category, rel_type, value,
//!   normalized, node_id, start_line, end_line, quote})-[:IN_SECTION]->(:Section)`.
//!
//! Every value is a parameter; no name reaches the Cypher text.

use crate::extract::facts_vocabulary::{category_relation_type, CATEGORIES};
use crate::register::read::{
    facts_of, name_key, period_days, value_of, EXPIRATION_DATE, GOVERNING_LAW, NOTICE_PERIOD,
    RENEWAL_TERM,
};
use crate::register::RegisterRow;
use neo4rs::{BoltMap, BoltNull, BoltString, BoltType};

/// Constraints and indexes on the fields `kgroute contracts` filters on.
pub const SCHEMA: [&str; 6] = [
    "CREATE CONSTRAINT kg_agreement_doc_id IF NOT EXISTS FOR (a:Agreement) REQUIRE a.doc_id IS UNIQUE",
    "CREATE INDEX kg_agreement_law IF NOT EXISTS FOR (a:Agreement) ON (a.governing_law)",
    "CREATE INDEX kg_agreement_expiration IF NOT EXISTS FOR (a:Agreement) ON (a.expiration_date)",
    "CREATE INDEX kg_agreement_type IF NOT EXISTS FOR (a:Agreement) ON (a.doc_type)",
    "CREATE INDEX kg_organization_key IF NOT EXISTS FOR (o:Organization) ON (o.name_key)",
    "CREATE INDEX kg_fact_category IF NOT EXISTS FOR (f:Fact) ON (f.category)",
];

/// Removes the document's agreement, its facts, and organisations no
/// agreement has any more.
pub const DELETE: [&str; 2] = [
    "MATCH (a:Agreement {doc_id: $doc_id}) OPTIONAL MATCH (a)-[:HAS_FACT]->(f:Fact) \
     OPTIONAL MATCH (o:Organization)-[:PARTY_TO]->(a) \
     WITH a, collect(DISTINCT f) AS facts, collect(DISTINCT o) AS orgs \
     FOREACH (f IN facts | DETACH DELETE f) DETACH DELETE a \
     WITH orgs UNWIND orgs AS o \
     SET o.write_lock = true REMOVE o.write_lock \
     WITH o WHERE NOT (o)-[:PARTY_TO]->() DELETE o",
    "MATCH (f:Fact {doc_id: $doc_id}) DETACH DELETE f",
];

/// Creates the agreement from `$props` (dates as ISO text in `$dates`).
pub const UPSERT: &str = "MATCH (d:Document {doc_id: $doc_id}) \
     MERGE (a:Agreement {doc_id: $doc_id}) SET a += $props \
     SET a.expiration_date = CASE WHEN $dates.expiration_date IS NULL THEN null ELSE date($dates.expiration_date) END, \
     a.effective_date = CASE WHEN $dates.effective_date IS NULL THEN null ELSE date($dates.effective_date) END, \
     a.agreement_date = CASE WHEN $dates.agreement_date IS NULL THEN null ELSE date($dates.agreement_date) END \
     MERGE (a)-[:ABSTRACT_OF]->(d)";

pub const PARTIES: &str = "MATCH (a:Agreement {doc_id: $doc_id}) \
     UNWIND $rows AS p \
     MERGE (o:Organization {name_key: p.key}) \
     ON CREATE SET o.name = p.name, o.aliases = p.aliases \
     ON MATCH SET o.aliases = reduce(acc = coalesce(o.aliases, []), x IN p.aliases + [p.name] | \
        CASE WHEN x IN acc OR x = o.name THEN acc ELSE acc + x END) \
     MERGE (o)-[r:PARTY_TO {doc_id: $doc_id}]->(a) SET r.role = p.role, r.roles = p.roles";

pub const FACTS: &str = "MATCH (a:Agreement {doc_id: $doc_id}) \
     UNWIND $rows AS f \
     CREATE (a)-[:HAS_FACT]->(x:Fact {doc_id: $doc_id, category: f.category, rel_type: f.rel_type, \
        value: f.value, normalized: f.normalized, node_id: f.node_id, \
        start_line: f.start_line, end_line: f.end_line, quote: f.quote}) \
     WITH x, f MATCH (s:Section {uid: f.uid}) CREATE (x)-[:IN_SECTION]->(s)";

/// Replaces the document's agreement with `row`'s, inside `txn` (the
/// document's transaction, after its Document node is written); returns
/// the statements run.
pub async fn write_in(txn: &mut neo4rs::Txn, row: &RegisterRow) -> anyhow::Result<usize> {
    use neo4rs::{query, BoltList};
    let doc_id = row.doc_id.as_str();
    for stmt in DELETE {
        txn.run(query(stmt).param("doc_id", doc_id)).await?;
    }
    let (props, dates) = props(row);
    txn.run(
        query(UPSERT)
            .param("doc_id", doc_id)
            .param("props", props)
            .param("dates", dates),
    )
    .await?;
    let mut n = DELETE.len() + 1;
    for (stmt, rows) in [(PARTIES, party_rows(row)), (FACTS, fact_rows(row))] {
        if rows.is_empty() {
            continue;
        }
        txn.run(
            query(stmt)
                .param("doc_id", doc_id)
                .param("rows", BoltType::List(BoltList::from(rows))),
        )
        .await?;
        n += 1;
    }
    Ok(n)
}

fn map(fields: Vec<(&str, BoltType)>) -> BoltType {
    let mut m = BoltMap::with_capacity(fields.len());
    for (k, v) in fields {
        m.put(BoltString::from(k), v);
    }
    BoltType::Map(m)
}

fn opt(v: Option<String>) -> BoltType {
    v.map_or(BoltType::Null(BoltNull), Into::into)
}

/// `2015-05-31` and nothing shorter: what Cypher's `date()` takes whole.
pub fn complete_date(s: &str) -> Option<&str> {
    let p = crate::register::read::PartialDate::parse(s)?;
    (p.first == p.last).then_some(s.trim())
}

/// The agreement's properties and its complete dates, by the register's
/// first fact of each field.
pub fn props(row: &RegisterRow) -> (BoltType, BoltType) {
    let first = |c: &str| facts_of(row, c).first().map(|f| value_of(f).to_string());
    let categories: Vec<String> = CATEGORIES
        .iter()
        .filter(|c| !facts_of(row, c).is_empty())
        .map(|c| c.to_string())
        .collect();
    let notice = facts_of(row, NOTICE_PERIOD)
        .iter()
        .find_map(period_days)
        .map(|d| d as i64);
    let props = map(vec![
        ("path", row.path.as_str().into()),
        ("title", row.title.as_str().into()),
        ("doc_type", row.doc_type.as_str().into()),
        ("governing_law", opt(first(GOVERNING_LAW))),
        ("expiration", opt(first(EXPIRATION_DATE))),
        ("renewal_term", opt(first(RENEWAL_TERM))),
        (
            "notice_days",
            notice.map_or(BoltType::Null(BoltNull), Into::into),
        ),
        ("categories", categories.into()),
    ]);
    let mut dates: Vec<(&str, BoltType)> = Vec::new();
    for (key, cat) in [
        ("expiration_date", EXPIRATION_DATE),
        ("effective_date", "Effective Date"),
        ("agreement_date", "Agreement Date"),
    ] {
        if let Some(d) = first(cat).as_deref().and_then(complete_date) {
            dates.push((key, d.into()));
        }
    }
    (props, map(dates))
}

/// One row per party for [`PARTIES`].
pub fn party_rows(row: &RegisterRow) -> Vec<BoltType> {
    row.parties
        .iter()
        .filter(|p| !name_key(&p.name).is_empty())
        .map(|p| {
            map(vec![
                ("key", name_key(&p.name).join(" ").into()),
                ("name", p.name.as_str().into()),
                ("aliases", p.aliases.clone().into()),
                ("role", opt(p.roles.first().cloned())),
                ("roles", p.roles.clone().into()),
            ])
        })
        .collect()
}

/// One row per typed fact for [`FACTS`]; `uid` names its section as
/// `DocGraph::section_uid` does.
pub fn fact_rows(row: &RegisterRow) -> Vec<BoltType> {
    let mut out = Vec::new();
    for c in CATEGORIES {
        for f in facts_of(row, c) {
            out.push(map(vec![
                ("category", (*c).into()),
                ("rel_type", category_relation_type(c).into()),
                ("value", f.value.as_str().into()),
                ("normalized", opt(f.normalized.clone())),
                ("node_id", f.node_id.as_str().into()),
                ("start_line", (f.start_line as i64).into()),
                ("end_line", (f.end_line as i64).into()),
                ("quote", f.quote.as_str().into()),
                (
                    "uid",
                    crate::graph::DocGraph::section_uid(&row.doc_id, &f.node_id).into(),
                ),
            ]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_complete_date_becomes_a_neo4j_date() {
        assert_eq!(complete_date("2015-05-31"), Some("2015-05-31"));
        assert_eq!(complete_date("2015-05"), None);
        assert_eq!(complete_date("perpetual"), None);
        let rows = crate::contracts::query::tests::rows();
        let (props, dates) = props(&rows[0]);
        let (BoltType::Map(p), BoltType::Map(d)) = (props, dates) else {
            panic!("maps");
        };
        assert_eq!(d.value.len(), 1, "{d:?}");
        assert!(d.value.contains_key(&BoltString::from("expiration_date")));
        assert_eq!(
            p.value.get(&BoltString::from("governing_law")),
            Some(&BoltType::from("New York"))
        );
        assert_eq!(
            p.value.get(&BoltString::from("notice_days")),
            Some(&BoltType::from(30i64))
        );
        let (_, d) = super::props(&rows[1]);
        let BoltType::Map(d) = d else { panic!() };
        assert!(d.value.is_empty(), "2016 is no complete date");
        assert_eq!(party_rows(&rows[1]).len(), 2);
        assert_eq!(fact_rows(&rows[0]).len(), 5);
    }
}
