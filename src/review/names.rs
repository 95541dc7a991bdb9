//! The names a review looks up, read once. Every decision asks whether its
//! heading is already a title or alias and where its entry is; asking the
//! text would re-read every entry of the index for each decision, which
//! grows faster than linearly (163 s for 3,000 decisions). Here the
//! file and its bases are read once into maps, and each change the review
//! makes to the file is recorded here too.

use super::editor::IndexText;
use crate::index::{normalize_title, Tier};
use std::collections::HashMap;

/// An entry as a decision sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub title: String,
    pub tier: Tier,
}

/// One file's entries; a name maps to the first entry (highest tier first,
/// in file order) that has it, as a scan of the file would find.
#[derive(Debug, Default)]
struct Layer {
    entries: Vec<Found>,
    titles: HashMap<String, usize>,
    names: HashMap<String, usize>,
}

impl Layer {
    fn of(text: &IndexText) -> anyhow::Result<Layer> {
        let mut layer = Layer::default();
        for e in text.all_entries()? {
            let aliases: Vec<&str> = e.aliases.iter().map(String::as_str).collect();
            layer.add(e.tier, &e.title, &aliases);
        }
        Ok(layer)
    }

    fn add(&mut self, tier: Tier, title: &str, aliases: &[&str]) {
        let k = self.entries.len();
        self.entries.push(Found {
            title: title.to_string(),
            tier,
        });
        let key = normalize_title(title);
        self.titles.entry(key.clone()).or_insert(k);
        self.names.entry(key).or_insert(k);
        for a in aliases {
            self.names.entry(normalize_title(a)).or_insert(k);
        }
    }
}

/// The edited file (first) and the bases it extends (nearest first).
#[derive(Debug)]
pub struct Names {
    layers: Vec<Layer>,
}

impl Names {
    /// Reads `text` and `bases`; an error names the file it came from.
    pub fn read(text: &IndexText, bases: &[IndexText]) -> Result<Names, String> {
        let mut layers = vec![Layer::of(text).map_err(|e| e.to_string())?];
        for b in bases {
            layers.push(Layer::of(b).map_err(|e| format!("in a base file: {e}"))?);
        }
        Ok(Names { layers })
    }

    fn find(&self, name: &str, by_alias: bool) -> Option<(Found, bool)> {
        let key = normalize_title(name);
        self.layers.iter().enumerate().find_map(|(i, l)| {
            let map = if by_alias { &l.names } else { &l.titles };
            map.get(&key).map(|&k| (l.entries[k].clone(), i == 0))
        })
    }

    /// The entry titled `name`, and whether it is in the edited file.
    pub fn entry(&self, name: &str) -> Option<(Found, bool)> {
        self.find(name, false)
    }

    /// The entry with `name` as title or alias, and whether it is in the
    /// edited file.
    pub fn title_or_alias(&self, name: &str) -> Option<(Found, bool)> {
        self.find(name, true)
    }

    /// The edited file got a new entry.
    pub fn added(&mut self, tier: Tier, title: &str, aliases: &[&str]) {
        self.layers[0].add(tier, title, aliases);
    }

    /// The edited file's entry `title` got `alias`.
    pub fn aliased(&mut self, title: &str, alias: &str) {
        let l = &mut self.layers[0];
        if let Some(&k) = l.titles.get(&normalize_title(title)) {
            l.names.entry(normalize_title(alias)).or_insert(k);
        }
    }

    /// The edited file's entry `title` moved to `tier`.
    pub fn retiered(&mut self, title: &str, tier: Tier) {
        let l = &mut self.layers[0];
        if let Some(&k) = l.titles.get(&normalize_title(title)) {
            l.entries[k].tier = tier;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_follow_the_file_then_its_bases_and_every_recorded_change() {
        let base = IndexText::new(
            "document_type: x\nhigh:\n  - title: Use of Proceeds\n    aliases: [Purpose]\n",
        );
        let text = IndexText::new("document_type: x\nextends: b.yaml\nlow:\n  - Notices\n");
        let mut n = Names::read(&text, std::slice::from_ref(&base)).unwrap();
        assert!(n.entry("notices").unwrap().1, "in the file itself");
        let (f, local) = n.title_or_alias("PURPOSE").unwrap();
        assert_eq!(
            (f.title.as_str(), f.tier, local),
            ("Use of Proceeds", Tier::High, false)
        );
        assert!(n.entry("Purpose").is_none(), "an alias is not a title");
        n.added(Tier::Medium, "Use of Proceeds", &[]);
        assert_eq!(
            n.entry("use of proceeds").unwrap(),
            (
                Found {
                    title: "Use of Proceeds".into(),
                    tier: Tier::Medium
                },
                true
            )
        );
        n.aliased("Notices", "Addresses");
        n.retiered("Notices", Tier::VeryLow);
        let (f, local) = n.title_or_alias("addresses").unwrap();
        assert_eq!(
            (f.title.as_str(), f.tier, local),
            ("Notices", Tier::VeryLow, true)
        );
    }
}
