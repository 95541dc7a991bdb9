//! `kgroute index check`: validation of graphability index files.
//!
//! Reviewers edit these YAML files by hand, so a mistake must be reported
//! with its file, line and column, the bad value, and what to write instead;
//! and every mistake of a file is reported in one run, not just the first.
//! Positions come from the spans of a YAML parser ([`spanned`]), the allowed
//! keys from the JSON schema ([`schema`]). This module only checks one
//! file's text; [`super::load`] calls it for every file before it merges a
//! base with its overlays (and owns `check_files`, which needs the merge).

use super::normalize::normalize_title;
use super::Tier;
use serde_yaml_ng::{Mapping, Value};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in an index file.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub file: PathBuf,
    /// 1-based line and column (0 when unknown).
    pub line: usize,
    pub col: usize,
    /// What is wrong, quoting the bad value.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}; fix: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message,
            self.fix
        )
    }
}

mod schema;
pub(crate) mod spanned;

pub use schema::{DENSITY_KEYS, ENTRY_KEYS, MATCH_KEYS, ONTOLOGY_KEYS, SCHEMA, TOP_KEYS};
pub use spanned::inline_yaml;
use spanned::Node;

/// Where things are in a file, from the spans of its YAML nodes (never by
/// searching the text, which would also match inside a comment).
pub(crate) struct Locator {
    root: Node,
}

impl Locator {
    /// Parses `text` for positions; `None` when it is not valid YAML (the
    /// checker reports that).
    pub(crate) fn new(text: &str) -> Option<Self> {
        let root = spanned::parse(text).ok()??;
        Some(Self { root })
    }

    /// The node at a path of mapping keys.
    fn node(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(&self.root, |n, k| n.get(k))
    }

    /// 1-based (line, col) of a top-level key (1:1 when absent).
    pub(crate) fn key(&self, key: &str) -> (usize, usize) {
        self.root.entry(key).map_or((1, 1), |(k, _)| k.pos())
    }

    /// Position of key `key` inside the mapping under top-level `block`
    /// (the block's own key when absent).
    pub(crate) fn child(&self, block: &str, key: &str) -> (usize, usize) {
        self.node(&[block])
            .and_then(|n| n.entry(key))
            .map_or_else(|| self.key(block), |(k, _)| k.pos())
    }

    /// Position of the `i`-th item of the list under `block`.
    pub(crate) fn item(&self, block: &str, i: usize) -> (usize, usize) {
        self.node(&[block])
            .and_then(|n| n.items().get(i))
            .map_or_else(|| self.key(block), Node::pos)
    }

    /// Positions of the items of a tier list, in order.
    pub(crate) fn entries(&self, key: &str, n: usize) -> Vec<(usize, usize)> {
        (0..n).map(|i| self.item(key, i)).collect()
    }

    /// Position of the item of the list under `block` whose text is `text`.
    fn item_named(&self, block: &str, text: &str) -> (usize, usize) {
        self.node(&[block])
            .and_then(|n| n.items().iter().find(|i| i.text() == Some(text)))
            .map_or_else(|| self.key(block), Node::pos)
    }

    /// Position of `ontology.<group>.<name>`.
    pub(crate) fn ontology_name(&self, group: &str, name: &str) -> (usize, usize) {
        self.node(&["ontology", group])
            .and_then(|n| n.entry(name))
            .map_or_else(|| self.child("ontology", group), |(k, _)| k.pos())
    }
}

/// Collects problems for one file's text.
struct Checker<'a> {
    file: &'a Path,
    loc: Locator,
    problems: Vec<Problem>,
}

impl Checker<'_> {
    fn push(&mut self, at: (usize, usize), message: String, fix: impl Into<String>) {
        self.problems.push(Problem {
            file: self.file.to_path_buf(),
            line: at.0,
            col: at.1,
            message,
            fix: fix.into(),
        });
    }

    /// Reports keys of `map` not in `allowed`; `node` is the same mapping
    /// in the span tree (for positions).
    fn unknown_keys(&mut self, node: Option<&Node>, map: &Mapping, allowed: &[&str], what: &str) {
        for k in map.keys() {
            let name = scalar(k);
            if allowed.contains(&name.as_str()) {
                continue;
            }
            let at = node
                .and_then(|n| n.entry(&name))
                .map_or((1, 1), |(k, _)| k.pos());
            let fix = if what == "top-level" && Tier::parse(&name).is_some() {
                format!(
                    "write the tier key as `{}:` (keys are very_high, high, medium, low, very_low)",
                    Tier::parse(&name).map(Tier::key).unwrap_or_default()
                )
            } else if let Some(s) = closest(&name, allowed) {
                format!("did you mean `{s}:`? allowed keys: {}", allowed.join(", "))
            } else {
                format!("remove it; allowed keys: {}", allowed.join(", "))
            };
            self.push(at, format!("unknown {what} key `{name}`"), fix);
        }
    }
}

/// A value as the file writes it: a scalar's text, a list or mapping as
/// one line of YAML (`[1, 2]`), never Rust's debug form.
fn scalar(v: &Value) -> String {
    inline_yaml(v)
}

/// The allowed word nearest to `word` by edit distance, if close.
fn closest<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (levenshtein(word, a), *a))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, a)| a)
}

/// Edit distance in characters.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Where a normalised title or alias was first seen in a file.
struct Seen {
    tier: Tier,
    title: String,
    line: usize,
    alias: bool,
}

/// Checks one file's text. Returns the parsed value (if it parsed) and every
/// problem found. Does not follow `extends:` (see [`check_files`]).
pub fn check_text(file: &Path, text: &str) -> (Option<Value>, Vec<Problem>) {
    let problem = |at: (usize, usize), message: String, fix: &str| Problem {
        file: file.to_path_buf(),
        line: at.0,
        col: at.1,
        message,
        fix: fix.into(),
    };
    let root = match spanned::parse(text) {
        Ok(Some(root)) => root,
        Ok(None) => Node {
            line: 1,
            col: 1,
            kind: spanned::Kind::Scalar(String::new(), true),
        },
        Err(e) => {
            return (
                None,
                vec![problem(
                    (e.line, e.col),
                    format!("not valid YAML: {}", e.message),
                    "fix the YAML syntax (indent list items under their key, quote titles containing `: ` or `#`)",
                )],
            )
        }
    };
    let value = root.to_value();
    let mut c = Checker {
        file,
        loc: Locator { root },
        problems: Vec::new(),
    };
    for (path, key, at, first) in c.loc.root.duplicate_keys() {
        let place = if path.is_empty() {
            "top-level key".to_string()
        } else {
            format!("key of `{path}`")
        };
        c.problems.push(problem(
            at,
            format!(
                "duplicate {place} `{key}` (first at line {}, column {}); only the first is read",
                first.0, first.1
            ),
            &format!("keep one `{key}:` and move the lines under this one into it"),
        ));
    }
    let Value::Mapping(map) = &value else {
        c.push(
            (1, 1),
            "an index file must be a mapping of keys".into(),
            "start with `document_type: credit_agreement` and list tiers as `very_high:` ... `very_low:`",
        );
        return (None, c.problems);
    };
    let root = c.loc.root.clone();
    c.unknown_keys(Some(&root), map, &TOP_KEYS, "top-level");

    let has_extends = map.contains_key("extends");
    for key in ["document_type", "version", "description", "extends"] {
        match map.get(key) {
            None | Some(Value::Null) if key == "document_type" && !has_extends => c.push(
                (1, 1),
                "missing `document_type`".into(),
                "add `document_type: credit_agreement` (overlays with `extends:` may omit it)",
            ),
            Some(Value::String(s)) if s.trim().is_empty() && key != "description" => c.push(
                c.loc.key(key),
                format!("`{key}` is empty"),
                format!("give `{key}` a value"),
            ),
            Some(Value::String(_)) | None => {}
            Some(Value::Number(_)) if key == "version" => {}
            Some(other) => c.push(
                c.loc.key(key),
                format!("`{key}` must be a string, got `{}`", scalar(other)),
                format!("write `{key}: \"...\"`"),
            ),
        }
    }
    if let Some(Value::String(base)) = map.get("extends") {
        let p = file.parent().unwrap_or(Path::new(".")).join(base);
        if !p.exists() {
            c.push(
                c.loc.key("extends"),
                format!("`extends: {base}` names a file that does not exist ({})", p.display()),
                "give the base index path relative to this file, e.g. `extends: ../credit_agreement.yaml`",
            );
        }
    }
    check_match(&mut c, map.get("match"));
    check_density(&mut c, map.get("density"));
    check_ontology(&mut c, map.get("ontology"));
    let anchors = string_list(&mut c, map, "anchors");
    let noise = string_list(&mut c, map, "noise");
    check_tiers(&mut c, map, &anchors, &noise);
    (Some(value), c.problems)
}

fn check_match(c: &mut Checker<'_>, v: Option<&Value>) {
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(m)) => {
            let node = c.loc.node(&["match"]).cloned();
            c.unknown_keys(node.as_ref(), m, &MATCH_KEYS, "`match`");
            if let Some(t) = m.get("fuzzy_threshold") {
                let ok = t.as_f64().is_some_and(|x| x > 0.0 && x <= 1.0);
                if !ok {
                    c.push(
                        c.loc.child("match", "fuzzy_threshold"),
                        format!(
                            "`match.fuzzy_threshold` must be a number in (0, 1], got `{}`",
                            scalar(t)
                        ),
                        "write e.g. `fuzzy_threshold: 0.82`",
                    );
                }
            }
        }
        Some(other) => c.push(
            c.loc.key("match"),
            format!("`match` must be a mapping, got `{}`", scalar(other)),
            "write `match:` then `  fuzzy_threshold: 0.82` on the next line",
        ),
    }
}

fn check_density(c: &mut Checker<'_>, v: Option<&Value>) {
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(m)) => {
            let node = c.loc.node(&["density"]).cloned();
            c.unknown_keys(node.as_ref(), m, &DENSITY_KEYS, "`density`");
            let mut prev: Option<(String, f64)> = None;
            for k in DENSITY_KEYS.iter() {
                let Some(x) = m.get(*k) else {
                    c.push(
                        c.loc.key("density"),
                        format!("`density.{k}` is missing"),
                        "give all four thresholds: very_high, high, medium, low (relations per 1,000 chars)",
                    );
                    continue;
                };
                match x.as_f64() {
                    Some(f) if f >= 0.0 => {
                        if let Some((pk, pf)) = &prev {
                            if f > *pf {
                                c.push(
                                    c.loc.child("density", k),
                                    format!("`density.{k}` ({f}) is above `density.{pk}` ({pf})"),
                                    "thresholds must not increase from very_high down to low",
                                );
                            }
                        }
                        prev = Some((k.to_string(), f));
                    }
                    _ => c.push(
                        c.loc.child("density", k),
                        format!(
                            "`density.{k}` must be a non-negative number, got `{}`",
                            scalar(x)
                        ),
                        format!("write e.g. `{k}: 1.0`"),
                    ),
                }
            }
        }
        Some(other) => c.push(
            c.loc.key("density"),
            format!("`density` must be a mapping, got `{}`", scalar(other)),
            "write `density:` with keys very_high, high, medium, low",
        ),
    }
}

fn check_ontology(c: &mut Checker<'_>, v: Option<&Value>) {
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(m)) => {
            let node = c.loc.node(&["ontology"]).cloned();
            c.unknown_keys(node.as_ref(), m, &ONTOLOGY_KEYS, "`ontology`");
            for k in ONTOLOGY_KEYS.iter().filter(|k| **k != "review_only") {
                match m.get(*k) {
                    None | Some(Value::Null) => {}
                    Some(Value::Mapping(types)) => {
                        for (name, meaning) in types {
                            if !matches!(meaning, Value::String(_))
                                || !matches!(name, Value::String(_))
                            {
                                c.push(
                                    c.loc.ontology_name(k, &scalar(name)),
                                    format!("`ontology.{k}.{}` must map a name to a one-line meaning", scalar(name)),
                                    "write e.g. `Organization: \"A company or other legal person\"`",
                                );
                            }
                        }
                    }
                    Some(other) => c.push(
                        c.loc.child("ontology", k),
                        format!("`ontology.{k}` must be a mapping, got `{}`", scalar(other)),
                        format!("write `{k}:` then `  Name: \"meaning\"` lines"),
                    ),
                }
            }
            match m.get("review_only") {
                None | Some(Value::Null) => {}
                Some(Value::Sequence(items))
                    if items
                        .iter()
                        .all(|i| matches!(i, Value::String(t) if !t.trim().is_empty())) => {}
                Some(other) => c.push(
                    c.loc.child("ontology", "review_only"),
                    format!(
                        "`ontology.review_only` must be a list of relation types, got `{}`",
                        scalar(other)
                    ),
                    "write `review_only:` then `  - EXCLUSIVITY` lines",
                ),
            }
        }
        Some(other) => c.push(
            c.loc.key("ontology"),
            format!("`ontology` must be a mapping, got `{}`", scalar(other)),
            "write `ontology:` with `entity_types:` and `relation_types:`",
        ),
    }
}

/// A list of non-empty strings (`anchors`, `noise`); returns the good ones.
fn string_list(c: &mut Checker<'_>, map: &Mapping, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    match map.get(key) {
        None | Some(Value::Null) => {}
        Some(Value::Sequence(items)) => {
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) if !normalize_title(s).is_empty() => out.push(s.clone()),
                    other => c.push(
                        c.loc.item(key, i),
                        format!("`{key}` item `{}` is empty or not a title", scalar(other)),
                        format!(
                            "write a title, e.g. `- {}`",
                            if key == "noise" {
                                "Table of Contents"
                            } else {
                                "Subsidiaries"
                            }
                        ),
                    ),
                }
            }
        }
        Some(other) => c.push(
            c.loc.key(key),
            format!("`{key}` must be a list of titles, got `{}`", scalar(other)),
            format!("write `{key}:` then `  - Title` lines"),
        ),
    }
    out
}

/// A tier entry as written (title, aliases), or `None` if malformed (already
/// reported).
fn parse_entry(
    c: &mut Checker<'_>,
    tier: Tier,
    (index, item): (usize, &Value),
    at: (usize, usize),
) -> Option<(String, Vec<String>)> {
    let key = tier.key();
    match item {
        Value::String(s) => {
            if normalize_title(s).is_empty() {
                c.push(
                    at,
                    format!("entry `{s}` in `{key}` is empty after normalisation (only numbering or punctuation)"),
                    "write the section's title words, e.g. `- Governing Law`",
                );
                return None;
            }
            Some((s.clone(), Vec::new()))
        }
        Value::Mapping(m) => {
            let node = c
                .loc
                .node(&[key])
                .and_then(|n| n.items().get(index))
                .cloned();
            c.unknown_keys(node.as_ref(), m, &ENTRY_KEYS, &format!("`{key}` entry"));
            let title = match m.get("title") {
                Some(Value::String(t)) if !normalize_title(t).is_empty() => t.clone(),
                None | Some(Value::Null) if m.contains_key("title") => {
                    c.push(
                        at,
                        format!("an entry in `{key}` has an empty `title`"),
                        "write the title after it: `- title: Governing Law`",
                    );
                    return None;
                }
                Some(other) => {
                    c.push(
                        at,
                        format!(
                            "entry title `{}` in `{key}` is empty or not text",
                            scalar(other)
                        ),
                        "write `- title: Governing Law`",
                    );
                    return None;
                }
                None => {
                    c.push(
                        at,
                        format!("an entry in `{key}` has no `title`"),
                        "every mapping entry needs `title:`, e.g. `- title: Definitions`",
                    );
                    return None;
                }
            };
            let mut aliases = Vec::new();
            match m.get("aliases") {
                None | Some(Value::Null) => {}
                Some(Value::Sequence(list)) => {
                    for a in list {
                        match a {
                            Value::String(s) if !normalize_title(s).is_empty() => {
                                aliases.push(s.clone())
                            }
                            other => c.push(
                                at,
                                format!(
                                    "alias `{}` of `{title}` is empty or not text",
                                    scalar(other)
                                ),
                                "remove it or write a title, e.g. `aliases: [Defined Terms]`",
                            ),
                        }
                    }
                }
                Some(other) => c.push(
                    at,
                    format!(
                        "`aliases` of `{title}` must be a list, got `{}`",
                        scalar(other)
                    ),
                    "write `aliases: [Defined Terms, Certain Defined Terms]`",
                ),
            }
            if let Some(n) = m.get("note") {
                if !matches!(n, Value::String(_) | Value::Null) {
                    c.push(
                        at,
                        format!("`note` of `{title}` must be text"),
                        "write `note: why it sits in this tier`",
                    );
                }
            }
            Some((title, aliases))
        }
        Value::Null => {
            c.push(
                at,
                format!("empty entry in `{key}`"),
                "remove the lone `-` or write a title after it",
            );
            None
        }
        other => {
            c.push(
                at,
                format!(
                    "entry `{}` in `{key}` must be a title or a mapping",
                    scalar(other)
                ),
                "write `- Governing Law` or `- title: Governing Law`",
            );
            None
        }
    }
}

/// An entry that opens like `Section 16 Matters` or `Section 338 Election`:
/// a one-number `Section N` followed by words with no separator. Entries
/// are read without their numbering (a pasted `Section 1.01 Definitions` or
/// `SECTION 5. Covenants` becomes `Definitions`, `Covenants`), so such a
/// statute reference would be dropped and the entry match every heading
/// named `Matters`. Returns the label and what is left.
fn statute_like_label(entry: &str) -> Option<(crate::tree::Label, String)> {
    let (label, rest) = crate::tree::split_heading(entry);
    let label = label?;
    let after = entry.trim_start().get(label.text.len()..)?;
    let bare = label.kind == crate::tree::LabelKind::Section
        && label.seq.len() == 1
        && after.starts_with(char::is_whitespace)
        && !after.trim_start().starts_with(['.', ':', '-', '\u{2014}']);
    (bare && !rest.is_empty()).then_some((label, rest))
}

fn check_tiers(c: &mut Checker<'_>, map: &Mapping, anchors: &[String], noise: &[String]) {
    let mut seen: HashMap<String, Seen> = HashMap::new();
    let noise_set: HashMap<String, &String> =
        noise.iter().map(|n| (normalize_title(n), n)).collect();
    let mut anchor_tiers: HashMap<String, Tier> = HashMap::new();
    for tier in Tier::ALL {
        let key = tier.key();
        let items = match map.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Sequence(items)) => items,
            Some(other) => {
                c.push(
                    c.loc.key(key),
                    format!("`{key}` must be a list of entries, got `{}`", scalar(other)),
                    format!("write `{key}:` then `  - Title` lines, or `{key}: []`"),
                );
                continue;
            }
        };
        let positions = c.loc.entries(key, items.len());
        for ((index, item), at) in items.iter().enumerate().zip(positions) {
            let Some((title, aliases)) = parse_entry(c, tier, (index, item), at) else {
                continue;
            };
            for (name, is_alias) in
                std::iter::once((&title, false)).chain(aliases.iter().map(|a| (a, true)))
            {
                let norm = normalize_title(name);
                if let Some((label, rest)) = statute_like_label(name) {
                    let what = if is_alias { "alias" } else { "title" };
                    c.push(
                        at,
                        format!(
                            "{what} `{name}` in `{key}` starts with what reads as numbering \
                                 (`{}`), so it is matched as `{rest}`",
                            label.text
                        ),
                        format!(
                            "put the number after the words, e.g. `{rest} under {}`, \
                                 or drop it",
                            label.text
                        ),
                    );
                }
                if let Some(n) = noise_set.get(&norm) {
                    c.push(
                        at,
                        format!("`{name}` is listed in `{key}` and also as noise (`{n}`)"),
                        "a title is either noise or in a tier: remove one of them",
                    );
                }
                if let Some(prev) = seen.get(&norm) {
                    let what = if is_alias { "alias" } else { "title" };
                    let (message, fix) = if prev.title == title && is_alias {
                        let other = if prev.alias {
                            "another of its aliases"
                        } else {
                            "its own title"
                        };
                        (
                            format!("alias `{name}` of `{title}` normalises like {other}"),
                            "remove the alias; the entry already matches it".to_string(),
                        )
                    } else if prev.tier != tier {
                        (
                            format!(
                                "{what} `{name}` in `{key}` is already in `{}` (line {}, as {} of `{}`)",
                                prev.tier.key(),
                                prev.line,
                                if prev.alias { "an alias" } else { "the title" },
                                prev.title
                            ),
                            "the same title must not appear in two tiers: keep it in one tier and delete the other".to_string(),
                        )
                    } else {
                        (
                            format!(
                                "{what} `{name}` in `{key}` duplicates {} `{}` (line {}) after normalisation",
                                if prev.alias { "an alias of" } else { "the entry" },
                                prev.title,
                                prev.line
                            ),
                            "delete the duplicate or merge it into the first entry's aliases".to_string(),
                        )
                    };
                    c.push(at, message, fix);
                } else {
                    seen.insert(
                        norm.clone(),
                        Seen {
                            tier,
                            title: title.clone(),
                            line: at.0,
                            alias: is_alias,
                        },
                    );
                }
                anchor_tiers.entry(norm).or_insert(tier);
            }
        }
    }
    for a in anchors {
        if let Some(t) = anchor_tiers.get(&normalize_title(a)) {
            if *t != Tier::VeryHigh {
                c.push(
                    c.loc.item_named("anchors", a),
                    format!(
                        "anchor `{a}` is listed in `{}`, but anchors are pinned Very High",
                        t.key()
                    ),
                    format!("move `{a}` to `very_high` or remove it from `anchors`"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<Problem> {
        check_text(Path::new("t.yaml"), text).1
    }

    #[test]
    fn good_file_has_no_problems() {
        let p = problems(
            "document_type: x\nversion: \"1\"\nanchors: [Subsidiaries]\nnoise: [Table of Contents]\nvery_high:\n  - title: Definitions\n    aliases: [Defined Terms]\n  - Subsidiaries\nlow:\n  - Governing Law\nmedium: []\n",
        );
        assert!(p.is_empty(), "{p:?}");
    }

    #[test]
    fn a_statute_number_at_the_start_of_an_entry_is_flagged_and_pasted_numbering_is_not() {
        let text = "document_type: x\nmedium:\n  - title: Tax Matters\n    aliases: [Section 338 Election, Election under Section 409A]\n  - Section 1.01 Definitions\n  - SECTION 5. Covenants\nlow:\n  - Section 16 Matters\n";
        let p = problems(text);
        let got: Vec<(usize, &str)> = p.iter().map(|p| (p.line, p.message.as_str())).collect();
        assert_eq!(p.len(), 2, "{got:#?}");
        assert_eq!(p[0].line, 3);
        assert!(
            p[0].message.contains("`Section 338 Election`")
                && p[0].message.contains("as `Election`")
        );
        assert!(p[0].fix.contains("Election under Section 338"));
        assert_eq!(p[1].line, 8);
        assert!(p[1].message.contains("`Section 16 Matters`"));
    }

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let text = "document_type: x\nveryhigh:\n  - Definitions\nhigh:\n  - Notices\n  - title: Taxes\n    alias: [Tax]\nlow:\n  - Notices\n  - Section 1.01\n  - title: Liens\n    aliases: [Taxes]\nmatch:\n  fuzzy_threshold: 3\n";
        let p = problems(text);
        let lines: Vec<(usize, &str)> = p.iter().map(|p| (p.line, p.message.as_str())).collect();
        assert_eq!(p.len(), 6, "{lines:#?}");
        assert!(p[0].message.contains("unknown top-level key `veryhigh`") && p[0].line == 2);
        assert!(p[0].fix.contains("very_high"));
        assert!(p
            .iter()
            .any(|p| p.line == 14 && p.message.contains("fuzzy_threshold")));
        assert!(p
            .iter()
            .any(|p| p.line == 7 && p.message.contains("`alias`") && p.fix.contains("aliases")));
        assert!(p
            .iter()
            .any(|p| p.line == 9 && p.message.contains("already in `high`")));
        assert!(p
            .iter()
            .any(|p| p.line == 10 && p.message.contains("empty after normalisation")));
        assert!(p.iter().any(|p| p.line == 11
            && p.message.contains("alias `Taxes`")
            && p.message.contains("already in `high`")));
        assert!(p
            .iter()
            .all(|p| p.to_string().starts_with(&format!("t.yaml:{}:", p.line))));
    }

    #[test]
    fn anchors_outside_very_high_and_bad_yaml() {
        let p = problems("document_type: x\nanchors: [Subsidiaries]\nmedium:\n  - Subsidiaries\n");
        assert_eq!(p.len(), 1);
        assert!(p[0].fix.contains("very_high"));
        let p = problems("document_type: x\nhigh:\n  - a\n - b\n");
        assert_eq!(p.len(), 1);
        assert!(p[0].line >= 3 && p[0].message.contains("not valid YAML"));
    }
}
