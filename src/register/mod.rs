//! The batch's register: one row per contract, the abstract a lawyer reads
//! first (parties and roles, dates, term, renewal, law, and for each clause
//! kind where it is). Built from the graph's typed facts; written as
//! `register.jsonl` (the machine form every query reads: `kgroute
//! contracts`, `ask --contracts`, the Neo4j `Agreement` node) beside
//! `register.csv` and `register.xlsx` for people.
//!
//! This module owns the row type and the jsonl form; building rows from a
//! document's graph and the csv/xlsx writers live beside it.

pub mod build;
pub mod normalize;
pub mod read;
pub mod write;

pub use build::row_of;
pub use write::RegisterWriter;

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The register's machine form inside a batch folder.
pub const REGISTER_JSONL: &str = "register.jsonl";

/// One contract of the batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RegisterRow {
    /// The document's id in the batch (as in `graph.jsonl`).
    pub doc_id: String,
    /// The source file as ingested.
    pub path: String,
    /// Hex SHA-256 of the source file's bytes when it was read: a reader
    /// of the register can tell a source edited since (empty in registers
    /// written before it was kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
    pub doc_type: String,
    /// The agreement's own name (`Supply Agreement`), when the text gives it.
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub parties: Vec<RegisterParty>,
    /// Facts by relation type (`GOVERNING_LAW`, `NON_COMPETE`), each list in
    /// section order; the first is the row's value for a document-level
    /// field unless the builder's choice rule says otherwise.
    #[serde(default)]
    pub facts: BTreeMap<String, Vec<RegisterFact>>,
    /// Facts for a reviewer to check, never a cell's value (a wrong value
    /// costs more than an empty cell): of a one-value field (a date, a
    /// term, a renewal, a notice, the law: [`build::DOCUMENT_LEVEL`]), a
    /// clause whose value has no normal form; of a clause kind, one the
    /// rules read where the clause model did not agree (with `why`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub to_check: BTreeMap<String, Vec<RegisterFact>>,
    /// How the contract renews, from its renewal cell: `automatic` (unless
    /// a party gives notice) or `option` (a party must exercise it); none
    /// when it gives no renewal or says neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renewal: Option<String>,
    /// With `--llm-mode verify`: the model that checked the contract's
    /// clause kinds and, per kind asked, the offline and the model's
    /// readings and whose the row shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::extract::verify::DocumentChecks>,
}

/// A party with every name the contract gives it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RegisterParty {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Roles as the contract defines them (`Supplier`, `Licensee`).
    #[serde(default)]
    pub roles: Vec<String>,
}

/// One typed fact, where it is, and its value in normal form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RegisterFact {
    /// The fact's target as the graph holds it (clause text, a period, a
    /// place).
    pub value: String,
    /// The value in normal form when it has one: an ISO 8601 date (as far as
    /// the text gives it: `2014-05`), `perpetual`, a period `1 year` /
    /// `30 days`, a jurisdiction by name (`New York`, `Ontario, Canada`),
    /// money `USD 250.00`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<String>,
    /// The party the fact binds or benefits (the relation's source), when it
    /// is a party and not the agreement itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party: Option<String>,
    /// The section's node id (`3.2`) and its lines in the source file.
    pub node_id: String,
    pub start_line: usize,
    pub end_line: usize,
    /// The evidence quote.
    #[serde(default)]
    pub quote: String,
    /// Why a fact to check was not asserted (the clause model did not
    /// agree with the rules); empty for a fact of the row.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// The graph's type of the fact's target (`Date`, `Period`, `Amount`,
    /// `Jurisdiction` for a value; `Right`, `Covenant`, `Obligation` for a
    /// clause).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target_type: String,
    /// Who read it: `rule`, `model` (the clause model alone), `rule+model`
    /// (a rule where the model agrees), `llm-verified` (an LLM asked about
    /// the paragraph confirmed it) or `llm`; empty when unknown (a
    /// register written before this was kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub basis: String,
    /// The clause model's score (0..=1) of the fact's paragraph for its
    /// category: how sure the model is that the paragraph is such a clause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

impl RegisterRow {
    /// The first fact of a relation type, by the row's choice rule.
    pub fn first(&self, relation_type: &str) -> Option<&RegisterFact> {
        self.facts.get(relation_type).and_then(|f| f.first())
    }

    /// True when the contract holds a fact of the relation type.
    pub fn has(&self, relation_type: &str) -> bool {
        self.facts.get(relation_type).is_some_and(|f| !f.is_empty())
    }
}

impl RegisterFact {
    /// `§3.2 lines 40-52`: where a reviewer opens the fact.
    pub fn pointer(&self) -> String {
        format!(
            "§{} lines {}-{}",
            self.node_id, self.start_line, self.end_line
        )
    }

    /// True when the fact's target is a value (a date, a period, an amount,
    /// a place) rather than a clause.
    pub fn is_value(&self) -> bool {
        self.normalized.is_some()
            || matches!(
                self.target_type.as_str(),
                "Date" | "Period" | "Amount" | "Jurisdiction"
            )
    }
}

/// Writes the rows as JSON lines, one contract a line.
pub fn write_jsonl(rows: &[RegisterRow], out: &mut impl Write) -> anyhow::Result<()> {
    for r in rows {
        serde_json::to_writer(&mut *out, r)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Reads a batch's `register.jsonl`; an error names the file and line.
pub fn read_jsonl(path: &Path) -> anyhow::Result<Vec<RegisterRow>> {
    let f =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{}:{}: cannot read", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let row: RegisterRow = serde_json::from_str(&line)
            .with_context(|| format!("{}:{}: not a register row", path.display(), i + 1))?;
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_jsonl_and_a_bad_line_is_named() {
        let mut facts = BTreeMap::new();
        facts.insert(
            "GOVERNING_LAW".to_string(),
            vec![RegisterFact {
                value: "the laws of the State of New York".into(),
                normalized: Some("New York".into()),
                node_id: "12.1".into(),
                start_line: 40,
                end_line: 44,
                ..Default::default()
            }],
        );
        let row = RegisterRow {
            doc_id: "a".into(),
            path: "a.txt".into(),
            doc_type: "commercial".into(),
            facts,
            ..Default::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(REGISTER_JSONL);
        let mut buf = Vec::new();
        write_jsonl(std::slice::from_ref(&row), &mut buf).unwrap();
        buf.extend_from_slice(b"{not json\n");
        std::fs::write(&p, &buf).unwrap();
        let err = format!("{:#}", read_jsonl(&p).unwrap_err());
        assert!(err.contains(":2: not a register row"), "{err}");
        std::fs::write(&p, &buf[..buf.len() - 10]).unwrap();
        let back = read_jsonl(&p).unwrap();
        assert_eq!(back, vec![row]);
        assert_eq!(
            back[0].first("GOVERNING_LAW").unwrap().pointer(),
            "§12.1 lines 40-44"
        );
        assert!(!back[0].has("NON_COMPETE"));
    }
}
