//! Per-thread memory of pure functions of heading text. Detection matches
//! every heading against every type's index and routing matches it again,
//! so the same names and words are normalised and stemmed several times
//! per document; across a batch the same headings (`Definitions`,
//! `Governing Law`) come back in most documents. A remembered result is
//! the result: only pure functions are remembered.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A memory: results by argument, emptied when it reaches [`MAX`].
pub(super) type Memory<V> = RefCell<foldhash::HashMap<Box<str>, V>>;

/// Entries a memory holds before it starts again.
const MAX: usize = 10_000;

/// `f(key)`, computed once per thread while the memory holds it.
pub(super) fn remembered<V: Clone + 'static>(
    memory: &'static LocalKey<Memory<V>>,
    key: &str,
    f: impl FnOnce(&str) -> V,
) -> V {
    memory.with(|m| {
        if let Some(v) = m.borrow().get(key) {
            return v.clone();
        }
        let v = f(key);
        let mut m = m.borrow_mut();
        if m.len() >= MAX {
            m.clear();
        }
        m.insert(key.into(), v.clone());
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static LENGTHS: Memory<usize> = RefCell::default();
    }

    #[test]
    fn a_result_is_computed_once_and_given_back() {
        let mut calls = 0;
        let mut len = |k: &str| {
            remembered(&LENGTHS, k, |k| {
                calls += 1;
                k.len()
            })
        };
        assert_eq!(len("Governing Law"), 13);
        assert_eq!(len("Governing Law"), 13);
        assert_eq!(len("Notices"), 7);
        assert_eq!(calls, 2);
    }
}
