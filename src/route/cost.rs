//! What a plan will cost: token estimates from characters and per-model
//! prices, so `kgroute plan` can put a dollar figure on the payload cut
//! before any LLM call.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Characters per token used when no tokenizer is configured.
pub const CHARS_PER_TOKEN: f64 = 4.0;

/// Output tokens assumed per input token when estimating cost: an
/// extraction answer (entities and relations as JSON) is much shorter than
/// the section it reads.
pub const OUTPUT_PER_INPUT: f64 = 0.25;

/// Estimated tokens for a number of characters (chars / 4, rounded up).
pub fn estimate_tokens(chars: usize) -> u64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as u64
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
    let table: PricesTable = serde_yaml_ng::from_str(&text).map_err(|e| {
        let at = e
            .location()
            .map_or(String::new(), |l| format!(":{}:{}", l.line(), l.column()));
        anyhow::anyhow!(
            "{}{at}: invalid prices table: {e}; expected `models:` then `  name: {{input_per_million: 0.15, output_per_million: 0.6}}`",
            path.display()
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
