//! `kgroute index check`: validation of graphability index files.
//!
//! Reviewers edit these YAML files by hand, so a mistake must be reported
//! with its file, line and column, the bad value, and what to write instead;
//! and every mistake of a file is reported in one run, not just the first.
//! Loading ([`super::load`]) runs the same checks before it builds an index.

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

/// Top-level keys allowed in an index file.
pub const TOP_KEYS: &[&str] = &[
    "document_type",
    "version",
    "description",
    "extends",
    "match",
    "density",
    "ontology",
    "anchors",
    "noise",
    "concepts",
    "detect",
    "very_high",
    "high",
    "medium",
    "low",
    "very_low",
];
const MATCH_KEYS: &[&str] = &["fuzzy_threshold"];
const DENSITY_KEYS: &[&str] = &["very_high", "high", "medium", "low"];
const ONTOLOGY_KEYS: &[&str] = &["entity_types", "relation_types"];
const ENTRY_KEYS: &[&str] = &["title", "aliases", "note"];

/// Finds where things are in the raw text (serde values carry no spans).
pub(crate) struct Locator<'a> {
    lines: Vec<&'a str>,
    /// (line index, key) of every unindented `key:` line.
    top: Vec<(usize, String)>,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let top = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let first = l.chars().next()?;
                if first.is_whitespace() || first == '#' || first == '-' {
                    return None;
                }
                let key = l.split(':').next()?.trim().trim_matches(['"', '\'']);
                l.contains(':').then(|| (i, key.to_string()))
            })
            .collect();
        Self { lines, top }
    }

    /// Line range (0-based, end exclusive) of a top-level key's block.
    fn block(&self, key: &str) -> Option<(usize, usize)> {
        let pos = self.top.iter().position(|(_, k)| k == key)?;
        let start = self.top[pos].0;
        let end = self.top.get(pos + 1).map_or(self.lines.len(), |t| t.0);
        Some((start, end))
    }

    /// 1-based (line, col) of a top-level key.
    pub(crate) fn key(&self, key: &str) -> (usize, usize) {
        self.block(key).map_or((0, 0), |(s, _)| (s + 1, 1))
    }

    /// 1-based (line, col) of the first occurrence of `needle` at or after
    /// 0-based line `from` inside `key`'s block; the key itself if absent.
    pub(crate) fn find_in(&self, key: &str, needle: &str, from: usize) -> (usize, usize) {
        let Some((start, end)) = self.block(key) else {
            return (0, 0);
        };
        let from = from.max(start);
        for i in from..end {
            if let Some(c) = self.lines[i].find(needle) {
                return (i + 1, self.lines[i][..c].chars().count() + 1);
            }
        }
        (start + 1, 1)
    }

    /// Positions of the entries of a tier, in order (each search starts
    /// after the previous entry so repeated titles get their own lines).
    pub(crate) fn entries(&self, key: &str, titles: &[String]) -> Vec<(usize, usize)> {
        let Some((start, end)) = self.block(key) else {
            return vec![(0, 0); titles.len()];
        };
        // A block list: the n-th `- ` line at the items' indentation is the
        // n-th entry, whatever its title (even an empty one) looks like.
        let items: Vec<(usize, usize)> = (start + 1..end)
            .filter_map(|i| {
                let l = self.lines[i];
                let body = l.trim_start();
                let indent = l.len() - body.len();
                (body == "-" || body.starts_with("- ")).then_some((i, indent))
            })
            .collect();
        if let Some(&(_, first_indent)) = items.first() {
            let at_level: Vec<(usize, usize)> = items
                .iter()
                .filter(|(_, ind)| *ind == first_indent)
                .map(|&(i, ind)| (i + 1, ind + 1))
                .collect();
            if at_level.len() == titles.len() {
                return at_level;
            }
        }
        let mut cursor = start + 1;
        titles
            .iter()
            .map(|t| {
                let pos = self.find_in(key, t, cursor);
                if pos.0 > start + 1 {
                    cursor = pos.0;
                }
                pos
            })
            .collect()
    }
}

/// Collects problems for one file's text.
struct Checker<'a> {
    file: &'a Path,
    loc: Locator<'a>,
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

    fn unknown_keys(&mut self, block: &str, map: &Mapping, allowed: &[&str], what: &str) {
        for k in map.keys() {
            let name = scalar(k);
            if allowed.contains(&name.as_str()) {
                continue;
            }
            let at = if what == "top-level" {
                self.loc.key(&name)
            } else {
                self.loc.find_in(block, &format!("{name}:"), 0)
            };
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

/// The text of a scalar YAML value.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        other => format!("{other:?}"),
    }
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

fn levenshtein(a: &str, b: &str) -> usize {
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
    let mut c = Checker {
        file,
        loc: Locator::new(text),
        problems: Vec::new(),
    };
    let value: Value = match serde_yaml_ng::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let at = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            c.push(
                at,
                format!("not valid YAML: {e}"),
                "fix the YAML syntax (indent list items under their key, quote titles containing `: ` or `#`)",
            );
            return (None, c.problems);
        }
    };
    let Value::Mapping(map) = &value else {
        c.push(
            (1, 1),
            "an index file must be a mapping of keys".into(),
            "start with `document_type: credit_agreement` and list tiers as `very_high:` ... `very_low:`",
        );
        return (None, c.problems);
    };
    c.unknown_keys("", map, TOP_KEYS, "top-level");

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
            c.unknown_keys("match", m, MATCH_KEYS, "`match`");
            if let Some(t) = m.get("fuzzy_threshold") {
                let ok = t.as_f64().is_some_and(|x| x > 0.0 && x <= 1.0);
                if !ok {
                    c.push(
                        c.loc.find_in("match", "fuzzy_threshold", 0),
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
            c.unknown_keys("density", m, DENSITY_KEYS, "`density`");
            let mut prev: Option<(String, f64)> = None;
            for k in DENSITY_KEYS {
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
                                    c.loc.find_in("density", &format!("{k}:"), 0),
                                    format!("`density.{k}` ({f}) is above `density.{pk}` ({pf})"),
                                    "thresholds must not increase from very_high down to low",
                                );
                            }
                        }
                        prev = Some((k.to_string(), f));
                    }
                    _ => c.push(
                        c.loc.find_in("density", &format!("{k}:"), 0),
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
            c.unknown_keys("ontology", m, ONTOLOGY_KEYS, "`ontology`");
            for k in ONTOLOGY_KEYS {
                match m.get(*k) {
                    None | Some(Value::Null) => {}
                    Some(Value::Mapping(types)) => {
                        for (name, meaning) in types {
                            if !matches!(meaning, Value::String(_))
                                || !matches!(name, Value::String(_))
                            {
                                c.push(
                                    c.loc.find_in("ontology", &scalar(name), 0),
                                    format!("`ontology.{k}.{}` must map a name to a one-line meaning", scalar(name)),
                                    "write e.g. `Organization: \"A company or other legal person\"`",
                                );
                            }
                        }
                    }
                    Some(other) => c.push(
                        c.loc.find_in("ontology", &format!("{k}:"), 0),
                        format!("`ontology.{k}` must be a mapping, got `{}`", scalar(other)),
                        format!("write `{k}:` then `  Name: \"meaning\"` lines"),
                    ),
                }
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
            for item in items {
                match item {
                    Value::String(s) if !normalize_title(s).is_empty() => out.push(s.clone()),
                    other => c.push(
                        c.loc.find_in(key, &scalar(other), 1),
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
    item: &Value,
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
            c.unknown_keys(key, m, ENTRY_KEYS, &format!("`{key}` entry"));
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
        let titles: Vec<String> = items
            .iter()
            .map(|i| match i {
                Value::Mapping(m) => match m.get("title") {
                    Some(Value::String(t)) => t.clone(),
                    _ => "title:".to_string(),
                },
                Value::Null => "-".to_string(),
                other => scalar(other),
            })
            .collect();
        let positions = c.loc.entries(key, &titles);
        for (item, at) in items.iter().zip(positions) {
            let Some((title, aliases)) = parse_entry(c, tier, item, at) else {
                continue;
            };
            for (name, is_alias) in
                std::iter::once((&title, false)).chain(aliases.iter().map(|a| (a, true)))
            {
                let norm = normalize_title(name);
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
                    c.loc.find_in("anchors", a, 1),
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

/// Checks index files and the bases they extend, then the merged result
/// (base plus overlays, in the given order). Returns every problem found;
/// an empty list means the files load.
pub fn check_files(paths: &[PathBuf]) -> Vec<Problem> {
    match super::load::load_files(paths) {
        Ok(_) => Vec::new(),
        Err(super::IndexError::Invalid { problems }) => problems,
        Err(e) => vec![Problem {
            file: e.path().to_path_buf(),
            line: 0,
            col: 0,
            message: e.to_string(),
            fix: "check the path and that the file is readable".into(),
        }],
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
