//! Headings of plain-text contracts, found without Markdown: articles,
//! sections (keyword, bare and inline forms), schedules, exhibits, the table
//! of contents and the signature page.
//!
//! Two passes over the lines. The first finds table-of-contents regions so
//! their entries never become sections. The second walks the body with a
//! little state (current article, last section number, whether annexes have
//! started) that rejects cross-references which happen to start a wrapped
//! line: a section must belong to the current article and its number must
//! increase.

use super::assemble::Heading;
use super::lines::{
    candidate, inline_title, is_furniture, is_prose, is_title_line, is_toc_title, is_tocish,
    CandKind, Candidate,
};
use super::{NodeKind, SourceText};

/// A section number may skip at most this many numbers (omitted sections).
const MAX_SECTION_GAP: u32 = 12;
/// An article number may skip at most this many numbers.
const MAX_ARTICLE_GAP: u32 = 4;
/// Lines without an entry after which a table of contents is over.
const TOC_MAX_GAP: usize = 12;

/// Every heading of a plain-text document, in line order.
pub(crate) fn headings(source: &SourceText) -> Vec<Heading> {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let regions = toc_regions(&lines);
    Walker::new(&lines).run(&regions)
}

/// A table of contents: first line (its title or first entry) and last entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TocRegion {
    start: usize,
    last: usize,
}

fn toc_regions(lines: &[&str]) -> Vec<TocRegion> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i];
        let titled = is_toc_title(t);
        let trigger = titled || candidate(t).is_some_and(|c| is_tocish(t) || !has_inline_body(&c));
        if trigger {
            match scan_toc(lines, i, titled) {
                Ok(r) => {
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
fn scan_toc(lines: &[&str], start: usize, titled: bool) -> Result<TocRegion, usize> {
    let mut entries = 0usize;
    let mut tocish = 0usize;
    let mut furniture = 0usize;
    let mut last = start;
    let mut gap = 0usize;
    let mut first_key: Option<(String, String)> = None;
    for (j, &t) in lines.iter().enumerate().skip(start) {
        if j == start && titled {
            if is_tocish(t) {
                entries += 1;
                tocish += 1;
            }
            continue;
        }
        if is_furniture(t) {
            furniture += usize::from(!t.is_empty());
            continue;
        }
        let toc_line = is_tocish(t);
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
        if is_prose(t) && !toc_follows(lines, j) {
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

/// A note inside a table of contents (`*The Table of Contents is not a part
/// of this Agreement.`) is followed by more entries within a few lines.
fn toc_follows(lines: &[&str], j: usize) -> bool {
    lines[j + 1..]
        .iter()
        .filter(|t| !is_furniture(t))
        .take(6)
        .any(|t| is_tocish(t))
}

/// The stateful second pass.
struct Walker<'a> {
    lines: &'a [&'a str],
    out: Vec<Heading>,
    /// An article or section has been seen since the last signature page
    /// (a later table of contents belongs to a form, not the contract).
    body_started: bool,
    /// An article or section has been seen at all (annexes come after).
    seen_body: bool,
    in_annex: bool,
    /// The current "article" is a `SECTION 5.0` heading whose subsections
    /// are numbered `5.1`, `5.2` (no ARTICLE headings in the document).
    pseudo_article: bool,
    cur_article: Option<u32>,
    last_article: u32,
    last_section: Option<(u32, u32)>,
    last_annex: Option<String>,
    signature_done: bool,
    /// First content line after a table of contents, while no heading has
    /// followed it yet.
    after_toc: Option<usize>,
}

impl<'a> Walker<'a> {
    fn new(lines: &'a [&'a str]) -> Self {
        Self {
            lines,
            out: Vec::new(),
            body_started: false,
            seen_body: false,
            in_annex: false,
            pseudo_article: false,
            cur_article: None,
            last_article: 0,
            last_section: None,
            last_annex: None,
            signature_done: false,
            after_toc: None,
        }
    }

    fn run(mut self, regions: &[TocRegion]) -> Vec<Heading> {
        let mut regions = regions.iter().peekable();
        let mut j = 0;
        while j < self.lines.len() {
            if let Some(r) = regions.next_if(|r| r.start <= j) {
                let annex_list = !is_toc_title(self.lines[r.start])
                    && candidate(self.lines[r.start])
                        .is_some_and(|c| matches!(c.kind, CandKind::Schedule | CandKind::Exhibit));
                if r.start < j || self.body_started || (self.seen_body && annex_list) {
                    // Inside the body a list with leaders is a form, not
                    // the contract's table of contents.
                    continue;
                }
                self.push(Heading::new(
                    j + 1,
                    1,
                    "Table of Contents".to_owned(),
                    NodeKind::Toc,
                ));
                self.after_toc =
                    (r.last + 1..self.lines.len()).find(|&k| !is_furniture(self.lines[k]));
                j = r.last + 1;
                continue;
            }
            j = self.line(j) + 1;
        }
        self.out
    }

    fn push(&mut self, h: Heading) {
        self.after_toc = None;
        self.out.push(h);
    }

    /// Looks at line `j`; returns the last line it consumed.
    fn line(&mut self, j: usize) -> usize {
        let t = self.lines[j];
        if t.is_empty() {
            return j;
        }
        if let Some(start) = self.after_toc {
            if start == j && candidate(t).is_some() {
                self.after_toc = None;
            } else if is_prose(t) {
                self.push(Heading::new(
                    start + 1,
                    1,
                    "Preamble (after table of contents)".to_owned(),
                    NodeKind::Preamble,
                ));
            }
        }
        if !self.signature_done
            && self.body_started
            && !self.in_annex
            && t.get(..18)
                .is_some_and(|h| h.eq_ignore_ascii_case("IN WITNESS WHEREOF"))
        {
            self.signature_done = true;
            // A second agreement may follow the signatures (a statement of
            // work): number its articles and sections afresh.
            self.body_started = false;
            self.cur_article = None;
            self.last_article = 0;
            self.last_section = None;
            self.pseudo_article = false;
            self.push(Heading::new(
                j + 1,
                1,
                "Signature Page".to_owned(),
                NodeKind::Signature,
            ));
            return j;
        }
        let Some(c) = candidate(t) else { return j };
        if (is_tocish(t) && !has_inline_body(&c)) || self.continues_sentence(j) {
            return j;
        }
        match c.kind {
            CandKind::Article => self.article(j, &c),
            CandKind::Section | CandKind::Bare => self.section(j, &c),
            CandKind::Schedule | CandKind::Exhibit => self.annex(j, &c),
        }
    }

    /// The previous line is wrapped running text that ends mid-sentence, so
    /// this line is its continuation (`... pursuant to` / `Section 2.21.`).
    /// Short lines (running page headers such as `Credit Agreement`) do not
    /// count.
    fn continues_sentence(&self, j: usize) -> bool {
        let after_heading = self.out.last().is_some_and(|h| h.title_end == j);
        j > 0 && !after_heading && ends_mid_sentence(self.lines[j - 1])
    }

    /// The title on the next non-blank line (within a few lines), if that
    /// line is a short title and not a heading itself: (title, line index).
    /// `Err` when running text follows instead.
    fn title_below(&self, j: usize) -> Result<Option<(String, usize)>, ()> {
        let Some((first, k)) = self.title_line_below(j)? else {
            return Ok(None);
        };
        // `OPINION OF COUNSEL FOR` / `THE BORROWER`, `[FORM OF]` / `NOTE`:
        // a title that stops on a little word goes on below.
        if ends_unfinished(first) {
            if let Ok(Some((more, k2))) = self.title_line_below(k) {
                return Ok(Some((format!("{first} {more}"), k2)));
            }
        }
        Ok(Some((first.to_owned(), k)))
    }

    fn title_line_below(&self, j: usize) -> Result<Option<(&'a str, usize)>, ()> {
        let end = (j + 5).min(self.lines.len());
        for k in j + 1..end {
            let u = self.lines[k];
            if u.is_empty() {
                continue;
            }
            if candidate(u).is_some() {
                return Ok(None);
            }
            if is_title_line(u) && !is_furniture(u) {
                return Ok(Some((u, k)));
            }
            return Err(());
        }
        Ok(None)
    }

    fn article(&mut self, j: usize, c: &Candidate<'_>) -> usize {
        if self.in_annex {
            return j;
        }
        // The longest reading of a run-together numeral whose number
        // follows the previous article (`ARTICLE IVREPRESENTATIONS` is IV).
        let plausible = |n: u32| n > self.last_article && n <= self.last_article + MAX_ARTICLE_GAP;
        let Some((_, ident, rest)) = c
            .alternatives
            .iter()
            .copied()
            .find(|a| plausible(a.0))
            .or_else(|| {
                (c.alternatives.is_empty() && plausible(c.num.0))
                    .then_some((c.num.0, c.ident, c.rest))
            })
        else {
            return j;
        };
        let num = c
            .alternatives
            .iter()
            .find(|a| a.1 == ident)
            .map_or(c.num.0, |a| a.0);
        let mut heading = Heading::new(
            j + 1,
            1,
            format!("{} {}", c.keyword, ident),
            NodeKind::Section,
        );
        if rest.is_empty() {
            match self.title_below(j) {
                Ok(Some((title, k))) => {
                    heading.title = format!("{} {}", heading.title, title);
                    heading.title_end = k + 1;
                }
                Ok(None) => {}
                Err(()) => return j,
            }
        } else {
            heading.title = format!("{} {}", heading.title, inline_title(rest));
        }
        self.last_article = num;
        self.cur_article = Some(num);
        self.last_section = None;
        self.pseudo_article = false;
        self.body_started = true;
        self.seen_body = true;
        let consumed = heading.title_end - 1;
        self.push(heading);
        consumed
    }

    fn section(&mut self, j: usize, c: &Candidate<'_>) -> usize {
        let (major, minor) = c.num;
        let pseudo = c.kind == CandKind::Section
            && minor.unwrap_or(0) == 0
            && !self.in_annex
            && (self.cur_article.is_none() || self.pseudo_article);
        if pseudo {
            return self.pseudo_article(j, c, major);
        }
        // A bare `1.01 Title` is only a section inside an article or annex;
        // elsewhere it is a numbered paragraph.
        if c.kind == CandKind::Bare && self.cur_article.is_none() && !self.in_annex {
            return j;
        }
        if !self.in_annex {
            if let (Some(a), Some(_)) = (self.cur_article, minor) {
                if major != a {
                    return j;
                }
            }
        }
        let key = (major, minor.unwrap_or(0));
        let in_order = match self.last_section {
            None => {
                key.1 <= MAX_SECTION_GAP && (self.cur_article.is_some() || key.0 <= MAX_SECTION_GAP)
            }
            Some(last) if key.0 == last.0 => key.1 > last.1 && key.1 <= last.1 + MAX_SECTION_GAP,
            Some(last) => key.0 > last.0 && key.0 <= last.0 + 3 && key.1 <= MAX_SECTION_GAP,
        };
        if !in_order {
            return j;
        }
        let level = if self.cur_article.is_some() || self.in_annex {
            2
        } else {
            1
        };
        let mut heading = Heading::new(j + 1, level, c.label(), NodeKind::Section);
        if c.rest.is_empty() {
            match self.title_below(j) {
                Ok(Some((title, k))) => {
                    heading.title = format!("{} {}", heading.title, title);
                    heading.title_end = k + 1;
                }
                Ok(None) => {}
                Err(()) if c.kind == CandKind::Bare => return j,
                Err(()) => {}
            }
        } else {
            heading.title = format!("{} {}", heading.title, short_title(inline_title(c.rest)));
        }
        self.last_section = Some(key);
        self.body_started = true;
        self.seen_body = true;
        let consumed = heading.title_end - 1;
        self.push(heading);
        consumed
    }

    /// `SECTION 5.0 TERMINATION` in a document without articles: level 1,
    /// and `5.1 Breach` below it is level 2.
    fn pseudo_article(&mut self, j: usize, c: &Candidate<'_>, major: u32) -> usize {
        if major <= self.last_article || major > self.last_article + MAX_ARTICLE_GAP {
            return j;
        }
        let mut heading = Heading::new(j + 1, 1, c.label(), NodeKind::Section);
        if c.rest.is_empty() {
            if let Ok(Some((title, k))) = self.title_below(j) {
                heading.title = format!("{} {}", heading.title, title);
                heading.title_end = k + 1;
            }
        } else {
            heading.title = format!("{} {}", heading.title, short_title(inline_title(c.rest)));
        }
        self.last_article = major;
        self.cur_article = Some(major);
        self.pseudo_article = true;
        self.last_section = None;
        self.body_started = true;
        self.seen_body = true;
        let consumed = heading.title_end - 1;
        self.push(heading);
        consumed
    }

    fn annex(&mut self, j: usize, c: &Candidate<'_>) -> usize {
        if !self.seen_body {
            return j;
        }
        let mut label = c.label();
        let mut rest = c.rest;
        // `EXHIBIT H -1`: the number split from its letter.
        if c.kind == CandKind::Exhibit
            && (1..=2).contains(&rest.len())
            && rest.bytes().all(|b| b.is_ascii_digit())
        {
            label = format!("{label}-{rest}");
            rest = "";
        }
        if self.last_annex.as_deref() == Some(label.as_str()) {
            return j;
        }
        let kind = if c.kind == CandKind::Exhibit {
            NodeKind::Exhibit
        } else {
            NodeKind::Schedule
        };
        let mut heading = Heading::new(j + 1, 1, label.clone(), kind);
        if rest.is_empty() {
            if let Ok(Some((title, k))) = self.title_below(j) {
                heading.title = format!("{} {}", heading.title, title);
                heading.title_end = k + 1;
            }
        } else {
            heading.title = format!("{} {}", heading.title, inline_title(rest));
        }
        self.in_annex = true;
        self.cur_article = None;
        self.last_section = None;
        self.last_annex = Some(label);
        let consumed = heading.title_end - 1;
        self.push(heading);
        consumed
    }
}

/// A wrapped line of running text that stops mid-sentence.
fn ends_mid_sentence(line: &str) -> bool {
    line.len() >= WRAPPED_LINE_MIN
        && line
            .chars()
            .next_back()
            .is_some_and(|c| c.is_lowercase() || c == ',')
}

/// A line this long that ends mid-sentence is wrapped running text.
const WRAPPED_LINE_MIN: usize = 40;

/// A title line that ends on a preposition or article, or is `[FORM OF]`.
fn ends_unfinished(title: &str) -> bool {
    let last = title
        .trim_end_matches(|c: char| c == ']' || c == ':' || c.is_whitespace())
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    matches!(
        last.as_str(),
        "OF" | "FOR" | "THE" | "AND" | "TO" | "IN" | "ON" | "WITH" | "BY" | "A" | "AN" | "OR"
    )
}

/// Keeps a run-on title (a numbered clause with no heading of its own) to
/// its first words.
fn short_title(title: &str) -> &str {
    const MAX: usize = 80;
    if title.len() <= MAX {
        return title;
    }
    let mut end = MAX;
    while !title.is_char_boundary(end) {
        end -= 1;
    }
    title[..end]
        .rfind(' ')
        .map_or(&title[..end], |i| &title[..i])
}
