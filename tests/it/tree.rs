//! Integration tests: tree. The real SEC corpus (structure of every file,
//! the Proxy-Pointer reference on Markdown, properties that must hold on all
//! of them), the bundled fixtures, robustness on awkward input, and the
//! `kgroute tree` command.

use super::util::{corpus as corpus_file, corpus_documents as corpus_files};
use super::util::{fixture, kgroute, tempdir};
use kgroute::tree::{build_tree, DocFormat, DocTree, LabelKind, Node, NodeKind, SourceText};
use predicates::prelude::*;
use regex::Regex;
use std::collections::BTreeMap;
use std::path::Path;

fn load(path: &Path) -> (SourceText, DocTree) {
    let src = SourceText::read(path, false).unwrap_or_else(|e| panic!("{e}"));
    let tree = build_tree(&src);
    (src, tree)
}

/// Every byte in exactly one node, in order, from the first to the last;
/// each node's lines are the lines its bytes are on, its size their
/// characters. A node that starts inside a line shares that line with the
/// node before and its text starts with its heading; a Markdown node
/// starts at a line start.
fn assert_tiles(src: &SourceText, tree: &DocTree) {
    let name = &tree.doc_name;
    let (mut next, mut prev_end_line) = (0, 0);
    for n in tree.iter() {
        let what = format!("{name}: node {} {:?}", n.node_id, n.title);
        assert_eq!(
            n.start_byte, next,
            "{what} does not start where the previous ended"
        );
        assert!(n.end_byte > n.start_byte, "{what} is empty");
        assert_eq!(n.start_line, src.line_of_offset(n.start_byte), "{what}");
        assert_eq!(n.end_line, src.line_of_offset(n.end_byte - 1), "{what}");
        let bytes = &src.text[n.start_byte..n.end_byte];
        assert_eq!(n.chars, bytes.chars().count(), "{what}");
        if n.start_byte == src.line_start(n.start_line) {
            assert_eq!(n.start_line, prev_end_line + 1, "{what}");
        } else {
            assert_ne!(
                tree.format,
                DocFormat::Markdown,
                "{what} starts inside a line"
            );
            assert_eq!(n.start_line, prev_end_line, "{what}");
            let label = n.title.split(' ').next().unwrap_or_default();
            assert!(
                bytes.starts_with(label),
                "{what} starts inside a line with {bytes:.40?}"
            );
        }
        next = n.end_byte;
        prev_end_line = n.end_line;
    }
    assert_eq!(next, src.text.len(), "{name}: spans stop early");
    assert_eq!(prev_end_line, tree.line_count, "{name}: lines stop early");
}

/// No plain-text heading starts inside a sentence: the line before it
/// never ends mid-sentence (it is no wrapped line), and a heading inside a
/// line follows a sentence end or a title there.
fn assert_no_heading_inside_a_sentence(src: &SourceText, tree: &DocTree) {
    if tree.format != DocFormat::Text {
        return;
    }
    let mid_sentence = |t: &str| t.ends_with(|c: char| c.is_lowercase() || c == ',');
    for n in tree.iter().filter(|n| n.kind != NodeKind::Preamble) {
        let line_start = src.line_start(n.start_line);
        if n.start_byte > line_start {
            let before = src.text[line_start..n.start_byte].trim_end();
            assert!(
                !mid_sentence(before),
                "{}: node {} {:?} inside line {} continues {before:?}",
                tree.doc_name,
                n.node_id,
                n.title,
                n.start_line
            );
        } else if n.line_num > 1 {
            let prev = src.line(n.line_num - 1).trim();
            assert!(
                prev.len() < 40 || !mid_sentence(prev),
                "{}: node {} {:?} at line {} continues the sentence {prev:?}",
                tree.doc_name,
                n.node_id,
                n.title,
                n.line_num
            );
        }
    }
}

/// Section numbers (`1.01`) of each article's children, from their titles.
fn section_numbers(article: &Node) -> Vec<(u32, u32)> {
    let re = Regex::new(r"^(?:SECTION|Section)?\s*(\d+)\.(\d+)").unwrap();
    article
        .nodes
        .iter()
        .filter_map(|n| {
            let c = re.captures(&n.title)?;
            Some((c[1].parse().unwrap(), c[2].parse().unwrap()))
        })
        .collect()
}

fn titles_of_kind(tree: &DocTree, kind: NodeKind) -> Vec<String> {
    tree.iter()
        .filter(|n| n.kind == kind)
        .map(|n| n.title.clone())
        .collect()
}

fn articles(tree: &DocTree) -> Vec<&Node> {
    tree.structure
        .iter()
        .filter(|n| n.title.to_uppercase().starts_with("ARTICLE"))
        .collect()
}

/// Lines of the body (after the table of contents, before the signature
/// page) that match `re`: the headings a reader would count by hand.
fn body_lines_matching(src: &SourceText, tree: &DocTree, re: &Regex) -> Vec<usize> {
    let toc_end = tree
        .iter()
        .filter(|n| n.kind == NodeKind::Toc)
        .map(|n| n.end_line)
        .max()
        .unwrap_or(0);
    let sig = tree
        .iter()
        .find(|n| n.kind == NodeKind::Signature)
        .map_or(tree.line_count + 1, |n| n.line_num);
    (toc_end + 1..sig)
        .filter(|&l| re.is_match(src.line(l)))
        .collect()
}

fn section_lines(tree: &DocTree, before: usize) -> Vec<usize> {
    let re = Regex::new(r"^(?:SECTION|Section) \d+\.\d+").unwrap();
    tree.iter()
        .filter(|n| re.is_match(&n.title) && n.line_num < before)
        .map(|n| n.line_num)
        .collect()
}

/// Every document under `corpora/`: the shared five and two, and the wide
/// set's four folders.
fn every_document() -> Vec<std::path::PathBuf> {
    let mut out = corpus_files();
    let wide = super::util::corpora().join("wide");
    for kind in ["credit_agreements", "leases", "m_and_a", "commercial"] {
        let d = wide.join(kind);
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// The label of a contents entry as written: keyword and id, or the number.
fn entry_label(entry: &str) -> String {
    let mut words = entry.split_whitespace();
    let first = words.next().unwrap_or("");
    let label = if first.starts_with(|c: char| c.is_ascii_digit()) {
        first.to_owned()
    } else {
        format!("{first} {}", words.next().unwrap_or(""))
    };
    label.trim_end_matches('.').to_owned()
}

/// The entry's name starts right after its label on line `k` (on that
/// line or the next non-blank ones, `EXHIBIT A` / `-` / `FORM OF NOTE`).
fn title_follows(src: &SourceText, k: usize, entry: &str) -> bool {
    let label = entry_label(entry);
    let first_word = |s: &str| {
        s.split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .map(str::to_lowercase)
    };
    let Some(word) = first_word(&entry[label.len()..]) else {
        return true;
    };
    let mut text = src.line(k).trim()[label.len()..].to_owned();
    for j in k + 1..=(k + 6).min(src.line_count()) {
        text.push(' ');
        text.push_str(src.line(j));
    }
    first_word(&text) == Some(word)
}

/// Invariants that hold on every real document, whatever its style: the
/// spans tile it, section labels go up among siblings, no heading starts
/// inside a sentence, every contents entry is found in the body or
/// reported, and a document whose tree is mostly preamble is reported.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn invariants_over_every_document() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let mut over_5 = Vec::new();
    for path in every_document() {
        let (src, tree) = load(&path);
        assert_tiles(&src, &tree);
        assert_no_heading_inside_a_sentence(&src, &tree);
        let name = &tree.doc_name;
        for parent in tree.iter() {
            let seqs: Vec<&Vec<u32>> = parent
                .nodes
                .iter()
                .filter_map(|n| n.label.as_ref())
                .filter(|l| l.kind == LabelKind::Section)
                .map(|l| &l.seq)
                .collect();
            assert!(
                seqs.windows(2).all(|w| w[0] < w[1]),
                "{name}: sections of {:?} out of order: {seqs:?}",
                parent.title
            );
        }
        let h = &tree.health;
        assert_eq!(
            h.toc_found() + h.toc_missing.len() + h.toc_inline.len() + h.toc_not_in_filing.len(),
            h.toc_entries,
            "{name}: every contents entry is found, missing, inline or not in the filing"
        );
        // Every contents entry in the body is a heading, whether it has a
        // line of its own or the extraction ran it into a line.
        assert!(
            h.toc_found_share() >= 0.98,
            "{name}: {} of {} contents entries in the body found as headings; \
             not found: {:?}, inside a line: {:?}",
            h.toc_found(),
            h.toc_in_body(),
            h.toc_missing,
            h.toc_inline
        );
        // An entry reported as not in the filing has no body line starting
        // with its label (checked here independently of the classifier).
        for e in &h.toc_not_in_filing {
            let label = entry_label(e);
            let toc_end = tree
                .iter()
                .filter(|n| n.kind == NodeKind::Toc)
                .map(|n| n.end_line)
                .max()
                .unwrap_or(0);
            let at_start = (toc_end + 1..=src.line_count()).find(|&k| {
                let l = src.line(k).trim();
                l.get(..label.len())
                    .is_some_and(|h| h.eq_ignore_ascii_case(&label))
                    && l[label.len()..].starts_with(|c: char| !c.is_alphanumeric())
                    && tree.iter().all(|n| n.line_num != k)
                    && title_follows(&src, k, e)
            });
            assert!(
                at_start.is_none(),
                "{name}: {e:?} reported as not in the filing, but line {} starts with it",
                at_start.unwrap_or(0)
            );
        }
        if h.toc_found_share() < 0.9 && h.toc_entries >= 5 {
            assert!(
                h.warning(name).is_some(),
                "{name}: missing contents entries not reported"
            );
        }
        if h.preamble_share > 0.5 {
            let w = h.warning(name).unwrap_or_default();
            assert!(w.contains("headings not recognised"), "{name}: {w}");
        }
        if h.headings > 0 && h.preamble_share > 0.05 {
            over_5.push(format!("{name} {:.1}%", h.preamble_share * 100.0));
        }
    }
    assert!(
        over_5.is_empty(),
        "preamble + fallback over 5% of a document with headings: {over_5:?}"
    );
}

/// Keyword-less numbering styles nest the way they are written, on every
/// document that uses them: a bare roman `IV.` is an article whose name is
/// in capitals, and a lettered `2.C.` section sits under clause 2.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn keywordless_styles_nest_as_written() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let roman = Regex::new(r"^[IVX]+\.\s").unwrap();
    let lettered = Regex::new(r"^(\d+)\.[A-Z]\.").unwrap();
    let (mut romans, mut letters) = (0, 0);
    for path in every_document() {
        let (_, tree) = load(&path);
        for (n, parent) in tree.iter_with_parent() {
            if roman.is_match(&n.title) && n.kind == NodeKind::Section {
                romans += 1;
                let l = n.label.as_ref().expect("roman label");
                assert_eq!((l.kind, n.level), (LabelKind::Article, 1), "{}", n.title);
                assert_eq!(n.name, n.name.to_uppercase(), "{}", n.title);
            }
            if let Some(c) = lettered.captures(&n.title) {
                letters += 1;
                let p = tree
                    .find(parent.expect("lettered section has a parent"))
                    .unwrap();
                assert!(
                    p.title.starts_with(&format!("{}.", &c[1])),
                    "{}: {:?} under {:?}",
                    tree.doc_name,
                    n.title,
                    p.title
                );
                assert_eq!(n.label.as_ref().map(|l| l.seq.len()), Some(2));
            }
        }
    }
    assert!(
        romans >= 20 && letters >= 20,
        "{romans} roman, {letters} lettered"
    );
}

/// Heading precision / recall over the hand-checked lists and the expert
/// gold lists (`scripts/tree-eval` prints the same per file).
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn heading_f1_over_truth_and_gold() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    use kgroute::tree::eval::{heading_lines, score, Score, Truth};
    let corpora = super::util::corpora();
    let mut dirs = vec![
        super::util::repo().join("tests").join("truth"),
        corpora.join("gold"),
    ];
    let mut total = Score::default();
    let mut files = 0;
    for dir in dirs.drain(..) {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for p in paths {
            let truth = Truth::load(&p).unwrap_or_else(|e| panic!("{e}"));
            let (_, tree) = load(&truth.document(&corpora));
            let lines: Vec<usize> = truth.headings.iter().map(|h| h.line).collect();
            let (s, _, _) = score(&heading_lines(&tree), &lines);
            println!(
                "{:<64} F1 {:.3}",
                p.file_name().unwrap().to_string_lossy(),
                s.f1()
            );
            total.add(s);
            files += 1;
        }
    }
    println!("overall F1 {:.3} over {files} files", total.f1());
    assert!(files >= 18, "{files} truth files");
    assert!(total.f1() >= 0.97, "heading F1 {:.3}", total.f1());
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn corpus_summary_and_properties() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    for path in corpus_files() {
        let (src, tree) = load(&path);
        let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
        for n in tree.iter() {
            *by_kind
                .entry(format!("{:?}", n.kind).to_lowercase())
                .or_default() += 1;
        }
        let sections: Vec<&Node> = tree
            .iter()
            .filter(|n| n.kind == NodeKind::Section)
            .collect();
        println!(
            "{:<48} {:>8} lines {:?} nodes {:>4} {:?} first {:?} last {:?}",
            tree.doc_name,
            tree.line_count,
            tree.format,
            tree.iter().count(),
            by_kind,
            sections.first().map(|n| &n.title),
            sections.last().map(|n| &n.title),
        );
        assert_tiles(&src, &tree);
        assert!(tree.iter().count() > 20, "{}: too few nodes", tree.doc_name);
        // Section numbers of a detected article increase.
        for a in articles(&tree) {
            let nums = section_numbers(a);
            assert!(
                nums.windows(2).all(|w| w[0] < w[1]),
                "{}: sections of {:?} out of order: {nums:?}",
                tree.doc_name,
                a.title
            );
        }
        assert_no_heading_inside_a_sentence(&src, &tree);
        // Titles are clean: single spaces, no trailing body text.
        for n in tree.iter() {
            assert!(
                !n.title.contains("  ") && n.title.len() <= 200,
                "{}: title {:?}",
                tree.doc_name,
                n.title
            );
            assert_eq!(n.title, n.title.trim());
        }
        // At most one table of contents before the body.
        assert!(
            titles_of_kind(&tree, NodeKind::Toc).len() <= 2,
            "{}: {by_kind:?}",
            tree.doc_name
        );
    }
}

/// The Proxy-Pointer reference: ATX headings outside fenced code, nested by
/// `#` count, numbered in pre-order from 0001.
fn reference_headings(text: &str) -> Vec<(usize, u8, String)> {
    let re = Regex::new(r"^(#{1,6})\s+(.+)$").unwrap();
    let mut in_code = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if let (false, Some(c)) = (in_code, re.captures(line)) {
            out.push((i + 1, c[1].len() as u8, c[2].trim().to_owned()));
        }
    }
    out
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn emerson_markdown_matches_the_reference() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (src, tree) = load(&corpus_file("credit_agreements/emerson_2018.md"));
    assert_eq!(tree.format, DocFormat::Markdown);
    let n2 = tree.find("0002").unwrap();
    assert_eq!(
        (n2.title.as_str(), n2.line_num),
        ("Section 1.01 Definitions", 267)
    );
    assert_eq!(
        tree.find("0004").unwrap().title,
        "Section 1.03 Types of Advances"
    );
    assert_eq!(
        tree.find("0006").unwrap().title,
        "Section 2.01 The Facility"
    );
    // Extra nodes (the contents listing, the recitals after it) carry ids
    // that do not take a pre-order number: `0000-toc`, `0000-preamble`.
    let toc = tree.find("0000-toc").expect("contents listing node");
    assert_eq!((toc.kind, toc.start_line), (NodeKind::Toc, 13));
    assert!(toc.end_line > 190 && toc.end_line < 264, "{}", toc.end_line);
    assert_eq!(tree.find("0000-preamble").unwrap().end_line, 263);
    let real = |n: &&Node| !n.node_id.contains('-');
    let got: Vec<(usize, u8, String)> = tree
        .iter()
        .filter(real)
        .filter(|n| n.kind != NodeKind::Preamble)
        .map(|n| (n.line_num, n.level, n.title.clone()))
        .collect();
    assert_eq!(got.len(), 104);
    // Same lines and titles as the reference; same depth too, except that
    // the schedules and exhibits after the signature pages are top-level
    // (the reference nests them in the last article) with their headings
    // one level below them.
    let sig = tree.find("0099-signature").expect("signature pages node");
    let lifted = |(line, level, title): (usize, u8, String)| {
        if line <= sig.start_line {
            (line, level, title)
        } else {
            (line, level - 1, title)
        }
    };
    let want: Vec<(usize, u8, String)> = reference_headings(&src.text)
        .into_iter()
        .map(lifted)
        .collect();
    assert_eq!(got, want);
    // The signature pages start at the signing formula and hold every
    // signature block after the last article; the pricing table after
    // them is an attachment of its own, not noise.
    assert_eq!(sig.kind, NodeKind::Signature);
    assert!(src.line(sig.start_line).starts_with("IN WITNESS WHEREOF"));
    let first_schedule = tree.find("0100").unwrap().line_num;
    let by_lines: Vec<usize> = (tree.find("0099").unwrap().line_num..first_schedule)
        .filter(|&l| src.line(l).starts_with("By:"))
        .collect();
    assert!(by_lines.len() >= 20, "{by_lines:?}");
    assert!(by_lines
        .iter()
        .all(|&l| (sig.start_line..=sig.end_line).contains(&l)));
    let after = tree
        .find("0099-schedule")
        .expect("attachment after the pages");
    assert_eq!(after.start_line, sig.end_line + 1);
    assert!(src
        .span_text(after.start_line, after.end_line)
        .contains("<table>"));
    let tops: Vec<&str> = tree.structure.iter().map(|n| n.node_id.as_str()).collect();
    assert!(
        tops.ends_with(&[
            "0099",
            "0099-signature",
            "0099-schedule",
            "0100",
            "0102",
            "0104"
        ]),
        "{tops:?}"
    );
    // Ids are pre-order: the reference numbering is the heading order.
    let ids: Vec<String> = tree
        .iter()
        .filter(real)
        .skip(1)
        .map(|n| n.node_id.clone())
        .collect();
    let expected: Vec<String> = (1..=104).map(|i| format!("{i:04}")).collect();
    assert_eq!(ids, expected);
    assert_eq!(tree.structure[0].kind, NodeKind::Preamble);
    let cover = &tree.structure[0];
    assert!(
        src.span_text(cover.start_line, cover.end_line)
            .contains("EMERSON ELECTRIC CO."),
        "parties on the cover page are kept"
    );
    assert_eq!(tree.find("0001").unwrap().kind, NodeKind::Structural);
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn att_capital_structure() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (src, tree) = load(&corpus_file("credit_agreements/att_capital_1995.txt"));
    let arts: Vec<String> = articles(&tree).iter().map(|a| a.title.clone()).collect();
    let romans = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"];
    assert_eq!(arts.len(), 9, "{arts:?}");
    for (a, r) in arts.iter().zip(romans) {
        assert!(a.starts_with(&format!("ARTICLE {r} ")), "{a}");
    }
    assert_eq!(arts[0], "ARTICLE I DEFINITIONS");
    // The dotted table of contents is one toc node and holds every entry.
    let tocs: Vec<&Node> = tree.iter().filter(|n| n.kind == NodeKind::Toc).collect();
    assert_eq!(tocs.len(), 1);
    assert!(
        tocs[0].start_line <= 27 && tocs[0].end_line >= 178,
        "{:?}",
        (tocs[0].start_line, tocs[0].end_line)
    );
    // Every body `SECTION x.yy.` line is a node, in order, and nothing else
    // starts a line; a listed heading the extraction ran into a line
    // (`... such Bank. SECTION 8.05. Base Rate Loans ...`) is a node from
    // its label on, so no contents entry is left inside a line.
    let re = Regex::new(r"^SECTION \d+\.\d+\. [A-Z]").unwrap();
    let sig = titles_of_kind(&tree, NodeKind::Signature);
    assert_eq!(sig.len(), 1);
    let sig_line = tree
        .iter()
        .find(|n| n.kind == NodeKind::Signature)
        .unwrap()
        .line_num;
    let (at_line_start, inside): (Vec<&Node>, Vec<&Node>) = tree
        .iter()
        .filter(|n| re.is_match(&n.title) && n.line_num < sig_line)
        .partition(|n| n.start_byte == src.line_start(n.start_line));
    assert_eq!(
        at_line_start.iter().map(|n| n.line_num).collect::<Vec<_>>(),
        body_lines_matching(&src, &tree, &re)
    );
    assert!(
        tree.health.toc_inline.is_empty(),
        "{:?}",
        tree.health.toc_inline
    );
    for n in inside {
        let text = src.byte_span_text(n.start_byte, n.end_byte);
        assert!(text.starts_with(&n.title), "{:?}: {text:.80?}", n.title);
    }
    let first = tree
        .iter()
        .find(|n| n.title.starts_with("SECTION"))
        .unwrap();
    assert_eq!(first.title, "SECTION 1.01. Definitions");
    assert_eq!(
        first.breadcrumb,
        "ARTICLE I DEFINITIONS > SECTION 1.01. Definitions"
    );
    let agent = tree
        .iter()
        .find(|n| n.title.starts_with("SECTION 7.02."))
        .unwrap();
    assert_eq!(agent.title, "SECTION 7.02. Agent and Affiliates");
    let last_art = articles(&tree)[8];
    assert!(last_art
        .nodes
        .last()
        .unwrap()
        .title
        .starts_with("SECTION 9."));
    let exhibits = titles_of_kind(&tree, NodeKind::Exhibit);
    let letters: Vec<&str> = exhibits.iter().map(|t| &t[8..9]).collect();
    assert_eq!(letters, ["A", "B", "C", "D", "E", "F", "G"]);
    // The recitals after the table of contents are kept apart from it.
    assert!(tree
        .iter()
        .any(|n| n.kind == NodeKind::Preamble && n.start_line > tocs[0].end_line));
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn disney_structure() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (src, tree) = load(&corpus_file("credit_agreements/disney_2020.txt"));
    let arts: Vec<String> = articles(&tree).iter().map(|a| a.title.clone()).collect();
    assert_eq!(arts.len(), 9, "{arts:?}");
    assert_eq!(arts[0], "ARTICLE I DEFINITIONS AND ACCOUNTING TERMS");
    assert_eq!(arts[4], "ARTICLE V COVENANTS");
    assert_eq!(titles_of_kind(&tree, NodeKind::Toc).len(), 1);
    let re = Regex::new(r"^SECTION ?\d+\.\d+\.").unwrap();
    let sig_line = tree
        .iter()
        .find(|n| n.kind == NodeKind::Signature)
        .unwrap()
        .line_num;
    assert_eq!(
        section_lines(&tree, sig_line),
        body_lines_matching(&src, &tree, &re)
    );
    let titles: Vec<&str> = tree.iter().map(|n| n.title.as_str()).collect();
    assert!(
        titles.contains(&"SECTION 1.01. Certain Defined Terms"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"SECTION 4.01. Representations and Warranties"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"SECTION 2.07. [Intentionally Omitted.]"),
        "{titles:?}"
    );
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn coned_and_cummins_structure() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    // Headings need a title: `Section 2.21.` alone ends a sentence.
    let re = Regex::new(r"^Section \d+\.\d+\.\s+\S").unwrap();
    for (file, n_articles) in [("coned_2020.txt", 9), ("cummins_2020.txt", 12)] {
        let (src, tree) = load(&corpus_file(&format!("credit_agreements/{file}")));
        let arts = articles(&tree);
        assert_eq!(arts.len(), n_articles, "{file}");
        for (i, a) in arts.iter().enumerate() {
            let want = format!("{} ", i + 1);
            assert!(a.title[8..].starts_with(&want), "{file}: {}", a.title);
        }
        assert_eq!(titles_of_kind(&tree, NodeKind::Toc).len(), 1, "{file}");
        let sig_line = tree
            .iter()
            .find(|n| n.kind == NodeKind::Signature)
            .unwrap()
            .line_num;
        let got = section_lines(&tree, sig_line);
        assert_eq!(got, body_lines_matching(&src, &tree, &re), "{file}");
        assert!(got.len() > 80, "{file}: {}", got.len());
    }
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn lease_and_outsourcing_structure() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (_, lease) = load(&corpus_file("other/exicure_2020_office_lease.txt"));
    let arts = articles(&lease);
    assert_eq!(arts.len(), 36);
    assert_eq!(arts[0].title, "ARTICLE 1 Premises and Term");
    assert_eq!(arts[26].title, "ARTICLE 27 Notices");
    let exhibits = titles_of_kind(&lease, NodeKind::Exhibit);
    assert!(exhibits.len() >= 11, "{exhibits:?}");
    assert!(exhibits[0].starts_with("EXHIBIT A"));

    let (_, ibm) = load(&corpus_file(
        "other/manufacturers_services_2000_outsourcing.txt",
    ));
    let top: Vec<&str> = ibm
        .structure
        .iter()
        .filter(|n| n.title.starts_with("SECTION"))
        .map(|n| n.title.as_str())
        .take(16)
        .collect();
    assert_eq!(top[0], "SECTION 1.0 DEFINITIONS");
    assert_eq!(top[15], "SECTION 16.0 GENERAL");
    let general = ibm
        .iter()
        .find(|n| n.title == "SECTION 16.0 GENERAL")
        .unwrap();
    assert!(general
        .nodes
        .iter()
        .any(|n| n.title == "16.9 Governing Law"));
    // The statement of work after the signatures lists its own contents:
    // inside the body that list is text, not a second contents node.
    assert_eq!(
        ibm.structure
            .iter()
            .filter(|n| n.kind == NodeKind::Toc)
            .count(),
        1
    );
}

#[test]
fn fixtures_come_out_right() {
    let (md_src, md) = load(&fixture("credit_agreement.md"));
    assert_eq!(md.format, DocFormat::Markdown);
    assert_tiles(&md_src, &md);
    let kinds = |t: &DocTree, k| t.iter().filter(|n| n.kind == k).count();
    assert_eq!(kinds(&md, NodeKind::Preamble), 1);
    assert_eq!(kinds(&md, NodeKind::Toc), 1);
    assert_eq!(kinds(&md, NodeKind::Structural), 8);
    assert_eq!(kinds(&md, NodeKind::Signature), 1);
    assert_eq!(kinds(&md, NodeKind::Schedule), 2);
    assert_eq!(kinds(&md, NodeKind::Exhibit), 2);
    let defs = md
        .iter()
        .find(|n| n.title == "Section 1.01 Definitions")
        .unwrap();
    assert_eq!(
        defs.breadcrumb,
        "ARTICLE I DEFINITIONS AND ACCOUNTING TERMS > Section 1.01 Definitions"
    );
    assert!(md.iter().any(|n| n.title == "Section 2.05 [Reserved]"));
    assert!(
        !md.iter().any(|n| n.title.contains("Amount assigned")),
        "headings in code blocks are ignored"
    );

    let (supply_src, supply) = load(&fixture("supply_agreement.txt"));
    assert_eq!(supply.format, DocFormat::Text);
    assert_tiles(&supply_src, &supply);
    assert_eq!(kinds(&supply, NodeKind::Toc), 1);
    assert_eq!(articles(&supply).len(), 6);
    let sections: Vec<&str> = supply
        .iter()
        .filter(|n| n.title.starts_with("Section"))
        .map(|n| n.title.as_str())
        .collect();
    assert_eq!(sections.len(), 15, "{sections:?}");
    assert_eq!(sections[0], "Section 1.01. Defined Terms");
    assert!(sections.contains(&"Section 6.03. [Reserved]"));
    assert_eq!(
        titles_of_kind(&supply, NodeKind::Schedule),
        ["SCHEDULE 2.01 PRODUCTS AND PRICES"]
    );
    assert_eq!(
        titles_of_kind(&supply, NodeKind::Exhibit),
        ["EXHIBIT A FORM OF PURCHASE ORDER"]
    );
    assert_eq!(kinds(&supply, NodeKind::Signature), 1);

    let (_, memo) = load(&fixture("memo.txt"));
    assert_eq!(memo.structure.len(), 1);
    assert_eq!(memo.structure[0].kind, NodeKind::Fallback);
    assert_eq!(
        (memo.structure[0].start_line, memo.structure[0].end_line),
        (1, memo.line_count)
    );
}

#[test]
fn fifty_megabytes_are_parsed_correctly() {
    // 100 articles x 10 sections x ~50 kB of body text.
    let para = "The Borrower shall pay to the Administrative Agent the amounts due under this Agreement on each date.\n";
    let body = para.repeat(500);
    let mut text = String::from(
        "LOAN AGREEMENT among ACME CORP. and ACME BANK, N.A., as Administrative Agent.\n",
    );
    for a in 1..=100 {
        text.push_str(&format!("ARTICLE {a}\nPART {a}\n"));
        for s in 1..=10 {
            text.push_str(&format!(
                "Section {a}.{s:02}. Title {a} {s}. Body starts here.\n"
            ));
            text.push_str(&body);
        }
    }
    assert!(text.len() > 50_000_000);
    let src = SourceText::from_text("big.txt", &text);
    let tree = build_tree(&src);
    assert_tiles(&src, &tree);
    assert_eq!(tree.structure.len(), 101);
    assert_eq!(tree.iter().count(), 1 + 100 + 1000);
    assert_eq!(
        tree.find("1100").unwrap().title,
        "Section 100.10. Title 100 10"
    );
}

#[test]
fn cli_prints_json_when_piped() {
    let out = kgroute()
        .arg("tree")
        .arg(fixture("supply_agreement.txt"))
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_slice(&out.get_output().stdout).expect("JSON on stdout");
    assert_eq!(v["doc_name"], "supply_agreement.txt");
    assert_eq!(v["format"], "text");
    assert!(v["doc_id"]
        .as_str()
        .unwrap()
        .starts_with("supply_agreement-"));
    let first = &v["structure"][0];
    for key in [
        "title",
        "node_id",
        "line_num",
        "start_line",
        "end_line",
        "level",
        "chars",
        "breadcrumb",
        "kind",
        "nodes",
    ] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    assert_eq!(first["node_id"], "0000");
    assert_eq!(first["kind"], "preamble");
}

#[test]
fn cli_text_outline_and_help() {
    kgroute()
        .args(["tree", "--format", "text"])
        .arg(fixture("credit_agreement.md"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "0002 ARTICLE I DEFINITIONS AND ACCOUNTING TERMS  [44-45",
        ))
        .stdout(predicate::str::contains("  0003 Section 1.01 Definitions"));
    kgroute()
        .args(["tree", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "kgroute tree fixtures/supply_agreement.txt --format text",
        ));
}

#[test]
fn cli_input_errors_are_clear() {
    let dir = tempdir();
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    kgroute()
        .arg("tree")
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty.txt").and(predicate::str::contains("empty")));

    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, b"ARTICLE I\nGENERAL \xff\xfe text\n").unwrap();
    kgroute().arg("tree").arg(&bad).assert().code(2).stderr(
        predicate::str::contains("bad.txt").and(predicate::str::contains("byte offset 18")),
    );
    kgroute()
        .arg("tree")
        .arg(&bad)
        .arg("--lossy")
        .assert()
        .success()
        .stdout(predicate::str::contains("\u{fffd}"));

    let bin = dir.path().join("bin.pdf");
    std::fs::write(&bin, b"%PDF-1.4\n\0\0binary").unwrap();
    kgroute()
        .arg("tree")
        .arg(&bin)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("binary").and(predicate::str::contains("offset 9")));

    kgroute()
        .arg("tree")
        .arg(dir.path().join("missing.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.txt: cannot read"));
}

#[test]
fn check_over_a_folder_reads_the_documents_ingest_reads_and_survives_a_bad_one() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::copy(fixture("supply_agreement.txt"), d.join("supply.txt")).unwrap();
    std::fs::write(d.join("notes.json"), "{\"not\": \"a contract\"}").unwrap();
    std::fs::write(d.join("broken.txt"), b"\x00\x01\xffbinary").unwrap();
    let out = kgroute().args(["tree", "--check"]).arg(d).assert().code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    // The contract after the broken file is still checked; the JSON file is
    // no document and is said to be skipped, not reported as headless.
    assert!(stdout.contains("supply.txt"), "{stdout}");
    assert!(!stdout.contains("notes.json"), "{stdout}");
    assert!(stderr.contains("skipped 1 file: .json x1"), "{stderr}");
    assert!(
        stderr.contains("broken.txt") && stderr.contains("binary"),
        "{stderr}"
    );
}

/// Builds the tree of `text` written to a temporary file.
fn tree_of(text: &str) -> (SourceText, DocTree) {
    let dir = tempdir();
    let p = dir.path().join("contract.txt");
    std::fs::write(&p, text).unwrap();
    load(&p)
}

/// A contract as PDF extraction leaves it: its first page one long line
/// holding the parties clause, a heading run onto the end of the recitals,
/// headings with their capitals titles running into their bodies and a
/// first clause run into its heading's line; page furniture between pages.
#[test]
fn a_first_page_run_into_one_line_is_split_at_its_headings() {
    let body = "The Supplier shall deliver the Products in accordance with the terms set out in this Agreement and the purchase orders issued hereunder from time to time. ";
    let mut page1 = String::from("SUPPLY AGREEMENT This Supply Agreement is made between Acme Inc. (\"Supplier\") and Beta LLC (\"Customer\"). WHEREAS, the Customer wishes to buy Products. NOW, THEREFORE, the parties agree as follows: 1. DEFINITIONS 1.1 Products means the goods listed in Schedule A. ");
    page1.push_str(&body.repeat(6));
    page1.push_str("2. SUPPLY OF PRODUCTS In consideration of the payments below, ");
    page1.push_str(&body.repeat(6));
    page1.push_str("3. COMPENSATION The Customer shall pay the prices in Schedule A. ");
    page1.push_str(&body.repeat(4));
    let text = format!(
        "{page1}\n\nSource: ACME INC, 8-K, 12/6/2017\n\n2\n\n4. TERM AND TERMINATION This Agreement runs for two years. {}\n\n5. Intellectual Property 5.1 OWNERSHIP. All work product belongs to the Customer. {}\n",
        body.repeat(3),
        body.repeat(3)
    );
    let (src, tree) = tree_of(&text);
    assert_tiles(&src, &tree);
    let titles: Vec<&str> = tree.iter().map(|n| n.title.as_str()).collect();
    for want in [
        "1. DEFINITIONS",
        "2. SUPPLY OF PRODUCTS",
        "3. COMPENSATION",
        "4. TERM AND TERMINATION",
        "5.1 OWNERSHIP",
    ] {
        assert!(titles.contains(&want), "{want} not a heading: {titles:?}");
    }
    // Headings inside the first line start their nodes there.
    let defs = tree.iter().find(|n| n.title == "1. DEFINITIONS").unwrap();
    assert!(defs.start_byte > 0 && defs.start_line == 1);
    assert!(src.text[defs.start_byte..].starts_with("1. DEFINITIONS"));
    // Page furniture is never a heading.
    assert!(titles
        .iter()
        .all(|t| !t.starts_with("Source:") && *t != "2"));
    // The heading that runs its first clause into its line has text of
    // its own or its clause below it: nothing of it is empty.
    let ip = tree
        .iter()
        .find(|n| n.title.starts_with("5. Intellectual Property"))
        .unwrap();
    assert!(
        ip.nodes.iter().any(|k| k.title == "5.1 OWNERSHIP"),
        "{ip:?}"
    );
    assert!(tree.health.usable(), "{:?}", tree.health);
}

/// The recitals between the parties clause and the first heading are a
/// node of their own, titled by their heading or their opening `WHEREAS`, also when
/// the extraction ran them into the parties' line; the preamble keeps only
/// the title and the parties, so a contract whose opening recites a page
/// of background still has a usable tree.
#[test]
fn recitals_before_the_first_heading_are_a_node_of_their_own() {
    let body = "The Supplier shall deliver the products on the dates agreed in writing between the parties. ".repeat(8);
    let whereas =
        "WHEREAS, the Supplier makes industrial widgets of many kinds for its customers; "
            .repeat(6);
    let clauses = format!("1. SUPPLY\n\n{body}\n\n2. PRICE\n\n{body}\n\n3. TERM\n\n{body}\n");
    // Run together: the parties' sentence, then the recitals, one line.
    let text = format!("SUPPLY AGREEMENT\n\nThis Agreement is made between Acme Inc. (\"Supplier\") and Beta LLC (\"Buyer\"). {whereas}NOW, THEREFORE, the parties agree as follows:\n\n{clauses}");
    let (src, tree) = tree_of(&text);
    assert_tiles(&src, &tree);
    let rec = tree
        .iter()
        .find(|n| n.title == "WHEREAS")
        .expect("a recitals node");
    assert!(src.text[rec.start_byte..].starts_with("WHEREAS, the Supplier"));
    assert_eq!(rec.kind, NodeKind::Section);
    assert_eq!(tree.structure[0].kind, NodeKind::Preamble);
    assert!(tree.health.preamble_share < 0.1, "{:?}", tree.health);
    // Under their own heading, on lines of their own.
    let text = format!("SUPPLY AGREEMENT\n\nThis Agreement is made between Acme Inc. and Beta LLC.\n\nRECITALS\n\n{whereas}\n\n{clauses}");
    let (src, tree) = tree_of(&text);
    assert_tiles(&src, &tree);
    assert!(tree
        .iter()
        .any(|n| n.title == "RECITALS" && n.kind == NodeKind::Section));
    // A whereas inside a sentence starts nothing; a headingless contract
    // is not split (the text after its recitals is the agreement).
    let text = format!("This Agreement, whereas signed late, binds Acme and Beta.\n\n{clauses}");
    let (_, tree) = tree_of(&text);
    assert!(tree.iter().all(|n| n.title != "WHEREAS"));
    let (_, tree) = tree_of(&format!("Acme and Beta agree. {whereas}\n\n{body}\n"));
    assert_eq!(tree.iter().count(), 1);
}

/// After the signature pages: an annex label at the start of a line that
/// runs on into its body titles the annex node (not an untitled fallback),
/// a superscript's residue (`rd`) before it is furniture, and a party's
/// caption drawn with a signing line keeps the run of blocks going.
#[test]
fn an_annex_after_the_signature_pages_is_titled_by_its_label() {
    let body = "The Sponsor shall receive the benefits listed in this attachment during the term of the agreement. ".repeat(6);
    let text = format!(
        "1. SPONSORSHIP\n\n{body}\n\n2. TERM\n\n{body}\n\nIN WITNESS WHEREOF, the parties have executed this Agreement.\n\nACME INC.\n\nBy: /s/ Jane Doe\n\nName: Jane Doe\n\nOther Partners, on behalf of themselves and          ------------------------------\n\nBy: /s/ John Roe\n\nName: John Roe\n\nrd\n\nSCHEDULE A          to the SPONSORSHIP AGREEMENT BETWEEN ACME AND WCC          WCC agrees to provide the following. {body}\n"
    );
    let (src, tree) = tree_of(&text);
    assert_tiles(&src, &tree);
    let sig = tree.iter().find(|n| n.kind == NodeKind::Signature).unwrap();
    assert!(src.text[sig.start_byte..sig.end_byte].contains("John Roe"));
    let annex = tree
        .iter()
        .find(|n| n.title == "SCHEDULE A")
        .expect("titled annex");
    assert_eq!(annex.kind, NodeKind::Schedule);
    assert!(tree.iter().all(|n| n.kind != NodeKind::Fallback));
}

/// A contract without any heading is one fallback node that tiles the
/// text; a contents page made of running text is reported.
#[test]
fn a_headingless_contract_is_one_node_that_tiles_the_text() {
    let text = "This Agreement is made between Acme Inc. and Beta LLC. The parties agree that Acme will license its content to Beta for distribution on demand.\nBeta shall pay Acme a fee of ten percent of its revenue from the content, within thirty days after each quarter ends.\n".repeat(20);
    let (src, tree) = tree_of(&text);
    assert_tiles(&src, &tree);
    assert_eq!(tree.iter().count(), 1);
    assert_eq!(tree.structure[0].kind, NodeKind::Fallback);
    assert_eq!(tree.health.chars, text.chars().count());
    assert!(!tree.health.usable());
}

/// Invariants over the CUAD commercial contracts (PDF text: pages run into
/// lines, headings inline): the nodes tile every file, no heading is page
/// furniture or starts inside a sentence, and the share of contracts of
/// 15,000+ characters with a usable tree stays above a floor on both
/// halves. The floor (86%) is below what the tree reaches (tuning 103/114,
/// checking 87/96 at the time of writing, with the recitals a node of
/// their own and the annexes after the signature pages titled) so that a
/// change of a few contracts does not fail it, and above the 82.5% / 84.4%
/// before those, and far above the 60% before headings inside lines were
/// found.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn cuad_trees_tile_find_headings_and_are_mostly_usable() {
    if super::util::corpora_or_skip().is_none() {
        return;
    }
    let furniture = Regex::new(r"^(Source: |\d{1,3}$|\[\*+\]$)").unwrap();
    let mut usable = [0usize; 2];
    let mut long = [0usize; 2];
    for (path, checking) in super::util::cuad_documents() {
        let (src, tree) = load(&path);
        assert_tiles(&src, &tree);
        for n in tree.iter().filter(|n| n.kind == NodeKind::Section) {
            assert!(
                !furniture.is_match(&n.title),
                "{}: page furniture {:?} is a heading",
                tree.doc_name,
                n.title
            );
            // A node that starts inside a line starts after a sentence
            // end, a colon or a capitals title, never mid-sentence after
            // a lower-case word.
            if n.start_byte > src.line_start(n.start_line) {
                let before = src.text[..n.start_byte].trim_end();
                let last = before.rsplit(' ').next().unwrap_or_default();
                assert!(
                    !last.chars().all(|c| c.is_lowercase()),
                    "{}: heading {:?} starts inside a sentence after {last:?}",
                    tree.doc_name,
                    n.title
                );
            }
        }
        if tree.health.chars >= 15_000 {
            long[usize::from(checking)] += 1;
            usable[usize::from(checking)] += usize::from(tree.health.usable());
        }
    }
    for half in 0..2 {
        assert!(
            usable[half] * 100 >= long[half] * 86,
            "usable trees in half {half}: {} of {}",
            usable[half],
            long[half]
        );
    }
}

/// Civil-law `CLAUSE` articles, spelled (`CLAUSE FIRST`, `CLAUSE
/// TWENTY-NINTH`) in the contract and numbered (`CLAUSE 2`, after a page
/// header and a PDF gap) in the manual annexed to it, are the articles: the
/// tree covers the document from its first clause, not from a numbered
/// list in a later annex.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn clause_articles_spelled_or_numbered_cover_a_transportation_contract() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (src, tree) = load(&corpus_file(
        "wide/commercial/gran_tierra_2012_transportation.txt",
    ));
    assert_tiles(&src, &tree);
    let titles: Vec<&str> = tree.iter().map(|n| n.title.as_str()).collect();
    for want in [
        "CLAUSE SECOND DEFINITIONS",
        "CLAUSE TWENTY-NINTH MISCELLANEOUS",
        "CLAUSE 2 DEFINITIONS",
        "CLAUSE 13 DETERMINATION OF QUANTITIES AND QUALITY",
    ] {
        assert!(titles.contains(&want), "{want} not a heading: {titles:?}");
    }
    let n = tree
        .iter()
        .find(|n| n.title == "CLAUSE TWENTY-NINTH MISCELLANEOUS")
        .unwrap();
    assert_eq!(n.label.as_ref().map(|l| l.seq.clone()), Some(vec![29]));
    assert!(tree.health.preamble_share < 0.05, "{:?}", tree.health);
}

/// A contents page run into its title's line, followed by pages run into
/// long lines: the contents end where running sentences start, so the
/// parties clause is a preamble and the numbered clauses are headings.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_contents_page_never_holds_running_sentences() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (src, tree) = load(&corpus_file(
        "cuad/collaboration/hpilholding_01_07_2015_ex_99_1_cooperation_agreement.txt",
    ));
    assert_tiles(&src, &tree);
    let toc = tree
        .iter()
        .find(|n| n.kind == NodeKind::Toc)
        .expect("the contents page");
    assert_eq!((toc.start_line, toc.end_line), (9, 14));
    assert!(
        tree.health.noise_running_text.is_empty(),
        "{:?}",
        tree.health
    );
    let titles: Vec<&str> = tree.iter().map(|n| n.title.as_str()).collect();
    for want in [
        "1. Term",
        "4. Confidentiality",
        "13. Notices",
        "16. Arbitration",
    ] {
        assert!(titles.contains(&want), "{want} not a heading: {titles:?}");
    }
    // The parties clause after it is a preamble of its own, sent.
    let parties = src.text.find("THIS COOPERATION AGREEMENT").unwrap();
    let holder = tree
        .iter()
        .find(|n| n.start_byte <= parties && parties < n.end_byte)
        .unwrap();
    assert_eq!(holder.kind, NodeKind::Preamble, "{holder:?}");
}

/// Unnumbered capitals headings standing alone between paragraphs, with
/// siblings in the same style, are the sections of a contract that has no
/// numbered heading; the agreement's title, the opening's `WHEREAS` (it
/// opens the recitals node instead) and a running page header met on
/// every page are not.
#[test]
fn unnumbered_capitals_headings_between_paragraphs_are_sections() {
    let para = "The Provider shall perform the services described in this section with reasonable skill and care, and the Customer shall pay the fees set out below within thirty days.\n\n";
    let mut text = String::from("HOSTING AGREEMENT\n\nThis Agreement is made between Acme Inc. and Beta LLC, who agree as follows.\n\nWHEREAS\n\n");
    text.push_str(&para.repeat(2));
    for title in [
        "SERVICES PROVIDED TO THE CUSTOMER",
        "FEES AND PAYMENT",
        "TERM AND TERMINATION",
        "GOVERNING LAW",
    ] {
        text.push_str(&format!("ACME - BETA HOSTING\n\n{title}\n\n"));
        text.push_str(&para.repeat(8));
    }
    let (src, tree) = tree_of(&text);
    assert_tiles(&src, &tree);
    let titles: Vec<&str> = tree.iter().map(|n| n.title.as_str()).collect();
    for want in [
        "SERVICES PROVIDED TO THE CUSTOMER",
        "FEES AND PAYMENT",
        "TERM AND TERMINATION",
        "GOVERNING LAW",
    ] {
        assert!(titles.contains(&want), "{want} not a heading: {titles:?}");
    }
    for not in ["HOSTING AGREEMENT", "ACME - BETA HOSTING"] {
        assert!(!titles.contains(&not), "{not} is a heading: {titles:?}");
    }
    // The opening's `WHEREAS` is no capitals heading: it opens the
    // recitals, a node of their own up to the first heading.
    assert_eq!(
        &titles[..3],
        ["Preamble", "WHEREAS", "SERVICES PROVIDED TO THE CUSTOMER"]
    );
    assert_eq!(tree.structure[0].kind, NodeKind::Preamble);
    assert!(tree.health.usable(), "{:?}", tree.health);
    // One capitals line alone is a caption, not a structure.
    let lone = text.replacen("FEES AND PAYMENT", "Fees and payment", 1);
    let lone = lone.replacen("TERM AND TERMINATION", "Term and termination", 1);
    let lone = lone.replacen("GOVERNING LAW", "Governing law", 1);
    let (_, tree) = tree_of(&lone);
    assert_eq!(tree.iter().count(), 1, "{:?}", tree.structure);
}

/// A CUAD supply agreement whose sections are unnumbered capitals lines
/// (`LOCATIONS OF SUPPLY`, `QUALITY`): they are its headings.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_cuad_contract_titled_in_capitals_lines_has_them_as_headings() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let (src, tree) = load(&corpus_file(
        "cuad/supply/westpharmaceuticalservicesinc_20200116_8_k_ex_10_1_11947529_ex_10_1_supply_agreement.txt",
    ));
    assert_tiles(&src, &tree);
    let titles: Vec<&str> = tree.iter().map(|n| n.title.as_str()).collect();
    for want in ["LOCATIONS OF SUPPLY", "QUALITY", "TECHNICAL SUPPORT"] {
        assert!(titles.contains(&want), "{want} not a heading: {titles:?}");
    }
}
