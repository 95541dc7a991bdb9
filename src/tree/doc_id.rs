//! Stable document ids: the file stem (sanitised) plus a content-hash prefix,
//! so the same file always gets the same id and an edited file a new one.

use sha2::{Digest, Sha256};
use std::path::Path;

/// `<stem>-<first 12 hex digits of sha256(text)>`; the stem is lower-cased
/// and every character outside `[a-z0-9_-]` becomes `_`.
pub fn doc_id(path: &Path, text: &str) -> String {
    doc_id_of_digest(path, &Sha256::digest(text.as_bytes()))
}

/// [`doc_id`] from the text's SHA-256 already computed (a source hashes
/// its text once: [`super::SourceText::text_sha256`]).
pub fn doc_id_of_digest(path: &Path, digest: &[u8]) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut clean: String = stem
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        clean.push_str("doc");
    }
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("{clean}-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stem_is_sanitised_and_hash_is_stable() {
        let a = doc_id(Path::new("/x/My Contract (v2).TXT"), "hello");
        assert_eq!(a, "my_contract__v2_-2cf24dba5fb0");
        assert_eq!(a, doc_id(Path::new("My Contract (v2).txt"), "hello"));
        assert_ne!(a, doc_id(Path::new("My Contract (v2).txt"), "hello!"));
    }
}
