//! Oracle ceilings of routing on CUAD (`cuad-eval --oracle`): with today's
//! trees, how much of the text could stay unsent while the labelled spans
//! still reach extraction, if routing knew the labels?
//!
//! The text is cut into units (the plan's sections, or finer: lines as
//! PDF extraction leaves them, i.e. paragraphs, or sentences); units are
//! sent or not in groups. A span is kept, as in the main figures, when at
//! least half of its bytes lie in sent units at any of its occurrences.
//! Starting from everything sent, a lazy greedy drops the group that saves
//! the most characters per span lost (groups losing nothing first) until
//! the recall target would be crossed: the set-cover problem is hard, the
//! greedy a close lower bound of the best cut.
//!
//! What may be dropped ([`Freedom`]): any unit (pure hindsight); or, for
//! the ceiling of routing by title, every section whose title the index
//! does not know (and the preamble, a fallback) stays sent, and the rest
//! is chosen per section or per index entry across the whole half (one
//! tier per entry, as an index gives it).

use kgroute::route::{Route, RoutePlan};
use kgroute::tree::{NodeKind, SourceText};
use std::collections::{BinaryHeap, HashMap};

/// How fine the units are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grain {
    Section,
    /// A line as the extraction leaves it (CUAD's PDF text puts a paragraph,
    /// often a page, on one line).
    Paragraph,
    Sentence,
}

/// Which units may be dropped, and together with what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freedom {
    /// Every unit on its own.
    Any,
    /// Unknown titles, the preamble and fallbacks stay sent; every other
    /// section on its own.
    KnownSections,
    /// Unknown titles, the preamble and fallbacks stay sent; the sections
    /// of one index entry (or all noise, all empty nodes) together.
    KnownEntries,
}

/// One oracle over the documents of a half.
pub struct Oracle {
    pub name: &'static str,
    grain: Grain,
    freedom: Freedom,
    /// Per unit: characters and its group (`None`: always sent).
    units: Vec<(usize, Option<usize>)>,
    group_units: Vec<Vec<usize>>,
    group_keys: HashMap<String, usize>,
    /// Per unit: the span occurrences it overlaps, with the overlap in bytes.
    touches: Vec<Vec<(usize, usize, usize)>>,
    /// Per span: the byte length of each occurrence.
    spans: Vec<Vec<usize>>,
}

/// An oracle's result at one recall target.
pub struct Ceiling {
    pub recall_pct: f64,
    pub cut_pct: f64,
    /// The groups dropped, in order, with a shared key (index entries):
    /// key, characters, spans lost.
    pub dropped: Vec<(String, usize, usize)>,
}

impl Oracle {
    pub fn new(name: &'static str, grain: Grain, freedom: Freedom) -> Self {
        Oracle {
            name,
            grain,
            freedom,
            units: Vec::new(),
            group_units: Vec::new(),
            group_keys: HashMap::new(),
            touches: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// Adds one document: its plan and, per labelled span found in the
    /// text, the byte ranges of its occurrences.
    pub fn add_doc(&mut self, source: &SourceText, plan: &RoutePlan, occs: &[Vec<(usize, usize)>]) {
        let mut doc_units: Vec<(usize, usize, usize)> = Vec::new();
        for s in &plan.sections {
            if s.end_byte <= s.start_byte {
                continue;
            }
            let group = self.group_of(s);
            for (b0, b1) in cut(&source.text, s.start_byte, s.end_byte, self.grain) {
                let id = self.units.len();
                let chars = source.text[b0..b1].chars().count();
                self.units.push((chars, None));
                self.touches.push(Vec::new());
                if let Some(key) = &group {
                    let g = match self.group_keys.get(key) {
                        Some(&g) => g,
                        None => {
                            let g = self.group_units.len();
                            self.group_units.push(Vec::new());
                            // A per-unit group is never looked up again.
                            if !key.is_empty() {
                                self.group_keys.insert(key.clone(), g);
                            }
                            g
                        }
                    };
                    self.units[id].1 = Some(g);
                    self.group_units[g].push(id);
                }
                doc_units.push((b0, b1, id));
            }
        }
        doc_units.sort_unstable();
        for occ in occs {
            let span = self.spans.len();
            let mut lens = Vec::with_capacity(occ.len());
            for (k, &(a, b)) in occ.iter().enumerate() {
                lens.push(b - a);
                let first = doc_units.partition_point(|u| u.1 <= a);
                for &(u0, u1, id) in doc_units[first..].iter().take_while(|u| u.0 < b) {
                    let ov = u1.min(b) - u0.max(a);
                    if ov > 0 {
                        self.touches[id].push((span, k, ov));
                    }
                }
            }
            self.spans.push(lens);
        }
    }

    /// The group key of a section's units: `Some("")` for a group of its
    /// own, a shared key for an index entry, `None` when always sent.
    fn group_of(&self, s: &kgroute::route::RoutedSection) -> Option<String> {
        let forced = matches!(s.kind, NodeKind::Preamble | NodeKind::Fallback)
            || (s.route == Route::Llm && s.predicted_tier.is_none());
        match self.freedom {
            Freedom::Any => Some(String::new()),
            _ if forced => None,
            Freedom::KnownSections => Some(String::new()),
            Freedom::KnownEntries => Some(match s.route {
                Route::Noise => "(noise)".into(),
                Route::Empty => "(empty)".into(),
                _ => s.matched.entry.clone().unwrap_or_default(),
            }),
        }
    }

    /// The best cut the greedy finds keeping at least `target` (0..=1) of
    /// the spans.
    pub fn run(&self, target: f64) -> Ceiling {
        let found = self.spans.len();
        let mut sent_unit = vec![true; self.units.len()];
        let mut occ_sent: Vec<Vec<usize>> = self.spans.iter().map(|l| vec![0; l.len()]).collect();
        for t in &self.touches {
            for &(s, k, ov) in t {
                occ_sent[s][k] += ov;
            }
        }
        let held = |occ_sent: &[usize], lens: &[usize]| {
            occ_sent.iter().zip(lens).any(|(&s, &l)| s * 2 >= l)
        };
        let mut kept: Vec<bool> = (0..found)
            .map(|s| held(&occ_sent[s], &self.spans[s]))
            .collect();
        let kept0 = kept.iter().filter(|&&k| k).count();
        let need = (target * found as f64).ceil() as usize;
        let mut budget = kept0.saturating_sub(need);
        let group_chars: Vec<usize> = self
            .group_units
            .iter()
            .map(|us| us.iter().map(|&u| self.units[u].0).sum())
            .collect();
        // What dropping group `g` loses: the kept spans left with no
        // occurrence half sent, and the reductions per occurrence.
        let loss = |g: usize, occ_sent: &[Vec<usize>], kept: &[bool]| {
            let mut red: HashMap<(usize, usize), usize> = HashMap::new();
            for &u in &self.group_units[g] {
                for &(s, k, ov) in &self.touches[u] {
                    *red.entry((s, k)).or_default() += ov;
                }
            }
            let mut spans: Vec<usize> = red.keys().map(|&(s, _)| s).collect();
            spans.sort_unstable();
            spans.dedup();
            let lost = spans
                .into_iter()
                .filter(|&s| {
                    kept[s]
                        && !occ_sent[s].iter().enumerate().any(|(k, &v)| {
                            (v - red.get(&(s, k)).copied().unwrap_or(0)) * 2 >= self.spans[s][k]
                        })
                })
                .count();
            (lost, red)
        };
        let key = |chars: usize, lost: usize| -> (u8, u64) {
            if lost == 0 {
                (1, chars as u64)
            } else {
                (0, (chars as u64 * 1000) / lost as u64)
            }
        };
        let mut names: Vec<&str> = vec![""; self.group_units.len()];
        for (k, &g) in &self.group_keys {
            names[g] = k;
        }
        let mut dropped = Vec::new();
        let mut heap: BinaryHeap<((u8, u64), usize)> = (0..self.group_units.len())
            .map(|g| ((1, group_chars[g] as u64), g))
            .collect();
        while let Some((_, g)) = heap.pop() {
            let (lost, red) = loss(g, &occ_sent, &kept);
            if lost > budget {
                continue;
            }
            let k = key(group_chars[g], lost);
            if heap.peek().is_some_and(|(top, _)| k < *top) {
                heap.push((k, g));
                continue;
            }
            for &u in &self.group_units[g] {
                sent_unit[u] = false;
            }
            if !names[g].is_empty() {
                dropped.push((names[g].to_string(), group_chars[g], lost));
            }
            let mut touched: Vec<usize> = red.keys().map(|&(s, _)| s).collect();
            for ((s, k), r) in red {
                occ_sent[s][k] -= r;
            }
            touched.sort_unstable();
            touched.dedup();
            for s in touched {
                if kept[s] && !held(&occ_sent[s], &self.spans[s]) {
                    kept[s] = false;
                }
            }
            budget -= lost;
        }
        let total: usize = self.units.iter().map(|u| u.0).sum();
        let sent: usize = self
            .units
            .iter()
            .zip(&sent_unit)
            .filter(|(_, &s)| s)
            .map(|(u, _)| u.0)
            .sum();
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        Ceiling {
            recall_pct: pct(kept.iter().filter(|&&k| k).count(), found),
            cut_pct: pct(total - sent, total),
            dropped,
        }
    }
}

/// The byte ranges of the units of `text[b0..b1]`.
fn cut(text: &str, b0: usize, b1: usize, grain: Grain) -> Vec<(usize, usize)> {
    if grain == Grain::Section {
        return vec![(b0, b1)];
    }
    let mut out = Vec::new();
    let mut start = b0;
    let bytes = text.as_bytes();
    let mut i = b0;
    while i < b1 {
        let end_here = match grain {
            Grain::Paragraph => bytes[i] == b'\n',
            // `. ` / `; ` followed by a capital, digit or bracket: the
            // boundary after the space.
            _ => {
                bytes[i] == b'\n'
                    || (matches!(bytes[i], b'.' | b';')
                        && i + 2 < b1
                        && bytes[i + 1] == b' '
                        && (bytes[i + 2].is_ascii_uppercase()
                            || bytes[i + 2].is_ascii_digit()
                            || bytes[i + 2] == b'('))
            }
        };
        if end_here {
            let e = if bytes[i] == b'\n' { i + 1 } else { i + 2 };
            if e > start {
                out.push((start, e));
            }
            start = e;
            i = e;
            continue;
        }
        i += 1;
    }
    if b1 > start {
        out.push((start, b1));
    }
    out
}
