//! Plan totals per document and per batch: sections by tier, new-section
//! share, characters sent/skipped, LLM payload cut, tokens and cost. Shared
//! by `kgroute plan`, the ingest pipeline and the report.

use super::cost::{estimate_tokens, Prices, RequestBill, OUTPUT_PER_INPUT, OUTPUT_PER_QUESTION};
use super::{Override, Route, RoutePlan};
use crate::index::Tier;
use serde::{Deserialize, Serialize};

/// Routed sections (sent or skipped) by predicted tier; `new` has no tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierCounts {
    pub very_high: usize,
    pub high: usize,
    pub medium: usize,
    pub low: usize,
    pub very_low: usize,
    pub new: usize,
}

impl TierCounts {
    fn bump(&mut self, tier: Option<Tier>) {
        *match tier {
            Some(Tier::VeryHigh) => &mut self.very_high,
            Some(Tier::High) => &mut self.high,
            Some(Tier::Medium) => &mut self.medium,
            Some(Tier::Low) => &mut self.low,
            Some(Tier::VeryLow) => &mut self.very_low,
            None => &mut self.new,
        } += 1;
    }

    fn add(&mut self, o: &TierCounts) {
        self.very_high += o.very_high;
        self.high += o.high;
        self.medium += o.medium;
        self.low += o.low;
        self.very_low += o.very_low;
        self.new += o.new;
    }
}

/// Totals of one plan or of a batch of plans.
///
/// Invariant: `chars_sent + chars_skipped + chars_noise + chars_empty ==
/// chars_total` (every node's own span is counted exactly once).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanStats {
    pub documents: usize,
    /// Every node of the tree.
    pub sections: usize,
    /// Sections with a prediction to act on (route `llm` or `skip`): the
    /// base of the tier counts and of the new-section share.
    pub routed_sections: usize,
    pub by_tier: TierCounts,
    pub anchors: usize,
    pub sent_sections: usize,
    pub skipped_sections: usize,
    pub noise_sections: usize,
    pub empty_sections: usize,
    pub calibrate_overrides: usize,
    pub audit_overrides: usize,
    pub chars_total: usize,
    pub chars_sent: usize,
    pub chars_skipped: usize,
    pub chars_noise: usize,
    pub chars_empty: usize,
    /// Of `chars_skipped`, what routing by content left out of sections
    /// their titles send; of `chars_sent`, what it sent from sections
    /// their titles skip.
    #[serde(default)]
    pub chars_skipped_by_content: usize,
    #[serde(default)]
    pub chars_sent_by_content: usize,
    /// New (unknown) sections / routed sections, in percent.
    pub new_section_pct: f64,
    /// Characters predicted Low/Very Low and skipped / total, in percent
    /// (the article's "LLM payload cut").
    pub skipped_pct: f64,
    /// Characters not sent for any reason (skipped, noise, empty) / total,
    /// in percent: the real reduction of the LLM payload.
    pub payload_cut_pct: f64,
    pub est_input_tokens: u64,
    pub est_output_tokens: u64,
    /// `None` when no prices were given.
    pub est_cost_usd: Option<f64>,
    /// The extraction requests the sent sections make, counted with the
    /// messages ingest builds (`kgroute plan`; zero where not counted).
    #[serde(default)]
    pub bill: RequestBill,
}

impl PlanStats {
    /// Totals of one document's plan.
    pub fn of(plan: &RoutePlan, prices: Option<&Prices>) -> Self {
        let mut s = PlanStats {
            documents: 1,
            ..Default::default()
        };
        for sec in &plan.sections {
            s.sections += 1;
            s.chars_total += sec.chars;
            match sec.route {
                Route::Llm | Route::Skip => {
                    s.routed_sections += 1;
                    s.by_tier.bump(sec.predicted_tier);
                    s.anchors += usize::from(sec.matched.anchor);
                }
                Route::Noise | Route::Empty => {}
            }
            match sec.route {
                Route::Llm => {
                    // A section routed by content sends its paragraphs
                    // that scored; the rest count as skipped.
                    s.sent_sections += 1;
                    s.chars_sent += sec.sent_chars();
                    s.chars_skipped += sec.chars - sec.sent_chars();
                    s.chars_skipped_by_content += sec.chars - sec.sent_chars();
                }
                Route::Skip => {
                    s.skipped_sections += 1;
                    s.chars_skipped += sec.chars;
                }
                Route::Noise => {
                    s.noise_sections += 1;
                    s.chars_noise += sec.chars;
                }
                Route::Empty => {
                    s.empty_sections += 1;
                    s.chars_empty += sec.chars;
                }
            }
            match sec.override_reason {
                Override::Calibrate => s.calibrate_overrides += 1,
                Override::Audit => s.audit_overrides += 1,
                Override::Content if sec.route == Route::Llm => {
                    s.chars_sent_by_content += sec.sent_chars();
                }
                Override::Content => s.chars_skipped_by_content += sec.chars,
                Override::None => {}
            }
        }
        s.finish(prices);
        s
    }

    /// Totals of a batch.
    pub fn sum<'a>(all: impl IntoIterator<Item = &'a PlanStats>, prices: Option<&Prices>) -> Self {
        let mut t = PlanStats::default();
        for s in all {
            t.documents += s.documents;
            t.sections += s.sections;
            t.routed_sections += s.routed_sections;
            t.by_tier.add(&s.by_tier);
            t.anchors += s.anchors;
            t.sent_sections += s.sent_sections;
            t.skipped_sections += s.skipped_sections;
            t.noise_sections += s.noise_sections;
            t.empty_sections += s.empty_sections;
            t.calibrate_overrides += s.calibrate_overrides;
            t.audit_overrides += s.audit_overrides;
            t.chars_total += s.chars_total;
            t.chars_sent += s.chars_sent;
            t.chars_skipped += s.chars_skipped;
            t.chars_noise += s.chars_noise;
            t.chars_skipped_by_content += s.chars_skipped_by_content;
            t.chars_sent_by_content += s.chars_sent_by_content;
            t.chars_empty += s.chars_empty;
            t.bill.add(&s.bill);
        }
        t.finish(prices);
        if t.bill.requests > 0 {
            t.apply_bill(t.bill, prices);
        }
        t
    }

    /// Takes `bill` as the plan's input estimate: the requests' messages,
    /// not the sections' characters alone; the answers estimated from the
    /// sections' text.
    pub fn apply_bill(&mut self, bill: RequestBill, prices: Option<&Prices>) {
        self.bill = bill;
        if bill.extract_tokens > 0 || bill.questions > 0 {
            // A verify bill: each answer is an id, a yes or no and a short
            // quote.
            self.est_input_tokens = bill.input_tokens;
            self.est_output_tokens = bill.questions * OUTPUT_PER_QUESTION;
        } else if bill.requests > 0 {
            self.est_input_tokens = bill.input_tokens;
            self.est_output_tokens = (bill.text_tokens as f64 * OUTPUT_PER_INPUT).ceil() as u64;
        }
        self.est_cost_usd = prices.map(|p| p.cost(self.est_input_tokens, self.est_output_tokens));
    }

    /// Recomputes the derived fields from the counts.
    fn finish(&mut self, prices: Option<&Prices>) {
        let pct = |a: usize, b: usize| {
            if b == 0 {
                0.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        self.new_section_pct = pct(self.by_tier.new, self.routed_sections);
        self.skipped_pct = pct(self.chars_skipped, self.chars_total);
        self.payload_cut_pct = pct(self.chars_total - self.chars_sent, self.chars_total);
        self.est_input_tokens = estimate_tokens(self.chars_sent);
        self.est_output_tokens = (self.est_input_tokens as f64 * OUTPUT_PER_INPUT).ceil() as u64;
        self.est_cost_usd = prices.map(|p| p.cost(self.est_input_tokens, self.est_output_tokens));
    }
}
