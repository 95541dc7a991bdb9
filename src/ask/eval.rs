//! Pieces of the retrieval evaluation (`scripts/ask-eval`): finding a
//! labelled span in its source (labels are verbatim after collapsing
//! whitespace), the flat fixed-token windows of the baseline, and the
//! rank metrics. Independent of how the tree is built: it only sees byte
//! spans.

/// The byte span of `needle` in `text`, comparing both with runs of
/// whitespace collapsed to one space; `None` when it is not there.
pub fn find_collapsed(text: &str, needle: &str) -> Option<(usize, usize)> {
    let (flat, map) = collapse(text);
    let (want, _) = collapse(needle.trim());
    if want.is_empty() {
        return None;
    }
    let at = flat.find(&want)?;
    let end = at + want.len();
    Some((map[at], map[end - 1] + 1))
}

/// Text with whitespace runs as one space, and for each byte of it the
/// byte of the original it came from.
fn collapse(text: &str) -> (String, Vec<usize>) {
    let mut flat = String::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len());
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if !in_space && !flat.is_empty() {
                flat.push(' ');
                map.push(i);
            }
            in_space = true;
            continue;
        }
        in_space = false;
        let mut buf = [0u8; 4];
        let s = c.encode_utf8(&mut buf);
        flat.push_str(s);
        for k in 0..s.len() {
            map.push(i + k);
        }
    }
    (flat, map)
}

/// Consecutive windows of `tokens` cl100k tokens tiling `text`, cut at
/// character boundaries: the flat chunks a user without the tree would
/// index.
pub fn token_windows(text: &str, tokens: usize) -> Vec<(usize, usize)> {
    let bpe = tiktoken_rs::cl100k_base_singleton();
    let ids = bpe.encode_ordinary(text);
    let mut out = Vec::new();
    let (mut start, mut pos, mut n) = (0usize, 0usize, 0usize);
    for id in ids {
        pos += bpe.decode_bytes(&[id]).map(|b| b.len()).unwrap_or(0);
        n += 1;
        if n == tokens {
            let mut end = pos.min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            out.push((start, end));
            start = end;
            n = 0;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

/// Adds a document to the flat baseline's index as fixed windows of
/// `tokens` tokens, each its own unit (`node_id` `w<i>`): what the
/// section ranking is compared against.
pub fn add_flat_windows(
    w: &crate::search::SearchIndexWriter,
    doc_id: &str,
    path: &std::path::Path,
    text: &str,
    tokens: usize,
) -> anyhow::Result<()> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut pointers = Vec::new();
    let mut chunks = Vec::new();
    for (i, (a, b)) in token_windows(text, tokens).into_iter().enumerate() {
        pointers.push(crate::search::SectionPointer {
            doc_id: doc_id.to_string(),
            doc_name: name.clone(),
            doc_title: None,
            path: path.display().to_string(),
            node_id: format!("w{i}"),
            title: String::new(),
            breadcrumb: String::new(),
            start_byte: a,
            end_byte: b,
            start_line: 0,
            end_line: 0,
            sha256: None,
        });
        chunks.push(crate::search::Chunk {
            section: i,
            start_byte: a,
            end_byte: b,
            text: text[a..b].to_string(),
            crumb: String::new(),
        });
    }
    w.add_chunks(&pointers, &chunks)
}

/// Hit@1, hit@3 and MRR (first hit within the first ten) over questions.
#[derive(Debug, Clone, Copy, Default)]
pub struct RankScores {
    pub questions: usize,
    pub hit1: usize,
    pub hit3: usize,
    pub rr: f64,
}

impl RankScores {
    /// Records one question whose first hit is at 1-based `rank`.
    pub fn add(&mut self, rank: Option<usize>) {
        self.questions += 1;
        if let Some(r) = rank {
            self.hit1 += usize::from(r == 1);
            self.hit3 += usize::from(r <= 3);
            if r <= 10 {
                self.rr += 1.0 / r as f64;
            }
        }
    }

    pub fn hit1(&self) -> f64 {
        pct(self.hit1, self.questions)
    }
    pub fn hit3(&self) -> f64 {
        pct(self.hit3, self.questions)
    }
    pub fn mrr(&self) -> f64 {
        if self.questions == 0 {
            0.0
        } else {
            self.rr / self.questions as f64
        }
    }
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_found_across_line_breaks_and_double_spaces() {
        let text = "Intro.\nThis Agreement  shall be\n   governed by the laws of Delaware.\nEnd.";
        let (a, b) = find_collapsed(text, "shall be governed by the laws of Delaware.").unwrap();
        assert_eq!(
            &text[a..b],
            "shall be\n   governed by the laws of Delaware."
        );
        assert!(find_collapsed(text, "laws of Texas").is_none());
    }

    #[test]
    fn windows_tile_the_text() {
        let text = "word ".repeat(2000);
        let w = token_windows(&text, 512);
        assert!(w.len() >= 3);
        assert_eq!(w[0].0, 0);
        assert_eq!(w.last().unwrap().1, text.len());
        for p in w.windows(2) {
            assert_eq!(p[0].1, p[1].0);
        }
    }

    #[test]
    fn scores_count_ranks() {
        let mut s = RankScores::default();
        s.add(Some(1));
        s.add(Some(3));
        s.add(None);
        s.add(Some(2));
        assert_eq!((s.hit1, s.hit3), (1, 3));
        assert!((s.mrr() - (1.0 + 1.0 / 3.0 + 0.5) / 4.0).abs() < 1e-9);
    }
}
