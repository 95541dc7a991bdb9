//! A line-level editor for graphability index YAML files.
//!
//! `kgroute review --write` must keep every comment, the order of entries
//! and the author's formatting, which a serde round-trip would lose. So the
//! file is kept as lines; a small scanner finds the top-level tier keys
//! (`very_high:` ... at column 0) and the list items under them, and each
//! edit inserts, rewrites or moves whole lines. Each entry's own text is
//! parsed with `serde_yaml_ng` to read its title and aliases, so the scanner
//! never has to understand YAML scalars itself.

use super::scalar::yaml_scalar;
use crate::index::{normalize_title, Tier};
use anyhow::{anyhow, bail, Result};
use serde_yaml_ng::Value;

/// An index YAML file as editable lines.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexText {
    lines: Vec<String>,
    trailing_newline: bool,
    /// `\r\n` when the file was written with Windows line ends.
    newline: &'static str,
    /// Entries already read, by their text: an edit moves lines but rarely
    /// changes an entry, and reading every entry with a YAML parser on each
    /// lookup would make a review of 3,000 decisions quadratic.
    memo: EntryMemo,
}

/// What an entry's own text says, with its names normalised once.
#[derive(Debug)]
struct ParsedEntry {
    title: String,
    aliases: Vec<String>,
    bare: bool,
    norm_title: String,
    norm_aliases: Vec<String>,
}

/// Entry text -> [`ParsedEntry`]; shared by clones, never part of equality.
#[derive(Debug, Clone, Default)]
struct EntryMemo(
    std::sync::Arc<
        std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<ParsedEntry>>>,
    >,
);

impl PartialEq for EntryMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// One list item under a tier key.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryBlock {
    pub tier: Tier,
    /// First line (the `- ` line), 0-based.
    pub start: usize,
    /// One past the entry's last content line (trailing blank lines and
    /// comments stay where they are).
    pub end: usize,
    /// Column of the `-`.
    pub indent: usize,
    pub title: String,
    pub aliases: Vec<String>,
    /// Written as a bare string (`- Governing Law`), not a mapping.
    pub bare: bool,
}

/// Where a tier's list lives.
#[derive(Debug, Clone, Copy)]
struct TierBlock {
    key_line: usize,
    /// One past the last line that belongs to the list (column-0 comments
    /// before the next key belong to that key).
    content_end: usize,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// Splits a line into its content and its trailing comment (with the spaces
/// before it), ignoring `#` inside quotes.
pub(crate) fn split_comment(line: &str) -> (&str, &str) {
    let mut in_single = false;
    let mut in_double = false;
    let mut prev_space = true;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_double => escaped = true,
            '"' if !in_single => in_double = !in_double,
            '\'' if !in_double => in_single = !in_single,
            '#' if !in_single && !in_double && prev_space => {
                let content = line[..i].trim_end_matches([' ', '\t']);
                return (content, &line[content.len()..]);
            }
            _ => {}
        }
        prev_space = c == ' ' || c == '\t';
    }
    (line, "")
}

/// The top-level key of a line, if it is one (`very_high:`, `match:`).
pub(crate) fn top_key(line: &str) -> Option<&str> {
    if line.starts_with([' ', '\t', '#', '-']) || line.starts_with("...") {
        return None;
    }
    let (key, rest) = line.split_once(':')?;
    let valid = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (valid && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some(key)
}

impl IndexText {
    pub fn new(text: &str) -> Self {
        let trailing_newline = text.ends_with('\n') || text.is_empty();
        let lines = text.lines().map(str::to_string).collect();
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        IndexText {
            lines,
            trailing_newline,
            newline,
            memo: EntryMemo::default(),
        }
    }

    pub(crate) fn lines_ref(&self) -> &[String] {
        &self.lines
    }

    pub(crate) fn set_line(&mut self, i: usize, line: String) {
        self.lines[i] = line;
    }

    pub(crate) fn insert_line(&mut self, at: usize, line: String) {
        self.lines.insert(at, line);
    }

    /// The file's text, with its original line ends.
    pub fn render(&self) -> String {
        let mut out = self.lines.join(self.newline);
        if self.trailing_newline && !self.lines.is_empty() {
            out.push_str(self.newline);
        }
        out
    }

    fn tier_block(&self, tier: Tier) -> Option<TierBlock> {
        let key_line = self
            .lines
            .iter()
            .position(|l| top_key(l) == Some(tier.key()))?;
        let next_key = (key_line + 1..self.lines.len())
            .find(|&i| top_key(&self.lines[i]).is_some())
            .unwrap_or(self.lines.len());
        let mut content_end = next_key;
        while content_end > key_line + 1 {
            let l = &self.lines[content_end - 1];
            if l.trim().is_empty() || l.starts_with('#') {
                content_end -= 1;
            } else {
                break;
            }
        }
        Some(TierBlock {
            key_line,
            content_end,
        })
    }

    /// The value written on the key line itself (`[]`, `[a, b]`, or empty
    /// for a block list), without its comment.
    fn key_value(&self, block: TierBlock) -> &str {
        let line = &self.lines[block.key_line];
        let (content, _) = split_comment(line);
        content.split_once(':').map_or("", |(_, v)| v.trim())
    }

    /// Every entry of a tier, in file order.
    pub fn entries(&self, tier: Tier) -> Result<Vec<EntryBlock>> {
        Ok(self
            .entries_read(tier)?
            .into_iter()
            .map(|(e, _)| e)
            .collect())
    }

    /// [`Self::entries`] with what each entry's text says.
    fn entries_read(&self, tier: Tier) -> Result<Vec<(EntryBlock, std::sync::Arc<ParsedEntry>)>> {
        let Some(block) = self.tier_block(tier) else {
            return Ok(Vec::new());
        };
        let value = self.key_value(block);
        if !value.is_empty() && value != "[]" && value != "~" && value != "null" {
            // A one-line flow list of bare titles: `low: [A, B]`.
            let parsed: Vec<String> = serde_yaml_ng::from_str(value).map_err(|e| {
                anyhow!(
                    "line {}: `{}:` must be a list of titles: {e}",
                    block.key_line + 1,
                    tier.key()
                )
            })?;
            return Ok(parsed
                .into_iter()
                .map(|title| {
                    let read = std::sync::Arc::new(ParsedEntry {
                        norm_title: normalize_title(&title),
                        norm_aliases: Vec::new(),
                        title: title.clone(),
                        aliases: Vec::new(),
                        bare: true,
                    });
                    let block = EntryBlock {
                        tier,
                        start: block.key_line,
                        end: block.key_line + 1,
                        indent: 0,
                        title,
                        aliases: Vec::new(),
                        bare: true,
                    };
                    (block, read)
                })
                .collect());
        }
        let items: Vec<usize> = (block.key_line + 1..block.content_end)
            .filter(|&i| {
                let t = self.lines[i].trim_start();
                t == "-" || t.starts_with("- ")
            })
            .collect();
        let Some(indent) = items.first().map(|&i| indent_of(&self.lines[i])) else {
            return Ok(Vec::new());
        };
        let starts: Vec<usize> = items
            .into_iter()
            .filter(|&i| indent_of(&self.lines[i]) == indent)
            .collect();
        let mut out = Vec::new();
        for (k, &start) in starts.iter().enumerate() {
            let mut end = starts.get(k + 1).copied().unwrap_or(block.content_end);
            while end > start + 1 && is_blank_or_comment(&self.lines[end - 1]) {
                end -= 1;
            }
            out.push(self.parse_entry(tier, start, end, indent)?);
        }
        Ok(out)
    }

    fn parse_entry(
        &self,
        tier: Tier,
        start: usize,
        end: usize,
        indent: usize,
    ) -> Result<(EntryBlock, std::sync::Arc<ParsedEntry>)> {
        let chunk: String = self.lines[start..end]
            .iter()
            .map(|l| format!("{}\n", l.get(indent.min(indent_of(l))..).unwrap_or("")))
            .collect();
        let known = self.memo.0.lock().expect("memo").get(&chunk).cloned();
        let parsed = match known {
            Some(p) => p,
            None => {
                let p = std::sync::Arc::new(parse_chunk(&chunk, start)?);
                self.memo
                    .0
                    .lock()
                    .expect("memo")
                    .insert(chunk, std::sync::Arc::clone(&p));
                p
            }
        };
        let block = EntryBlock {
            tier,
            start,
            end,
            indent,
            title: parsed.title.clone(),
            aliases: parsed.aliases.clone(),
            bare: parsed.bare,
        };
        Ok((block, parsed))
    }

    /// The first entry, highest tier first, whose read text `matches`.
    fn find_by(&self, matches: impl Fn(&ParsedEntry) -> bool) -> Result<Option<EntryBlock>> {
        for tier in Tier::ALL {
            if let Some((e, _)) = self
                .entries_read(tier)?
                .into_iter()
                .find(|(_, p)| matches(p))
            {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }

    /// Every entry of every tier, highest tier first.
    pub fn all_entries(&self) -> Result<Vec<EntryBlock>> {
        let mut out = Vec::new();
        for tier in Tier::ALL {
            out.extend(self.entries(tier)?);
        }
        Ok(out)
    }

    /// The entry whose title (normalised) is `name`.
    pub fn find_entry(&self, name: &str) -> Result<Option<EntryBlock>> {
        let key = normalize_title(name);
        self.find_by(|p| p.norm_title == key)
    }

    /// The entry that has `name` as its title or one of its aliases.
    pub fn find_title_or_alias(&self, name: &str) -> Result<Option<EntryBlock>> {
        let key = normalize_title(name);
        self.find_by(|p| p.norm_title == key || p.norm_aliases.contains(&key))
    }

    /// Makes sure the tier is a block list and returns (the line to insert
    /// a new item at, the items' indentation). Turns `medium: []` and
    /// `low: [A, B]` into block lists; appends a missing tier key.
    fn open_block_list(&mut self, tier: Tier) -> Result<(usize, usize)> {
        let Some(block) = self.tier_block(tier) else {
            let at = self.new_tier_position(tier);
            self.lines.insert(at, format!("{}:", tier.key()));
            return Ok((at + 1, 2));
        };
        let value = self.key_value(block).to_string();
        if value.is_empty() {
            // The first item's column (no entry is read for it).
            let indent = (block.key_line + 1..block.content_end)
                .map(|i| &self.lines[i])
                .find(|l| {
                    let t = l.trim_start();
                    t == "-" || t.starts_with("- ")
                })
                .map_or(2, |l| indent_of(l));
            return Ok((block.content_end, indent));
        }
        let flow_items: Vec<String> = if value == "~" || value == "null" {
            Vec::new()
        } else {
            serde_yaml_ng::from_str(&value)
                .map_err(|e| anyhow!("line {}: cannot read `{value}`: {e}", block.key_line + 1))?
        };
        let line = self.lines[block.key_line].clone();
        let (_, comment) = split_comment(&line);
        self.lines[block.key_line] = format!("{}:{comment}", tier.key());
        let items: Vec<String> = flow_items
            .iter()
            .map(|t| format!("  - {}", yaml_scalar(t, false)))
            .collect();
        let at = block.key_line + 1;
        let n = items.len();
        self.lines.splice(at..at, items);
        Ok((at + n, 2))
    }

    /// Where a missing tier key goes: after the list of the nearest higher
    /// tier, else before the nearest lower tier (and the comments above
    /// it), else at the end of the file after a blank line.
    fn new_tier_position(&mut self, tier: Tier) -> usize {
        let higher = Tier::ALL.iter().rev().filter(|t| t.rank() > tier.rank());
        if let Some(b) = higher.filter_map(|t| self.tier_block(*t)).next() {
            return b.content_end;
        }
        let lower = Tier::ALL.iter().filter(|t| t.rank() < tier.rank());
        if let Some(b) = lower.filter_map(|t| self.tier_block(*t)).next() {
            let mut at = b.key_line;
            while at > 0 && self.lines[at - 1].starts_with('#') {
                at -= 1;
            }
            return at;
        }
        if self.lines.last().is_some_and(|l| !l.trim().is_empty()) {
            self.lines.push(String::new());
        }
        self.lines.len()
    }

    /// Appends `- title: <title>` (and `note:`) at the end of a tier's list.
    pub fn add_entry(&mut self, tier: Tier, title: &str, note: &str) -> Result<()> {
        self.add_entry_with_aliases(tier, title, &[], note)
    }

    /// Appends `- title: <title>`, `aliases: [...]` (when any) and `note:`
    /// at the end of a tier's list.
    pub fn add_entry_with_aliases(
        &mut self,
        tier: Tier,
        title: &str,
        aliases: &[&str],
        note: &str,
    ) -> Result<()> {
        let (at, indent) = self.open_block_list(tier)?;
        let pad = " ".repeat(indent);
        let mut new = vec![format!("{pad}- title: {}", yaml_scalar(title, false))];
        if !aliases.is_empty() {
            let list: Vec<String> = aliases.iter().map(|a| yaml_scalar(a, true)).collect();
            new.push(format!("{pad}  aliases: [{}]", list.join(", ")));
        }
        new.push(format!("{pad}  note: {}", yaml_scalar(note, false)));
        self.lines.splice(at..at, new);
        Ok(())
    }

    /// The path of the base this overlay `extends:`, if it is an overlay.
    pub fn extends(&self) -> Option<String> {
        let line = self.lines.iter().find(|l| top_key(l) == Some("extends"))?;
        let (content, _) = split_comment(line);
        let value = content.split_once(':')?.1.trim();
        serde_yaml_ng::from_str::<String>(value).ok()
    }

    /// Adds `alias` to the aliases of the entry titled `entry`, turning a
    /// bare-string entry into a mapping and extending flow or block lists.
    pub fn add_alias(&mut self, entry: &str, alias: &str) -> Result<()> {
        let e = self
            .find_entry(entry)?
            .ok_or_else(|| anyhow!("no entry titled `{entry}`"))?;
        if e.indent == 0 && e.start == self.tier_block(e.tier).map_or(usize::MAX, |b| b.key_line) {
            // In a one-line flow list: make it a block list first.
            self.open_block_list(e.tier)?;
            return self.add_alias(entry, alias);
        }
        let pad = " ".repeat(e.indent);
        if e.bare {
            let line = self.lines[e.start].clone();
            let after_dash = &line[e.indent + 1..];
            let scalar = after_dash.trim_start();
            self.lines[e.start] = format!("{pad}- title: {scalar}");
            self.lines.insert(
                e.start + 1,
                format!("{pad}  aliases: [{}]", yaml_scalar(alias, true)),
            );
            return Ok(());
        }
        let key_indent = e.indent + 2;
        let aliases_line = (e.start..e.end).find(|&i| {
            let l = &self.lines[i];
            let body = if i == e.start { &l[e.indent + 1..] } else { l };
            body.trim_start().starts_with("aliases:")
        });
        let Some(i) = aliases_line else {
            let title_line = (e.start..e.end)
                .find(|&i| {
                    let l = &self.lines[i];
                    let body = if i == e.start { &l[e.indent + 1..] } else { l };
                    body.trim_start().starts_with("title:")
                })
                .unwrap_or(e.start);
            self.lines.insert(
                title_line + 1,
                format!(
                    "{}aliases: [{}]",
                    " ".repeat(key_indent),
                    yaml_scalar(alias, true)
                ),
            );
            return Ok(());
        };
        let line = self.lines[i].clone();
        let (content, comment) = split_comment(&line);
        let (head, value) = content
            .split_once("aliases:")
            .expect("line found by its aliases key");
        let value = value.trim();
        if value.starts_with('[') {
            let Some(inner) = value.strip_suffix(']') else {
                bail!(
                    "line {}: a flow list of aliases over several lines cannot be edited; put it on one line",
                    i + 1
                );
            };
            let inner = inner[1..].trim_end();
            let q = yaml_scalar(alias, true);
            let list = if inner.trim().is_empty() {
                format!("[{q}]")
            } else {
                format!("[{inner}, {q}]")
            };
            self.lines[i] = format!("{head}aliases: {list}{comment}");
            return Ok(());
        }
        if !value.is_empty() && value != "~" && value != "null" {
            bail!("line {}: `aliases:` must be a list", i + 1);
        }
        // Block list: after the last `- alias` line below the key.
        let own_indent = if i == e.start {
            key_indent
        } else {
            indent_of(&line)
        };
        let mut last = i;
        let mut item_indent = own_indent + 2;
        for j in i + 1..e.end {
            let l = &self.lines[j];
            if is_blank_or_comment(l) {
                continue;
            }
            if indent_of(l) >= own_indent && l.trim_start().starts_with("- ") {
                item_indent = indent_of(l);
                last = j;
            } else {
                break;
            }
        }
        self.lines.insert(
            last + 1,
            format!("{}- {}", " ".repeat(item_indent), yaml_scalar(alias, false)),
        );
        Ok(())
    }

    /// Moves the entry titled `entry` (its whole block) to the end of
    /// `tier`'s list. A tier left without entries becomes `[]`.
    pub fn retier(&mut self, entry: &str, tier: Tier) -> Result<()> {
        let mut e = self
            .find_entry(entry)?
            .ok_or_else(|| anyhow!("no entry titled `{entry}`"))?;
        if e.tier == tier {
            return Ok(());
        }
        if e.indent == 0 && Some(e.start) == self.tier_block(e.tier).map(|b| b.key_line) {
            self.open_block_list(e.tier)?;
            e = self.find_entry(entry)?.expect("entry still there");
        }
        let from = e.tier;
        // Comment lines right above the entry (indented at least as deep)
        // describe it and move with it.
        let key_line = self.tier_block(from).map_or(0, |b| b.key_line);
        let mut start = e.start;
        while start > key_line + 1 {
            let l = &self.lines[start - 1];
            if l.trim_start().starts_with('#') && indent_of(l) >= e.indent {
                start -= 1;
            } else {
                break;
            }
        }
        let moved: Vec<String> = self.lines.drain(start..e.end).collect();
        if self.entries(from)?.is_empty() {
            if let Some(b) = self.tier_block(from) {
                let line = self.lines[b.key_line].clone();
                let (_, comment) = split_comment(&line);
                self.lines[b.key_line] = format!("{}: []{comment}", from.key());
            }
        }
        let (at, indent) = self.open_block_list(tier)?;
        let moved: Vec<String> = moved
            .into_iter()
            .map(|l| reindent(&l, e.indent, indent))
            .collect();
        self.lines.splice(at..at, moved);
        Ok(())
    }
}

/// Shifts a line from one item indentation to another.
/// One entry's text (a one-item YAML list) read: title, aliases, bare.
fn parse_chunk(chunk: &str, start: usize) -> Result<ParsedEntry> {
    let value: Value = serde_yaml_ng::from_str(chunk)
        .map_err(|e| anyhow!("line {}: cannot read this entry: {e}", start + 1))?;
    let item = value
        .as_sequence()
        .and_then(|s| s.first())
        .ok_or_else(|| anyhow!("line {}: expected a list item", start + 1))?;
    let (title, aliases, bare) = match item {
        Value::String(s) => (s.clone(), Vec::new(), true),
        Value::Mapping(_) => {
            let title = item
                .get("title")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    anyhow!(
                        "line {}: entry has no `title:` (e.g. `- title: Use of Proceeds`)",
                        start + 1
                    )
                })?
                .to_string();
            let aliases = match item.get("aliases") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Sequence(s)) => s
                    .iter()
                    .map(|a| {
                        a.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| anyhow!("line {}: aliases must be strings", start + 1))
                    })
                    .collect::<Result<_>>()?,
                Some(_) => bail!(
                    "line {}: `aliases:` must be a list (e.g. `aliases: [Defined Terms]`)",
                    start + 1
                ),
            };
            (title, aliases, false)
        }
        _ => bail!(
            "line {}: an entry is a title or a mapping with `title:`",
            start + 1
        ),
    };
    Ok(ParsedEntry {
        norm_title: normalize_title(&title),
        norm_aliases: aliases.iter().map(|a| normalize_title(a)).collect(),
        title,
        aliases,
        bare,
    })
}

fn reindent(line: &str, from: usize, to: usize) -> String {
    if line.trim().is_empty() {
        return line.to_string();
    }
    let cur = indent_of(line);
    let new = (cur + to).saturating_sub(from);
    format!("{}{}", " ".repeat(new), &line[cur..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_found_outside_quotes_only() {
        assert_eq!(split_comment("low: []  # none"), ("low: []", "  # none"));
        assert_eq!(split_comment("- \"A # B\""), ("- \"A # B\"", ""));
        assert_eq!(split_comment("- A#B"), ("- A#B", ""));
    }

    fn edited(text: &str, edit: impl FnOnce(&mut IndexText) -> Result<()>) -> String {
        let mut t = IndexText::new(text);
        edit(&mut t).unwrap();
        let out = t.render();
        assert!(
            super::super::validate::layout_problems(std::path::Path::new("index.yaml"), &out)
                .is_empty(),
            "{out}: {:?}",
            super::super::validate::layout_problems(std::path::Path::new("index.yaml"), &out)
        );
        out
    }

    #[test]
    fn alias_on_an_entry_of_a_one_line_flow_tier() {
        let out = edited(
            "high: [Use of Proceeds, Litigation]  # short\nlow: []\n",
            |t| t.add_alias("litigation", "Legal Proceedings"),
        );
        assert_eq!(
            out,
            "high:  # short\n  - Use of Proceeds\n  - title: Litigation\n    aliases: [Legal Proceedings]\nlow: []\n"
        );
    }

    #[test]
    fn alias_under_an_empty_or_unindented_block_list() {
        let out = edited(
            "low:\n- title: Governing Law\n  aliases:\n  - Applicable Law\n  note: boilerplate\n",
            |t| t.add_alias("Governing Law", "Choice of Law"),
        );
        assert_eq!(
            out,
            "low:\n- title: Governing Law\n  aliases:\n  - Applicable Law\n  - Choice of Law\n  note: boilerplate\n"
        );
        let out = edited("low:\n  - title: Notices\n    aliases: []\n", |t| {
            t.add_alias("Notices", "Addresses, Notices")
        });
        assert_eq!(
            out,
            "low:\n  - title: Notices\n    aliases: [\"Addresses, Notices\"]\n"
        );
        let out = edited("low:\n  - title: Notices\n    note: x\n", |t| {
            t.add_alias("Notices", "Addresses")
        });
        assert_eq!(
            out,
            "low:\n  - title: Notices\n    aliases: [Addresses]\n    note: x\n"
        );
    }

    #[test]
    fn retier_empties_a_tier_to_brackets_and_keeps_line_ends() {
        let out = edited(
            "very_high:\r\n  - Definitions\r\nhigh:   # keep me\r\n  - title: Litigation\r\n    note: claims\r\n\r\n# low next\r\nlow: []\r\n",
            |t| t.retier("Litigation", Tier::VeryHigh),
        );
        assert_eq!(
            out,
            "very_high:\r\n  - Definitions\r\n  - title: Litigation\r\n    note: claims\r\nhigh: []   # keep me\r\n\r\n# low next\r\nlow: []\r\n"
        );
    }

    #[test]
    fn retier_reindents_between_list_styles_and_adds_missing_tiers() {
        let out = edited(
            "high:\n- title: Fees\n  aliases:\n  - Facility Fee\nlow:\n    - Notices\n",
            |t| {
                t.retier("Fees", Tier::Low)?;
                t.add_entry(Tier::VeryLow, "Counterparts", "added by review from d 0001")
            },
        );
        assert_eq!(
            out,
            "high: []\nlow:\n    - Notices\n    - title: Fees\n      aliases:\n      - Facility Fee\nvery_low:\n  - title: Counterparts\n    note: added by review from d 0001\n"
        );
    }

    #[test]
    fn finds_entries_of_every_shape() {
        let t = IndexText::new(
            "very_high:\n  - title: Definitions\n    aliases: [Defined Terms]\n  # between\n  - Events of Default   # bare\nhigh: [Use of Proceeds, Litigation]\nmedium: []\nlow:\n- title: Governing Law\n  aliases:\n    - Applicable Law\n",
        );
        let all = t.all_entries().unwrap();
        let titles: Vec<_> = all.iter().map(|e| (e.tier, e.title.as_str())).collect();
        assert_eq!(
            titles,
            [
                (Tier::VeryHigh, "Definitions"),
                (Tier::VeryHigh, "Events of Default"),
                (Tier::High, "Use of Proceeds"),
                (Tier::High, "Litigation"),
                (Tier::Low, "Governing Law"),
            ]
        );
        assert_eq!(all[0].aliases, ["Defined Terms"]);
        assert_eq!((all[0].start, all[0].end), (1, 3));
        assert_eq!(all[4].aliases, ["Applicable Law"]);
        assert_eq!(all[4].indent, 0);
    }
}
