//! Loading index YAML files into a [`GraphabilityIndex`]: a base and its
//! overlays (`extends:` or repeated `--index`), later files winning.
//!
//! Every file is validated by [`super::check`] first, so a bad file fails
//! with all its problems at once, each with file:line:column. An overlay
//! entry whose title already exists in the base moves it to the overlay's
//! tier; new titles are added; aliases merge.

use super::check::{check_text, Locator, Problem};
use super::normalize::normalize_title;
use super::{DensityThresholds, GraphabilityIndex, IndexEntry, Ontology, Tier};
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why an index could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{path}: cannot read index file: {source}", path = path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}", ProblemList(problems))]
    Invalid { problems: Vec<Problem> },
}

impl IndexError {
    /// The file the error is about (the first problem's file).
    pub fn path(&self) -> &Path {
        match self {
            IndexError::Io { path, .. } => path,
            IndexError::Invalid { problems } => problems.first().map_or(Path::new(""), |p| &p.file),
        }
    }
}

struct ProblemList<'a>(&'a [Problem]);

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid graphability index ({} problem(s)):",
            self.0.len()
        )?;
        for p in self.0 {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}

/// One file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIndex {
    document_type: Option<String>,
    version: Option<serde_yaml_ng::Value>,
    description: Option<String>,
    /// Followed by `collect_chain` before parsing.
    #[allow(dead_code)]
    extends: Option<String>,
    #[serde(rename = "match")]
    matching: Option<RawMatch>,
    density: Option<DensityThresholds>,
    ontology: Option<RawOntology>,
    anchors: Option<Vec<String>>,
    noise: Option<Vec<String>>,
    /// Synonym groups for the matcher (see `super::concepts`).
    concepts: Option<Vec<Vec<String>>>,
    /// Document-type detection phrases (see `super::doctype`).
    detect: Option<super::doctype::DetectSpec>,
    very_high: Option<Vec<RawEntry>>,
    high: Option<Vec<RawEntry>>,
    medium: Option<Vec<RawEntry>>,
    low: Option<Vec<RawEntry>>,
    very_low: Option<Vec<RawEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    fuzzy_threshold: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOntology {
    #[serde(default)]
    entity_types: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    relation_types: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    relation_patterns: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    review_only: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawEntry {
    Bare(String),
    Full {
        title: String,
        #[serde(default)]
        aliases: Option<Vec<String>>,
        #[serde(default)]
        note: Option<String>,
    },
}

impl RawEntry {
    fn title(&self) -> &str {
        match self {
            RawEntry::Bare(t) | RawEntry::Full { title: t, .. } => t,
        }
    }
}

impl RawIndex {
    fn tier(&self, t: Tier) -> &[RawEntry] {
        let list = match t {
            Tier::VeryHigh => &self.very_high,
            Tier::High => &self.high,
            Tier::Medium => &self.medium,
            Tier::Low => &self.low,
            Tier::VeryLow => &self.very_low,
        };
        list.as_deref().unwrap_or(&[])
    }
}

/// The merged tier lists handed to [`GraphabilityIndex`].
#[derive(Debug, Default)]
pub(crate) struct Parts {
    pub entries: Vec<IndexEntry>,
    pub anchors: Vec<String>,
    pub noise: Vec<String>,
    pub fuzzy_threshold: Option<f64>,
    pub concepts: Vec<Vec<String>>,
    pub detect: super::doctype::DetectSpec,
}

/// Loads files in order, each preceded by the chain of bases it extends.
pub(crate) fn load_files(paths: &[PathBuf]) -> Result<GraphabilityIndex, IndexError> {
    load_files_with(paths, None)
}

/// Checks index files and the bases they extend, then the merged result
/// (base plus overlays, in the given order). Returns every problem found;
/// an empty list means the files load.
pub fn check_files(paths: &[PathBuf]) -> Vec<Problem> {
    problems_of(load_files(paths))
}

/// The problems a load ended with: none, its validation problems, or the
/// one I/O error as a problem at line 0.
fn problems_of<T>(loaded: Result<T, IndexError>) -> Vec<Problem> {
    match loaded {
        Ok(_) => Vec::new(),
        Err(IndexError::Invalid { problems }) => problems,
        Err(e) => vec![Problem {
            file: e.path().to_path_buf(),
            line: 0,
            col: 0,
            message: e.to_string(),
            fix: "check the path and that the file is readable".into(),
        }],
    }
}

/// Every problem of `path` as if its text were `text` (its bases read from
/// disk): what `kgroute index check` would say about an edit before it is
/// written.
pub fn check_edited(path: &Path, text: &str) -> Vec<Problem> {
    problems_of(load_files_with(&[path.to_path_buf()], Some((path, text))))
}

/// [`load_files`], with the text of one file given instead of read.
fn load_files_with(
    paths: &[PathBuf],
    edited: Option<(&Path, &str)>,
) -> Result<GraphabilityIndex, IndexError> {
    let mut order: Vec<PathBuf> = Vec::new();
    let mut texts: HashMap<PathBuf, String> = HashMap::new();
    if let Some((p, t)) = edited {
        texts.insert(p.to_path_buf(), t.to_string());
    }
    let mut problems = Vec::new();
    for p in paths {
        collect_chain(p, &mut order, &mut texts, &mut Vec::new(), &mut problems)?;
    }
    let mut raws = Vec::new();
    for p in &order {
        let text = &texts[p];
        let (value, mut found) = check_text(p, text);
        if found.is_empty() {
            if let Some(v) = value {
                match serde_yaml_ng::from_value::<RawIndex>(v) {
                    Ok(raw) => raws.push((p.clone(), raw)),
                    Err(e) => found.push(Problem {
                        file: p.clone(),
                        line: 0,
                        col: 0,
                        message: format!("unexpected shape: {e}"),
                        fix: "compare with indices/credit_agreement.yaml".into(),
                    }),
                }
            }
        }
        problems.extend(found);
    }
    if !problems.is_empty() {
        return Err(IndexError::Invalid { problems });
    }
    merge(raws, &texts)
}

/// Appends `path`'s bases, then `path`, to `order` (each file once).
fn collect_chain(
    path: &Path,
    order: &mut Vec<PathBuf>,
    texts: &mut HashMap<PathBuf, String>,
    stack: &mut Vec<PathBuf>,
    problems: &mut Vec<Problem>,
) -> Result<(), IndexError> {
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if stack.contains(&key) {
        problems.push(Problem {
            file: path.to_path_buf(),
            line: 1,
            col: 1,
            message: format!("`extends:` loops back to {}", path.display()),
            fix: "an overlay must extend a base that does not extend it back".into(),
        });
        return Err(IndexError::Invalid {
            problems: std::mem::take(problems),
        });
    }
    if order
        .iter()
        .any(|p| std::fs::canonicalize(p).ok().as_ref() == Some(&key))
    {
        return Ok(());
    }
    let text = match texts.get(path) {
        Some(t) => t.clone(),
        None => read_index_file(path)?,
    };
    if let Some(base) = extends_of(&text) {
        let base_path = path.parent().unwrap_or(Path::new(".")).join(base);
        if base_path.exists() {
            stack.push(key);
            collect_chain(&base_path, order, texts, stack, problems)?;
            stack.pop();
        }
    }
    texts.insert(path.to_path_buf(), text);
    order.push(path.to_path_buf());
    Ok(())
}

/// The `extends:` value of a file, read leniently (full validation later).
fn extends_of(text: &str) -> Option<String> {
    let root = super::check::spanned::parse(text).ok()??;
    root.get("extends")?.text().map(str::to_string)
}

/// Reads an index file as UTF-8. A file in another encoding is a problem
/// located at the line and column of its first bad byte, with the fix.
pub fn read_index_file(path: &Path) -> Result<String, IndexError> {
    let bytes = super::yaml_guard::read_bounded(path).map_err(|source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let good = e.utf8_error().valid_up_to();
        let before = &bytes[..good];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        IndexError::Invalid {
            problems: vec![Problem {
                file: path.to_path_buf(),
                line,
                col,
                message: format!("not UTF-8: byte 0x{:02X} cannot start a character", bytes[good]),
                fix: "save the file as UTF-8 (e.g. `iconv -f WINDOWS-1252 -t UTF-8`); YAML index files are UTF-8".into(),
            }],
        }
    })
}

/// Loads one in-memory file (no `extends:` following).
pub(crate) fn load_str(name: &Path, text: &str) -> Result<GraphabilityIndex, IndexError> {
    let (value, problems) = check_text(name, text);
    if !problems.is_empty() {
        return Err(IndexError::Invalid { problems });
    }
    let raw: RawIndex =
        serde_yaml_ng::from_value(value.unwrap_or_default()).map_err(|e| IndexError::Invalid {
            problems: vec![Problem {
                file: name.to_path_buf(),
                line: 0,
                col: 0,
                message: format!("unexpected shape: {e}"),
                fix: "compare with indices/credit_agreement.yaml".into(),
            }],
        })?;
    let mut texts = HashMap::new();
    texts.insert(name.to_path_buf(), text.to_string());
    merge(vec![(name.to_path_buf(), raw)], &texts)
}

/// Applies files in order: scalars and settings are replaced, ontologies
/// merged, entries added or re-tiered, aliases merged.
fn merge(
    raws: Vec<(PathBuf, RawIndex)>,
    texts: &HashMap<PathBuf, String>,
) -> Result<GraphabilityIndex, IndexError> {
    let mut document_type = String::new();
    let mut version = String::new();
    let mut description = String::new();
    let mut ontology = Ontology::default();
    let mut density = DensityThresholds::default();
    let mut parts = Parts::default();
    let mut sources = Vec::new();
    let mut problems = Vec::new();
    // normalised title or alias -> entry index
    let mut keys: HashMap<String, usize> = HashMap::new();
    // relation pattern -> where the file that last set it sets it
    let mut pattern_at: HashMap<String, (PathBuf, usize, usize)> = HashMap::new();
    // review-only relation type -> the file and line of its list
    let mut review_only_at: HashMap<String, (PathBuf, (usize, usize))> = HashMap::new();

    for (path, raw) in raws {
        let Some(loc) = Locator::new(&texts[&path]) else {
            continue;
        };
        if let Some(d) = raw.document_type.as_ref().filter(|d| !d.is_empty()) {
            // A type may extend the cross-type base (`document_type:
            // unknown`, indices/base/common.yaml) and name its own type.
            let base_is_common = document_type == super::doctype::UNKNOWN_TYPE;
            if !document_type.is_empty() && *d != document_type && !base_is_common {
                let (line, col) = loc.key("document_type");
                problems.push(Problem {
                    file: path.clone(),
                    line,
                    col,
                    message: format!(
                        "document_type `{d}` differs from `{document_type}` of the index it overlays"
                    ),
                    fix: format!("an overlay keeps its base's type: write `document_type: {document_type}` or drop the key"),
                });
            }
            document_type = d.clone();
        }
        if let Some(v) = &raw.version {
            version = match v {
                serde_yaml_ng::Value::String(s) => s.clone(),
                other => serde_yaml_ng::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            };
        }
        if let Some(d) = &raw.description {
            description = d.trim().to_string();
        }
        if let Some(t) = raw.matching.as_ref().and_then(|m| m.fuzzy_threshold) {
            parts.fuzzy_threshold = Some(t);
        }
        if let Some(c) = &raw.concepts {
            parts.concepts.extend(c.iter().cloned());
        }
        if let Some(d) = &raw.detect {
            parts.detect = d.clone();
        }
        if let Some(d) = raw.density {
            density = d;
        }
        if let Some(o) = &raw.ontology {
            ontology
                .entity_types
                .extend(o.entity_types.clone().unwrap_or_default());
            ontology
                .relation_types
                .extend(o.relation_types.clone().unwrap_or_default());
            for (name, pattern) in o.relation_patterns.iter().flatten() {
                let (line, col) = loc.ontology_name("relation_patterns", name);
                pattern_at.insert(name.clone(), (path.clone(), line, col));
                ontology
                    .relation_patterns
                    .insert(name.clone(), pattern.clone());
            }
            for name in o.review_only.iter().flatten() {
                review_only_at.insert(
                    name.clone(),
                    (path.clone(), loc.child("ontology", "review_only")),
                );
                ontology.review_only.insert(name.clone());
            }
        }
        for (list, out) in [
            (&raw.anchors, &mut parts.anchors),
            (&raw.noise, &mut parts.noise),
        ] {
            for t in list.iter().flatten() {
                if !out.iter().any(|o| normalize_title(o) == normalize_title(t)) {
                    out.push(t.clone());
                }
            }
        }
        for tier in Tier::ALL {
            let entries = raw.tier(tier);
            let titles: Vec<String> = entries.iter().map(|e| e.title().to_string()).collect();
            let positions = loc.entries(tier.key(), titles.len());
            for (e, (line, col)) in entries.iter().zip(positions) {
                let (title, aliases, note) = match e {
                    RawEntry::Bare(t) => (t.clone(), Vec::new(), None),
                    RawEntry::Full {
                        title,
                        aliases,
                        note,
                    } => (
                        title.clone(),
                        aliases.clone().unwrap_or_default(),
                        note.clone(),
                    ),
                };
                let norm = normalize_title(&title);
                let idx = if let Some(&i) = keys.get(&norm) {
                    let entry = &mut parts.entries[i];
                    entry.tier = tier;
                    entry.source = path.clone();
                    entry.line = line;
                    if note.is_some() {
                        entry.note = note;
                    }
                    i
                } else {
                    parts.entries.push(IndexEntry {
                        title: title.clone(),
                        aliases: Vec::new(),
                        note,
                        tier,
                        source: path.clone(),
                        line,
                    });
                    keys.insert(norm, parts.entries.len() - 1);
                    parts.entries.len() - 1
                };
                for a in aliases {
                    let an = normalize_title(&a);
                    match keys.get(&an) {
                        Some(&j) if j != idx => problems.push(Problem {
                            file: path.clone(),
                            line,
                            col,
                            message: format!(
                                "alias `{a}` of `{title}` is already `{}` ({}) from {}",
                                parts.entries[j].title,
                                parts.entries[j].tier.key(),
                                parts.entries[j].source.display()
                            ),
                            fix: format!(
                                "to re-tier `{}`, list it under its own title in this overlay; otherwise drop the alias",
                                parts.entries[j].title
                            ),
                        }),
                        Some(_) => {}
                        None => {
                            keys.insert(an, idx);
                            parts.entries[idx].aliases.push(a);
                        }
                    }
                }
            }
        }
        sources.push(path);
    }
    // Checked on the merged ontology: a type's pattern may name the base's
    // entity types (`extends:`).
    for (name, text) in &ontology.relation_patterns {
        let (file, line, col) = pattern_at[name].clone();
        for (message, fix) in super::patterns::pattern_problems(&ontology, name, text) {
            problems.push(Problem {
                file: file.clone(),
                line,
                col,
                message,
                fix,
            });
        }
    }
    // A review-only type the ontology lacks holds nothing back: a typo
    // there would assert what the owner meant to hold.
    for name in &ontology.review_only {
        if !ontology.relation_types.contains_key(name) {
            let (file, (line, col)) = review_only_at[name].clone();
            problems.push(Problem {
                file,
                line,
                col,
                message: format!("`review_only` names `{name}`, which is not in `relation_types`"),
                fix: format!("spell it as `relation_types` does, or add `{name}` there"),
            });
        }
    }
    if !problems.is_empty() {
        return Err(IndexError::Invalid { problems });
    }
    Ok(GraphabilityIndex::from_parts(
        document_type,
        version,
        description,
        ontology,
        density,
        sources,
        parts,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "document_type: t\nversion: \"1\"\nmatch:\n  fuzzy_threshold: 0.8\nvery_high:\n  - title: Definitions\n    aliases: [Defined Terms]\nlow:\n  - Notices\n  - Confidentiality\n";

    #[test]
    fn loads_entries_with_lines() {
        let idx = load_str(Path::new("b.yaml"), BASE).unwrap();
        assert_eq!(idx.document_type, "t");
        assert_eq!(idx.version, "1");
        assert_eq!(idx.fuzzy_threshold(), 0.8);
        let notices = idx.entry("Notices").unwrap();
        assert_eq!((notices.tier, notices.line), (Tier::Low, 9));
        assert_eq!(idx.entry("defined terms").unwrap().title, "Definitions");
    }

    #[test]
    fn overlay_re_tiers_and_adds() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base.yaml");
        std::fs::write(&base, BASE).unwrap();
        let over = dir.path().join("over.yaml");
        std::fs::write(
            &over,
            "extends: base.yaml\nhigh:\n  - title: Notices\n    aliases: [Notice Addresses]\n    note: this bank's notices name agents\nmedium:\n  - Hedging\n",
        )
        .unwrap();
        let idx = load_files(std::slice::from_ref(&over)).unwrap();
        assert_eq!(idx.sources.len(), 2);
        let n = idx.entry("Notice Addresses").unwrap();
        assert_eq!(
            (n.tier, n.source.as_path(), n.line),
            (Tier::High, over.as_path(), 3)
        );
        assert_eq!(idx.entry("Hedging").unwrap().tier, Tier::Medium);
        assert_eq!(idx.entry("Confidentiality").unwrap().tier, Tier::Low);
        assert_eq!(idx.entries().len(), 4);
        // An overlay of another document type is refused.
        let other = dir.path().join("other.yaml");
        std::fs::write(&other, "document_type: lease\nlow: [Hedging]\n").unwrap();
        let err = load_files(&[base.clone(), other]).unwrap_err().to_string();
        assert!(
            err.contains("other.yaml:1:1") && err.contains("differs"),
            "{err}"
        );
        // Same result with a repeated --index instead of extends.
        let idx2 = load_files(&[base, over]).unwrap();
        assert_eq!(idx2.entry("Notices").unwrap().tier, Tier::High);
    }

    /// A type's review-only list adds to its base's, and a name the
    /// merged ontology lacks is an error at its line (a typo would
    /// otherwise assert what the owner meant to hold).
    #[test]
    fn review_only_types_merge_and_must_be_relation_types() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base.yaml");
        std::fs::write(
            &base,
            "document_type: unknown\nontology:\n  entity_types:\n    Role: r\n  relation_types:\n    EXCLUSIVITY: e\n    NON_COMPETE: n\n    GOVERNING_LAW: g\n  review_only: [NON_COMPETE]\n",
        )
        .unwrap();
        let credit = dir.path().join("credit.yaml");
        std::fs::write(
            &credit,
            "document_type: credit\nextends: base.yaml\nontology:\n  review_only:\n    - EXCLUSIVITY\n",
        )
        .unwrap();
        let idx = load_files(std::slice::from_ref(&credit)).unwrap();
        let held: Vec<&str> = idx
            .ontology
            .review_only
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(held, ["EXCLUSIVITY", "NON_COMPETE"]);
        let typo = dir.path().join("typo.yaml");
        std::fs::write(
            &typo,
            "document_type: credit\nextends: base.yaml\nontology:\n  review_only:\n    - EXCLUSIVTY\n",
        )
        .unwrap();
        let err = load_files(&[typo]).unwrap_err().to_string();
        assert!(
            err.contains("typo.yaml:4") && err.contains("`EXCLUSIVTY`"),
            "{err}"
        );
    }
}
