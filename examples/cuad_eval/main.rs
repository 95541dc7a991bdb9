//! `scripts/cuad-eval`: what the pipeline keeps of CUAD's lawyer-labelled
//! commercial contracts (`shared/corpora/cuad`), per half of the fixed
//! split (within each type folder, files sorted by name: even positions
//! tune, odd positions check).
//!
//! Prints the five figures of issue 20 per half: contracts of 15,000+
//! characters with a usable tree (preamble + fallback + contents <= 10% of
//! the text, no node > 50%), contracts typed (not `unknown`), labelled
//! clause spans whose section goes to extraction, payload cut (characters
//! not sent / all), and contracts with text dropped without a reason; then
//! recall per category and the ten sections that lose the most labelled
//! clauses.
//!
//! A span is found by collapsing runs of whitespace on both sides (the
//! labels are verbatim from the file); it is kept when at least half of
//! its characters lie in sections routed to extraction, at any of its
//! occurrences (a party's defined name occurs everywhere).
//!
//! Usage: cuad_eval [--index PATH] [--corpora DIR] [--content] [--misses] [--files] [--unexplained] [--sent] [--oracle] [--entry NAME]
//! (`--content`: route paragraphs by their clause scores as `plan` and
//! `ingest` do by default, docs/routing.md; without it, titles only;
//! `--unexplained`: every section whose text is dropped without a reason;
//! `--sent`: characters sent per matched entry, and how many of them lie in
//! sections holding no labelled clause: where a skip would cut payload;
//! `--oracle`: the payload cut routing could reach if it knew the labels,
//! at section, paragraph and sentence grain, and by title alone; see
//! `oracle.rs`; `--entry NAME`: every section matched to that index entry,
//! or `new` for unknown titles, with its route, characters and labels)

mod oracle;
mod split;

use kgroute::extract::extractor::{skipped_section_inputs, DocContext};
use kgroute::extract::rules;
use kgroute::index::doctype::UNKNOWN_TYPE;
use kgroute::index::IndexSet;
use kgroute::route::{plan_document_in, PlanStats, Route, RouteOptions, RoutePlan};
use kgroute::tree::{DocTree, NodeKind, SourceText};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Contracts at least this long must have a usable tree.
const LONG_CHARS: usize = 15_000;

fn main() -> anyhow::Result<()> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut index = repo.join("indices");
    let mut corpora = std::env::var_os("KGROUTE_CORPORA")
        .map(PathBuf::from)
        .or_else(|| {
            repo.ancestors()
                .map(|a| a.join("shared/corpora"))
                .find(|p| p.is_dir())
        })
        .unwrap_or_else(|| repo.join("../shared/corpora"));
    let (mut misses, mut files, mut why, mut sent, mut ceiling) =
        (false, false, false, false, false);
    let mut entry: Option<String> = None;
    let mut opts = RouteOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--index" => index = args.next().map(PathBuf::from).unwrap_or(index),
            "--corpora" => corpora = args.next().map(PathBuf::from).unwrap_or(corpora),
            "--misses" => misses = true,
            "--files" => files = true,
            "--unexplained" => why = true,
            "--sent" => sent = true,
            "--oracle" => ceiling = true,
            "--entry" => entry = args.next(),
            "--content" => opts.content = true,
            other => anyhow::bail!(
                "unknown argument {other}; usage: cuad-eval [--index PATH] [--corpora DIR] [--content] [--misses] [--files] [--unexplained] [--sent] [--oracle] [--entry NAME]"
            ),
        }
    }
    let cuad = corpora.join("cuad");
    anyhow::ensure!(
        cuad.join("labels.json").is_file(),
        "{}: no CUAD labels.json; pass --corpora DIR or set KGROUTE_CORPORA",
        cuad.display()
    );
    let labels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cuad.join("labels.json"))?)?;
    let set = IndexSet::load(std::slice::from_ref(&index))?;
    println!(
        "index: {} (types: {})",
        index.display(),
        set.names().join(", ")
    );
    let halves = split::split(&cuad)?;
    for (half, rels) in [("tuning", &halves.0), ("checking", &halves.1)] {
        println!("\n== {half} half ({} contracts)", rels.len());
        let mut acc = Acc::default();
        let mut oracles = if ceiling { oracles() } else { Vec::new() };
        for rel in rels {
            let clauses = labels[rel.as_str()]["clauses"].clone();
            let d = evaluate(
                &cuad.join(rel),
                rel,
                &set,
                &clauses,
                &mut oracles,
                entry.as_deref(),
                &opts,
            )?;
            for line in &d.of_entry {
                println!("  {line}  {rel}");
            }
            if files {
                println!(
                    "  {:<70} {:<14} {:>7} ch usable {:<5} kept {:>3}/{:<3} cut {:>5.1}% unexplained {}",
                    rel,
                    d.doc_type,
                    d.chars,
                    d.usable.map_or("-".into(), |u| u.to_string()),
                    d.kept,
                    d.found,
                    d.stats.payload_cut_pct,
                    d.unexplained
                );
            }
            if why {
                for (route, kind, title, n, head) in &d.why {
                    println!(
                        "  ? {n:>6} {route:<6} {kind:<10} {title:<40.40} {rel}\n           {head}"
                    );
                }
            }
            acc.add(d);
        }
        acc.print(misses);
        if sent {
            acc.print_sent();
        }
        if ceiling {
            acc.print_mix();
        }
        print_oracles(&oracles);
    }
    Ok(())
}

/// The oracles `--oracle` prints.
fn oracles() -> Vec<oracle::Oracle> {
    use oracle::{Freedom, Grain, Oracle};
    vec![
        Oracle::new("any section (hindsight)", Grain::Section, Freedom::Any),
        Oracle::new("any paragraph (hindsight)", Grain::Paragraph, Freedom::Any),
        Oracle::new("any sentence (hindsight)", Grain::Sentence, Freedom::Any),
        Oracle::new(
            "unknown titles sent, known sections by hindsight",
            Grain::Section,
            Freedom::KnownSections,
        ),
        Oracle::new(
            "unknown titles sent, one route per index entry",
            Grain::Section,
            Freedom::KnownEntries,
        ),
    ]
}

fn print_oracles(oracles: &[oracle::Oracle]) {
    if oracles.is_empty() {
        return;
    }
    println!("-- oracle ceilings: payload cut at recall 100% / 98% (recall reached)");
    for o in oracles {
        let (a, b) = (o.run(1.0), o.run(0.98));
        println!(
            "  {:<50} {:>5.1}% ({:>5.1}%)   {:>5.1}% ({:>5.1}%)",
            o.name, a.cut_pct, a.recall_pct, b.cut_pct, b.recall_pct
        );
        if std::env::var_os("CUAD_ORACLE_DETAIL").is_some() {
            for (k, chars, lost) in &b.dropped {
                println!("      drop {chars:>9} {lost:>3}  {k}");
            }
        }
    }
}

/// One contract's outcome.
struct DocEval {
    rel: String,
    doc_type: String,
    chars: usize,
    /// `None` below [`LONG_CHARS`].
    usable: Option<bool>,
    stats: PlanStats,
    found: usize,
    kept: usize,
    /// Lost spans whose category's formulaic fact the offline rules took
    /// from the skipped section holding them (`RULES_FACTS`).
    by_rules: usize,
    not_found: usize,
    /// Category -> (found, kept).
    by_category: BTreeMap<String, (usize, usize)>,
    /// Lost spans per section: (title, route, tier) -> count.
    lost: BTreeMap<(String, String, String), usize>,
    /// Characters not sent with no reason a user could accept.
    unexplained: usize,
    /// The sections behind `unexplained`: route, kind, title, characters,
    /// the start of their text.
    why: Vec<(String, String, String, usize, String)>,
    /// `--entry`: one line per section of that entry.
    of_entry: Vec<String>,
    missed: Vec<(String, String)>,
    /// Per matched entry (`new` when none) of a sent section, and apart
    /// (`skipped: `) of a skipped one: (chars, chars in sections with no
    /// labelled clause, labelled clauses).
    sent_by_entry: BTreeMap<String, (usize, usize, usize)>,
    /// Characters by what routes them today ([`MIX`]).
    mix: [usize; 6],
}

/// The shares of the text by what routes it today.
const MIX: [&str; 6] = [
    "preamble/fallback",
    "unknown title",
    "known, sent",
    "known, skipped",
    "noise",
    "empty",
];

fn evaluate(
    path: &Path,
    rel: &str,
    set: &IndexSet,
    clauses: &serde_json::Value,
    oracles: &mut [oracle::Oracle],
    of_entry: Option<&str>,
    opts: &RouteOptions,
) -> anyhow::Result<DocEval> {
    let (source, tree, plan, guess) = plan_document_in(path, set, None, opts, true)?;
    let stats = PlanStats::of(&plan, None);
    let chars = source.text.chars().count();
    let why = unexplained_sections(&source, &plan);
    let usable = (chars >= LONG_CHARS).then(|| usable_tree(&tree, chars));
    let (collapsed, map) = collapse(&source.text);
    let mut d = DocEval {
        rel: rel.to_string(),
        doc_type: guess.name.clone(),
        chars,
        usable,
        found: 0,
        kept: 0,
        by_rules: 0,
        not_found: 0,
        by_category: BTreeMap::new(),
        lost: BTreeMap::new(),
        unexplained: why.iter().map(|w| w.3).sum(),
        why,
        of_entry: Vec::new(),
        missed: Vec::new(),
        sent_by_entry: BTreeMap::new(),
        mix: [0; 6],
        stats,
    };
    for s in &plan.sections {
        let at = match s.route {
            _ if matches!(s.kind, NodeKind::Preamble | NodeKind::Fallback) => 0,
            Route::Llm if s.predicted_tier.is_none() => 1,
            Route::Llm => 2,
            Route::Skip => 3,
            Route::Noise => 4,
            Route::Empty => 5,
        };
        d.mix[at] += s.chars;
    }
    let facts = skipped_facts(&source, &tree, &plan, set, &guess.name);
    let mut labels_in = vec![0usize; plan.sections.len()];
    let Some(cats) = clauses.as_object() else {
        return Ok(d);
    };
    // Per span found: the byte ranges of its occurrences (for the oracles).
    let mut occs: Vec<Vec<(usize, usize)>> = Vec::new();
    for (cat, spans) in cats {
        for span in spans.as_array().into_iter().flatten() {
            let Some(span) = span.as_str() else { continue };
            let needle = collapse(span).0;
            if needle.is_empty() {
                continue;
            }
            let mut best: Option<(f64, Option<usize>)> = None;
            let mut best_at = (0, 0);
            for (at, _) in collapsed.match_indices(needle.as_str()).take(200) {
                let (b0, b1) = (map[at], map[at + needle.len() - 1] + 1);
                let (frac, sec) = sent_fraction(&plan, b0, b1);
                if best.is_none_or(|(f, _)| frac > f) {
                    best = Some((frac, sec));
                    best_at = (b0, b1);
                }
                if frac >= 1.0 {
                    break;
                }
            }
            let Some((frac, sec)) = best else {
                d.not_found += 1;
                continue;
            };
            if !oracles.is_empty() {
                occs.push(
                    collapsed
                        .match_indices(needle.as_str())
                        .take(200)
                        .map(|(at, _)| (map[at], map[at + needle.len() - 1] + 1))
                        .collect(),
                );
            }
            for (i, sec) in plan.sections.iter().enumerate() {
                if sec.start_byte < best_at.1 && best_at.0 < sec.end_byte {
                    labels_in[i] += 1;
                }
            }
            let e = d.by_category.entry(cat.clone()).or_default();
            e.0 += 1;
            d.found += 1;
            if frac >= 0.5 {
                e.1 += 1;
                d.kept += 1;
            } else if sec.is_some_and(|i| rules_took(&facts, &plan.sections[i].node_id, cat)) {
                d.by_rules += 1;
            } else if let Some(i) = sec {
                let s = &plan.sections[i];
                let route = format!("{:?}", s.route).to_lowercase();
                let tier = s
                    .predicted_tier
                    .map_or("new".into(), |t| t.key().to_string());
                let span: String = span.split_whitespace().collect::<Vec<_>>().join(" ");
                let span: String = span.chars().take(90).collect();
                d.missed.push((
                    cat.clone(),
                    format!("{span}\n      in {:.60} ({route}, {tier})", s.title),
                ));
                *d.lost
                    .entry((format!("{} [{:?}]", s.title, s.kind), route, tier))
                    .or_default() += 1;
            }
        }
    }
    for o in oracles.iter_mut() {
        o.add_doc(&source, &plan, &occs);
    }
    for (i, sec) in plan.sections.iter().enumerate() {
        let entry = sec.matched.entry.as_deref().unwrap_or("new");
        if of_entry.is_some_and(|e| e.eq_ignore_ascii_case(entry)) {
            let route = format!("{:?}", sec.route).to_lowercase();
            d.of_entry.push(format!(
                "{route:<6} {:>7} ch {:>3} labels  {:<60.60}",
                sec.chars, labels_in[i], sec.title
            ));
        }
        let skipped = match sec.route {
            Route::Llm => "",
            Route::Skip => "skipped: ",
            _ => continue,
        };
        let key = match (&sec.matched.entry, sec.predicted_tier) {
            (Some(e), Some(t)) => format!("{skipped}{e} ({})", t.key()),
            _ => format!("new: {}", sec.name.to_lowercase()),
        };
        let e = d.sent_by_entry.entry(key).or_default();
        e.0 += sec.chars;
        if labels_in[i] == 0 {
            e.1 += sec.chars;
        }
        e.2 += labels_in[i];
    }
    Ok(d)
}

/// Categories whose fact is short and formulaic, with the relation the
/// offline rules give it (type, and a word its target must hold): a skipped
/// section that yields it loses nothing of the clause, at no LLM cost
/// (issue #20, item 4). The batch report counts these facts apart.
const RULES_FACTS: &[(&str, &str, &str)] = &[
    ("Governing Law", "GOVERNED_BY", ""),
    ("Anti-Assignment", "RESTRICTS", "assignment"),
    ("Change Of Control", "", "change of control"),
];

/// The rules' relations (type, lower-cased target) per skipped section.
fn skipped_facts(
    source: &SourceText,
    tree: &DocTree,
    plan: &RoutePlan,
    set: &IndexSet,
    doc_type: &str,
) -> BTreeMap<String, Vec<(String, String)>> {
    let ontology = set
        .get(doc_type)
        .map(|i| i.ontology.clone())
        .unwrap_or_default();
    let registry = kgroute::extract::rules::document_registry(plan, source);
    let doc = DocContext {
        doc_id: "d",
        doc_type,
        source,
        parties: &tree.party_names,
        registry: &registry,
    };
    skipped_section_inputs(plan, &doc)
        .into_iter()
        .map(|input| {
            let out = rules::extract_for(&input, &ontology);
            let rels = out
                .relations
                .into_iter()
                .map(|r| (r.relation_type, r.target.to_lowercase()))
                .collect();
            (input.node_id, rels)
        })
        .collect()
}

/// True when the rules took `category`'s fact from the section `node`.
fn rules_took(facts: &BTreeMap<String, Vec<(String, String)>>, node: &str, category: &str) -> bool {
    let Some(&(_, ty, word)) = RULES_FACTS.iter().find(|(c, _, _)| *c == category) else {
        return false;
    };
    facts.get(node).is_some_and(|rels| {
        rels.iter()
            .any(|(t, target)| (ty.is_empty() || t == ty) && target.contains(word))
    })
}

/// Preamble + fallback + contents <= 10% of the text and no node > 50%.
fn usable_tree(tree: &DocTree, chars: usize) -> bool {
    let mut loose = 0usize;
    let mut biggest = 0usize;
    for n in tree.iter() {
        if matches!(
            n.kind,
            NodeKind::Preamble | NodeKind::Fallback | NodeKind::Toc
        ) {
            loose += n.chars;
        }
        biggest = biggest.max(n.chars);
    }
    loose * 10 <= chars && biggest * 2 <= chars
}

/// The text with every whitespace run as one space, trimmed, and the
/// source byte of each of its bytes.
fn collapse(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len());
    let mut space = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            map.push(i);
            space = false;
        }
        let mut buf = [0u8; 4];
        for _ in 0..c.encode_utf8(&mut buf).len() {
            map.push(i);
        }
        out.push(c);
    }
    (out, map)
}

/// Share of the bytes `b0..b1` in sections sent to extraction, and the
/// section holding most of the unsent ones.
fn sent_fraction(plan: &RoutePlan, b0: usize, b1: usize) -> (f64, Option<usize>) {
    let mut sent = 0usize;
    let mut worst: Option<(usize, usize)> = None;
    for (i, s) in plan.sections.iter().enumerate() {
        let lo = s.start_byte.max(b0);
        let hi = s.end_byte.min(b1);
        if lo >= hi {
            continue;
        }
        // A section routed by content sends its sent paragraphs only.
        let sent_here = if s.paragraphs.is_empty() {
            if s.route == Route::Llm {
                hi - lo
            } else {
                0
            }
        } else {
            s.paragraphs
                .iter()
                .filter(|p| p.sent)
                .map(|p| p.end_byte.min(hi).saturating_sub(p.start_byte.max(lo)))
                .sum()
        };
        sent += sent_here;
        if sent_here < hi - lo && worst.is_none_or(|(_, n)| hi - lo > n) {
            worst = Some((i, hi - lo));
        }
    }
    (sent as f64 / (b1 - b0).max(1) as f64, worst.map(|(i, _)| i))
}

/// Characters not sent for no reason a user could accept: any unsent
/// character of a preamble or fallback node (the tree found no heading
/// there, so no title could justify a skip), the own text beyond the
/// heading line of an `empty` node, a contents or signature node whose
/// text reads as running prose (`TreeHealth::noise_running_text`), and any
/// other `noise` node whose text runs on long lines.
fn unexplained_sections(
    source: &SourceText,
    plan: &RoutePlan,
) -> Vec<(String, String, String, usize, String)> {
    let mut out = Vec::new();
    for s in &plan.sections {
        // Text left out by its clause score has a reason (paragraphs.csv).
        if s.route == Route::Llm
            || s.override_reason == kgroute::route::Override::Content
            || s.end_byte <= s.start_byte
        {
            continue;
        }
        let text = source.byte_span_text(s.start_byte, s.end_byte);
        let n = match s.kind {
            NodeKind::Preamble | NodeKind::Fallback => s.chars,
            _ if s.route == Route::Empty => {
                // The tree's own test: beyond its title, a lead-in of at
                // most 30 words (`assemble::LEAD_IN_MAX_WORDS`).
                let own = text.chars().count().saturating_sub(s.title.chars().count());
                let words = text
                    .split_whitespace()
                    .count()
                    .saturating_sub(s.title.split_whitespace().count());
                if words > 30 {
                    own
                } else {
                    0
                }
            }
            // A contents or signature node: the tree's own test
            // (`tree --check` warns about the same nodes).
            NodeKind::Toc | NodeKind::Signature if s.route == Route::Noise => {
                let h = &plan.tree_health.noise_running_text;
                if h.iter().any(|(t, _)| *t == s.title) {
                    s.chars
                } else {
                    0
                }
            }
            _ if s.route == Route::Noise => {
                let long: usize = text
                    .lines()
                    .filter(|l| l.chars().count() > 200)
                    .map(|l| l.chars().count())
                    .sum();
                if long * 2 > s.chars {
                    s.chars
                } else {
                    0
                }
            }
            _ => 0,
        };
        if n > 0 {
            let head: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push((
                format!("{:?}", s.route).to_lowercase(),
                format!("{:?}", s.kind),
                s.title.clone(),
                n,
                head.chars().take(160).collect(),
            ));
        }
    }
    out
}

#[derive(Default)]
struct Acc {
    docs: usize,
    long: usize,
    usable: usize,
    typed: usize,
    types: BTreeMap<String, usize>,
    found: usize,
    kept: usize,
    by_rules: usize,
    not_found: usize,
    stats: Vec<PlanStats>,
    unexplained_docs: usize,
    unexplained_chars: usize,
    by_category: BTreeMap<String, (usize, usize)>,
    lost: Vec<(usize, String, String, String, String)>,
    missed: Vec<(String, String, String)>,
    sent_by_entry: BTreeMap<String, (usize, usize, usize)>,
    untyped: Vec<String>,
    mix: [usize; 6],
}

impl Acc {
    fn add(&mut self, d: DocEval) {
        self.docs += 1;
        for (m, v) in self.mix.iter_mut().zip(d.mix) {
            *m += v;
        }
        for (k, v) in &d.sent_by_entry {
            let e = self.sent_by_entry.entry(k.clone()).or_default();
            e.0 += v.0;
            e.1 += v.1;
            e.2 += v.2;
        }
        if let Some(u) = d.usable {
            self.long += 1;
            self.usable += usize::from(u);
        }
        if d.doc_type != UNKNOWN_TYPE {
            self.typed += 1;
        } else {
            self.untyped.push(d.rel.clone());
        }
        *self.types.entry(d.doc_type.clone()).or_default() += 1;
        self.found += d.found;
        self.kept += d.kept;
        self.by_rules += d.by_rules;
        self.not_found += d.not_found;
        self.stats.push(d.stats);
        if d.unexplained > 0 {
            self.unexplained_docs += 1;
            self.unexplained_chars += d.unexplained;
        }
        for (c, (f, k)) in d.by_category {
            let e = self.by_category.entry(c).or_default();
            e.0 += f;
            e.1 += k;
        }
        for ((title, route, tier), n) in d.lost {
            self.lost.push((n, d.rel.clone(), title, route, tier));
        }
        for (c, s) in d.missed {
            self.missed.push((d.rel.clone(), c, s));
        }
    }

    /// The text's shares by what routes it today.
    fn print_mix(&self) {
        let total: usize = self.mix.iter().sum();
        let parts: Vec<String> = MIX
            .iter()
            .zip(self.mix)
            .map(|(n, v)| format!("{n} {:.1}%", 100.0 * v as f64 / total.max(1) as f64))
            .collect();
        println!("-- the text by today's route: {}", parts.join(", "));
    }

    /// The entries that send the most characters holding no labelled clause.
    fn print_sent(&self) {
        let mut rows: Vec<_> = self.sent_by_entry.iter().collect();
        rows.sort_by_key(|b| std::cmp::Reverse(b.1 .1));
        println!("-- characters per entry of sent sections (new: per heading name; skipped: of skipped ones): characters, of them in sections with no label, labels");
        for (k, (all, none, labels)) in rows.into_iter().take(100000) {
            println!("  {all:>9} {none:>9} {labels:>5}  {k}");
        }
    }

    fn print(&mut self, misses: bool) {
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        let total = PlanStats::sum(&self.stats, None);
        println!(
            "usable tree (15k+ chars)      {:>4}/{:<4} {:>5.1}%",
            self.usable,
            self.long,
            pct(self.usable, self.long)
        );
        println!(
            "typed (not unknown)           {:>4}/{:<4} {:>5.1}%",
            self.typed,
            self.docs,
            pct(self.typed, self.docs)
        );
        println!(
            "labelled spans kept           {:>4}/{:<4} {:>5.1}%   ({} spans not found in the text)",
            self.kept,
            self.found,
            pct(self.kept, self.found),
            self.not_found
        );
        println!(
            "... or their fact taken free {:>4}/{:<4} {:>5.1}%   (by the rules from a skipped section: {} spans of Governing Law, Anti-Assignment, Change Of Control)",
            self.kept + self.by_rules,
            self.found,
            pct(self.kept + self.by_rules, self.found),
            self.by_rules
        );
        println!(
            "payload cut                   {:>5.1}%   (skipped {:.1}%, noise {:.1}%, empty {:.1}% of {} chars)",
            total.payload_cut_pct,
            pct(total.chars_skipped, total.chars_total),
            pct(total.chars_noise, total.chars_total),
            pct(total.chars_empty, total.chars_total),
            total.chars_total
        );
        println!(
            "dropped without a reason      {:>4} contracts ({} chars)",
            self.unexplained_docs, self.unexplained_chars
        );
        println!(
            "types: {}",
            self.types
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !self.untyped.is_empty() {
            println!("untyped: {}", self.untyped.join(" "));
        }
        println!("-- recall per category (kept/found)");
        let mut cats: Vec<_> = self.by_category.iter().collect();
        cats.sort_by(|a, b| {
            pct(a.1 .1, a.1 .0)
                .partial_cmp(&pct(b.1 .1, b.1 .0))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for (c, (f, k)) in cats {
            println!("  {:<36} {:>4}/{:<4} {:>5.1}%", c, k, f, pct(*k, *f));
        }
        println!("-- the ten sections that lose the most labelled clauses");
        self.lost.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (n, rel, title, route, tier) in self.lost.iter().take(10) {
            let t: String = title.chars().take(60).collect();
            println!("  {n:>3} {route:<6} {tier:<9} {t:<62} {rel}");
        }
        if misses {
            println!("-- every lost span");
            for (rel, c, s) in &self.missed {
                println!("  {rel:<60} {c:<28} {s}");
            }
        }
    }
}
