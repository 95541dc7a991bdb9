//! Headings of plain-text contracts, found without Markdown: articles,
//! sections (keyword, bare and inline forms), schedules, exhibits, the table
//! of contents and the signature page.
//!
//! First the table-of-contents regions are found and parsed into entries;
//! an untitled list whose labels never recur after it, or a list inside
//! the body, is text, not contents. Every other line is offered to the
//! decoder (`decode.rs`) as candidates, with contents entries as evidence;
//! the chosen chain becomes the headings, with the contents, the recitals
//! after them and the signature page as nodes of their own. A contents
//! entry that the body has only inside a line (the extraction ran a page
//! together) is offered as a heading at that byte offset, and the decoder
//! runs again with those candidates.

use super::assemble::Heading;
use super::contents::{self, EntryStatus, EntryText};
use super::decode::{candidates_at, decode, inline_candidates, Cand, Class};
use super::lines::{
    candidate, inline_title, is_filing_exhibit_number, is_furniture, is_prose, is_prose_shape,
    is_title_line, is_toc_title, is_tocish, CandKind, Candidate,
};
use super::{NodeKind, SourceText};

/// Lines without an entry after which a table of contents is over.
const TOC_MAX_GAP: usize = 12;

/// Every heading of a plain-text document, in line order, and the table of
/// contents' entries with whether each was found as a body heading.
pub(crate) fn headings(source: &SourceText) -> (Vec<Heading>, Vec<(String, EntryStatus)>) {
    let mut lines: Vec<&str> = Vec::with_capacity(source.line_count());
    lines.extend(source.lines().map(trim_line));
    // Each region's entries are parsed once; the regions only get fewer.
    let mut tocs: Vec<Toc> = toc_regions(&lines)
        .into_iter()
        .map(|region| Toc {
            entries: toc_entries(&lines, &region),
            region,
        })
        .collect();
    // An untitled list whose labels never come back after it is not a
    // contents page (a run of `2.8 Reserved` lines is the body itself).
    // Candidates do not depend on the regions: found once for every line,
    // then the lines of the current regions are left out.
    let mut all = collect(&lines);
    // Offsets of headings inside a run-together line are into the trimmed
    // line: make them offsets into the source's line.
    for c in all.iter_mut().filter(|c| c.offset > 0) {
        let raw = source.line(c.line + 1);
        c.offset += lines[c.line].as_ptr() as usize - raw.as_ptr() as usize;
    }
    let mut cands = outside(&all, &tocs);
    let before = tocs.len();
    {
        // The candidates' keys, sorted (stably: a key's candidates stay in
        // line order, its last is its last line). An entry comes back
        // after its region when its key stands on a later line.
        let mut by_key: Vec<(EntryKey, usize)> =
            cands.iter().map(|c| (entry_key(c), c.line)).collect();
        by_key.sort_by(|a, b| a.0.cmp(&b.0));
        let last_line = |k: &EntryKey| {
            let end = by_key.partition_point(|(x, _)| x <= k);
            end.checked_sub(1)
                .map(|i| by_key[i])
                .filter(|(x, _)| x == k)
                .map(|(_, line)| line)
        };
        tocs.retain(|toc| {
            let r = &toc.region;
            let found = toc
                .entries
                .iter()
                .filter(|e| last_line(&e.key()).is_some_and(|l| l > r.last))
                .count();
            is_toc_title(lines[r.start]) || found * 2 >= toc.entries.len()
        });
    }
    if tocs.len() != before {
        cands = outside(&all, &tocs);
    }
    let mut chain = decode_with_toc(&tocs, &cands);
    // A list inside the body (a form's own contents, an exhibit list) is
    // part of the text it sits in, not the contract's contents page.
    let first = chain.first().map_or(lines.len(), |&i| cands[i].line);
    if tocs.iter().any(|t| t.region.start > first) {
        tocs.retain(|t| t.region.start < first);
        cands = outside(&all, &tocs);
        chain = decode_with_toc(&tocs, &cands);
    }
    // Every region now starts before the first heading: the body starts
    // after the last one, and its entries are looked up there.
    let body_from = tocs.last().map_or(0, |t| t.region.last + 1);
    let (body, body_at) = if body_from < lines.len() {
        let text = source.span_text(body_from + 1, lines.len());
        (text, source.line_start(body_from + 1))
    } else {
        ("", source.text.len())
    };
    let entries: Vec<&TocEntry> = tocs.iter().flat_map(|t| &t.entries).collect();
    // An entry whose heading was chosen only inside a run-together line
    // (its node starting at the line start) is looked up too.
    let at_line_start = placed(&entries, &cands, &chain, |c| !c.run_together);
    let looked = contents::classify(body, &with_flags(&entries, &at_line_start));
    let inline = inline_cands(source, &lines, body_at, &looked);
    if !inline.is_empty() {
        cands = with_inline(&cands, &inline);
        chain = decode_with_toc(&tocs, &cands);
    }
    let chosen: Vec<&Cand> = chain.iter().map(|&i| cands[i]).collect();
    let first_line = chosen.first().map_or(lines.len(), |c| c.line);
    let first_offset = chosen.first().map_or(0, |c| c.offset);

    let mut out: Vec<Heading> = Vec::new();
    for Toc { region: r, .. } in &tocs {
        if r.start >= first_line {
            continue;
        }
        out.push(Heading::new(
            r.start + 1,
            1,
            "Table of Contents".to_owned(),
            NodeKind::Toc,
        ));
        // A contents entry without a number (`Definitions`, `Recitals`)
        // found as a line of its own before the first numbered heading is
        // a heading of the front matter.
        let front = front_headings(&lines, r, first_line);
        // Running text between the contents and the first heading (the
        // recitals) is a preamble of its own, not part of the contents.
        // The first heading inside a line (a page run into one line):
        // the text before it on that line is after the contents too.
        let upto = if first_offset > 0 {
            first_line + 1
        } else {
            first_line
        };
        let after = (r.last + 1..upto.min(lines.len())).find(|&k| !is_furniture(lines[k]));
        if let Some(a) = after.filter(|a| front.iter().all(|h| h.line != a + 1)) {
            if (a..upto.min(lines.len())).any(|k| is_prose(lines[k]) || is_running_text(lines[k])) {
                out.push(Heading::new(
                    a + 1,
                    1,
                    "Preamble (after table of contents)".to_owned(),
                    NodeKind::Preamble,
                ));
            }
        }
        out.extend(front);
    }
    if !chosen.is_empty() {
        let from = tocs
            .iter()
            .rfind(|t| t.region.start < first_line)
            .map_or(0, |t| t.region.last + 1);
        out.extend(summary_block(&lines, from, first_line));
    }
    let last_numbered = chosen
        .iter()
        .rposition(|c| c.class != Class::Annex)
        .map(|i| chosen[i].title_end);
    let first_annex_after = chosen
        .iter()
        .find(|c| c.class == Class::Annex && last_numbered.is_some_and(|l| c.line > l))
        .map_or(lines.len(), |c| c.line);
    let signature = last_numbered.and_then(|from| {
        (from + 1..first_annex_after).find(|&k| {
            lines[k]
                .get(..18)
                .is_some_and(|h| h.eq_ignore_ascii_case("IN WITNESS WHEREOF"))
        })
    });
    let mut has_article = false;
    for c in &chosen {
        if let Some(sig) = signature.filter(|&s| s < c.line) {
            if out.last().is_none_or(|h| h.kind != NodeKind::Signature)
                && out.iter().all(|h| h.line != sig + 1)
            {
                out.push(Heading::new(
                    sig + 1,
                    1,
                    "Signature Page".to_owned(),
                    NodeKind::Signature,
                ));
            }
        }
        let (level, kind) = match c.class {
            Class::Article => {
                has_article = true;
                (1, NodeKind::Section)
            }
            Class::Section | Class::Flat => (if has_article { 2 } else { 1 }, NodeKind::Section),
            Class::Sub => (if has_article { 3 } else { 2 }, NodeKind::Section),
            Class::Annex if c.title.starts_with(['E', 'e']) => (1, NodeKind::Exhibit),
            Class::Annex => (1, NodeKind::Schedule),
        };
        let mut h = Heading::new(c.line + 1, level, c.title.clone(), kind);
        h.title_end = c.title_end + 1;
        h.offset = c.offset;
        out.push(h);
    }
    if let Some(sig) = signature {
        if out.iter().all(|h| h.line != sig + 1) {
            out.push(Heading::new(
                sig + 1,
                1,
                "Signature Page".to_owned(),
                NodeKind::Signature,
            ));
        }
    }
    out.sort_by_key(|h| (h.line, h.offset));
    out.dedup_by_key(|h| (h.line, h.offset));
    let found = placed(&entries, &cands, &chain, |_| true);
    let status: Vec<EntryStatus> = if inline.is_empty() {
        // The chain is the first one: an entry not chosen was looked up.
        found
            .iter()
            .zip(&looked)
            .map(|(&f, l)| if f { EntryStatus::Found } else { l.0 })
            .collect()
    } else {
        let looked = contents::classify(body, &with_flags(&entries, &found));
        looked.into_iter().map(|l| l.0).collect()
    };
    let toc = entries.iter().map(|e| e.text.clone());
    (out, toc.zip(status).collect())
}

/// Whether each entry's key is that of a chosen candidate passing `keep`.
fn placed(
    entries: &[&TocEntry],
    cands: &[&Cand],
    chain: &[usize],
    keep: impl Fn(&Cand) -> bool,
) -> Vec<bool> {
    let mut keys: Vec<EntryKey> = chain
        .iter()
        .map(|&i| cands[i])
        .filter(|c| keep(c))
        .map(entry_key)
        .collect();
    keys.sort_unstable();
    entries
        .iter()
        .map(|e| keys.binary_search(&e.key()).is_ok())
        .collect()
}

/// The entries' label and name with whether each was placed.
fn with_flags(entries: &[&TocEntry], flags: &[bool]) -> Vec<(EntryText, bool)> {
    entries
        .iter()
        .zip(flags)
        .map(|(e, &f)| (e.label_name.clone(), f))
        .collect()
}

/// Candidates for the entries the body has only inside a line, at each
/// byte where the label stands (`body_at` is where the body starts in the
/// text): from the keyword before a bare number (`SECTION 8.05.` for a
/// listed `8.05`) to the next such heading on the line, or the line end.
fn inline_cands(
    source: &SourceText,
    lines: &[&str],
    body_at: usize,
    looked: &[contents::Lookup],
) -> Vec<Cand> {
    let mut hits: Vec<usize> = looked
        .iter()
        .filter(|l| l.0 == EntryStatus::Inline)
        .flat_map(|l| l.1.iter().map(|&p| body_at + p))
        .map(|at| {
            let line_at = source.line_start(source.line_of_offset(at));
            line_at + keyword_start(&source.text[line_at..], at - line_at)
        })
        .collect();
    hits.sort_unstable();
    hits.dedup();
    let mut out = Vec::new();
    for (k, &at) in hits.iter().enumerate() {
        let line = source.line_of_offset(at);
        let line_at = source.line_start(line);
        let line_end = line_at + source.line(line).len();
        let end = hits
            .get(k + 1)
            .copied()
            .filter(|&n| n < line_end)
            .unwrap_or(line_end);
        let t = source.text[at..end].trim_end();
        // Only blanks before it: the heading starts its line after all.
        let offset = if source.text[line_at..at].trim().is_empty() {
            0
        } else {
            at - line_at
        };
        inline_candidates(lines, line - 1, offset, t, &mut out);
    }
    out
}

/// Where the heading whose number starts at byte `at` of `line` starts:
/// at the keyword right before it when there is one (`SECTION 8.05.`),
/// else at the number.
fn keyword_start(line: &str, at: usize) -> usize {
    let before = line[..at].trim_end();
    if before.len() == at {
        return at;
    }
    let word = before
        .char_indices()
        .rfind(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let (Some(with), Some(bare)) = (candidate(&line[word..]), candidate(&line[at..])) else {
        return at;
    };
    if !with.keyword.is_empty() && with.num == bare.num {
        word
    } else {
        at
    }
}

/// The candidates with the inline ones merged in by position; a line's
/// run-together candidates give way to the ones the contents placed in it.
fn with_inline<'a>(cands: &[&'a Cand], inline: &'a [Cand]) -> Vec<&'a Cand> {
    let placed_lines: Vec<usize> = inline.iter().map(|c| c.line).collect();
    let mut out: Vec<&Cand> = cands
        .iter()
        .copied()
        .filter(|c| !(c.run_together && placed_lines.binary_search(&c.line).is_ok()))
        .chain(inline)
        .collect();
    // Stable: the readings of one heading stay in their order.
    out.sort_by_key(|c| (c.line, c.offset));
    out
}

/// `str::trim`, without decoding a line that starts and ends with a
/// printable ASCII character (most do).
fn trim_line(l: &str) -> &str {
    match (l.as_bytes().first(), l.as_bytes().last()) {
        (Some(a), Some(z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => l,
        _ => l.trim(),
    }
}

/// The candidates of every line.
fn collect(lines: &[&str]) -> Vec<Cand> {
    let mut cands = Vec::new();
    for j in 0..lines.len() {
        candidates_at(lines, j, &mut cands);
    }
    cands
}

/// The candidates outside the contents regions (both sorted by line).
fn outside<'a>(all: &'a [Cand], tocs: &[Toc]) -> Vec<&'a Cand> {
    let mut r = tocs.iter().map(|t| &t.region).peekable();
    all.iter()
        .filter(|c| {
            while r.next_if(|r| r.last < c.line).is_some() {}
            r.peek().is_none_or(|r| c.line < r.start)
        })
        .collect()
}

/// Decodes with the contents entries as evidence: a candidate whose label
/// the contents list is more likely a heading.
fn decode_with_toc(tocs: &[Toc], cands: &[&Cand]) -> Vec<usize> {
    let mut toc_keys: Vec<EntryKey> = tocs
        .iter()
        .flat_map(|t| &t.entries)
        .map(TocEntry::key)
        .collect();
    toc_keys.sort_unstable();
    // A third-level candidate the contents list (`2.1.4 Loan Principal
    // Payment ..... 4`) is a heading even below a bare `2.1`.
    let sub_listed: Vec<bool> = cands
        .iter()
        .map(|c| c.class == Class::Sub && toc_keys.binary_search(&entry_key(c)).is_ok())
        .collect();
    let rewards: Vec<f32> = cands
        .iter()
        .map(|c| {
            if toc_keys.binary_search(&entry_key(c)).is_ok() {
                c.reward + TOC_BONUS
            } else {
                c.reward
            }
        })
        .collect();
    decode(cands, &rewards, &sub_listed)
}

/// Contents entries are aligned with body candidates by this key: the
/// class and numbers (a `Sub`'s third one included), or an annex's id.
type EntryKey<'a> = (Class, u32, u32, u32, &'a str);

/// A contents entry found in the body makes that heading this much more
/// likely.
const TOC_BONUS: f32 = 0.5;

fn entry_key(c: &Cand) -> EntryKey<'_> {
    let sub = if c.class == Class::Sub { c.sub } else { 0 };
    (top_level(c.class), c.major, c.minor, sub, &c.annex_key)
}

/// A one-number heading is the top level whichever reading the decoder
/// took (`SECTION 9. EVENTS OF DEFAULT` listed, chosen as the article).
fn top_level(class: Class) -> Class {
    if class == Class::Flat {
        Class::Article
    } else {
        class
    }
}

/// Headings for the contents entries without a label listed before the
/// numbered ones (`Definitions`, `Recitals`): the line between the
/// contents and the first numbered heading that reads the same (letters
/// and digits, any case, a trailing colon allowed). Only before the first
/// labelled entry: a short line further down is the wrapped end of the
/// entry above it, and a line that recurs on every page is a running head.
fn front_headings(lines: &[&str], r: &TocRegion, first_line: usize) -> Vec<Heading> {
    let first_labelled = (r.start + 1..=r.last)
        .find(|&k| {
            candidate(lines[k]).is_some() || lines[k].starts_with(|c: char| c.is_ascii_digit())
        })
        .unwrap_or(r.last + 1);
    let unlabeled: Vec<Vec<String>> = lines[r.start + 1..first_labelled]
        .iter()
        .filter(|t| {
            !is_furniture(t)
                && !is_toc_title(t)
                && is_title_line(t)
                && lines.iter().filter(|l| l == t).take(2).count() < 2
        })
        .map(|t| contents::words(contents::strip_leaders(t)).collect::<Vec<_>>())
        .filter(|w| !w.is_empty() && w.len() <= 8)
        .collect();
    let mut out = Vec::new();
    if unlabeled.is_empty() {
        return out;
    }
    let end = first_line.min(lines.len()).max(r.last + 1);
    for (k, &t) in lines.iter().enumerate().take(end).skip(r.last + 1) {
        if t.len() > 80 || is_furniture(t) {
            continue;
        }
        let w: Vec<String> = contents::words(t).collect();
        if unlabeled.contains(&w) && out.iter().all(|h: &Heading| h.title != t) {
            let title = t.trim_end_matches([':', '.']).to_owned();
            out.push(Heading::new(k + 1, 1, title, NodeKind::Section));
        }
    }
    out
}

/// Field lines (`Landlord:`, `Term:`) that make a block a summary of terms.
const SUMMARY_FIELDS: usize = 6;
/// Non-blank lines after its title in which a summary's fields are counted.
const SUMMARY_WINDOW: usize = 40;

/// A summary of terms before the numbered body (`BASIC LEASE
/// INFORMATION` then `Lease Date:` / `Landlord:` / `Term:` ...): a
/// capitals title line followed by a run of field labels is a heading of
/// the front matter, not part of the cover page.
fn summary_block(lines: &[&str], from: usize, first_line: usize) -> Option<Heading> {
    let end = first_line.min(lines.len());
    (from..end).find_map(|k| {
        let t = lines[k];
        if t.len() > 60 || t.ends_with(':') || !super::decode::is_capitals_title(t) {
            return None;
        }
        let is_field = |l: &&&str| l.len() <= 60 && l.ends_with(':');
        let mut below = lines[k + 1..end].iter().filter(|l| !is_furniture(l));
        if !below.next().is_some_and(|l| is_field(&l)) {
            return None;
        }
        let fields = 1 + below.take(SUMMARY_WINDOW).filter(is_field).count();
        (fields >= SUMMARY_FIELDS).then(|| Heading::new(k + 1, 1, t.to_owned(), NodeKind::Section))
    })
}

/// A contents region and its entries.
struct Toc {
    region: TocRegion,
    entries: Vec<TocEntry>,
}

/// One line of a contents region.
struct TocEntry {
    /// The line as written (its first 60 characters).
    text: String,
    /// Class, numbers and annex id: see [`EntryKey`].
    key: (Class, u32, u32, u32, String),
    /// Label and name, for the body search of an entry not chosen.
    label_name: EntryText,
}

impl TocEntry {
    fn key(&self) -> EntryKey<'_> {
        let (class, major, minor, sub, annex) = &self.key;
        (*class, *major, *minor, *sub, annex)
    }
}

/// The entries of a contents region: each line's label, as written, as a
/// key and with its name.
fn toc_entries(lines: &[&str], r: &TocRegion) -> Vec<TocEntry> {
    let mut out = Vec::new();
    for &t in &lines[r.start..=r.last] {
        let t = t.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '§');
        let cand = candidate(t);
        if cand.as_ref().is_some_and(is_filing_exhibit_number) {
            continue;
        }
        // `2.1.4 Loan Principal Payment`: a third level, keyed as one (not
        // as its article `2`).
        let third = if cand.is_none() {
            three_numbers(t)
        } else {
            None
        };
        let label_name = match (&cand, third) {
            (Some(c), _) => EntryText::new(&c.label(), c.rest),
            (None, Some((_, used))) => EntryText::new(&t[..used], t.get(used..).unwrap_or("")),
            (None, None) => {
                let d = t.bytes().take_while(u8::is_ascii_digit).count();
                EntryText::new(&t[..d], t.get(d + 1..).unwrap_or(""))
            }
        };
        let key = match cand {
            Some(c) => match c.kind {
                CandKind::Article => (Class::Article, c.num.0, 0, 0, String::new()),
                CandKind::Section | CandKind::Bare => match c.num.1 {
                    Some(0) => (Class::Article, c.num.0, 0, 0, String::new()),
                    Some(m) => (Class::Section, c.num.0, m, 0, String::new()),
                    None => (top_level(Class::Flat), c.num.0, 0, 0, String::new()),
                },
                CandKind::Schedule | CandKind::Exhibit => {
                    (Class::Annex, 0, 0, 0, c.label().to_uppercase())
                }
            },
            None if third.is_some() => {
                let ((a, b, c), _) = third.expect("checked");
                (Class::Sub, a, b, c, String::new())
            }
            None => {
                // `1. DEFINITIONS ..... 5`
                let d = t.bytes().take_while(u8::is_ascii_digit).count();
                if d == 0 || d > 2 || t.as_bytes().get(d) != Some(&b'.') {
                    continue;
                }
                let Ok(n) = t[..d].parse::<u32>() else {
                    continue;
                };
                (Class::Article, n, 0, 0, String::new())
            }
        };
        let text: String = t.chars().take(60).collect();
        out.push(TocEntry {
            text: text.trim().to_owned(),
            key,
            label_name,
        });
    }
    out
}

/// `2.1.4` (up to three digits each) at the start of a contents line, then
/// a space, a period, a capital or the line's end: the numbers and the
/// label's length.
fn three_numbers(t: &str) -> Option<((u32, u32, u32), usize)> {
    let b = t.as_bytes();
    let mut nums = [0u32; 3];
    let mut i = 0;
    for (k, n) in nums.iter_mut().enumerate() {
        let d = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if d == 0 || d > 3 {
            return None;
        }
        *n = t[i..i + d].parse().ok()?;
        i += d;
        if k < 2 {
            if b.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
    }
    let used = i;
    match b.get(i) {
        None | Some(b' ' | b'\t' | b'.') => Some(((nums[0], nums[1], nums[2]), used)),
        Some(c) if c.is_ascii_uppercase() => Some(((nums[0], nums[1], nums[2]), used)),
        _ => None,
    }
}

/// A table of contents: first line (its title or first entry) and last entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TocRegion {
    pub start: usize,
    pub last: usize,
}

/// `is_tocish` of each line, computed once: contents scans that start
/// at every heading of the body look at the same lines again.
struct Tocish<'a> {
    lines: &'a [&'a str],
    memo: Vec<Option<bool>>,
}

impl<'a> Tocish<'a> {
    fn new(lines: &'a [&'a str]) -> Self {
        Self {
            lines,
            memo: vec![None; lines.len()],
        }
    }

    fn get(&mut self, k: usize) -> bool {
        let lines = self.lines;
        *self.memo[k].get_or_insert_with(|| is_tocish(lines[k]))
    }
}

pub(crate) fn toc_regions(lines: &[&str]) -> Vec<TocRegion> {
    let mut out = Vec::new();
    let mut tocish = Tocish::new(lines);
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i];
        let titled = is_toc_title(t);
        // A run of dotted leaders opens a contents page even when its
        // entries carry no label the line recogniser knows (`1.   TITLE....1`).
        let dotted =
            t.starts_with(|c: char| c.is_ascii_digit()) && has_four_dots(t) && tocish.get(i);
        let trigger = titled
            || dotted
            || candidate(t).is_some_and(|c| tocish.get(i) || !has_inline_body(&c))
                && !is_running_text(t);
        if trigger {
            match scan_toc(lines, i, titled, &mut tocish) {
                Ok(mut r) => {
                    // A list that runs into a `TABLE OF CONTENTS` line
                    // starts there (a cover page's `EXHIBIT 10.3` before
                    // it is not an entry).
                    if !titled {
                        if let Some(k) = (r.start..=r.last).find(|&k| is_toc_title(lines[k])) {
                            r.start = k;
                        }
                    }
                    out.push(r);
                    i = r.last + 1;
                    continue;
                }
                Err(last) => {
                    i = last.max(i) + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// Whether `t` holds `....` (a byte scan: no substring searcher to set up
/// on every numbered line).
fn has_four_dots(t: &str) -> bool {
    let b = t.as_bytes();
    memchr::memchr_iter(b'.', b).any(|i| b.get(i..i + 4) == Some(b"...."))
}

/// Whether an inline heading carries body text after its title.
fn has_inline_body(c: &Candidate<'_>) -> bool {
    let title = inline_title(c.rest);
    let after = c.rest[title.len()..].trim_start_matches(['.', ']', ' ']);
    after.len() > 20
        && after
            .split_whitespace()
            .any(|w| w.starts_with(char::is_lowercase))
}

/// Scans forward from a possible start of a table of contents. `Err` carries
/// the last entry seen, so a failed scan is not repeated from every line of
/// the same run (that would be quadratic on a long run of bare headings).
fn scan_toc(
    lines: &[&str],
    start: usize,
    titled: bool,
    tocish_at: &mut Tocish<'_>,
) -> Result<TocRegion, usize> {
    let mut entries = 0usize;
    let mut tocish = 0usize;
    let mut furniture = 0usize;
    let mut last = start;
    let mut gap = 0usize;
    let mut first_key: Option<(String, String)> = None;
    for (j, &t) in lines.iter().enumerate().skip(start) {
        if j == start && titled {
            if tocish_at.get(j) {
                // A contents page run into its title's line holds its
                // entries, one run of leaders each.
                let leaders = t.split("....").filter(|s| !s.trim().is_empty()).count();
                entries += leaders.max(1);
                tocish += 1;
            }
            continue;
        }
        if is_furniture(t) {
            furniture += usize::from(!t.is_empty());
            continue;
        }
        // A contents page is short entries with labels or page numbers:
        // a line of running sentences (a page run into one line) is the
        // body, whatever labels it holds.
        if is_running_text(t) {
            break;
        }
        let toc_line = tocish_at.get(j);
        if let Some(c) = candidate(t) {
            // The body starts when the first entry comes round again
            // (`ARTICLE 1` after the list) or text follows a heading.
            let key = (c.keyword.to_uppercase(), c.ident.to_owned());
            if first_key.as_ref() == Some(&key) || (!toc_line && has_inline_body(&c)) {
                break;
            }
            first_key.get_or_insert(key);
            entries += 1;
            tocish += usize::from(toc_line);
            last = j;
            gap = 0;
            continue;
        }
        if toc_line {
            entries += 1;
            tocish += 1;
            last = j;
            gap = 0;
            continue;
        }
        // Only a list that has shown contents lines (or its title) can
        // hold a note: elsewhere running text ends the scan at once.
        let may_hold_note = titled || tocish > 0;
        if is_prose_shape(t) && !(may_hold_note && toc_follows(lines, j, tocish_at)) {
            break;
        }
        gap += 1;
        if gap > TOC_MAX_GAP {
            break;
        }
    }
    let enough = if titled {
        entries >= 3
    } else {
        entries >= 4 && (tocish >= 1 || furniture >= 2)
    };
    if enough {
        Ok(TocRegion { start, last })
    } else {
        Err(last)
    }
}

/// Running sentences: a long line without dotted leaders, mostly of
/// lower-case words or with several sentence ends (a full stop after a
/// lower-case word, then a capitalised word).
fn is_running_text(t: &str) -> bool {
    if t.len() < RUNNING_TEXT_MIN || has_four_dots(t) {
        return false;
    }
    // Mostly lower-case words: sentences, not a list of titles.
    let (mut n, mut lower) = (0usize, 0usize);
    for w in t.split_whitespace() {
        n += 1;
        lower += usize::from(w.starts_with(|c: char| c.is_lowercase()));
    }
    if lower * 2 >= n {
        return true;
    }
    let mut ends = 0;
    let mut words = t.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let sentence_end = w.len() > 2
            && w.ends_with('.')
            && w[..w.len() - 1].ends_with(|c: char| c.is_ascii_lowercase())
            && words
                .peek()
                .is_some_and(|n| n.starts_with(char::is_uppercase));
        if sentence_end {
            ends += 1;
            if ends >= 3 {
                return true;
            }
        }
    }
    false
}

/// A line this long may be running text rather than a contents entry.
const RUNNING_TEXT_MIN: usize = 300;

/// A note inside a table of contents (`*The Table of Contents is not a part
/// of this Agreement.`) is followed by more entries within a few lines.
fn toc_follows(lines: &[&str], j: usize, tocish: &mut Tocish<'_>) -> bool {
    (j + 1..lines.len())
        .filter(|&k| !is_furniture(lines[k]))
        .take(6)
        .any(|k| tocish.get(k))
}

#[cfg(test)]
mod tests {
    use super::{keyword_start, trim_line};

    #[test]
    fn an_inline_heading_starts_at_the_keyword_before_its_number() {
        let line = "to such Bank. SECTION 8.05. Base Rate Loans. If the Bank";
        let at = line.find("8.05").unwrap();
        assert_eq!(keyword_start(line, at), line.find("SECTION").unwrap());
        // Another number before it, or a word that is no keyword: the
        // heading starts at its own number.
        let line = "under Section 7.1. 8.05 Base Rate Loans. If";
        let at = line.find("8.05").unwrap();
        assert_eq!(keyword_start(line, at), at);
        let line = "the Bank. Notes 8.05 Base Rate Loans. If";
        let at = line.find("8.05").unwrap();
        assert_eq!(keyword_start(line, at), at);
        // Blanks of more than one byte before the keyword.
        let line = "to such Bank.\u{a0}SECTION\u{2003}8.05. Base Rate Loans.";
        let at = line.find("8.05").unwrap();
        assert_eq!(keyword_start(line, at), line.find("SECTION").unwrap());
    }

    #[test]
    fn trim_line_is_str_trim() {
        for l in [
            "abc",
            " abc",
            "abc\u{a0}",
            "\u{a0}x y",
            "",
            "\t",
            "a b",
            "é",
            "x\u{2003}",
        ] {
            assert_eq!(trim_line(l), l.trim(), "{l:?}");
        }
    }
}
