//! The index `version:` moves on every write by `kgroute review`, so
//! `kgroute history` (which records the version each batch ran with) tells
//! the batches before a refinement from those after it.
//!
//! The last run of digits is incremented (`"2"` -> `"3"`, `1.4` -> `1.5`,
//! `2026-rc1` -> `2026-rc2`); a version without digits gets `.1` appended;
//! a file without `version:` gets `version: "1"` under its first line. The
//! line keeps its quoting and its comment.

use super::editor::{split_comment, top_key, IndexText};

/// The version after `old`.
pub fn next_version(old: &str) -> String {
    let end = old.trim_end_matches(|c: char| !c.is_ascii_digit()).len();
    let start = old[..end]
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .len();
    if start == end {
        return format!("{old}.1");
    }
    let digits = &old[start..end];
    let next = match digits.parse::<u128>() {
        Ok(n) => format!("{:0width$}", n + 1, width = digits.len()),
        Err(_) => format!("{digits}1"),
    };
    format!("{}{next}{}", &old[..start], &old[end..])
}

impl IndexText {
    fn version_line(&self) -> Option<usize> {
        self.lines_ref()
            .iter()
            .position(|l| top_key(l) == Some("version"))
    }

    /// The `version:` value as written (quotes removed), if the file has one.
    pub fn version(&self) -> Option<String> {
        let line = &self.lines_ref()[self.version_line()?];
        let (content, _) = split_comment(line);
        let raw = content.split_once(':')?.1.trim();
        Some(unquote(raw).to_string())
    }

    /// Moves `version:` to its next value and returns it.
    pub fn bump_version(&mut self) -> String {
        let Some(i) = self.version_line() else {
            // Under the first key line (`document_type:` or `extends:`).
            let at = self
                .lines_ref()
                .iter()
                .position(|l| top_key(l).is_some())
                .map_or(0, |k| k + 1);
            self.insert_line(at, "version: \"1\"".to_string());
            return "1".to_string();
        };
        let line = self.lines_ref()[i].clone();
        let (content, comment) = split_comment(&line);
        let raw = content.split_once(':').map_or("", |(_, v)| v.trim());
        let old = unquote(raw);
        let new = next_version(old);
        let quote = match raw.chars().next() {
            Some(q @ ('"' | '\'')) => q.to_string(),
            // A plain value that would no longer read as the same kind of
            // scalar (`2` -> `3` stays a number) is quoted.
            _ if raw.is_empty() || raw.parse::<f64>().is_err() => "\"".to_string(),
            _ if new.parse::<f64>().is_ok() => String::new(),
            _ => "\"".to_string(),
        };
        self.set_line(i, format!("version: {quote}{new}{quote}{comment}"));
        new
    }
}

fn unquote(raw: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = raw.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_version_increments_the_last_number() {
        assert_eq!(next_version("2"), "3");
        assert_eq!(next_version("1.9"), "1.10");
        assert_eq!(next_version("2026-rc1"), "2026-rc2");
        assert_eq!(next_version("v09"), "v10");
        assert_eq!(next_version("draft"), "draft.1");
        assert_eq!(next_version("3 (acme)"), "4 (acme)");
    }

    #[test]
    fn bump_keeps_quotes_and_comments_and_adds_a_missing_version() {
        let mut t =
            IndexText::new("document_type: x\nversion: \"2\"  # bumped by review\nlow: []\n");
        assert_eq!(t.version().as_deref(), Some("2"));
        assert_eq!(t.bump_version(), "3");
        assert_eq!(
            t.render(),
            "document_type: x\nversion: \"3\"  # bumped by review\nlow: []\n"
        );
        let mut t = IndexText::new("version: 7\n");
        t.bump_version();
        assert_eq!(t.render(), "version: 8\n");
        let mut t = IndexText::new("# overlay\nextends: base.yaml\nhigh: []\n");
        assert_eq!(t.version(), None);
        assert_eq!(t.bump_version(), "1");
        assert_eq!(
            t.render(),
            "# overlay\nextends: base.yaml\nversion: \"1\"\nhigh: []\n"
        );
    }
}
