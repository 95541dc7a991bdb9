//! `kgroute contracts --batch B`: the batch's register filtered and
//! grouped. Parses the flags into a [`Query`] and prints what the engine
//! in `crate::contracts` selects.

use super::Outcome;
use crate::contracts::category::resolve;
use crate::contracts::query::{count_by, select, CountBy, PartialDate, Query};
use crate::contracts::render::{self, Format};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  kgroute contracts --batch reports/b1 --has non-compete
  kgroute contracts --batch reports/b1 --lacks \"cap on liability\"
  kgroute contracts --batch reports/b1 --party \"Acme Corp\" --role licensee
  kgroute contracts --batch reports/b1 --law \"New York\" --count-by type
  kgroute contracts --batch reports/b1 --renews --notice-max 30
  kgroute contracts --batch reports/b1 --expires-before 2020-06 --format csv
  kgroute contracts --batch reports/b1 --count-by law --format json

Reads the batch's register.jsonl (written by `kgroute ingest`). Filters are
ANDed; --has and --lacks repeat. Categories are the 39 CUAD clause kinds
(the register's two other fact columns, Remedy For and Submits To
Jurisdiction, are shown, not filtered on), as people type them:
non-compete, \"cap on liability\", MFN, ROFR, \"governing law\".
Dates are ISO, as far as known (2020, 2020-06, 2020-06-30): a contract
counts as expiring before a date only when all of its known expiry is;
a perpetual one never expires. Each fact shown carries where it is,
§node lines a-b in the contract's file.";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ContractsArgs {
    /// The batch folder `kgroute ingest --out` wrote.
    #[arg(long, value_name = "DIR")]
    pub batch: PathBuf,
    /// Only contracts with a fact of this category (repeatable).
    #[arg(long, value_name = "CATEGORY")]
    pub has: Vec<String>,
    /// Only contracts without a fact of this category (repeatable).
    #[arg(long, value_name = "CATEGORY")]
    pub lacks: Vec<String>,
    /// Only contracts with this party, by any of its names (legal forms
    /// such as Inc., Corp, LLC, case and punctuation aside).
    #[arg(long, value_name = "NAME")]
    pub party: Option<String>,
    /// Only contracts where a party (with --party: that party) has this role.
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// Only contracts governed by the law of this place.
    #[arg(long, value_name = "PLACE")]
    pub law: Option<String>,
    /// Only contracts of this document type.
    #[arg(long = "type", value_name = "DOC_TYPE")]
    pub doc_type: Option<String>,
    /// Only contracts that expire before this date (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub expires_before: Option<String>,
    /// Only contracts that expire after this date (perpetual ones do).
    #[arg(long, value_name = "DATE")]
    pub expires_after: Option<String>,
    /// Only contracts that renew automatically: their renewal clause renews
    /// by itself (not an option to renew, nor a renewal by mutual agreement).
    #[arg(long)]
    pub renews: bool,
    /// Only contracts whose renewal can be stopped with at most this many
    /// days' notice.
    #[arg(long, value_name = "DAYS")]
    pub notice_max: Option<u32>,
    /// Count the contracts that pass by this field instead of listing them.
    #[arg(long, value_enum, value_name = "FIELD")]
    pub count_by: Option<CountBy>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// The engine's query from the flags; a category or date it cannot read
/// is an error saying what it expected.
pub fn query(a: &ContractsArgs) -> anyhow::Result<Query> {
    let cats = |typed: &[String], flag: &str| -> anyhow::Result<Vec<&'static str>> {
        typed
            .iter()
            .map(|t| resolve(t).map_err(|e| anyhow::anyhow!("--{flag}: {e}")))
            .collect()
    };
    let date = |d: &Option<String>, flag: &str| -> anyhow::Result<Option<PartialDate>> {
        d.as_deref()
            .map(|s| {
                PartialDate::parse(s).with_context(|| {
                    format!("--{flag} {s:?}: give an ISO date, as far as known: 2020, 2020-06 or 2020-06-30")
                })
            })
            .transpose()
    };
    // A blank value names nothing: it would match no contract and say
    // "0 contracts" as if the register had answered.
    for (flag, v) in [
        ("party", &a.party),
        ("role", &a.role),
        ("law", &a.law),
        ("type", &a.doc_type),
    ] {
        if v.as_deref().is_some_and(|v| v.trim().is_empty()) {
            anyhow::bail!("--{flag} is blank: give a value, or leave the flag out");
        }
    }
    Ok(Query {
        has: cats(&a.has, "has")?,
        lacks: cats(&a.lacks, "lacks")?,
        party: a.party.clone(),
        role: a.role.clone(),
        law: a.law.clone(),
        doc_type: a.doc_type.clone(),
        expires_before: date(&a.expires_before, "expires-before")?,
        expires_after: date(&a.expires_after, "expires-after")?,
        renews: a.renews,
        notice_max: a.notice_max,
        ..Query::default()
    })
}

pub fn run(a: ContractsArgs) -> anyhow::Result<Outcome> {
    let q = query(&a)?;
    let rows = crate::contracts::load(&a.batch)?;
    if let Some(t) = &q.doc_type {
        // A type no contract has is a typo or another batch's: say which
        // types this register holds, as --has does for categories.
        let mut types: std::collections::BTreeMap<&str, usize> = Default::default();
        for r in &rows {
            *types.entry(r.doc_type.as_str()).or_default() += 1;
        }
        if !types
            .keys()
            .any(|k| crate::contracts::query::same_words(k, t))
        {
            let held: Vec<String> = types.iter().map(|(k, n)| format!("{k} ({n})")).collect();
            anyhow::bail!(
                "--type {t}: no contract of this register ({}) is of that type; its types: {}",
                a.batch.display(),
                held.join(", ")
            );
        }
    }
    let hits = select(&rows, &q);
    // Values and pointers of a source edited since are the old text's.
    let stale = crate::contracts::stale_sources(hits.iter().map(|h| h.row));
    if !stale.is_empty() {
        eprintln!(
            "kgroute: warning: {} listed source(s) changed or cannot be read since the batch read \
             them; their values and pointers are the old text's (ingest them again to refresh): {}",
            stale.len(),
            stale.join(", ")
        );
    }
    let text = match a.count_by {
        Some(by) => {
            let field = clap::ValueEnum::to_possible_value(&by)
                .map(|v| v.get_name().to_string())
                .unwrap_or_default();
            render::counts(&field, &count_by(&hits, by), a.format)?
        }
        None => render::contracts(&hits, a.format)?,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the contracts")?;
    Ok(Outcome::Success)
}
