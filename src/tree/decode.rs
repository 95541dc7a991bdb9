//! The plain-text heading decoder: every heading-like line is a candidate;
//! a dynamic programme over the candidates, in line order, picks the chain
//! that best explains the document.
//!
//! A chain is scored by the candidates it takes (a title that looks like a
//! title, evidence from the table of contents) less what its numbering
//! costs: `2.11 -> 2.12` or `2.12 -> ARTICLE III -> 3.1` are free, a skipped
//! number costs a little, a number going backwards is impossible, and a
//! level whose style changes (`ARTICLE` then bare `1.`) costs more. An early
//! false heading cannot block a later true one: every candidate is reached
//! from the best chain before it, not from the last one accepted. A
//! schedule or exhibit ends the numbered body, so a mention that opens one
//! too early loses every section after it and is not chosen.

use super::label::LabelKind;
use super::lines::{
    glued_bare_title, inline_title, is_furniture, is_title_line, is_tocish_past_leaders,
};
use super::lines::{CandKind, Candidate};

/// How many earlier candidates a candidate may follow. Real headings are
/// dense among the candidates; this bounds the work per candidate.
const WINDOW: usize = 32;
/// Gaps in numbering that are still plausible (omitted sections).
const MAX_SECTION_GAP: u32 = 12;
const MAX_ARTICLE_GAP: u32 = 4;
/// What starting the numbering again after the annexes costs.
const RESTART_COST: f32 = 3.0;
/// A line this long that ends mid-sentence is wrapped running text.
const WRAPPED_LINE_MIN: usize = 40;

/// Where a candidate sits in the numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Class {
    /// `ARTICLE VII`, `1. DEFINITIONS`, `SECTION 5.0 TERMINATION`.
    Article,
    /// `Section 2.12`, `2.12`.
    Section,
    /// `Section 7` (one number, with its keyword).
    Flat,
    /// `2.1.1 Agreement to Lend` (a titled third level).
    Sub,
    /// `Schedule 2.01`, `EXHIBIT A`.
    Annex,
}

/// One heading-like line.
#[derive(Debug, Clone)]
pub(crate) struct Cand {
    /// 0-based line index.
    pub line: usize,
    /// Byte offset of the heading inside its line: 0 for a heading at the
    /// line start, more for one placed inside a run-together line by the
    /// contents (see [`inline_candidates`]).
    pub offset: usize,
    /// Found inside a run-together line without contents evidence: the
    /// node starts at the line start.
    pub run_together: bool,
    /// Last line the heading takes (title below), 0-based.
    pub title_end: usize,
    pub class: Class,
    /// Article number, or (article, section) for sections.
    pub major: u32,
    pub minor: u32,
    /// Third number of a `Sub` heading.
    pub sub: u32,
    /// Identifies the way the label is written (keyword and case, dot).
    pub style: u16,
    pub title: String,
    /// Worth of taking this candidate, before numbering costs.
    pub reward: f32,
    /// An annex's id, upper-cased, to align it with the contents.
    pub annex_key: String,
}

#[derive(Debug, Clone, Copy, Default)]
struct State {
    art: Option<u32>,
    sec: Option<(u32, u32)>,
    sub: Option<u32>,
    flat: Option<u32>,
    art_style: Option<u16>,
    sec_style: Option<u16>,
    in_annex: bool,
    /// Whether sections restart at `1.1` in every article (`Some(true)`)
    /// or follow the article number (`Some(false)`), once seen.
    rel: Option<bool>,
    /// Some section has been taken (a numbering restart needs a first run).
    had_sections: bool,
    /// Some candidate has been taken: the default state is a chain's start.
    begun: bool,
    /// The chain opened with this article: its first section may resume
    /// anywhere (an excerpt or an amendment restating `6.4` and `6.5`).
    opening: bool,
}

/// What starting a chain late costs at most. An excerpt may start
/// anywhere, so the price of a late start stops growing: it is more than
/// any one candidate earns (1.0, or 1.5 with contents evidence), so a lone
/// stray `6.4` in prose stays prose, and less than two consistent
/// candidates earn (`ARTICLE VI` with `6.4` below it).
const LATE_START_MAX: f32 = 1.5;

/// What the first section below a chain's opening article costs at most
/// for the sections before it that are not there (0.15 each, as a gap
/// within an article): less than the article itself earns, so the
/// article is taken with its sections.
const RESUME_MAX: f32 = 0.9;

/// How much later than `1` / `1.1` a chain that starts at article `a`,
/// section `b` (`b` = 1 for an article alone) starts, capped.
fn lateness(a: u32, b: u32) -> f32 {
    let late = 0.2 * (a.min(3) as f32 - 1.0)
        + 0.3 * a.saturating_sub(3) as f32
        + 0.2 * b.saturating_sub(1) as f32;
    late.min(LATE_START_MAX)
}

/// The numbering cost of taking `c` after `s` (<= 0), or `None` when `c`
/// cannot follow, and the state after it.
fn step(s: &State, c: &Cand, sub_listed: bool) -> Option<(f32, State)> {
    let mut n = *s;
    n.begun = true;
    n.opening = false;
    let fresh = !s.begun;
    let mut cost = 0.0f32;
    if s.in_annex && c.class != Class::Annex {
        // After the schedules and exhibits, numbering that starts again
        // at 1 is a further agreement (a restated agreement after its
        // amendment, a statement of work): worth it only when it goes on.
        // Forms inside exhibits number their paragraphs `1.`, `2.`; a
        // further agreement opens with `ARTICLE I`.
        let first = c.class == Class::Article && c.major == 1 && c.style & KEYWORD_STYLE != 0;
        if !first {
            return None;
        }
        let (cost, st) = step(&State::default(), c, sub_listed)?;
        return Some((cost - RESTART_COST, st));
    }
    let style_cost = |have: Option<u16>| match have {
        Some(st) if st != c.style => 0.9,
        _ => 0.0,
    };
    match c.class {
        Class::Annex => {
            n.in_annex = true;
        }
        Class::Article => {
            let a = c.major;
            match s.art {
                None if fresh => {
                    // Numbering starts low; an excerpt may start later.
                    // Only a late article opens an excerpt: below
                    // `ARTICLE 1` sections start at the start.
                    n.opening = a > 1;
                    cost += lateness(a, 1);
                }
                None => {
                    // Articles after one-number sections or annexes.
                    if a > 20 {
                        return None;
                    }
                    cost += 0.2 * (a.min(3) as f32 - 1.0) + 0.3 * a.saturating_sub(3) as f32;
                }
                Some(x) => {
                    if a <= x || a > x + MAX_ARTICLE_GAP {
                        return None;
                    }
                    cost += 0.4 * (a - x - 1) as f32;
                }
            }
            cost += style_cost(s.art_style);
            n.art = Some(a);
            n.sec = None;
            n.art_style = Some(c.style);
        }
        Class::Section => {
            let (a, b) = (c.major, c.minor);
            match (s.art, s.sec) {
                // Within an article the section major stays what it was
                // (usually the article's number; in a document whose
                // automatic numbering was lost, `1` in every article).
                (Some(_), Some((sa, sb))) if sa == a => {
                    if b <= sb || b > sb + MAX_SECTION_GAP {
                        return None;
                    }
                    cost += 0.15 * (b - sb - 1) as f32;
                }
                (Some(x), _) if a == x && s.opening => {
                    if x > 1 {
                        n.rel = Some(false);
                    }
                    cost += (0.15 * b.saturating_sub(1) as f32).min(RESUME_MAX);
                }
                (Some(x), _) if a == x => {
                    // Untitled paragraphs (`7.1The District shall`) may
                    // come before an article's first titled section.
                    if b > MAX_SECTION_GAP {
                        return None;
                    }
                    if x > 1 {
                        n.rel = Some(false);
                    }
                    cost += 0.2 * b.saturating_sub(1) as f32;
                }
                (Some(x), None) if a == 1 && x > 1 && s.rel != Some(false) && s.had_sections => {
                    // Sections numbered afresh in each article (`1.1`
                    // under article 5).
                    if b > 2 {
                        return None;
                    }
                    cost += 0.3 + 0.2 * b.saturating_sub(1) as f32;
                    n.rel = Some(true);
                }
                (Some(x), _) if a == x + 1 && s.rel != Some(true) && b <= 2 => {
                    // The article's own heading was not found (or the
                    // document has none): its first section opens it.
                    let had_articles = s.art_style.is_some();
                    cost +=
                        if had_articles { 0.6 } else { 0.05 } + 0.2 * b.saturating_sub(1) as f32;
                    n.art = Some(a);
                }
                (Some(x), _)
                    if a > x
                        && a <= x + MAX_ARTICLE_GAP
                        && b <= MAX_SECTION_GAP
                        && s.rel != Some(true) =>
                {
                    // Headings lost in between (run into other lines by
                    // the extraction): a later article's section goes on,
                    // at a price per article and section skipped.
                    cost += 1.0 + 0.4 * (a - x - 1) as f32 + 0.15 * b.saturating_sub(1) as f32;
                    n.art = Some(a);
                }
                (Some(_), _) => return None,
                (None, _) if fresh => {
                    cost += lateness(a, b);
                    n.art = Some(a);
                    // `7.2` first: sections carry their article's number,
                    // so a later `1.1` does not restart them.
                    if a > 1 {
                        n.rel = Some(false);
                    }
                }
                (None, _) => {
                    if a > 3 || b > 3 {
                        return None;
                    }
                    cost += 0.2 * (a + b) as f32 - 0.4;
                    n.art = Some(a);
                }
            }
            cost += style_cost(s.sec_style);
            n.had_sections = true;
            n.sec = Some((a, b));
            n.sub = None;
            n.sec_style = Some(c.style);
        }
        Class::Sub => {
            // A third number is a heading level of its own below a keyword
            // section (`Section 2.1` / `2.1.1 Title`), or where the contents
            // list it (`2.1.4 Loan Principal Payment ..... 4`, however many
            // clauses come before it); otherwise, below a bare `2.1`, it is
            // the section's own clause outline.
            let keyword_sections = s.sec_style.is_some_and(|st| st & KEYWORD_STYLE != 0);
            if s.sec != Some((c.major, c.minor)) || !(keyword_sections || sub_listed) {
                return None;
            }
            let last = s.sub.unwrap_or(0);
            if c.sub <= last || (c.sub > last + 3 && !sub_listed) {
                return None;
            }
            cost += 0.2 * (c.sub - last - 1) as f32;
            n.sub = Some(c.sub);
        }
        Class::Flat => {
            let v = c.major;
            match s.flat {
                None if fresh => {
                    cost += lateness(v, 1);
                }
                None => {
                    // A document numbered `1.01` has no `Section 7` level
                    // as well: those are the sections of a later form.
                    if v > 3 || s.had_sections {
                        return None;
                    }
                    cost += 0.2 * (v as f32 - 1.0);
                }
                Some(m) => {
                    if v <= m || v > m + MAX_SECTION_GAP {
                        return None;
                    }
                    cost += 0.15 * (v - m - 1) as f32;
                }
            }
            cost += style_cost(s.sec_style);
            n.flat = Some(v);
            n.sec_style = Some(c.style);
        }
    }
    Some((-cost, n))
}

/// Chooses the heading chain: indices into `cands` (sorted by line);
/// `rewards[i]` is the worth of taking `cands[i]` (its own reward plus
/// any evidence from the contents).
pub(crate) fn decode(cands: &[&Cand], rewards: &[f32], sub_listed: &[bool]) -> Vec<usize> {
    let n = cands.len();
    let mut best = vec![f32::NEG_INFINITY; n];
    let mut prev = vec![usize::MAX; n];
    let mut state = vec![State::default(); n];
    // The best chain among the candidates that have left the window.
    let mut far: Option<usize> = None;
    for i in 0..n {
        let c = cands[i];
        // Start a chain here.
        if let Some((cost, st)) = step(&State::default(), c, sub_listed[i]) {
            best[i] = rewards[i] + cost;
            state[i] = st;
        }
        let lo = i.saturating_sub(WINDOW);
        if let Some(k) = lo.checked_sub(1) {
            if far.is_none_or(|f| best[k] > best[f]) {
                far = Some(k);
            }
        }
        // An annex follows any chain at no cost, and what may follow it
        // does not depend on that chain: it may follow the best one
        // however far back (an exhibit after another exhibit's form with
        // more numbered paragraphs than the window holds).
        let far_annex = far.filter(|&f| c.class == Class::Annex && follows(cands[f], c));
        for j in far_annex.into_iter().chain((lo..i).rev()) {
            if !follows(cands[j], c) || best[j] == f32::NEG_INFINITY {
                continue;
            }
            if let Some((cost, st)) = step(&state[j], c, sub_listed[i]) {
                let v = best[j] + rewards[i] + cost;
                if v > best[i] {
                    best[i] = v;
                    prev[i] = j;
                    state[i] = st;
                }
            }
        }
    }
    let Some((mut i, &v)) = best
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap_or(std::cmp::Ordering::Equal))
    else {
        return Vec::new();
    };
    if v <= 0.0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    loop {
        out.push(i);
        if prev[i] == usize::MAX {
            break;
        }
        i = prev[i];
    }
    out.reverse();
    out
}

/// Whether `c` can come after `p` in a chain: below `p`'s heading, or
/// further inside the same line when both stand in one line.
fn follows(p: &Cand, c: &Cand) -> bool {
    p.title_end < c.line || (p.line == c.line && p.title_end == c.line && p.offset < c.offset)
}

/// Small id for the way a label is written: depth (bits 0-1), dotted
/// (bit 2), keyword (bit 3), and the bare roman and lettered forms above.
fn style_of(keyword: &str, dotted: bool, depth: u16) -> u16 {
    // Case is not style: filings mix `Article 1` and `ARTICLE 9`.
    let k = if keyword.is_empty() { 0 } else { KEYWORD_STYLE };
    k + u16::from(dotted) * 4 + depth
}

const KEYWORD_STYLE: u16 = 8;

/// All candidates of one line (several for an ambiguous run-together
/// roman numeral), pushed to `out`.
pub(crate) fn candidates_at(lines: &[&str], j: usize, out: &mut Vec<Cand>) {
    let before = out.len();
    // A page run into one line: a heading at its start ends where its
    // capitals title does (`4. COMPENSATION In consideration of`).
    let head = if lines[j].len() >= RUN_IN_CLAUSE_MIN {
        without_run_in_body(lines[j])
    } else {
        lines[j]
    };
    candidates_in(lines, j, head, out);
    // A page number run into the next page's first line (`11 1.4. Interest
    // on Revolving Credit Advances.`): the heading is what follows it.
    if out.len() == before && lines[j].starts_with(|c: char| c.is_ascii_digit()) {
        if let Some((n, rest)) = lines[j].split_once(' ') {
            let rest = rest.trim_start();
            let page = (1..=3).contains(&n.len()) && n.bytes().all(|c| c.is_ascii_digit());
            if page && rest.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                candidates_in(lines, j, rest, out);
                out.truncate(
                    before
                        + out[before..]
                            .iter()
                            .take_while(|c| c.class == Class::Section)
                            .count(),
                );
            }
        }
    }
    if out.len() > before && continues_sentence(lines, j) {
        for c in &mut out[before..] {
            c.reward -= 2.0;
        }
    }
    // A page run into one line, or a heading that runs its first clause
    // into its line (`6. Intellectual Property 6.1 OWNERSHIP. All work`).
    if lines[j].len() >= RUN_TOGETHER_MIN
        || (out.len() > before && lines[j].len() >= RUN_IN_CLAUSE_MIN)
    {
        inside_run_together(lines, j, out, false);
    } else if lines[j].len() >= TAIL_HEADING_MIN {
        // A heading run onto the end of the paragraph before it (`... as
        // follows: 1. DEFINITIONS`, `... (Working Groups). 2. DEVELOPMENT`).
        inside_run_together(lines, j, out, true);
    }
}

/// A line this long holds a page the extraction ran together: its
/// headings stand inside it, after a sentence end or a capitals title.
const RUN_TOGETHER_MIN: usize = 1200;
/// A line this long may end with a heading run onto it.
const TAIL_HEADING_MIN: usize = 40;
/// A heading line this long may carry its first clauses run into it.
const RUN_IN_CLAUSE_MIN: usize = 200;
/// Heading starts looked at inside one run-together line.
const RUN_TOGETHER_CANDS: usize = 40;

/// Candidates inside a run-together line: a section or article label right
/// after a sentence end or a capitals title (`... as follows: SECTION 1.
/// DEFINITIONS`, `1. TERMS OF AGREEMENT 1.1 Commencement`), each at its
/// byte offset, its title cut where its body starts (a capitals title
/// before its body, or a short title closed by its period) and where the
/// next such heading starts. Less likely than a heading on a line of its
/// own; the numbering decides which the chain takes, and each one taken
/// starts its node there, mid-line.
fn inside_run_together(lines: &[&str], j: usize, out: &mut Vec<Cand>, tail_only: bool) {
    let t = lines[j];
    let starts = run_together_starts(t, tail_only);
    for (k, &p) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(t.len());
        let seg = t[p..end].trim_end();
        let before = out.len();
        candidates_in(lines, j, without_run_in_body(seg), out);
        out.truncate(
            before
                + out[before..]
                    .iter()
                    .take_while(|c| c.class != Class::Annex)
                    .count(),
        );
        for c in &mut out[before..] {
            // The title on the next line is not this heading's: it is
            // inline.
            c.offset = p;
            c.title_end = j;
            c.reward -= INSIDE_A_LINE;
            c.run_together = true;
        }
    }
}

/// Byte offsets inside `t` (never 0) where a heading may start: a label
/// (`12.9`, `SECTION 4`, `ARTICLE VII`) after a sentence end (`.`, `:`
/// after a word) or after a capitals word (the end of the previous
/// heading's capitals title), followed by a title that ends before its
/// body: short and closed by its period, or in capitals.
fn run_together_starts(t: &str, tail_only: bool) -> Vec<usize> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    // A line that starts with a one-number heading (`5. Intellectual
    // Property`): where its title starts, and its number.
    let title_at = bare_one_number(t)
        .and_then(|r| (r.as_ptr() as usize).checked_sub(t.as_ptr() as usize))
        .filter(|&at| at <= t.len());
    let own_number = t.split('.').next().unwrap_or("");
    for p in 1..b.len() {
        if out.len() >= RUN_TOGETHER_CANDS {
            break;
        }
        if b[p - 1] != b' ' {
            continue;
        }
        let rest = &t[p..];
        let starts = b[p].is_ascii_digit()
            || rest.starts_with("SECTION ")
            || rest.starts_with("Section ")
            || rest.starts_with("ARTICLE ")
            || rest.starts_with("Article ")
            || rest.starts_with("CLAUSE ")
            || rest.starts_with("Clause ");
        if !starts {
            continue;
        }
        let keyword = !b[p].is_ascii_digit();
        let before = t[..p].trim_end();
        let after_sentence = before.ends_with(['.', ':'])
            && before[..before.len() - 1].ends_with(|c: char| c.is_alphanumeric() || c == ')');
        let last_word = before.rsplit(' ').next().unwrap_or("");
        // The number of a label word before it (`SECTION 1. AMENDMENT`,
        // `under Section 2`): part of that label or reference, never a
        // label of its own.
        if is_label_word(last_word) {
            continue;
        }
        let after_capitals = last_word.len() >= 2
            && last_word
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c == b',');
        // Right after the title of the heading the line starts with (`6.
        // Intellectual Property 6.1 OWNERSHIP.`): no sentence end between
        // (the label's own period is not one).
        // Its first clause (`5.1`) right after that title.
        let after_title = !keyword
            && rest.split('.').next() == Some(own_number)
            && title_at.is_some_and(|at| {
                at < p
                    && p - at <= 100
                    && last_word.starts_with(|c: char| c.is_uppercase())
                    && !t[at..p].contains(". ")
            });
        // PDF text keeps the gap before a block: a keyword heading after
        // three spaces (`Regulations Version 1    CLAUSE 1. PURPOSE`, a
        // running page header before it).
        let after_gap = keyword
            && t[..p].ends_with("   ")
            && !before.ends_with(|c: char| c.is_lowercase() || c == ',');
        if !(after_sentence || after_capitals || after_title || after_gap) {
            continue;
        }
        // `1. DEFINITIONS`, `4. COMPENSATION In consideration`: a bare
        // one-number label, which the line recogniser leaves to the
        // decoder's own reading.
        let (c_rest, two_numbers) = match super::lines::candidate(rest) {
            Some(c) => (c.rest, c.num.1.is_some()),
            None => match bare_one_number(rest) {
                Some(r) => (r, false),
                None => continue,
            },
        };
        let it = inline_title(c_rest);
        let closed = it.len() <= 80 && title_like(it) && has_inline_body(rest);
        let capitals = without_run_in_body(rest).len() < rest.len();
        // A numbered clause (`1.2 Term This agreement is for`) after a
        // sentence end or right after its heading's title: a node of its
        // own when the numbering runs on.
        let clause = two_numbers && (after_title || after_capitals) && has_inline_body(rest);
        // A capitals title that ends the line: the heading of the text
        // below, run onto the end of the paragraph above.
        let title = c_rest.trim_end_matches('.');
        let tail = (after_sentence || after_gap)
            && !title.is_empty()
            && title.len() <= 100
            && is_capitals_title(title);
        if tail || (!tail_only && (closed || capitals || clause)) {
            out.push(p);
        }
    }
    out
}

/// A label word that starts a candidate of its own here (`SECTION`,
/// `Article`), so the number after it is never a second one.
fn is_label_word(w: &str) -> bool {
    ["SECTION", "ARTICLE", "CLAUSE"]
        .iter()
        .any(|k| w.eq_ignore_ascii_case(k))
}

/// The title part after a bare one-number label (`12. ` of `12. NOTICES`).
fn bare_one_number(t: &str) -> Option<&str> {
    let d = t.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=2).contains(&d) {
        return None;
    }
    t[d..].strip_prefix(". ").map(str::trim_start)
}

/// A heading whose capitals title runs straight into its body (`SECTION 5.
/// REPRESENTATIONS AND WARRANTIES To induce the Lenders`), cut before the
/// body's first word; any other heading as it is.
fn without_run_in_body(t: &str) -> &str {
    let Some(rest) = super::lines::candidate(t)
        .map(|c| c.rest)
        .or_else(|| bare_one_number(t))
    else {
        return t;
    };
    // `rest` is a slice of `t`: where it starts in `t`.
    let rest_at = rest.as_ptr() as usize - t.as_ptr() as usize;
    // PDF text keeps the gap between a heading and its body: a short
    // title before a run of three spaces (`3. Obligations Of The Parties
    // 3.1. HPIL ET's obligations`) ends there.
    if let Some(gap) = rest.get(..rest.len().min(100)).and_then(|h| h.find("   ")) {
        let title = rest[..gap].trim_end_matches('.');
        if gap > 0 && title_like(title) && !title.contains(". ") {
            return &t[..rest_at + title.len()];
        }
    }
    // A title in title case ends where its first clause's label starts
    // (`5. Intellectual Property 5.1 OWNERSHIP. All work`).
    let mut at = 0;
    for w in rest.split(' ').take(12) {
        if at > 0 && is_clause_label(w) {
            let title = rest[..at].trim_end();
            if title_like(title) && !title.contains(". ") {
                return &t[..rest_at + title.len()];
            }
            break;
        }
        at += w.len() + 1;
    }
    let mut end = 0;
    for w in rest.split(' ') {
        // The body starts at its first lower-case word, or at the first
        // clause's label (`1. TERMS OF AGREEMENT 1.1 Commencement`).
        if w.chars().any(char::is_lowercase)
            || (end > 0 && w.starts_with(|c: char| c.is_ascii_digit()))
        {
            break;
        }
        end += w.len() + 1;
    }
    let title = rest[..end.min(rest.len())].trim_end();
    if end < rest.len() && is_capitals_title(title) {
        &t[..rest_at + title.len()]
    } else {
        t
    }
}

/// `5.1`, `5.1.`, `12.10`: a two-number clause label standing as a word.
fn is_clause_label(w: &str) -> bool {
    let w = w.strip_suffix('.').unwrap_or(w);
    let Some((a, b)) = w.split_once('.') else {
        return false;
    };
    let digits = |x: &str| (1..=2).contains(&x.len()) && x.bytes().all(|c| c.is_ascii_digit());
    digits(a) && digits(b)
}

/// What a heading inside a line costs against one on a line of its own.
const INSIDE_A_LINE: f32 = 0.3;

/// The candidates of a heading that a contents entry places inside line
/// `j` at byte `offset` of it: `t` is the line's text from there to the
/// next such heading (or the line end), so a title stops where the next
/// heading starts (`SECTION 12. MISCELLANEOUS` / `12.1 Amendments`).
pub(crate) fn inline_candidates(
    lines: &[&str],
    j: usize,
    offset: usize,
    t: &str,
    out: &mut Vec<Cand>,
) {
    let before = out.len();
    candidates_in(lines, j, without_run_in_body(t), out);
    for c in &mut out[before..] {
        c.offset = offset;
        c.title_end = j;
        c.reward -= INSIDE_A_LINE;
    }
}

/// The candidates of line `j`, whose heading text is `t`.
fn candidates_in(lines: &[&str], j: usize, t: &str, out: &mut Vec<Cand>) {
    let Some(first) = t.as_bytes().first() else {
        return;
    };
    // `0xC2` starts `§`.
    if !(first.is_ascii_digit()
        || matches!(first, b'A' | b'S' | b'E' | b'C' | b'I' | b'V' | b'X' | 0xC2))
    {
        return;
    }
    // A line with dotted leaders is a contents entry, wherever it is
    // (tested only on lines that have a label: it scans the whole line).
    let leader = || super::lines::has_leader(t.as_bytes());
    match super::lines::candidate(t) {
        Some(c) if !leader() => from_candidate(lines, j, t, &c, out),
        Some(_) => {}
        None if first.is_ascii_digit() && !leader() => bare_top(lines, j, t, out),
        None if first.is_ascii_digit() => {}
        None if roman_then_period(t) && !leader() => bare_roman(lines, j, t, out),
        None => {}
    }
}

/// `IV.` at the start: checked before anything costlier (most lines that
/// start with `I` are `If`, `In`, `It`).
fn roman_then_period(t: &str) -> bool {
    let n = t.bytes().take_while(|b| b"IVX".contains(b)).count();
    n > 0 && (t.as_bytes().get(n) == Some(&b'.') || t[n..].starts_with(" - "))
}

/// `IV.     PROPRIETARY MARKS`: a roman numeral and its period before a
/// capitals title, the article level of a document without keywords.
fn bare_roman(lines: &[&str], j: usize, t: &str, out: &mut Vec<Cand>) {
    let Some((label, used)) = super::label::parse_label(t) else {
        return;
    };
    let dashed = t[used..].starts_with(" - ");
    if label.kind != LabelKind::Article || !(t[..used].ends_with('.') || dashed) {
        return;
    }
    let rest = t[used..].trim().trim_start_matches("- ");
    if !is_capitals_title(rest) || rest.len() > 100 {
        return;
    }
    push_titled(
        lines,
        j,
        rest,
        // `II -`: the title keeps its dash, so its label parses again.
        t[..used + if dashed { 2 } else { 0 }].to_owned(),
        Class::Article,
        (label.seq[0], 0),
        style_of("", true, 1) + ROMAN_STYLE,
        false,
        out,
    );
}

/// Style offsets of the bare forms that are neither `1.` nor `1.1`.
const ROMAN_STYLE: u16 = 16;
const LETTERED_STYLE: u16 = 32;

/// `t` has no leaders (`candidates_in` tested), here and in `bare_top`.
fn from_candidate(lines: &[&str], j: usize, t: &str, c: &Candidate<'_>, out: &mut Vec<Cand>) {
    if is_tocish_past_leaders(t) && !has_inline_body(c.rest) {
        return;
    }
    match c.kind {
        CandKind::Article => {
            let readings: Vec<(u32, &str, &str)> = if c.alternatives.is_empty() {
                vec![(c.num.0, c.ident, c.rest)]
            } else {
                c.alternatives.clone()
            };
            for (num, ident, rest) in readings {
                let label = format!("{} {}", c.keyword, ident);
                let style = style_of(c.keyword, false, 1);
                push_titled(
                    lines,
                    j,
                    rest,
                    label,
                    Class::Article,
                    (num, 0),
                    style,
                    true,
                    out,
                );
            }
        }
        CandKind::Section | CandKind::Bare => {
            let (major, minor) = c.num;
            let depth = if minor.is_some() { 2 } else { 1 };
            let style = style_of(c.keyword, c.dotted, depth);
            let (class, key) = match minor {
                // `SECTION 5.0 TERMINATION`: an article in all but name.
                Some(0) => (Class::Article, (major, 0)),
                Some(m) => (Class::Section, (major, m)),
                None => (Class::Flat, (major, 0)),
            };
            let keyword = c.kind == CandKind::Section;
            push_titled(lines, j, c.rest, c.label(), class, key, style, keyword, out);
            // `SECTION 9. EVENTS OF DEFAULT` above `9.1 ...`: a one-number
            // section with a capitals title may be the article level; the
            // numbering below decides which reading the chain takes.
            if keyword && class == Class::Flat && is_capitals_title(inline_title(c.rest)) {
                let style = style_of(c.keyword, c.dotted, 1);
                push_titled(
                    lines,
                    j,
                    c.rest,
                    c.label(),
                    Class::Article,
                    key,
                    style,
                    true,
                    out,
                );
            }
        }
        CandKind::Schedule | CandKind::Exhibit => {
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
            let style = style_of(c.keyword, false, 0);
            let before = out.len();
            push_titled(
                lines,
                j,
                rest,
                label.clone(),
                Class::Annex,
                (0, 0),
                style,
                true,
                out,
            );
            if let Some(x) = out.get_mut(before) {
                x.annex_key = label.to_uppercase();
                // A heading of its own: nothing but a title after the id,
                // and not a line of running text.
                if rest.len() > 80 || has_inline_body(rest) {
                    x.reward -= 1.5;
                }
                // A page footer (`Exhibit A-3` above the page break) is
                // followed by page furniture, a heading by its content.
                let next = lines[j + 1..].iter().take(6).find(|l| !l.is_empty());
                if next.is_some_and(|l| is_furniture(l)) {
                    x.reward -= 1.2;
                }
                // A list of exhibits: the next line is the next entry,
                // not this exhibit's content.
                let listed = next.is_some_and(|l| {
                    super::lines::candidate(l)
                        .is_some_and(|c| matches!(c.kind, CandKind::Schedule | CandKind::Exhibit))
                });
                if listed && !rest.is_empty() {
                    x.reward -= 1.2;
                }
            }
        }
    }
}

/// `1. DEFINITIONS`, `1.DEFINITIONS AND PRINCIPLES`, `1.` alone, `1.02`
/// alone (the title on the next line).
fn bare_top(lines: &[&str], j: usize, t: &str, out: &mut Vec<Cand>) {
    let b = t.as_bytes();
    let d1 = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if d1 == 0 || d1 > 2 {
        return;
    }
    let major: u32 = t[..d1].parse().unwrap_or(0);
    if major == 0 {
        return;
    }
    let mut i = d1;
    let mut minor = None;
    // `1.A.     INTRODUCTION.`: sections lettered under a numbered clause.
    if b.get(i) == Some(&b'.')
        && b.get(i + 1).is_some_and(u8::is_ascii_uppercase)
        && b.get(i + 2) == Some(&b'.')
        && b.get(i + 3).is_none_or(u8::is_ascii_whitespace)
    {
        let rest = t[i + 3..].trim();
        let letter = u32::from(b[i + 1] - b'A' + 1);
        if title_like(inline_title(rest)) || rest.is_empty() {
            push_titled(
                lines,
                j,
                rest,
                t[..i + 3].to_owned(),
                Class::Section,
                (major, letter),
                style_of("", true, 2) + LETTERED_STYLE,
                false,
                out,
            );
        }
        return;
    }
    if b.get(i) == Some(&b'.') {
        let d2 = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if (1..=2).contains(&d2) {
            minor = t[i + 1..i + 1 + d2].parse().ok();
            i += 1 + d2;
            if b.get(i) == Some(&b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    } else if b.get(i).is_some() {
        return;
    }
    let mut sub = None;
    if minor.is_some() && b.get(i - 1) == Some(&b'.') {
        let d3 = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let fourth =
            b.get(i + d3) == Some(&b'.') && b.get(i + d3 + 1).is_some_and(u8::is_ascii_digit);
        if fourth {
            return;
        }
        // `4.2.1Real Estate Taxes.`: a title run into the third number
        // reads as one when it is closed, as with two numbers.
        let glued = b.get(i + d3).is_some_and(u8::is_ascii_uppercase)
            && glued_bare_title(t[i + d3..].trim_end());
        if (1..=2).contains(&d3)
            && (glued || b.get(i + d3).is_some_and(|c| *c == b' ' || *c == b'.'))
        {
            sub = t[i..i + d3].parse::<u32>().ok();
            i += d3 + usize::from(b.get(i + d3) == Some(&b'.'));
        }
    }
    let rest = t[i..].trim();
    if is_tocish_past_leaders(t) && !has_inline_body(rest) {
        return;
    }
    if let (Some(m), Some(x)) = (minor, sub) {
        // A third level is a heading only with a short title of its own.
        let it = inline_title(rest);
        if rest.is_empty() || !title_like(it) || it.len() == rest.len() && rest.len() > 60 {
            return;
        }
        let label = t[..i].trim_end_matches('.').to_owned();
        push_titled(
            lines,
            j,
            rest,
            label,
            Class::Sub,
            (major, m),
            style_of("", false, 3),
            false,
            out,
        );
        if let Some(c) = out.last_mut() {
            c.sub = x;
        }
        return;
    }
    // `1.1 ...` with a title is already a candidate; here only a label
    // alone or a one-number heading.
    if minor.is_some() && !rest.is_empty() {
        return;
    }
    let glued = !t[i..].starts_with(char::is_whitespace) && !rest.is_empty();
    if glued && !rest.starts_with(char::is_uppercase) {
        return;
    }
    if !rest.is_empty() && !rest.starts_with(|c: char| c.is_uppercase() || c == '[') {
        return;
    }
    let label = t[..i].to_owned();
    match minor {
        Some(0) => push_titled(
            lines,
            j,
            rest,
            label,
            Class::Article,
            (major, 0),
            style_of("", true, 1),
            false,
            out,
        ),
        Some(m) => push_titled(
            lines,
            j,
            rest,
            label,
            Class::Section,
            (major, m),
            style_of("", false, 2),
            false,
            out,
        ),
        None => {
            let dotted = b.get(d1) == Some(&b'.');
            if !dotted {
                return;
            }
            push_titled(
                lines,
                j,
                rest,
                label,
                Class::Article,
                (major, 0),
                style_of("", true, 1),
                false,
                out,
            );
            if let Some(x) = out.last_mut().filter(|x| x.line == j) {
                // A one-number clause needs a title, not a sentence.
                if !title_like(&x.title[x.title.find(' ').map_or(x.title.len(), |p| p + 1)..]) {
                    x.reward -= 1.2;
                }
            }
        }
    }
}

/// A title in capital letters (`EVENTS OF DEFAULT`).
pub(crate) fn is_capitals_title(title: &str) -> bool {
    let letters = title.chars().filter(|c| c.is_alphabetic());
    let (mut n, mut upper) = (0, 0);
    for c in letters {
        n += 1;
        upper += usize::from(c.is_uppercase());
    }
    n >= 4 && upper * 10 >= n * 9 && title.split_whitespace().count() <= 12
}

/// A short heading title: few words, mostly capitalised.
fn title_like(title: &str) -> bool {
    let words: Vec<&str> = title.split_whitespace().collect();
    if words.is_empty() || words.len() > 14 {
        return false;
    }
    let caps = words
        .iter()
        .filter(|w| w.starts_with(|c: char| c.is_uppercase() || c == '[' || c == '(' || c == '&'))
        .count();
    let small = words.len() - caps;
    small * 2 <= words.len() || small <= 2 && words.len() <= 5 && caps > 0
}

/// Adds a candidate whose title is `rest` or, when `rest` is empty, the
/// short line(s) below it.
#[allow(clippy::too_many_arguments)]
fn push_titled(
    lines: &[&str],
    j: usize,
    rest: &str,
    label: String,
    class: Class,
    (major, minor): (u32, u32),
    style: u16,
    keyword: bool,
    out: &mut Vec<Cand>,
) {
    let mut reward = 1.0f32;
    let mut title_end = j;
    let title = if rest.is_empty() {
        match title_below(lines, j) {
            Ok(Some((title, k))) => {
                title_end = k;
                format!("{label} {title}")
            }
            Ok(None) => {
                if !keyword {
                    reward -= 0.3;
                }
                label.clone()
            }
            Err(()) => {
                // Running text right below a label: a numbered paragraph
                // (bare) or a heading without a title (keyword).
                reward -= if keyword { 0.3 } else { 0.6 };
                label.clone()
            }
        }
    } else {
        let it = inline_title(rest);
        let it = short_title(it);
        if !keyword && class != Class::Article && !title_like(it) && !has_inline_body(rest) {
            reward -= 0.4;
        }
        format!("{label} {it}")
    };
    out.push(Cand {
        line: j,
        offset: 0,
        run_together: false,
        title_end,
        class,
        major,
        minor,
        style,
        title,
        reward,
        sub: 0,
        annex_key: String::new(),
    });
}

/// Whether an inline heading carries body text after its title.
pub(crate) fn has_inline_body(rest: &str) -> bool {
    let title = inline_title(rest);
    let after = rest[title.len()..].trim_start_matches(['.', ']', ' ']);
    after.len() > 20
        && after
            .split_whitespace()
            .any(|w| w.starts_with(char::is_lowercase))
}

/// The previous line is wrapped running text that ends mid-sentence, so
/// this line is its continuation (`... pursuant to` / `Section 2.21.`).
fn continues_sentence(lines: &[&str], j: usize) -> bool {
    let Some(prev) = lines[..j].iter().rev().take(2).find(|l| !l.is_empty()) else {
        return false;
    };
    // A blank line between ends the sentence's line run.
    if j >= 1 && lines[j - 1].is_empty() {
        return false;
    }
    prev.len() >= WRAPPED_LINE_MIN
        && prev
            .chars()
            .next_back()
            .is_some_and(|c| c.is_lowercase() || c == ',')
}

/// The title on the next non-blank line(s), if short and not a heading
/// itself: (title, last line index). `Err` when running text follows.
fn title_below(lines: &[&str], j: usize) -> Result<Option<(String, usize)>, ()> {
    let Some((first, k)) = title_line_below(lines, j)? else {
        return Ok(None);
    };
    let mut title = first.to_owned();
    let mut end = k;
    // `OPINION OF COUNSEL FOR` / `THE BORROWER`: a title that stops on a
    // little word goes on below.
    if ends_unfinished(first) {
        if let Ok(Some((more, k2))) = title_line_below(lines, k) {
            title = format!("{first} {more}");
            end = k2;
        }
    }
    // `1.02` / `Other Interpretive Provisions` / `.`: a lone period.
    if let Some(d) = (end + 1..(end + 3).min(lines.len())).find(|&d| !lines[d].is_empty()) {
        if lines[d] == "." {
            end = d;
        }
    }
    Ok(Some((title, end)))
}

fn title_line_below<'a>(lines: &[&'a str], j: usize) -> Result<Option<(&'a str, usize)>, ()> {
    let end = (j + 5).min(lines.len());
    for (k, &u) in lines.iter().enumerate().take(end).skip(j + 1) {
        if u.is_empty() {
            continue;
        }
        if super::lines::candidate(u).is_some() {
            return Ok(None);
        }
        if is_title_line(u) && !is_furniture(u) {
            return Ok(Some((u, k)));
        }
        return Err(());
    }
    Ok(None)
}

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
