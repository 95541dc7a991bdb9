//! A family's own paragraph model: learned by `kgroute index learn` from
//! the family's batches (which paragraphs held the relations their
//! extraction found, and reviewers' decisions), kept beside the family's
//! index (`indices/lease.yaml` -> `indices/lease.model.tsv`), and read by
//! routing by content in place of the shipped model for that family.
//!
//! The file is the shipped model's text form ([`ClauseModel::parse`])
//! with one more line, the thresholds the model was chosen at on
//! documents it did not learn from:
//!
//! ```text
//! # comment lines: where it was learned from and how it measured
//! thresholds<TAB>inside 0.0123 rescue 0.61
//! categories<TAB>Relations
//! ...
//! ```
//!
//! `rescue never` says no paragraph under a Low title is sent by its
//! score alone.

use super::{ClauseModel, ModelError};
use std::path::{Path, PathBuf};

/// Clause scores from which a paragraph is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// In a section whose title is Medium or unknown.
    pub inside: f32,
    /// In a section whose title is Low or Very Low.
    pub rescue: f32,
}

/// The one category a learned model scores: whether a paragraph holds a
/// relation worth extracting.
pub const CATEGORY: &str = "Relations";

/// A model learned for one family, as read from beside its index.
#[derive(Debug, Clone)]
pub struct LearnedModel {
    pub model: ClauseModel,
    pub thresholds: Thresholds,
    /// The file it was read from.
    pub path: PathBuf,
}

/// Where the learned model of the index `yaml` is kept: beside it, named
/// after it (`lease.yaml` -> `lease.model.tsv`).
pub fn path_beside(yaml: &Path) -> PathBuf {
    let stem = yaml
        .file_stem()
        .map_or_else(|| "index".into(), |s| s.to_string_lossy().into_owned());
    yaml.with_file_name(format!("{stem}.model.tsv"))
}

const KEY: &str = "thresholds";

impl LearnedModel {
    /// The model kept beside the index `yaml`, if there is one: `Ok(None)`
    /// when there is no file.
    pub fn load_beside(yaml: &Path) -> Result<Option<LearnedModel>, (PathBuf, LoadProblem)> {
        let path = path_beside(yaml);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err((path, LoadProblem::Io(e))),
        };
        match parse(&text) {
            Ok((model, thresholds)) => Ok(Some(LearnedModel {
                model,
                thresholds,
                path,
            })),
            Err(e) => Err((path, LoadProblem::Parse(e))),
        }
    }
}

/// Why a learned model beside an index could not be read.
#[derive(Debug)]
pub enum LoadProblem {
    Io(std::io::Error),
    Parse(ModelError),
}

/// Reads a learned model's text: its thresholds line and the model.
pub fn parse(text: &str) -> Result<(ClauseModel, Thresholds), ModelError> {
    let err = |line: usize, what: &str| ModelError {
        line,
        what: what.to_string(),
    };
    let mut thresholds = None;
    // The thresholds line is blanked out, not removed, so the model's own
    // errors keep the file's line numbers.
    let mut rest = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        match line.strip_prefix(KEY).and_then(|r| r.strip_prefix('\t')) {
            Some(values) => {
                if thresholds.is_some() {
                    return Err(err(i + 1, "a second `thresholds` line"));
                }
                thresholds = Some(parse_thresholds(values).map_err(|w| err(i + 1, &w))?);
                rest.push('\n');
            }
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    let thresholds = thresholds.ok_or_else(|| {
        err(
            0,
            "no `thresholds` line (a learned model is written by `kgroute index learn --write`)",
        )
    })?;
    Ok((ClauseModel::parse(&rest)?, thresholds))
}

fn parse_thresholds(values: &str) -> Result<Thresholds, String> {
    let mut inside = None;
    let mut rescue = None;
    let words: Vec<&str> = values.split_whitespace().collect();
    for pair in words.chunks(2) {
        let [name, value] = pair else {
            return Err(format!("`{}` has no value", pair[0]));
        };
        let v = if *value == "never" {
            f32::INFINITY
        } else {
            value
                .parse::<f32>()
                .ok()
                .filter(|v| (0.0..=1.0).contains(v))
                .ok_or_else(|| format!("`{name} {value}`: a score from 0 to 1, or `never`"))?
        };
        match *name {
            "inside" => inside = Some(v),
            "rescue" => rescue = Some(v),
            _ => return Err(format!("`{name}`: expected `inside` and `rescue`")),
        }
    }
    match (inside, rescue) {
        (Some(inside), Some(rescue)) if inside.is_finite() && rescue >= inside => {
            Ok(Thresholds { inside, rescue })
        }
        (Some(_), Some(_)) => Err("`inside` is a score and `rescue` is not below it".to_string()),
        _ => Err("expected `inside <score> rescue <score>`".to_string()),
    }
}

/// The text [`parse`] reads: `comments`, the thresholds, the model.
pub fn to_text(model: &ClauseModel, th: &Thresholds, comments: &[String]) -> String {
    let body = model.to_text(comments);
    // The thresholds go after the comments, before the model.
    let at = body
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let rescue = if th.rescue.is_finite() {
        format!("{}", th.rescue)
    } else {
        "never".to_string()
    };
    format!(
        "{}{KEY}\tinside {} rescue {rescue}\n{}",
        &body[..at],
        th.inside,
        &body[at..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn model() -> ClauseModel {
        let mut w = HashMap::new();
        w.insert("assign".to_string(), vec![(0u16, 2.5f32)]);
        ClauseModel::new(vec![CATEGORY.into()], vec![-3.0], vec![7], w)
    }

    #[test]
    fn a_learned_model_reads_back_with_its_thresholds() {
        let th = Thresholds {
            inside: 0.0125,
            rescue: f32::INFINITY,
        };
        let text = to_text(&model(), &th, &["learned from b1".into()]);
        assert!(text.starts_with("# learned from b1\nthresholds\tinside 0.0125 rescue never\n"));
        let (back, th2) = parse(&text).unwrap();
        assert_eq!(th2, th);
        assert_eq!(back.categories(), &[CATEGORY.to_string()]);
        assert!(back.score("", "may not assign")[0] > back.score("", "may not")[0]);
    }

    #[test]
    fn damaged_thresholds_are_named_by_line() {
        let good = to_text(
            &model(),
            &Thresholds {
                inside: 0.1,
                rescue: 0.5,
            },
            &["c".into()],
        );
        for (bad, says) in [
            ("inside 0.1 rescue 0.05", "not below"),
            ("inside 2 rescue 3", "from 0 to 1"),
            ("inside 0.1", "expected"),
            ("inside 0.1 lower 0.2", "`lower`"),
        ] {
            let text = good.replace("inside 0.1 rescue 0.5", bad);
            let e = parse(&text).unwrap_err();
            assert_eq!(e.line, 2, "{bad}: {e}");
            assert!(e.what.contains(says), "{bad}: {e}");
        }
        let e = parse(&good.replace("thresholds\t", "# thresholds ")).unwrap_err();
        assert!(e.what.contains("index learn"), "{e}");
    }

    #[test]
    fn the_file_sits_beside_its_index() {
        assert_eq!(
            path_beside(Path::new("indices/lease.yaml")),
            PathBuf::from("indices/lease.model.tsv")
        );
    }
}
