//! Title matching on meaning: finds the index entry a heading stands for.
//!
//! Works on the heading's name (numbering stripped) plus its context (the
//! names of its ancestors). Order:
//! 1. exact canonical title, exact alias (after [`normalize_title`]);
//! 2. `concept`: the same stems once spelling, stemming, stop words and the
//!    index's concept table have been applied (`Choice of Law` ~ `Governing
//!    Law`, `Right of Set-off` ~ `Setoff`);
//! 3. `context`: the name read together with its parent's name settles an
//!    ambiguous title (`Waivers` under a guaranty article is the guarantor's
//!    waivers, not the boilerplate no-waiver clause);
//! 4. a compound title (`Liens; Negative Pledge`, `Notes and Loan Accounts`)
//!    split on `;` `,` `/` and `and`, each part matched; it takes the
//!    highest tier among its parts;
//! 5. `fuzzy`: IDF-weighted Dice similarity of stems over every entry and
//!    alias, above the index's threshold, with a head-concept guard: the
//!    match must agree on the head noun of both phrases, not only on a
//!    shared modifier (`Judgments` is not `Judgment Currency`).
//!
//! Every result carries its method, score and the runner-up entry, so a
//! reviewer sees why. Kept separate from loading so it can be tested and
//! benchmarked on its own.

use super::concepts::Concepts;
use super::normalize::{is_reserved_normalized, normalize_name, normalize_title};
use super::tokens::{heads, is_light, is_stopword, lemma, raw_words, stems, LIGHT_WEIGHT};
use super::{IndexEntry, MatchMethod, Tier, TitleMatch};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// Something a title can match: an index entry or an anchor that is not
/// listed in a tier.
#[derive(Debug, Clone)]
struct Target {
    title: String,
    tier: Tier,
    anchor: bool,
}

/// One matchable string (canonical title or alias) as token ids.
#[derive(Debug, Clone)]
struct Key {
    target: usize,
    alias: bool,
    /// Sorted, deduplicated content tokens.
    tokens: Vec<u32>,
    heads: Vec<u32>,
    weight: f64,
    /// The key's content words as written (lower-cased): context matching
    /// asks for literal agreement ([`Matcher::same_word`]).
    words: Vec<String>,
}

/// Where a heading sits: the names of its ancestors, outermost first, and
/// the names its document defines in its opening (`("Miltenyi")`).
#[derive(Debug, Clone, Copy, Default)]
pub struct MatchContext<'a> {
    pub parents: &'a [String],
    pub own_names: &'a [String],
}

/// A query: content words as (token id or none, weight), and head words.
#[derive(Debug, Clone)]
struct Query {
    words: Vec<(Option<u32>, f64)>,
    heads: Vec<Option<u32>>,
    weight: f64,
}

/// One scored candidate.
#[derive(Debug, Clone, Copy)]
struct Cand {
    target: usize,
    score: f64,
    alias: bool,
}

/// Lookup tables built once per loaded index.
#[derive(Debug, Clone, Default)]
pub struct Matcher {
    targets: Vec<Target>,
    canonical: HashMap<String, usize>,
    alias: HashMap<String, usize>,
    noise: HashMap<String, String>,
    concepts: Concepts,
    vocab: HashMap<String, u32>,
    idf: Vec<f64>,
    keys: Vec<Key>,
    /// token id -> keys containing it.
    postings: Vec<Vec<usize>>,
    /// Weight given to a word the index never uses.
    unknown_weight: f64,
    /// Results already computed, by name and context (see [`MatchCache`]).
    cache: MatchCache,
}

/// Results of [`Matcher::match_heading`] by what decides them: the name
/// as read (own names dropped), the two nearest parents (all that context
/// matching looks at) and the threshold. Detection matches every heading
/// against every type's index and routing matches it again; across a batch
/// the same headings (`Definitions`, `Governing Law`) come back in most
/// documents, so each distinct one is analysed once per index. Matching is
/// a pure function of the key, so a cached result is the result. Bounded:
/// emptied when it reaches [`MatchCache::MAX`] entries.
#[derive(Debug, Default)]
struct MatchCache(std::sync::Mutex<HashMap<String, TitleMatch>>);

impl MatchCache {
    const MAX: usize = 100_000;

    fn key(name: &str, ctx: &MatchContext, threshold: f64) -> String {
        let mut k = String::with_capacity(name.len() + 64);
        k.push_str(&threshold.to_bits().to_string());
        // Each part after its length, so no text can read as another key.
        for p in ctx.parents.iter().rev().take(2) {
            k.push_str(&format!(" {}:", p.len()));
            k.push_str(p);
        }
        k.push_str(&format!(" {}:", name.len()));
        k.push_str(name);
        k
    }

    fn get(&self, key: &str) -> Option<TitleMatch> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: String, m: &TitleMatch) {
        if let Ok(mut c) = self.0.lock() {
            if c.len() >= Self::MAX {
                c.clear();
            }
            c.insert(key, m.clone());
        }
    }
}

/// A copy of an index starts with an empty cache.
impl Clone for MatchCache {
    fn clone(&self) -> Self {
        MatchCache::default()
    }
}

impl Matcher {
    /// Builds the tables. `entries` come first so target `i` is entry `i`.
    pub fn new(
        entries: &[IndexEntry],
        anchors: &[String],
        noise: &[String],
        concepts: &[Vec<String>],
    ) -> Self {
        let anchor_set: HashSet<String> = anchors.iter().map(|a| normalize_title(a)).collect();
        let mut m = Matcher {
            concepts: Concepts::new(concepts),
            ..Matcher::default()
        };
        for e in entries {
            let is_anchor = std::iter::once(&e.title)
                .chain(e.aliases.iter())
                .any(|t| anchor_set.contains(&normalize_title(t)));
            m.targets.push(Target {
                title: e.title.clone(),
                tier: if is_anchor { Tier::VeryHigh } else { e.tier },
                anchor: is_anchor,
            });
        }
        let mut texts: Vec<(String, usize, bool)> = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            texts.push((e.title.clone(), i, false));
            texts.extend(e.aliases.iter().map(|a| (a.clone(), i, true)));
        }
        for a in anchors {
            let n = normalize_title(a);
            if n.is_empty() || texts.iter().any(|(t, _, _)| normalize_title(t) == n) {
                continue;
            }
            m.targets.push(Target {
                title: a.clone(),
                tier: Tier::VeryHigh,
                anchor: true,
            });
            texts.push((a.clone(), m.targets.len() - 1, false));
        }
        for (text, target, alias) in &texts {
            m.add_key(text, *target, *alias);
        }
        let n = m.keys.len().max(1) as f64;
        m.idf = m
            .postings
            .iter()
            .map(|p| (1.0 + n / p.len().max(1) as f64).ln())
            .collect();
        m.unknown_weight = (1.0 + n).ln();
        for (w, &id) in &m.vocab {
            if is_light(w) {
                if let Some(x) = m.idf.get_mut(id as usize) {
                    *x *= LIGHT_WEIGHT;
                }
            }
        }
        for k in 0..m.keys.len() {
            let w: f64 = m.keys[k].tokens.iter().map(|&t| m.idf[t as usize]).sum();
            m.keys[k].weight = w;
        }
        for n in noise {
            m.noise.insert(normalize_title(n), n.clone());
        }
        m
    }

    /// Content stems of a name after the concept table, and its heads.
    fn analyze(&self, name: &str) -> (Vec<String>, Vec<String>) {
        let words = self.concepts.apply(stems(name));
        let h = heads(&words);
        let content = words.into_iter().filter(|w| !is_stopword(w)).collect();
        (content, h)
    }

    fn add_key(&mut self, text: &str, target: usize, alias: bool) {
        let n = normalize_title(text);
        if n.is_empty() {
            return;
        }
        let map = if alias {
            &mut self.alias
        } else {
            &mut self.canonical
        };
        map.entry(n).or_insert(target);
        let (content, head_words) = self.analyze(text);
        let id = |w: &str, m: &mut Matcher| -> u32 {
            let next = m.vocab.len() as u32;
            *m.vocab.entry(w.to_string()).or_insert(next)
        };
        let mut tokens: Vec<u32> = content.iter().map(|w| id(w, self)).collect();
        tokens.sort_unstable();
        tokens.dedup();
        let heads: Vec<u32> = head_words.iter().map(|w| id(w, self)).collect();
        if tokens.is_empty() {
            return;
        }
        let key = self.keys.len();
        for &t in &tokens {
            if self.postings.len() <= t as usize {
                self.postings.resize(t as usize + 1, Vec::new());
            }
            self.postings[t as usize].push(key);
        }
        let mut words = content_words(text);
        words.sort_unstable();
        words.dedup();
        self.keys.push(Key {
            target,
            alias,
            tokens,
            heads,
            weight: 0.0,
            words,
        });
    }

    fn query(&self, name: &str) -> Query {
        let (content, head_words) = self.analyze(name);
        let mut seen = HashSet::new();
        let words: Vec<(Option<u32>, f64)> = content
            .iter()
            .filter(|w| seen.insert(w.as_str()))
            .map(|w| {
                let id = self.vocab.get(w.as_str()).copied();
                let weight = id.map_or(self.unknown_weight, |t| {
                    self.idf
                        .get(t as usize)
                        .copied()
                        .unwrap_or(self.unknown_weight)
                });
                (id, weight)
            })
            .collect();
        let heads = head_words
            .iter()
            .map(|w| self.vocab.get(w.as_str()).copied())
            .collect();
        let weight = words.iter().map(|w| w.1).sum();
        Query {
            words,
            heads,
            weight,
        }
    }

    /// Exact lookup of a normalised title: canonical first, then alias.
    /// Returns the target index and the method.
    pub fn exact(&self, normalized: &str) -> Option<(usize, MatchMethod)> {
        if let Some(&i) = self.canonical.get(normalized) {
            return Some((i, MatchMethod::Exact));
        }
        self.alias.get(normalized).map(|&i| (i, MatchMethod::Alias))
    }

    /// Candidates for a query, best first, one per target; `must` lists
    /// token ids a key has to contain (context matching).
    fn rank(&self, q: &Query, must: &[u32], must_any: &[u32]) -> Vec<Cand> {
        if q.words.is_empty() {
            return Vec::new();
        }
        let mut shared: HashMap<usize, f64> = HashMap::new();
        for &(id, w) in &q.words {
            if let Some(t) = id {
                for &k in self.postings.get(t as usize).map_or(&[][..], |v| v) {
                    *shared.entry(k).or_insert(0.0) += w;
                }
            }
        }
        let qtokens: HashSet<u32> = q.words.iter().filter_map(|w| w.0).collect();
        let mut best: HashMap<usize, Cand> = HashMap::new();
        for (k, s) in shared {
            let key = &self.keys[k];
            if !must.iter().all(|t| key.tokens.binary_search(t).is_ok()) {
                continue;
            }
            if !must_any.is_empty() && !must_any.iter().any(|t| key.tokens.binary_search(t).is_ok())
            {
                continue;
            }
            // Head guard: each side's head is a word of the other.
            let key_head_ok = key.heads.iter().any(|h| qtokens.contains(h));
            let q_head_ok = q
                .heads
                .iter()
                .any(|h| h.is_some_and(|h| key.tokens.binary_search(&h).is_ok()));
            if !(key_head_ok && q_head_ok) {
                continue;
            }
            let score = 2.0 * s / (q.weight + key.weight);
            let c = Cand {
                target: key.target,
                score,
                alias: key.alias,
            };
            best.entry(key.target)
                .and_modify(|b| {
                    if score > b.score || (score == b.score && b.alias && !key.alias) {
                        *b = c;
                    }
                })
                .or_insert(c);
        }
        let mut out: Vec<Cand> = best.into_values().collect();
        out.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(
                    self.targets[b.target]
                        .tier
                        .rank()
                        .cmp(&self.targets[a.target].tier.rank()),
                )
                .then(a.alias.cmp(&b.alias))
                .then(a.target.cmp(&b.target))
        });
        out
    }

    /// One title part: exact, alias, concept or fuzzy above `threshold`.
    fn match_part(&self, part: &str, threshold: f64) -> Option<(usize, MatchMethod, f64)> {
        let norm = normalize_name(part);
        if norm.is_empty() {
            return None;
        }
        if let Some((i, m)) = self.exact(&norm) {
            return Some((i, m, 1.0));
        }
        let c = *self.rank(&self.query(part), &[], &[]).first()?;
        if c.score >= 1.0 - 1e-9 {
            Some((c.target, MatchMethod::Concept, 1.0))
        } else if c.score >= threshold {
            Some((c.target, MatchMethod::Fuzzy, c.score))
        } else {
            None
        }
    }

    /// Matches a raw section title (numbering included), with no context.
    pub fn match_title(&self, title: &str, threshold: f64) -> TitleMatch {
        self.match_heading(
            &crate::tree::split_heading(title).1,
            &MatchContext::default(),
            threshold,
        )
    }

    /// Matches a heading's name (no numbering) in its context.
    pub fn match_heading(&self, name: &str, ctx: &MatchContext, threshold: f64) -> TitleMatch {
        let read = self.without_own_names(name, ctx.own_names);
        let name = read.as_deref().unwrap_or(name);
        let key = MatchCache::key(name, ctx, threshold);
        if let Some(m) = self.cache.get(&key) {
            return m;
        }
        let m = self.match_name(name, ctx, threshold);
        self.cache.put(key, &m);
        m
    }

    /// [`Matcher::match_heading`] computed afresh, without the cache.
    #[cfg(test)]
    pub(crate) fn match_heading_uncached(
        &self,
        name: &str,
        ctx: &MatchContext,
        threshold: f64,
    ) -> TitleMatch {
        let read = self.without_own_names(name, ctx.own_names);
        self.match_name(read.as_deref().unwrap_or(name), ctx, threshold)
    }

    /// The name without the words of the document's own defined names that
    /// this index does not know (`Indemnification by Miltenyi` ->
    /// `Indemnification by`): a party's name says whose clause it is, not
    /// what it is, and as an unknown word it only dilutes the similarity.
    /// A defined name the index knows (`Supplier`, `Parties`) stays.
    /// `None` when nothing was dropped.
    fn without_own_names(&self, name: &str, own: &[String]) -> Option<String> {
        if own.is_empty() {
            return None;
        }
        let own_words: HashSet<String> = own
            .iter()
            .flat_map(|n| super::tokens::raw_words(n))
            .filter(|w| w.len() >= 2 && w.chars().all(char::is_alphabetic))
            .collect();
        let is_own = |piece: &str| {
            let raw = super::tokens::raw_words(piece);
            let [w] = raw.as_slice() else {
                return false;
            };
            // `Zogenix's` reads `zogenixs` once its apostrophe is dropped.
            let known =
                own_words.contains(w) || w.strip_suffix('s').is_some_and(|b| own_words.contains(b));
            known
                && self
                    .concepts
                    .apply(stems(piece))
                    .iter()
                    .all(|s| !self.vocab.contains_key(s) && !is_stopword(s))
        };
        let mut dropped = false;
        let kept: Vec<String> = name
            .split_whitespace()
            .map(|piece| {
                if is_own(piece) {
                    dropped = true;
                    // Keep the separators a compound title splits on.
                    piece.chars().filter(|c| !c.is_alphanumeric()).collect()
                } else {
                    piece.to_string()
                }
            })
            .collect();
        dropped.then(|| kept.join(" "))
    }

    fn match_name(&self, name: &str, ctx: &MatchContext, threshold: f64) -> TitleMatch {
        let mut out = TitleMatch::unmatched();
        let norm = normalize_name(name);
        if is_reserved_normalized(&norm) {
            out.reserved = true;
            return out;
        }
        if norm.is_empty() {
            return out;
        }
        if let Some(n) = self.noise.get(&norm) {
            out.entry = Some(n.clone());
            out.method = MatchMethod::Exact;
            out.score = 1.0;
            out.noise = true;
            return out;
        }
        let q = self.query(name);
        let ranked = self.rank(&q, &[], &[]);
        let runner = |chosen: usize| ranked.iter().find(|c| c.target != chosen).copied();
        let exact = self.exact(&norm).map(|(i, m)| (i, m, 1.0));
        let concept = ranked
            .first()
            .filter(|c| c.score >= 1.0 - 1e-9)
            .map(|c| (c.target, MatchMethod::Concept, 1.0));
        let whole = exact.or(concept);
        if let Some((hit, parent_entry)) = self.context_hit(name, &q, ctx, threshold) {
            // The parent's words settle an ambiguous name (`Waivers` under
            // a guaranty); they do not turn a name that has its own entry
            // into its parent's entry (`Remedies` under `Events of Default`
            // stays `Remedies`, `Financial Covenants` under `Negative
            // Covenants` stays `Financial Covenants`).
            let into_parent = whole.is_some() && parent_entry == Some(hit.0);
            if whole.is_none_or(|w| w.0 != hit.0) && !into_parent {
                return self.hit(
                    hit,
                    runner(hit.0).or(whole.map(|w| Cand {
                        target: w.0,
                        score: w.2,
                        alias: false,
                    })),
                );
            }
        }
        if let Some(w) = whole {
            return self.hit(w, runner(w.0));
        }
        let parts = split_parts(name);
        let part_hits: Vec<Option<(usize, MatchMethod, f64)>> = if parts.len() > 1 {
            parts
                .iter()
                .map(|p| self.match_part(p, threshold))
                .collect()
        } else {
            Vec::new()
        };
        let best_part = part_hits
            .iter()
            .flatten()
            .max_by(|a, b| {
                let (ta, tb) = (self.targets[a.0].tier, self.targets[b.0].tier);
                ta.rank()
                    .cmp(&tb.rank())
                    .then(a.2.partial_cmp(&b.2).unwrap_or(std::cmp::Ordering::Equal))
            })
            .copied();
        let all_parts = !part_hits.is_empty() && part_hits.iter().all(Option::is_some);
        if all_parts {
            if let Some(p) = best_part {
                return self.hit(p, runner(p.0));
            }
        }
        if let Some(c) = ranked.first().filter(|c| c.score >= threshold) {
            return self.hit((c.target, MatchMethod::Fuzzy, c.score), runner(c.target));
        }
        // Some parts unknown: only trust the known ones when they already
        // send the section; otherwise the unknown part makes it new.
        if let Some(p) = best_part {
            if self.targets[p.0].tier.is_sent() {
                return self.hit(p, runner(p.0));
            }
        }
        if let Some(c) = ranked.first() {
            out.score = c.score;
            out.runner_up = Some(self.targets[c.target].title.clone());
            out.runner_up_score = c.score;
        }
        out
    }

    /// The name read with its nearest parent that adds words: a key must
    /// hold the name's head and one of the parent's own words. Returns the
    /// hit and the entry the parent's name matches on its own, if any.
    fn context_hit(
        &self,
        name: &str,
        q: &Query,
        ctx: &MatchContext,
        threshold: f64,
    ) -> Option<((usize, MatchMethod, f64), Option<usize>)> {
        let head = q.heads.first().copied().flatten()?;
        let name_words = content_words(name);
        for parent in ctx.parents.iter().rev().take(2) {
            let parent_words: Vec<String> = content_words(parent)
                .into_iter()
                .filter(|p| !name_words.iter().any(|n| self.same_word(n, p)))
                .collect();
            // Stems equate `Borrower` with `Borrowing`: the reading holds
            // only if some key of the entry uses the name's own word and
            // the parent's own word as written.
            let literal = |target: usize| {
                self.keys.iter().filter(|k| k.target == target).any(|k| {
                    let has = |w: &String| k.words.iter().any(|kw| self.same_word(w, kw));
                    name_words.iter().any(has) && parent_words.iter().any(has)
                })
            };
            let pq = self.query(parent);
            let own: HashSet<Option<u32>> = q.words.iter().map(|w| w.0).collect();
            let extra: Vec<u32> = pq
                .words
                .iter()
                .filter(|w| !own.contains(&w.0))
                .filter_map(|w| w.0)
                .collect();
            if extra.is_empty() {
                continue;
            }
            let mut joined = q.clone();
            joined.words.extend(
                pq.words
                    .iter()
                    .filter(|w| w.0.is_some_and(|t| extra.contains(&t))),
            );
            joined.weight = joined.words.iter().map(|w| w.1).sum();
            // The parent's words widen the query; judge the key on the
            // words it shares with the name plus the parent.
            if let Some(c) = self.rank(&joined, &[head], &extra).first() {
                if c.score >= threshold && literal(c.target) {
                    let parent_entry =
                        self.exact(&normalize_name(parent))
                            .map(|(i, _)| i)
                            .or_else(|| {
                                self.rank(&pq, &[], &[])
                                    .first()
                                    .filter(|p| p.score >= threshold)
                                    .map(|p| p.target)
                            });
                    return Some(((c.target, MatchMethod::Context, c.score), parent_entry));
                }
            }
        }
        None
    }

    /// Two words as written name the same thing: equal, or made equal by
    /// the index's concept table (`Guarantee` ~ `Guaranty`), but not only
    /// by the stemmer (`Borrower` / `Borrowing`).
    fn same_word(&self, a: &str, b: &str) -> bool {
        if a == b || lemma(a) == lemma(b) {
            return true;
        }
        let (sa, sb) = (stems(a), stems(b));
        sa != sb && self.concepts.apply(sa) == self.concepts.apply(sb)
    }

    fn hit(
        &self,
        (target, method, score): (usize, MatchMethod, f64),
        runner: Option<Cand>,
    ) -> TitleMatch {
        let t = &self.targets[target];
        TitleMatch {
            entry: Some(t.title.clone()),
            method,
            score,
            tier: Some(t.tier),
            anchor: t.anchor,
            noise: false,
            reserved: false,
            runner_up: runner.map(|c| self.targets[c.target].title.clone()),
            runner_up_score: runner.map_or(0.0, |c| c.score),
        }
    }
}

/// A name's content words as written, lower-cased (stop words dropped).
fn content_words(name: &str) -> Vec<String> {
    raw_words(name)
        .into_iter()
        .filter(|w| !is_stopword(w))
        .collect()
}

/// The parts of a compound title: split on `;` `,` `/` and the word `and`.
fn split_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for p in name.split([';', ',', '/']) {
        let lower = p.to_lowercase();
        if lower.len() != p.len() {
            parts.push(p.to_string());
            continue;
        }
        let mut start = 0;
        for (i, _) in lower.match_indices(" and ") {
            parts.push(p[start..i].to_string());
            start = i + 5;
        }
        parts.push(p[start..].to_string());
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !matches!(normalize_name(p).as_str(), "" | "etc"))
        .collect()
}

#[cfg(test)]
mod tests;
