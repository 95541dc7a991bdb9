//! What a plan will cost: token estimates and per-model prices, so `kgroute
//! plan` can put a dollar figure on the payload cut before any LLM call.
//!
//! [`CostModel`] is the one estimate: `kgroute plan`, the `--max-cost` gate
//! and the batch summary all use it. Tokens are counted with the model's
//! real tokenizer (`tiktoken-rs` embeds cl100k and o200k, offline); only a
//! model with no known tokenizer falls back to chars/4, and says so.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Characters per token used when no tokenizer is configured.
pub const CHARS_PER_TOKEN: f64 = 4.0;

/// Output tokens assumed per input token when estimating cost: an
/// extraction answer (entities and relations as JSON) is much shorter than
/// the section it reads.
pub const OUTPUT_PER_INPUT: f64 = 0.25;

/// Output tokens assumed per verify question: an id, yes or no, a quote of
/// a few words and a party name.
pub const OUTPUT_PER_QUESTION: u64 = 40;

/// Estimated tokens for a number of characters (chars / 4, rounded up).
pub fn estimate_tokens(chars: usize) -> u64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as u64
}

/// How tokens are counted.
#[derive(Clone, Copy)]
enum Counter {
    Bpe(&'static tiktoken_rs::CoreBPE, &'static str),
    CharsPer4,
}

/// A section's estimated tokens and price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// `None` when the price is unknown.
    pub usd: Option<f64>,
}

/// The one cost estimate of a run: a token counter for the model and its
/// prices (if known).
#[derive(Clone)]
pub struct CostModel {
    model: Option<String>,
    counter: Counter,
    prices: Option<Prices>,
}

impl std::fmt::Debug for CostModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CostModel")
            .field("model", &self.model)
            .field("tokenizer", &self.tokenizer_name())
            .field("prices", &self.prices)
            .finish()
    }
}

impl CostModel {
    /// The tokenizer of `model` when tiktoken knows it (chars/4 otherwise,
    /// and for no model at all), with these prices.
    pub fn new(model: Option<&str>, prices: Option<Prices>) -> CostModel {
        use tiktoken_rs::tokenizer::{get_tokenizer, Tokenizer};
        let counter = match model.and_then(get_tokenizer) {
            Some(Tokenizer::O200kBase | Tokenizer::O200kHarmony) => {
                Counter::Bpe(tiktoken_rs::o200k_base_singleton(), "o200k_base")
            }
            Some(Tokenizer::Cl100kBase) => {
                Counter::Bpe(tiktoken_rs::cl100k_base_singleton(), "cl100k_base")
            }
            _ => Counter::CharsPer4,
        };
        CostModel {
            model: model.map(str::to_string),
            counter,
            prices,
        }
    }

    pub fn prices(&self) -> Option<Prices> {
        self.prices
    }

    /// `o200k_base`, `cl100k_base` or `None` (chars/4).
    pub fn tokenizer_name(&self) -> Option<&'static str> {
        match self.counter {
            Counter::Bpe(_, n) => Some(n),
            Counter::CharsPer4 => None,
        }
    }

    /// Tokens of `text`.
    pub fn tokens(&self, text: &str) -> u64 {
        match self.counter {
            Counter::Bpe(bpe, _) => bpe.encode_ordinary(text).len() as u64,
            Counter::CharsPer4 => estimate_tokens(text.chars().count()),
        }
    }

    /// The estimate for sending `text` (the section as the plan routes it).
    pub fn estimate(&self, text: &str) -> Estimate {
        let tokens_in = self.tokens(text);
        let tokens_out = (tokens_in as f64 * OUTPUT_PER_INPUT).ceil() as u64;
        Estimate {
            tokens_in,
            tokens_out,
            usd: self.prices.map(|p| p.cost(tokens_in, tokens_out)),
        }
    }

    /// One line on how tokens and cost are estimated.
    pub fn describe(&self) -> String {
        let tokens = match (self.tokenizer_name(), &self.model) {
            (Some(t), Some(m)) => format!("tokens counted with {t} (the tokenizer of {m})"),
            (_, Some(m)) => {
                format!("tokens estimated as chars/4 (no known tokenizer for model `{m}`)")
            }
            (_, None) => "tokens estimated as chars/4 (no model given)".to_string(),
        };
        let price = match self.prices {
            Some(p) => format!(
                "${}/M in, ${}/M out",
                p.input_per_million, p.output_per_million
            ),
            None => "price unknown (cost shown as unknown)".to_string(),
        };
        format!("{tokens}; {price}")
    }
}

/// What a document's (or a batch's) extraction requests send, counted
/// before any is sent from the same packs and messages `ingest` builds
/// (`extract::bill`): what `kgroute plan` shows and the summary holds
/// against what the server billed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestBill {
    /// Extraction requests (packs).
    pub requests: u64,
    /// Characters sent: every message, and the schema where it is billed.
    pub input_chars: u64,
    /// Of those, the sections' own text.
    pub text_chars: u64,
    /// Input tokens: messages, schema where billed, the chat template.
    pub input_tokens: u64,
    /// Of those, the sections' own text.
    pub text_tokens: u64,
    /// Of those, the prefix every request of a type starts with (system
    /// message, and schema where billed): a server's prompt cache bills
    /// it once and then at its cached rate.
    pub prefix_tokens: u64,
    /// The same documents sent whole, one request each, with the same
    /// prompt: what routing is measured against.
    pub whole_document_chars: u64,
    pub whole_document_tokens: u64,
    /// With `--llm-mode verify`: the closed questions asked (one request
    /// holds a section's), and the input tokens `--llm-mode extract`
    /// would send for the same documents, what verifying is measured
    /// against. Zero in extract mode.
    #[serde(default)]
    pub questions: u64,
    #[serde(default)]
    pub extract_tokens: u64,
    /// With `--llm-mode verify`: questions found but not asked, to keep
    /// each document within `--verify-share` of its extraction.
    #[serde(default)]
    pub questions_left_out: u64,
}

impl RequestBill {
    pub fn add(&mut self, o: &RequestBill) {
        self.requests += o.requests;
        self.input_chars += o.input_chars;
        self.text_chars += o.text_chars;
        self.input_tokens += o.input_tokens;
        self.text_tokens += o.text_tokens;
        self.prefix_tokens += o.prefix_tokens;
        self.whole_document_chars += o.whole_document_chars;
        self.whole_document_tokens += o.whole_document_tokens;
        self.questions += o.questions;
        self.extract_tokens += o.extract_tokens;
        self.questions_left_out += o.questions_left_out;
    }

    /// `, N more left out ...` when `--verify-share` left questions out,
    /// for the line that states how many are asked.
    pub fn left_out_phrase(&self) -> String {
        if self.questions_left_out == 0 {
            String::new()
        } else {
            format!(
                ", {} more left out to stay within --verify-share",
                self.questions_left_out
            )
        }
    }

    /// Verify's input tokens / extract's on the same documents, when this
    /// is a verify bill.
    pub fn vs_extract(&self) -> Option<f64> {
        (self.extract_tokens > 0).then(|| self.input_tokens as f64 / self.extract_tokens as f64)
    }

    /// Input tokens sent / the whole documents' (1.0 with nothing to send).
    pub fn vs_whole_documents(&self) -> f64 {
        if self.whole_document_tokens == 0 {
            1.0
        } else {
            self.input_tokens as f64 / self.whole_document_tokens as f64
        }
    }
}

/// A dollar amount, or `unknown` when there is no price.
pub fn format_usd(usd: Option<f64>) -> String {
    match usd {
        Some(c) => format!("${c:.4}"),
        None => "unknown".to_string(),
    }
}

/// A model's prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    pub input_per_million: f64,
    pub output_per_million: f64,
}

impl Prices {
    /// Cost in dollars of the given token counts.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.input_per_million
            + output_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}

/// A prices table file: `models: {name: {input_per_million, output_per_million}}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PricesTable {
    models: BTreeMap<String, Prices>,
}

/// Looks a model up in a prices table YAML file. Errors name the file (and
/// line and column for YAML errors) and list the models it knows.
pub fn prices_for_model(path: &Path, model: &str) -> anyhow::Result<Prices> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read prices table: {e}", path.display()))?;
    let table: PricesTable = crate::index::yaml_guard::from_str(&text).map_err(|e| {
        let at = format!(":{}:{}", e.line, e.col);
        anyhow::anyhow!(
            "{}{at}: invalid prices table: {}; expected `models:` then `  name: {{input_per_million: 0.15, output_per_million: 0.6}}`",
            path.display(),
            e.message
        )
    })?;
    table.models.get(model).copied().ok_or_else(|| {
        anyhow::anyhow!(
            "{}: no model `{model}` in the prices table; known models: {}",
            path.display(),
            table.models.keys().cloned().collect::<Vec<_>>().join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_cost() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(5), 2);
        let p = Prices {
            input_per_million: 2.0,
            output_per_million: 8.0,
        };
        assert!((p.cost(1_000_000, 250_000) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn known_models_use_their_tokenizer_and_unknown_ones_chars_per_4() {
        let text = "The Borrower shall maintain its corporate existence. ".repeat(20);
        let o200k = CostModel::new(Some("gpt-4o-mini"), None);
        let cl100k = CostModel::new(Some("gpt-4"), None);
        let unknown = CostModel::new(Some("qwen2.5-7b-instruct"), None);
        assert_eq!(o200k.tokenizer_name(), Some("o200k_base"));
        assert_eq!(cl100k.tokenizer_name(), Some("cl100k_base"));
        assert_eq!(unknown.tokenizer_name(), None);
        assert!(
            unknown.describe().contains("chars/4"),
            "{}",
            unknown.describe()
        );
        assert!(o200k.describe().contains("o200k_base"));
        // Real tokenizers count ordinary English at about a word per token,
        // never the same as chars/4 on this text.
        let words = text.split_whitespace().count() as u64;
        let t = o200k.tokens(&text);
        assert!(t >= words && t < words * 2, "{t} tokens for {words} words");
        assert_eq!(unknown.tokens(&text), estimate_tokens(text.chars().count()));
        assert_eq!(unknown.estimate(&text).usd, None);
        assert_eq!(format_usd(None), "unknown");
        let priced = CostModel::new(
            Some("gpt-4o-mini"),
            Some(Prices {
                input_per_million: 1.0,
                output_per_million: 4.0,
            }),
        );
        let e = priced.estimate(&text);
        assert_eq!(
            e.tokens_out,
            (e.tokens_in as f64 * OUTPUT_PER_INPUT).ceil() as u64
        );
        assert!(
            (e.usd.unwrap() - (e.tokens_in as f64 + 4.0 * e.tokens_out as f64) / 1e6).abs() < 1e-12
        );
    }

    #[test]
    fn prices_table_lookup_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("prices.yaml");
        std::fs::write(
            &f,
            "models:\n  small: {input_per_million: 0.15, output_per_million: 0.6}\n",
        )
        .unwrap();
        assert_eq!(
            prices_for_model(&f, "small").unwrap().input_per_million,
            0.15
        );
        let e = prices_for_model(&f, "big").unwrap_err().to_string();
        assert!(e.contains("known models: small"), "{e}");
        std::fs::write(&f, "models:\n  small: {input: 1}\n").unwrap();
        let e = prices_for_model(&f, "small").unwrap_err().to_string();
        assert!(e.contains("prices.yaml:2:"), "{e}");
    }
}
