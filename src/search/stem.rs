//! The English Snowball stemmer of the search analyzer, with a cache of the
//! words it has stemmed.
//!
//! Why: stemming was the largest single cost of building a batch's search
//! index (about 13% of an offline ingest's CPU): contracts repeat the same
//! few thousand words, and tantivy's `Stemmer` runs the Snowball algorithm
//! on every occurrence. This filter gives exactly the tokens tantivy's
//! `Stemmer::new(Language::English)` gives (same algorithm, same crate), so
//! an index and its queries read the same as before; only a word met again
//! is looked up instead of stemmed. The cache belongs to one analyzer
//! instance (tantivy clones the analyzer per indexing thread and per query;
//! a clone starts empty) and is emptied when it reaches [`CACHE_WORDS`], so
//! its memory is bounded whatever the batch size.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashMap;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Most words one analyzer keeps stemmed (about 4 MB at most).
pub const CACHE_WORDS: usize = 50_000;

/// English stemming with a per-analyzer cache (see the module comment).
#[derive(Clone, Copy, Debug, Default)]
pub struct CachedEnglishStemmer;

impl TokenFilter for CachedEnglishStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner,
            cache: HashMap::new(),
        }
    }
}

/// The filter over an inner tokenizer; holds the cache.
pub struct CachedStemmerFilter<T> {
    inner: T,
    /// Lower-cased word -> its stem.
    cache: HashMap<String, String>,
}

impl<T: Clone> Clone for CachedStemmerFilter<T> {
    /// A clone starts with an empty cache (clones are made per indexing
    /// thread and per query; copying the words would cost more than it saves).
    fn clone(&self) -> Self {
        CachedStemmerFilter {
            inner: self.inner.clone(),
            cache: HashMap::new(),
        }
    }
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            cache: &mut self.cache,
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

/// Tokens of the inner stream, stemmed.
pub struct CachedStemmerStream<'a, S> {
    tail: S,
    cache: &'a mut HashMap<String, String>,
    stemmer: Stemmer,
}

impl<S: TokenStream> TokenStream for CachedStemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.cache.get(token.text.as_str()) {
            if *stem != token.text {
                token.text.clear();
                token.text.push_str(stem);
            }
            return true;
        }
        let stem = self.stemmer.stem(&token.text).into_owned();
        if self.cache.len() >= CACHE_WORDS {
            self.cache.clear();
        }
        let word = std::mem::replace(&mut token.text, stem.clone());
        self.cache.insert(word, stem);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::{
        Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, StopWordFilter, TextAnalyzer,
    };

    fn tokens(a: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut out = Vec::new();
        let mut s = a.token_stream(text);
        while s.advance() {
            let t = s.token();
            out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
        }
        out
    }

    fn chain(stem_cached: bool) -> TextAnalyzer {
        let b = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(StopWordFilter::new(Language::English).unwrap());
        if stem_cached {
            b.filter(CachedEnglishStemmer).build()
        } else {
            b.filter(tantivy::tokenizer::Stemmer::new(Language::English))
                .build()
        }
    }

    #[test]
    fn gives_tantivys_tokens_the_first_time_and_from_the_cache() {
        let text = "The Borrowers shall repay the Loans; each Lender's Commitments \
                    terminate. REPAYMENT of loans, repaid, repaying, Terminated, \
                    consolidated Subsidiaries and the Subsidiary's indebtedness.";
        let mut plain = chain(false);
        let mut cached = chain(true);
        let want = tokens(&mut plain, text);
        assert!(want.iter().any(|t| t.0 == "borrow"), "{want:?}");
        // Twice: the second pass reads every word from the cache.
        assert_eq!(tokens(&mut cached, text), want);
        assert_eq!(tokens(&mut cached, text), want);
        // A clone starts empty and gives the same.
        assert_eq!(tokens(&mut cached.clone(), text), want);
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut cached = chain(true);
        let mut plain = chain(false);
        let words: Vec<String> = (0..CACHE_WORDS + 10).map(|i| format!("w{i}ing")).collect();
        let text = words.join(" ");
        assert_eq!(tokens(&mut cached, &text), tokens(&mut plain, &text));
        let mut f = CachedEnglishStemmer.transform(SimpleTokenizer::default());
        {
            let mut s = f.token_stream(&text);
            while s.advance() {}
        }
        assert!(f.cache.len() <= CACHE_WORDS);
    }
}
