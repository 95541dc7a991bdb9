//! The engine's answers as people and programs read them: an aligned
//! table, csv (cells guarded as in `sections.csv`), or json. Every fact
//! shown carries its pointer `§node lines a-b` so a reviewer can open it.

use super::query::{value_of, Hit};
use crate::report::sanitize_title;
use crate::report::sections_csv::guard_cell;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// A fact as the json form shows it.
#[derive(Debug, Serialize)]
pub struct FactOut<'a> {
    pub category: &'a str,
    pub value: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalized: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub party: Option<&'a str>,
    pub node_id: &'a str,
    pub start_line: usize,
    pub end_line: usize,
    pub pointer: String,
    pub quote: &'a str,
    /// Who read it (`rule`, `model`, `rule+model`, `llm`) and the clause
    /// model's score of its paragraph: what to weigh it by.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub basis: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

/// A contract as the json form shows it.
#[derive(Debug, Serialize)]
pub struct ContractOut<'a> {
    pub doc_id: &'a str,
    pub path: &'a str,
    pub title: &'a str,
    pub doc_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub party: Option<&'a crate::register::RegisterParty>,
    /// `automatic` or `option`: how the contract renews (the register's
    /// `renewal`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renewal: Option<&'a str>,
    pub facts: Vec<FactOut<'a>>,
}

pub fn contract_out<'a>(h: &Hit<'a>) -> ContractOut<'a> {
    ContractOut {
        doc_id: &h.row.doc_id,
        path: &h.row.path,
        title: &h.row.title,
        doc_type: &h.row.doc_type,
        party: h.party,
        renewal: h.row.renewal.as_deref(),
        facts: h
            .facts
            .iter()
            .map(|s| FactOut {
                category: s.category,
                value: &s.fact.value,
                normalized: s.fact.normalized.as_deref(),
                party: s.fact.party.as_deref(),
                node_id: &s.fact.node_id,
                start_line: s.fact.start_line,
                end_line: s.fact.end_line,
                pointer: s.fact.pointer(),
                quote: &s.fact.quote,
                basis: &s.fact.basis,
                confidence: s.fact.confidence,
            })
            .collect(),
    }
}

const HEADER: [&str; 6] = ["contract", "type", "party", "category", "value", "where"];

/// One line per shown fact (a contract with none: one line, no fact).
fn lines(hits: &[Hit]) -> Vec<[String; 6]> {
    let mut out = Vec::new();
    for h in hits {
        let party = h
            .party
            .map(|p| {
                if p.roles.is_empty() {
                    p.name.clone()
                } else {
                    format!("{} ({})", p.name, p.roles.join(", "))
                }
            })
            .unwrap_or_default();
        let head = [h.row.path.clone(), h.row.doc_type.clone(), party];
        if h.facts.is_empty() {
            out.push([
                head[0].clone(),
                head[1].clone(),
                head[2].clone(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
        for s in &h.facts {
            out.push([
                head[0].clone(),
                head[1].clone(),
                head[2].clone(),
                s.category.to_string(),
                value_of(s.fact).to_string(),
                s.fact.pointer(),
            ]);
        }
    }
    out
}

/// The widest a table's value cell gets; csv and json keep it whole.
const TABLE_VALUE_CHARS: usize = 60;

fn cell(s: &str, max: usize) -> String {
    let s = sanitize_title(s).replace('\n', " ");
    if s.chars().count() <= max {
        return s;
    }
    let cut: String = s.chars().take(max - 1).collect();
    format!("{cut}…")
}

fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                l.push_str(c);
            } else {
                l.push_str(c);
                l.push_str(&" ".repeat(width[i] - c.chars().count() + 2));
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(header.to_vec(), &mut out);
    for r in rows {
        line(r.iter().map(String::as_str).collect(), &mut out);
    }
    out
}

fn csv(header: &[&str], rows: &[Vec<String>]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for r in rows {
        w.write_record(r.iter().map(|c| guard_cell(c)))?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The contracts that passed, in `format`; the table ends with the count.
pub fn contracts(hits: &[Hit], format: Format) -> anyhow::Result<String> {
    match format {
        Format::Json => {
            let all: Vec<ContractOut> = hits.iter().map(contract_out).collect();
            Ok(serde_json::to_string_pretty(&all)? + "\n")
        }
        Format::Csv => {
            let rows: Vec<Vec<String>> = lines(hits).into_iter().map(Vec::from).collect();
            csv(&HEADER, &rows)
        }
        Format::Table => {
            let rows: Vec<Vec<String>> = lines(hits)
                .into_iter()
                .map(|l| {
                    l.iter()
                        .enumerate()
                        .map(|(i, c)| cell(c, if i == 4 { TABLE_VALUE_CHARS } else { 200 }))
                        .collect()
                })
                .collect();
            let mut out = table(&HEADER, &rows);
            out.push_str(&format!("{} contracts\n", hits.len()));
            Ok(out)
        }
    }
}

/// `--count-by` groups in `format`, the field named in the header.
pub fn counts(field: &str, groups: &[(String, usize)], format: Format) -> anyhow::Result<String> {
    let header = [field, "contracts"];
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(k, n)| vec![k.clone(), n.to_string()])
        .collect();
    match format {
        Format::Json => {
            let all: Vec<serde_json::Value> = groups
                .iter()
                .map(|(k, n)| serde_json::json!({ field: k, "contracts": n }))
                .collect();
            Ok(serde_json::to_string_pretty(&all)? + "\n")
        }
        Format::Csv => csv(&header, &rows),
        Format::Table => {
            let rows: Vec<Vec<String>> = rows
                .into_iter()
                .map(|r| vec![cell(&r[0], 200), r[1].clone()])
                .collect();
            Ok(table(&header, &rows))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::query::{select, tests::rows, Query};
    use super::*;

    #[test]
    fn each_format_names_the_contract_the_value_and_where() {
        let rows = rows();
        let q = Query {
            has: vec!["Non-Compete"],
            law: Some("New York".into()),
            ..Default::default()
        };
        let hits = select(&rows, &q);
        let t = contracts(&hits, Format::Table).unwrap();
        assert!(t.contains("a.txt"), "{t}");
        assert!(
            t.contains("New York") && t.contains("§12.1 lines 40-44"),
            "{t}"
        );
        assert!(t.ends_with("1 contracts\n"), "{t}");
        let c = contracts(&hits, Format::Csv).unwrap();
        let mut r = csv::Reader::from_reader(c.as_bytes());
        let recs: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(&recs[0][3], "Non-Compete");
        assert_eq!(&recs[0][5], "§7 lines 20-25");
        let j: serde_json::Value =
            serde_json::from_str(&contracts(&hits, Format::Json).unwrap()).unwrap();
        assert_eq!(j[0]["doc_id"], "a");
        assert_eq!(j[0]["facts"][1]["normalized"], "New York");
        assert_eq!(j[0]["facts"][1]["pointer"], "§12.1 lines 40-44");
    }

    #[test]
    fn a_cell_that_would_start_a_formula_is_guarded() {
        let mut rows = rows();
        rows[0].path = "=cmd|' /C calc'!A0".into();
        let hits = select(&rows[..1], &Query::default());
        let c = contracts(&hits, Format::Csv).unwrap();
        assert!(!c.lines().nth(1).unwrap().starts_with('='), "{c}");
    }
}
