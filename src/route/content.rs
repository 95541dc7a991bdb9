//! Routing by content inside what titles decide. A title predicts a whole
//! section; the clause model (`crate::clause_model`) scores each of its
//! paragraphs for every CUAD category, and a paragraph's clause score is
//! the highest of those. Where the title leaves room, the score decides
//! paragraph by paragraph: in a section whose title is Medium or unknown,
//! only paragraphs scoring at least [`ContentThresholds::inside`] go; in a
//! section whose title is Low or Very Low, a paragraph scoring at least
//! [`ContentThresholds::rescue`] still goes. Very High and High titles
//! send their sections whole; noise, empty, calibrated and audited
//! sections are as their titles and overrides say.
//!
//! Every paragraph decided is kept on its section with its score and the
//! category behind it ([`ParagraphRoute`]), so the plan can show what was
//! not sent and why; the pieces of a section tile it byte for byte
//! ([`crate::tree::paragraphs::paragraph_pieces`]).
//!
//! The thresholds were chosen on the tuning half of the shared CUAD split
//! with models that never saw the contracts they scored, with a margin
//! (`scripts/paragraph-routing-eval`, docs/routing.md): they belong to the
//! shipped model and are chosen again when it is retrained. The model is
//! trained on commercial contracts and says nothing useful about credit
//! agreements (measured), so only the types it knows are routed by it.

use super::{Override, Route, RoutePlan, RoutedSection};
use crate::clause_model::{ClauseModel, TopScore};
use crate::index::reviewed::{fingerprint, ReviewedParagraphs};
use crate::index::Tier;
use crate::tree::paragraphs::paragraph_pieces;
use crate::tree::SourceText;
use serde::{Deserialize, Serialize};

/// Clause scores from which a paragraph is sent.
pub use crate::clause_model::Thresholds as ContentThresholds;

/// The shipped model's thresholds: on the CUAD checking half, 32.3% of
/// the characters not sent with 98.1% of the labelled clauses kept,
/// against 19.8% and 98.2% by titles alone.
pub const SHIPPED: ContentThresholds = ContentThresholds {
    inside: 0.0025,
    rescue: 0.04,
};

/// The document types the clause model was trained on.
pub const MODEL_TYPES: &[&str] = &["commercial"];

/// Paragraphs of fewer words are headings or fragments: they go with the
/// paragraph after them, on the higher score of the two.
const SHORT_WORDS: usize = 8;

/// One paragraph (or a heading and its paragraph) of a section routed by
/// its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParagraphRoute {
    /// Byte span in the source.
    pub start_byte: usize,
    pub end_byte: usize,
    pub chars: usize,
    /// The clause score: the highest category score.
    pub score: f32,
    /// The category scoring it highest.
    pub category: String,
    pub sent: bool,
    /// A reviewer decided it (`sent` is the decision, not the score's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reviewed: bool,
    /// The features that weigh most for `category`, strongest first, with
    /// their weights: why it scored as it did. Read while scoring and
    /// written to a plan's paragraphs.csv; not kept in a batch's state.
    #[serde(skip)]
    pub terms: Option<Vec<(String, f32)>>,
}

/// Features named per paragraph as the reason for its score.
pub const EXPLAINED_TERMS: usize = 5;

/// Whether the shipped model routes documents of this type by content.
pub fn applies_to(doc_type: &str) -> bool {
    MODEL_TYPES.contains(&doc_type)
}

/// The model that scores a document's paragraphs and the thresholds it
/// was chosen at.
#[derive(Debug, Clone, Copy)]
pub struct Scorer<'a> {
    pub model: &'a ClauseModel,
    pub thresholds: ContentThresholds,
    /// The family's own model ([`crate::clause_model::learned`]), not the
    /// shipped one.
    pub learned: bool,
}

/// What scores the paragraphs of a document of `doc_type` routed with
/// `index`: the family's learned model when one is kept beside its index,
/// else the shipped (or `KGROUTE_CLAUSE_MODEL`) model for the types it was
/// trained on; `None` when neither knows the type.
pub fn scorer_for<'a>(
    doc_type: &str,
    index: Option<&'a crate::index::GraphabilityIndex>,
) -> anyhow::Result<Option<Scorer<'a>>> {
    if let Some(l) = index.and_then(|i| i.learned.as_deref()) {
        return Ok(Some(Scorer {
            model: &l.model,
            thresholds: l.thresholds,
            learned: true,
        }));
    }
    if !applies_to(doc_type) {
        return Ok(None);
    }
    let model = crate::clause_model::active().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Some(Scorer {
        model,
        thresholds: SHIPPED,
        learned: false,
    }))
}

/// The clause score of paragraphs under a title: the highest score of
/// any category in any of them, its category and the terms behind it.
fn clause_score(model: &ClauseModel, title: &str, paragraphs: &[String]) -> TopScore {
    let mut best = TopScore::default();
    for p in paragraphs {
        let t = model.top_explained(title, p, EXPLAINED_TERMS);
        if t.score > best.score {
            best = t;
        }
    }
    best
}

/// The threshold a section's paragraphs are held to, or `None` when its
/// title and overrides decide it whole.
fn threshold(s: &RoutedSection, th: &ContentThresholds) -> Option<f32> {
    match (s.route, s.override_reason) {
        (Route::Noise | Route::Empty, _) => None,
        (_, Override::Calibrate | Override::Audit) => None,
        _ if s.end_byte <= s.start_byte => None,
        _ => match s.predicted_tier {
            Some(Tier::VeryHigh | Tier::High) => None,
            Some(Tier::Medium) | None => Some(th.inside),
            Some(Tier::Low | Tier::VeryLow) => Some(th.rescue),
        },
    }
}

/// Routes the paragraphs of `plan`'s sections by their clause scores
/// where the title leaves room (see the module's notes). A section whose
/// paragraphs split is kept with every paragraph's decision; one whose
/// paragraphs all go the way its title said is left whole. A section its
/// title skips that sends a paragraph, or one its title sends that sends
/// none, changes route with [`Override::Content`]. Routing again (after a
/// title is mapped) starts from the titles' decisions.
pub fn route_by_content(
    plan: &mut RoutePlan,
    source: &SourceText,
    model: &ClauseModel,
    th: &ContentThresholds,
    reviewed: &ReviewedParagraphs,
) {
    for s in &mut plan.sections {
        if s.override_reason == Override::Content {
            s.route = title_route(s.predicted_tier);
            s.override_reason = Override::None;
        }
        s.paragraphs.clear();
        let Some(at) = threshold(s, th) else {
            continue;
        };
        let text = source.byte_span_text(s.start_byte, s.end_byte);
        let pieces = paragraph_pieces(text);
        let mut scored: Vec<TopScore> = pieces
            .iter()
            .map(|p| clause_score(model, &s.title, &p.paragraphs))
            .collect();
        tie_short(&pieces, &mut scored);
        // The last piece takes the span's final newline, which the
        // section's text leaves out, so the pieces tile the span.
        let last = pieces.len() - 1;
        let decided: Vec<ParagraphRoute> = pieces
            .iter()
            .zip(scored)
            .enumerate()
            .map(|(i, (p, top))| {
                let start_byte = s.start_byte + p.start;
                let end_byte = if i == last {
                    s.end_byte
                } else {
                    s.start_byte + p.end
                };
                // A reviewer's decision comes before the score.
                let decision = (!reviewed.is_empty())
                    .then(|| reviewed.decision(&fingerprint(&source.text[start_byte..end_byte])))
                    .flatten();
                ParagraphRoute {
                    start_byte,
                    end_byte,
                    chars: source.text[start_byte..end_byte].chars().count(),
                    score: top.score,
                    category: model
                        .categories()
                        .get(top.category)
                        .cloned()
                        .unwrap_or_default(),
                    sent: decision.unwrap_or(top.score >= at),
                    reviewed: decision.is_some(),
                    terms: Some(top.terms),
                }
            })
            .collect();
        let any_sent = decided.iter().any(|p| p.sent);
        let all_sent = decided.iter().all(|p| p.sent);
        // A reviewed paragraph stays listed, so the plan shows the
        // reviewer's decision even where it agrees with the title.
        let any_reviewed = decided.iter().any(|p| p.reviewed);
        match s.route {
            Route::Llm if all_sent && !any_reviewed => {}
            Route::Skip if !any_sent && !any_reviewed => {}
            Route::Llm if all_sent => s.paragraphs = decided,
            Route::Skip if !any_sent => s.paragraphs = decided,
            Route::Llm if !any_sent => {
                s.route = Route::Skip;
                s.override_reason = Override::Content;
                s.paragraphs = decided;
            }
            Route::Skip => {
                s.route = Route::Llm;
                s.override_reason = Override::Content;
                s.paragraphs = decided;
            }
            _ => s.paragraphs = decided,
        }
    }
}

/// The route a title's tier gives (before any override).
fn title_route(tier: Option<Tier>) -> Route {
    match tier {
        Some(t) if !t.is_sent() => Route::Skip,
        _ => Route::Llm,
    }
}

/// A run of short pieces (headings) and the piece after it share the
/// highest score among them; short pieces at the end join the run before.
fn tie_short(pieces: &[crate::tree::paragraphs::ParagraphPiece], scored: &mut [TopScore]) {
    // Counted only as far as the bound: a long paragraph is not short.
    let words = |i: usize| -> usize {
        pieces[i]
            .paragraphs
            .iter()
            .flat_map(|p| p.split_whitespace())
            .take(SHORT_WORDS)
            .count()
    };
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 0..pieces.len() {
        if words(i) >= SHORT_WORDS {
            groups.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < pieces.len() {
        match groups.last_mut() {
            Some(g) => g.1 = pieces.len(),
            None => groups.push((start, pieces.len())),
        }
    }
    for (a, b) in groups.into_iter().filter(|(a, b)| b - a > 1) {
        // The first of the highest, as a fold from a zero score keeps it.
        let best = (a..b).fold(a, |m, i| {
            if scored[i].score > scored[m].score {
                i
            } else {
                m
            }
        });
        let best = if scored[best].score > 0.0 {
            scored[best].clone()
        } else {
            TopScore::default()
        };
        for x in &mut scored[a..b] {
            *x = best.clone();
        }
    }
}

impl RoutedSection {
    /// Characters of this section that go to the extractor: all of it
    /// when it is sent whole, its sent paragraphs' when its paragraphs
    /// were routed, none when skipped.
    pub fn sent_chars(&self) -> usize {
        if self.paragraphs.is_empty() {
            if self.route == Route::Llm {
                self.chars
            } else {
                0
            }
        } else {
            let sent: usize = self
                .paragraphs
                .iter()
                .filter(|p| p.sent)
                .map(|p| p.chars)
                .sum();
            sent.min(self.chars)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::build_tree;

    fn model() -> &'static ClauseModel {
        crate::clause_model::shipped()
    }

    fn planned(text: &str, tiers: &[(&str, Option<Tier>)]) -> (SourceText, RoutePlan) {
        let source = SourceText::from_text("t.txt", text);
        let tree = build_tree(&source);
        let mut plan = super::super::plan(
            &tree,
            &crate::index::GraphabilityIndex::default(),
            &Default::default(),
        );
        for s in &mut plan.sections {
            if let Some((_, t)) = tiers.iter().find(|(name, _)| s.title.contains(name)) {
                s.predicted_tier = *t;
                s.route = title_route(*t);
            }
        }
        (source, plan)
    }

    const CONTRACT: &str = "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Acme Corp. and Beta LLC.\n\n\
        ARTICLE 1. MISCELLANEOUS MATTERS\n\n\
        The headings in this Agreement are for convenience only and have no effect on its reading at all.\n\n\
        Neither party may assign this Agreement without the prior written consent of the other party, and any assignment without consent is void.\n\n\
        ARTICLE 2. GOVERNING LAW\n\n\
        This Agreement shall be governed by the laws of the State of New York, without regard to its conflict of laws rules.\n\n\
        This Agreement may be executed in any number of counterparts, each of which is an original and all together one instrument.\n";

    #[test]
    fn paragraphs_are_routed_by_score_where_the_title_leaves_room() {
        let (source, mut plan) = planned(
            CONTRACT,
            &[
                ("MISCELLANEOUS", Some(Tier::Medium)),
                ("GOVERNING", Some(Tier::VeryLow)),
            ],
        );
        let th = ContentThresholds {
            inside: 0.05,
            rescue: 0.3,
        };
        route_by_content(
            &mut plan,
            &source,
            model(),
            &th,
            &ReviewedParagraphs::default(),
        );
        let misc = plan
            .sections
            .iter()
            .find(|s| s.title.contains("MISCELLANEOUS"))
            .unwrap();
        // Each decision's piece is the source's text, and the pieces tile
        // the section.
        let mut at = misc.start_byte;
        for p in &misc.paragraphs {
            assert_eq!(p.start_byte, at);
            at = p.end_byte;
        }
        assert!(misc.paragraphs.is_empty() || at == misc.end_byte);
        // The anti-assignment clause goes; the boilerplate on headings
        // before it does not.
        let piece = |needle: &str| {
            misc.paragraphs
                .iter()
                .find(|p| source.text[p.start_byte..p.end_byte].contains(needle))
                .unwrap_or_else(|| panic!("{needle} routed by content: {misc:?}"))
        };
        let assign = piece("assign");
        assert!(assign.sent, "{assign:?}");
        assert_eq!(assign.category, "Anti-Assignment");
        assert!(!piece("for convenience only").sent);
        let unsent: usize = misc
            .paragraphs
            .iter()
            .filter(|p| !p.sent)
            .map(|p| p.chars)
            .sum();
        assert_eq!(misc.sent_chars() + unsent, misc.chars);
        // The governing-law clause of a Very Low section is rescued, the
        // counterparts clause is not.
        let law = plan
            .sections
            .iter()
            .find(|s| s.title.contains("GOVERNING"))
            .unwrap();
        assert_eq!(law.route, Route::Llm, "{law:?}");
        assert_eq!(law.override_reason, Override::Content);
        let sent: Vec<&str> = law
            .paragraphs
            .iter()
            .filter(|p| p.sent)
            .map(|p| &source.text[p.start_byte..p.end_byte])
            .collect();
        assert!(sent.iter().any(|t| t.contains("New York")), "{sent:?}");
        assert!(!sent.iter().any(|t| t.contains("counterparts")), "{sent:?}");
    }

    /// A reviewer's decision on a paragraph comes before its score: the
    /// headings boilerplate marked `send` goes, the anti-assignment clause
    /// marked `skip` stays out, and the section's other paragraphs keep
    /// their scores' decisions.
    #[test]
    fn a_reviewed_paragraph_goes_the_way_the_reviewer_decided() {
        use crate::index::reviewed::ReviewedParagraph;
        let (source, mut plan) = planned(CONTRACT, &[("MISCELLANEOUS", Some(Tier::Medium))]);
        let th = ContentThresholds {
            inside: 0.05,
            rescue: 0.3,
        };
        let decide = |text: &str, send: bool| ReviewedParagraph {
            fingerprint: fingerprint(text),
            send,
            category: String::new(),
            opening: String::new(),
        };
        let mut reviewed = ReviewedParagraphs::default();
        // Re-flowed and re-cased as another extraction would leave it.
        reviewed.decide(decide(
            "THE HEADINGS in this Agreement are for\nconvenience only and have no effect on its reading at all.",
            true,
        ));
        reviewed.decide(decide(
            "Neither party may assign this Agreement without the prior written consent of the other party, and any assignment without consent is void.",
            false,
        ));
        route_by_content(&mut plan, &source, model(), &th, &reviewed);
        let misc = plan
            .sections
            .iter()
            .find(|s| s.title.contains("MISCELLANEOUS"))
            .unwrap();
        let piece = |needle: &str| {
            misc.paragraphs
                .iter()
                .find(|p| source.text[p.start_byte..p.end_byte].contains(needle))
                .unwrap_or_else(|| panic!("{needle} routed: {misc:?}"))
        };
        let (headings, assign) = (piece("for convenience only"), piece("assign"));
        assert!(headings.sent && headings.reviewed, "{headings:?}");
        assert!(!assign.sent && assign.reviewed, "{assign:?}");
        assert_eq!(
            assign.category, "Anti-Assignment",
            "the score is still shown"
        );
        assert!(misc.paragraphs.iter().filter(|p| p.reviewed).count() == 2);
    }

    #[test]
    fn whole_tiers_and_overrides_are_left_as_their_titles_say_and_routing_again_starts_over() {
        let (source, mut plan) = planned(
            CONTRACT,
            &[
                ("MISCELLANEOUS", Some(Tier::High)),
                ("GOVERNING", Some(Tier::VeryLow)),
            ],
        );
        let never = ContentThresholds {
            inside: 2.0,
            rescue: 2.0,
        };
        route_by_content(
            &mut plan,
            &source,
            model(),
            &never,
            &ReviewedParagraphs::default(),
        );
        let first = plan.clone();
        let misc = plan
            .sections
            .iter()
            .find(|s| s.title.contains("MISCELLANEOUS"))
            .unwrap();
        assert!(
            misc.paragraphs.is_empty() && misc.route == Route::Llm,
            "High goes whole"
        );
        let rescue = ContentThresholds {
            inside: 0.0,
            rescue: 0.3,
        };
        route_by_content(
            &mut plan,
            &source,
            model(),
            &rescue,
            &ReviewedParagraphs::default(),
        );
        assert_ne!(plan, first);
        route_by_content(
            &mut plan,
            &source,
            model(),
            &never,
            &ReviewedParagraphs::default(),
        );
        assert_eq!(plan, first, "routing again starts from the titles");
    }
}
