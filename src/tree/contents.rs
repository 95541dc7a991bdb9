//! Contents entries checked against the body: an entry the tree did not
//! choose as a heading is looked up by its label and name, so the health
//! figures can tell a heading the tree missed from a schedule the SEC
//! filing simply leaves out ("Schedules omitted") or a heading the text
//! extraction ran into the middle of a line.

use super::label::glued_title;
use serde::{Deserialize, Serialize};

/// What became of one contents entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    /// A body heading with its label was chosen.
    Found,
    /// A body line starts with its label and name, but the tree did not
    /// take it as a heading: a miss of the tree.
    Missing,
    /// Its label and name stand only inside a longer line (the extraction
    /// ran a page together) and no heading could be placed there.
    Inline,
    /// Nowhere in the body: listed in the contents, not in the filing.
    Absent,
}

/// A contents entry's label and name, normalised for the body search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryText {
    /// Lower-case label without its trailing period (`exhibit a`, `12.9`,
    /// `section 1`).
    pub label: String,
    /// The first words of the name, lower-case, letters and digits only.
    pub name: Vec<String>,
}

/// Words of the name compared; contents entries are often cut short.
const NAME_WORDS: usize = 3;

impl EntryText {
    /// From a contents line's label (as the line recogniser wrote it) and
    /// the text after it (leaders and page number included).
    pub fn new(label: &str, rest: &str) -> Self {
        let label = super::label::collapse_spaces(&label.to_ascii_lowercase())
            .trim_end_matches('.')
            .to_owned();
        Self {
            label,
            name: words(strip_leaders(rest)).take(NAME_WORDS).collect(),
        }
    }
}

/// An entry's status and, when it is `Inline`, the byte offsets in the
/// body where its label stands inside a line (where a node may start).
pub(crate) type Lookup = (EntryStatus, Vec<usize>);

/// Looks up each entry that was not chosen as a heading in the body (the
/// text from the first body line on), returning its status.
pub(crate) fn classify(body: &str, entries: &[(EntryText, bool)]) -> Vec<Lookup> {
    if entries.iter().all(|(_, found)| *found) {
        return vec![(EntryStatus::Found, Vec::new()); entries.len()];
    }
    // The body and its ASCII lower case (same byte offsets): each entry is
    // one substring search over it, not a pass per line. A label or name
    // holds no whitespace that a line's own leading or trailing blanks
    // could change, so the text is searched as it stands.
    let lower = body.to_ascii_lowercase();
    entries
        .iter()
        .map(|(e, found)| {
            if *found {
                (EntryStatus::Found, Vec::new())
            } else {
                look_up(body, &lower, e)
            }
        })
        .collect()
}

/// Where the entry's label and name stand in the body: at the start of a
/// line (after a page number run into it) the tree missed a heading;
/// inside a line after a sentence end, a page number or a capitals title
/// (`DEFINITIONS 1.1 Defined Terms`), not after a lower-case word (a
/// reference such as `in Section 12.9`), it is run together (with every
/// such offset); else absent.
fn look_up(orig: &str, lower: &str, e: &EntryText) -> Lookup {
    let first = e.label.split(' ').next().unwrap_or("");
    if first.is_empty() {
        return (EntryStatus::Absent, Vec::new());
    }
    let mut inline = Vec::new();
    // memmem: a vectorised search; this runs once per entry over the body.
    for pos in memchr::memmem::find_iter(lower.as_bytes(), first.as_bytes()) {
        let Some(after) = after_label(&lower[pos..], &e.label) else {
            continue;
        };
        // A name run into the label is read as the line recogniser reads
        // it (a capitalised word: `11.1Letter of Credit`, not the id
        // suffix of `Schedule 2A`), then compared like any other.
        let after_at = lower.len() - after.len();
        if after.starts_with(char::is_alphanumeric) && !glued_title(&orig[after_at..]) {
            continue;
        }
        if !name_follows(after, &e.name) {
            continue;
        }
        let line_start = lower[..pos].rfind('\n').map_or(0, |i| i + 1);
        let before = orig[line_start..pos].trim();
        let page = (1..=3).contains(&before.len()) && before.bytes().all(|b| b.is_ascii_digit());
        if before.is_empty() || page {
            return (EntryStatus::Missing, Vec::new());
        }
        let boundary = orig[..pos]
            .trim_end()
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_lowercase());
        if boundary && !e.name.is_empty() {
            inline.push(pos);
        }
    }
    if inline.is_empty() {
        (EntryStatus::Absent, inline)
    } else {
        (EntryStatus::Inline, inline)
    }
}

/// What follows `label` at the start of `l` (runs of spaces in `l` match
/// one space of the label), if the label ends there: `12.1` is not the
/// start of `12.10`, `section 1` not of `section 1.1`. A letter right
/// after the label may start the name run into it (`11.1letter of
/// credit`, `article ivcovenants`): the caller compares the name.
fn after_label<'a>(l: &'a str, label: &str) -> Option<&'a str> {
    let mut rest = l;
    for (k, part) in label.split(' ').enumerate() {
        if k > 0 {
            let trimmed = rest.trim_start_matches([' ', '\t']);
            if trimmed.len() == rest.len() {
                return None;
            }
            rest = trimmed;
        }
        rest = rest.strip_prefix(part)?;
    }
    let after = rest;
    let mut chars = after.chars();
    match chars.next() {
        None => Some(after),
        Some(c) if c.is_ascii_digit() => None,
        Some('.') if chars.next().is_some_and(|c| c.is_ascii_digit()) => None,
        Some(_) => Some(after),
    }
}

fn name_follows(text: &str, name: &[String]) -> bool {
    let got: Vec<String> = words(text).take(name.len()).collect();
    got == name
}

/// Lower-case words of letters and digits; a contents line's page number
/// and `Page` are not words of the name.
pub(crate) fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The text before dotted or underscored leaders and a trailing page
/// number: `Severability...... 76` -> `Severability`.
pub(crate) fn strip_leaders(s: &str) -> &str {
    // The first `..`, `. .` or `__`: one scan for the bytes they start with.
    let b = s.as_bytes();
    let cut = memchr::memchr2_iter(b'.', b'_', b)
        .find(|&i| match b[i] {
            b'.' => b.get(i + 1) == Some(&b'.') || b.get(i + 1..i + 3) == Some(b" ."),
            _ => b.get(i + 1) == Some(&b'_'),
        })
        .unwrap_or(s.len());
    let s = s[..cut].trim_end();
    let s = s.trim_end_matches(|c: char| c.is_ascii_digit()).trim_end();
    s.strip_suffix("Page").unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(label: &str, rest: &str) -> (EntryText, bool) {
        (EntryText::new(label, rest), false)
    }

    #[test]
    fn label_and_name_tell_missing_inline_and_absent_apart() {
        let body = [
            "12.9 Severability. Any provision of this Agreement",
            "EXHIBIT A",
            "-",
            "FORM OF NOTE",
            "72 10.3 Exculpatory Provisions. Neither the Agent nor",
            "terms. 10.4 Reliance by the Agent. The Agent shall",
            "as set forth in Section 10.5 Notice of Default hereto",
            "DEFINITIONS 1.1 Defined Terms. As used",
            "Schedule 2 attached hereto;",
        ];
        let entries = [
            entry("12.9", "Severability.................. 76"),
            entry("Exhibit A", "Form of Note"),
            entry("10.3", "Exculpatory Provisions......... 72"),
            entry("10.4", "Reliance by the Agent ......... 72"),
            entry("10.5", "Notice of Default"),
            entry("Schedule 2", "- Liens of Record"),
            entry("12.1", "Amendments and Waivers"),
            entry("1.1", "Defined Terms ........ 1"),
        ];
        use EntryStatus::*;
        let body = body.join("\n");
        let got = classify(&body, &entries);
        let status: Vec<EntryStatus> = got.iter().map(|g| g.0).collect();
        assert_eq!(
            status,
            vec![Missing, Missing, Missing, Inline, Absent, Absent, Absent, Inline]
        );
        // A run-together entry carries where its label stands.
        assert_eq!(got[3].1, vec![body.find("10.4 Reliance").unwrap()]);
        assert_eq!(got[7].1, vec![body.find("1.1 Defined").unwrap()]);
        assert!(got.iter().filter(|g| g.0 != Inline).all(|g| g.1.is_empty()));
    }

    #[test]
    fn a_name_run_into_its_label_is_read_as_label_and_name() {
        let body = [
            "11.1Letter of Credit.  Concurrent with Tenant’s execution",
            "ARTICLE IVCOVENANTS",
            "Schedule 2A attached hereto",
            "1.2Landlord hereby grants to the District",
            "12.10Integration. This Lease",
        ];
        let entries = [
            entry("11.1", "Letter of Credit ..... 40"),
            entry("ARTICLE IV", "Covenants"),
            entry("Schedule 2", ""),
            entry("1.2", "Exhibits"),
            entry("12.1", "Integration"),
        ];
        use EntryStatus::*;
        let status: Vec<EntryStatus> = classify(&body.join("\n"), &entries)
            .iter()
            .map(|g| g.0)
            .collect();
        assert_eq!(status, vec![Missing, Missing, Absent, Absent, Absent]);
    }

    #[test]
    fn leaders_and_page_numbers_are_cut_single_dots_kept() {
        assert_eq!(strip_leaders("Severability...... 76"), "Severability");
        assert_eq!(
            strip_leaders("Terms Generally . . . . 24"),
            "Terms Generally"
        );
        assert_eq!(strip_leaders("Form of Note ____ 3"), "Form of Note");
        let name: Vec<String> = words(strip_leaders("Taxes Page 38")).collect();
        assert_eq!(name, ["taxes"]);
        assert_eq!(
            strip_leaders("Sec. 2.01. Commitments"),
            "Sec. 2.01. Commitments"
        );
        assert_eq!(strip_leaders("Fees. _x"), "Fees. _x");
    }

    #[test]
    fn a_label_ends_where_its_number_ends() {
        assert_eq!(after_label("12.10 integration", "12.1"), None);
        assert_eq!(after_label("section 1.1 defined", "section 1"), None);
        assert_eq!(
            after_label("section 1. definitions", "section 1"),
            Some(". definitions")
        );
    }
}
