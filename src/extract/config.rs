//! Extraction settings: which LLM (if any), how many requests at once,
//! where the cache lives and how large a piece of section text may be.
//! Validation happens here, without I/O, and every error shows the fix.

use anyhow::{bail, Result};
use std::path::PathBuf;

/// Version of the prompt text; part of the cache key, so changing the
/// prompt never reuses answers to the old one.
pub const PROMPT_VERSION: &str = "extract-v4";

pub use crate::llm::LlmConfig;
pub use crate::secret::Secret;

/// Everything the [`super::Extractor`] needs.
#[derive(Debug, Clone)]
pub struct ExtractorConfig {
    /// `None`: the offline rules extractor.
    pub llm: Option<LlmConfig>,
    /// Most LLM requests in flight at once, shared by every call on one
    /// extractor (default 8).
    pub concurrency: usize,
    /// Where cached answers live; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// `false` (`--no-cache`) bypasses the cache: no reads, no writes.
    pub use_cache: bool,
    /// Sections longer than this many chars are split (default 12,000).
    pub section_budget_chars: usize,
    /// Text budget of one request in estimated tokens (chars / 4): a
    /// document's routed sections are packed up to it (default
    /// [`super::pack::DEFAULT_PACK_TOKENS`]; lowered to what the model's
    /// context holds).
    pub pack_tokens: u64,
    /// Part of the cache key (default [`PROMPT_VERSION`]).
    pub prompt_version: String,
    /// What a configured LLM does: extract routed sections, or verify the
    /// rules' candidate clause kinds.
    pub mode: super::verify::LlmMode,
    /// In verify mode, the kinds the model's answers decide; `None`: the
    /// answers are recorded and decide nothing.
    pub calibration: Option<super::verify::Calibration>,
    /// In verify mode, the most a document's questions may cost, as a
    /// share of the input tokens extracting it would send.
    pub verify_share: f64,
}

impl Default for ExtractorConfig {
    fn default() -> Self {
        ExtractorConfig {
            llm: None,
            concurrency: 8,
            cache_dir: None,
            use_cache: true,
            section_budget_chars: 12_000,
            pack_tokens: super::pack::DEFAULT_PACK_TOKENS,
            prompt_version: PROMPT_VERSION.to_string(),
            mode: super::verify::LlmMode::Extract,
            calibration: None,
            verify_share: super::verify::bill::DEFAULT_VERIFY_SHARE,
        }
    }
}

impl ExtractorConfig {
    /// Checks the limits; errors show the fix.
    pub fn validate(&self) -> Result<()> {
        if self.concurrency == 0 {
            bail!("--concurrency must be at least 1, e.g. --concurrency 8; got 0");
        }
        if self.section_budget_chars < 500 {
            bail!(
                "the section budget must be at least 500 chars, e.g. 12000; got {}",
                self.section_budget_chars
            );
        }
        if self.pack_tokens < 100 {
            bail!(
                "--pack-tokens must be at least 100 (a request's text, in tokens), e.g. --pack-tokens {}; got {}",
                super::pack::DEFAULT_PACK_TOKENS,
                self.pack_tokens
            );
        }
        if !(self.verify_share.is_finite() && self.verify_share >= 0.0) {
            bail!(
                "--verify-share must be a percentage of 0 or more, e.g. --verify-share 15; got {}",
                100.0 * self.verify_share
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extractor_limits() {
        assert!(ExtractorConfig::default().validate().is_ok());
        let c = ExtractorConfig {
            concurrency: 0,
            ..Default::default()
        };
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("--concurrency"));
    }
}
