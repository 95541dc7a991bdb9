//! Price options shared by `plan` and `ingest`: explicit per-million-token
//! prices, or a prices table looked up by model name.

use crate::route::cost::prices_for_model;
use crate::route::Prices;
use anyhow::bail;
use std::path::PathBuf;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct PriceArgs {
    /// Input price in USD per million tokens.
    #[arg(long, value_name = "USD")]
    pub price_in: Option<f64>,
    /// Output price in USD per million tokens.
    #[arg(long, value_name = "USD")]
    pub price_out: Option<f64>,
    /// Prices table YAML (`models: {name: {input_per_million, output_per_million}}`,
    /// e.g. config/prices.yaml), looked up by --model.
    #[arg(long, value_name = "YAML")]
    pub prices: Option<PathBuf>,
}

impl PriceArgs {
    /// Checks the flags without I/O.
    pub fn validate(&self) -> anyhow::Result<()> {
        for (flag, v) in [
            ("--price-in", self.price_in),
            ("--price-out", self.price_out),
        ] {
            if v.is_some_and(|p| !(p >= 0.0 && p.is_finite())) {
                bail!("{flag} must be a non-negative number of USD per million tokens, e.g. {flag} 0.15");
            }
        }
        if (self.price_in.is_some() || self.price_out.is_some()) && self.prices.is_some() {
            bail!("give either --price-in/--price-out or --prices with --model, not both");
        }
        Ok(())
    }

    /// The prices to use, `None` when none are configured. Reads the prices
    /// table when one is given (then `model` is required).
    pub fn resolve(&self, model: Option<&str>) -> anyhow::Result<Option<Prices>> {
        self.validate()?;
        if let Some(table) = &self.prices {
            let Some(model) = model else {
                bail!(
                    "--prices needs a model to look up: add --model NAME, e.g. --model gpt-4o-mini"
                );
            };
            return Ok(Some(prices_for_model(table, model)?));
        }
        Ok(match (self.price_in, self.price_out) {
            (None, None) => None,
            (i, o) => Some(Prices {
                input_per_million: i.unwrap_or(0.0),
                output_per_million: o.unwrap_or(0.0),
            }),
        })
    }
}
