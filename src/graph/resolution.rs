//! What entity resolution merged: across the documents of a batch, how many
//! spellings of organisations became how many nodes, so a summary can say
//! `merged 14 spellings into 5 organisations` and a reader can check which.

use super::DocGraph;
use crate::graph::identity::is_org;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Organisation spellings per node, collected document by document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrgMerges {
    /// Global organisation key -> every spelling met (name and aliases).
    pub spellings: BTreeMap<String, BTreeSet<String>>,
}

impl OrgMerges {
    /// Adds one document's organisations.
    pub fn add(&mut self, g: &DocGraph) {
        for e in g
            .entities()
            .filter(|e| is_org(&e.entity_type) && e.doc_id.is_none())
        {
            let set = self.spellings.entry(e.key.clone()).or_default();
            set.insert(e.name.clone());
            set.extend(e.aliases.iter().cloned());
        }
    }

    /// Organisations met under more than one spelling, with those spellings.
    pub fn merged(&self) -> impl Iterator<Item = (&String, &BTreeSet<String>)> {
        self.spellings.iter().filter(|(_, s)| s.len() > 1)
    }

    /// (spellings, organisations) over the merged organisations only.
    pub fn counts(&self) -> (usize, usize) {
        self.merged()
            .fold((0, 0), |(s, o), (_, set)| (s + set.len(), o + 1))
    }
}

impl fmt::Display for OrgMerges {
    /// `merged 14 spellings into 5 organisations`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, o) = self.counts();
        write!(
            f,
            "merged {s} spelling{} into {o} organisation{}",
            if s == 1 { "" } else { "s" },
            if o == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{DocumentMeta, EntityNode};
    use petgraph::graph::DiGraph;

    fn graph(orgs: &[(&str, &str, &[&str])]) -> DocGraph {
        let mut graph = DiGraph::new();
        for (key, name, aliases) in orgs {
            graph.add_node(EntityNode {
                key: key.to_string(),
                name: name.to_string(),
                entity_type: "Organization".into(),
                label: None,
                doc_id: None,
                aliases: aliases.iter().map(|a| a.to_string()).collect(),
                mentions: BTreeSet::new(),
            });
        }
        DocGraph {
            meta: DocumentMeta {
                doc_id: "d".into(),
                name: "d".into(),
                doc_type: "t".into(),
                sha256: String::new(),
                path: "d".into(),
            },
            sections: vec![],
            graph,
            index: Default::default(),
            dropped: vec![],
            held: vec![],
            term_definitions: Default::default(),
            doc_title: None,
        }
    }

    #[test]
    fn counts_spellings_of_organisations_met_more_than_once() {
        let mut m = OrgMerges::default();
        m.add(&graph(&[
            (
                "organization:jpmorgan chase bank",
                "JPMorgan Chase Bank, N.A.",
                &["JPMORGAN CHASE BANK, N.A."],
            ),
            ("organization:acme inc", "Acme Inc.", &[]),
        ]));
        m.add(&graph(&[(
            "organization:jpmorgan chase bank",
            "JPMorgan Chase Bank",
            &["JPMorgan Chase Bank, N.A."],
        )]));
        assert_eq!(m.counts(), (3, 1));
        assert_eq!(m.to_string(), "merged 3 spellings into 1 organisation");
        assert_eq!(
            OrgMerges::default().to_string(),
            "merged 0 spellings into 0 organisations"
        );
    }
}
