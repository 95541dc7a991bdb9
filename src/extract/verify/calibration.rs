//! Which clause kinds a model's answers may decide: learned per model on
//! contracts with known answers (CUAD's), kept as a small file beside the
//! index (`indices/verify/<model>.tsv`). A kind is trusted only when, on
//! those contracts, the model's reading beats the offline one without
//! being worse anywhere (at least as many kinds found, no more marked
//! wrongly, one of the two strictly better) and the model has shown it
//! tells the kind apart: it said yes rightly at least once and no rightly
//! at least once. A model that says yes to everything, no to everything
//! or nothing usable earns no kind, and the register stays as offline
//! made it.

use super::apply::CategoryCheck;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Right and wrong decisions of one reading of one kind over contracts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub tp: u32,
    pub fp: u32,
    pub fn_: u32,
    /// Contracts without the kind where the reading was asked and said
    /// no (the model's only: the offline reading is never asked).
    pub tn_asked: u32,
}

impl Counts {
    fn add(&mut self, said: bool, truth: bool) {
        match (said, truth) {
            (true, true) => self.tp += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
            (false, false) => {}
        }
    }
}

/// One kind's calibration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindCalibration {
    pub trusted: bool,
    pub offline: Counts,
    pub model: Counts,
}

/// A model's calibration: the kinds its answers decide.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calibration {
    /// The model it was learned for (`KGROUTE_MODEL`).
    pub model: String,
    /// The verify prompt version it was learned with.
    pub prompt: String,
    /// What it was learned from, for the reader.
    pub source: String,
    pub kinds: BTreeMap<String, KindCalibration>,
}

/// One contract's checks beside its known answers (`truth[kind]`: the
/// contract has such a clause).
pub type CheckedContract = (BTreeMap<String, CategoryCheck>, BTreeMap<String, bool>);

impl Calibration {
    /// Whether the model's answers decide this kind.
    pub fn trusts(&self, relation_type: &str) -> bool {
        self.kinds.get(relation_type).is_some_and(|k| k.trusted)
    }

    /// The kinds it trusts.
    pub fn trusted(&self) -> impl Iterator<Item = &str> {
        self.kinds
            .iter()
            .filter(|(_, k)| k.trusted)
            .map(|(t, _)| t.as_str())
    }

    /// A calibration that trusts `kinds` (for tests and for a user who
    /// decides by hand).
    pub fn trusting(model: &str, kinds: &[&str]) -> Self {
        Calibration {
            model: model.to_string(),
            prompt: super::VERIFY_PROMPT_VERSION.to_string(),
            source: "set by hand".to_string(),
            kinds: kinds
                .iter()
                .map(|k| {
                    (
                        k.to_string(),
                        KindCalibration {
                            trusted: true,
                            ..Default::default()
                        },
                    )
                })
                .collect(),
        }
    }

    /// Learns a calibration from contracts' checks and their known
    /// answers (`truth[kind]`: the contract has such a clause). A kind the
    /// truth does not answer for a contract is not counted there.
    pub fn learn(model: &str, source: &str, contracts: &[CheckedContract]) -> Self {
        let mut kinds: BTreeMap<String, KindCalibration> = BTreeMap::new();
        for (checks, truth) in contracts {
            for (ty, &yes) in truth {
                let k = kinds.entry(ty.clone()).or_default();
                let (offline, model) = match checks.get(ty) {
                    Some(c) => (c.offline, c.model.unwrap_or(c.offline)),
                    None => (false, false),
                };
                k.offline.add(offline, yes);
                k.model.add(model, yes);
                if !yes && checks.get(ty).is_some_and(|c| c.model == Some(false)) {
                    k.model.tn_asked += 1;
                }
            }
        }
        for k in kinds.values_mut() {
            let (o, m) = (k.offline, k.model);
            k.trusted = m.tp >= 1
                && m.tn_asked >= 1
                && m.tp >= o.tp
                && m.fp <= o.fp
                && (m.tp > o.tp || m.fp < o.fp);
        }
        Calibration {
            model: model.to_string(),
            prompt: super::VERIFY_PROMPT_VERSION.to_string(),
            source: source.to_string(),
            kinds,
        }
    }

    /// The file's text: a few `#` lines saying what it is, then one line a
    /// kind.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# kgroute verify calibration: the clause kinds whose register cell this model's answers decide");
        let _ = writeln!(
            s,
            "# (learned by `kgroute verify calibrate`; edit `decides` by hand to overrule it)"
        );
        let _ = writeln!(s, "# model\t{}", self.model);
        let _ = writeln!(s, "# prompt\t{}", self.prompt);
        let _ = writeln!(s, "# learned from\t{}", self.source);
        let _ = writeln!(s, "relation_type\tdecides\toffline_tp\toffline_fp\toffline_fn\tmodel_tp\tmodel_fp\tmodel_fn\tmodel_tn_asked");
        for (ty, k) in &self.kinds {
            let _ = writeln!(
                s,
                "{ty}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                if k.trusted { "model" } else { "offline" },
                k.offline.tp,
                k.offline.fp,
                k.offline.fn_,
                k.model.tp,
                k.model.fp,
                k.model.fn_,
                k.model.tn_asked
            );
        }
        s
    }

    /// Reads a calibration file; errors name the file and line.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read the verify calibration", path.display()))?;
        Self::parse(&text).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))
    }

    /// Parses [`Self::to_text`]'s form; an error starts with its line
    /// number.
    pub fn parse(text: &str) -> Result<Self> {
        let mut c = Calibration::default();
        let mut header = false;
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            if let Some(meta) = line.strip_prefix('#') {
                if let Some((k, v)) = meta.trim_start().split_once('\t') {
                    match k.trim() {
                        "model" => c.model = v.trim().to_string(),
                        "prompt" => c.prompt = v.trim().to_string(),
                        "learned from" => c.source = v.trim().to_string(),
                        _ => {}
                    }
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let cells: Vec<&str> = line.split('\t').collect();
            if !header {
                if cells.first() != Some(&"relation_type") {
                    bail!("{n}: expected the header `relation_type\tdecides\t...`, found {line:?}");
                }
                header = true;
                continue;
            }
            if cells.len() != 9 {
                bail!("{n}: expected 9 tab-separated cells, found {}", cells.len());
            }
            let trusted = match cells[1] {
                "model" => true,
                "offline" => false,
                other => bail!("{n}: `decides` must be `model` or `offline`, found {other:?}"),
            };
            let num = |i: usize| -> Result<u32> {
                cells[i].trim().parse().map_err(|_| {
                    anyhow::anyhow!("{n}: cell {} is not a count: {:?}", i + 1, cells[i])
                })
            };
            let kind = KindCalibration {
                trusted,
                offline: Counts {
                    tp: num(2)?,
                    fp: num(3)?,
                    fn_: num(4)?,
                    tn_asked: 0,
                },
                model: Counts {
                    tp: num(5)?,
                    fp: num(6)?,
                    fn_: num(7)?,
                    tn_asked: num(8)?,
                },
            };
            if !crate::extract::facts_vocabulary::is_clause_kind(cells[0]) {
                bail!(
                    "{n}: {:?} is not a clause kind (e.g. NON_COMPETE)",
                    cells[0]
                );
            }
            c.kinds.insert(cells[0].to_string(), kind);
        }
        if c.model.is_empty() {
            bail!("1: no `# model\t<name>` line: which model was this learned for?");
        }
        Ok(c)
    }

    /// The file name of a model's calibration (`qwen2.5-0.5b-instruct.tsv`):
    /// the name with anything but letters, digits, `.`, `_` and `-` as `_`.
    pub fn file_name(model: &str) -> String {
        let slug: String = model
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{}.tsv", slug.trim_start_matches('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(offline: bool, model: Option<bool>) -> BTreeMap<String, CategoryCheck> {
        [(
            "NON_COMPETE".to_string(),
            CategoryCheck {
                offline,
                model,
                asked: 1,
                answered: 1,
                decided_by: "offline".into(),
            },
        )]
        .into_iter()
        .collect()
    }

    fn truth(yes: bool) -> BTreeMap<String, bool> {
        [("NON_COMPETE".to_string(), yes)].into_iter().collect()
    }

    fn learned(model: &[Option<bool>]) -> bool {
        // Offline: right on the first two contracts, a wrong yes on the
        // third, a miss on the fourth.
        let offline = [true, false, true, false];
        let truths = [true, false, false, true];
        let contracts: Vec<_> = (0..4)
            .map(|i| (check(offline[i], model[i]), truth(truths[i])))
            .collect();
        Calibration::learn("m", "test", &contracts).trusts("NON_COMPETE")
    }

    #[test]
    fn only_a_model_better_somewhere_and_worse_nowhere_is_trusted() {
        assert!(learned(&[Some(true), Some(false), Some(false), Some(true)]));
        assert!(learned(&[Some(true), Some(false), Some(false), None]));
        assert!(!learned(&[Some(true); 4]), "yes to everything");
        assert!(!learned(&[Some(false); 4]), "no to everything");
        assert!(!learned(&[None; 4]), "no answers");
        assert!(
            !learned(&[Some(true), Some(true), Some(true), Some(false)]),
            "a new wrong yes"
        );
    }

    #[test]
    fn the_file_reads_back_and_names_its_errors() {
        let c = Calibration::learn(
            "qwen/x",
            "4 contracts",
            &[
                (check(false, Some(true)), truth(true)),
                (check(true, Some(false)), truth(false)),
            ],
        );
        let back = Calibration::parse(&c.to_text()).unwrap();
        assert_eq!(back, c);
        assert!(back.trusts("NON_COMPETE"));
        let bad = c.to_text().replace("\tmodel\t", "\tmaybe\t");
        assert!(Calibration::parse(&bad)
            .unwrap_err()
            .to_string()
            .starts_with("7: "));
        assert_eq!(Calibration::file_name("qwen/x:1"), "qwen_x_1.tsv");
    }
}
