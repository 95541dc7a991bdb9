//! How `kgroute contracts` scales with the batch: a register replicated to
//! 200 and 2,000 contracts (each copy its own doc id and party names),
//! written as `register.jsonl`, then each query timed whole as the command
//! runs it (read the file, filter, render), best of several runs, with the
//! 2000/200 ratio.
//!
//! cargo run --release --example contracts_bench -- reports/B/register.jsonl
//!
//! With no file, the rows of a small built-in register stand in.

use kgroute::contracts::category::resolve;
use kgroute::contracts::query::{count_by, select, CountBy, PartialDate, Query};
use kgroute::contracts::render::{self, Format};
use kgroute::register::{read_jsonl, write_jsonl, RegisterFact, RegisterParty, RegisterRow};
use std::time::{Duration, Instant};

const RUNS: usize = 7;

fn fact(value: &str, normalized: &str, node: &str) -> RegisterFact {
    RegisterFact {
        value: value.into(),
        normalized: Some(normalized.into()),
        node_id: node.into(),
        start_line: 10,
        end_line: 12,
        quote: value.into(),
        ..Default::default()
    }
}

/// Three contracts unlike in each field a query reads.
fn built_in() -> Vec<RegisterRow> {
    let laws = ["New York", "Delaware", "California"];
    (0..3)
        .map(|i| {
            let mut r = RegisterRow {
                doc_id: format!("d{i}"),
                path: format!("d{i}.txt"),
                doc_type: ["supply", "license", "services"][i].into(),
                parties: vec![RegisterParty {
                    name: format!("Party{i} Inc."),
                    aliases: vec![format!("P{i}")],
                    roles: vec!["Supplier".into()],
                }],
                ..Default::default()
            };
            r.facts.insert(
                "GOVERNING_LAW".into(),
                vec![fact(&format!("laws of {}", laws[i]), laws[i], "12")],
            );
            r.facts.insert(
                "EXPIRATION_DATE".into(),
                vec![fact("x", &format!("20{}-06-30", 15 + i), "2")],
            );
            if i != 1 {
                r.facts
                    .insert("RENEWAL_TERM".into(), vec![fact("one year", "1 year", "2")]);
                r.facts.insert(
                    "NOTICE_PERIOD_TO_TERMINATE_RENEWAL".into(),
                    vec![fact("30 days", &format!("{} days", 30 * (i + 1)), "2")],
                );
            }
            if i == 0 {
                r.facts
                    .insert("CAP_ON_LIABILITY".into(), vec![fact("cap", "cap", "9")]);
            }
            r
        })
        .collect()
}

/// `base` repeated to `n` rows, each copy's ids and party names its own.
fn replicate(base: &[RegisterRow], n: usize) -> Vec<RegisterRow> {
    (0..n)
        .map(|i| {
            let mut r = base[i % base.len()].clone();
            let copy = i / base.len();
            r.doc_id = format!("{}-{copy}", r.doc_id);
            r.path = format!("copy{copy}/{}", r.path);
            for p in &mut r.parties {
                p.name = format!("{} {copy}", p.name);
            }
            r
        })
        .collect()
}

fn best(mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut n = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed());
    }
    (best, n)
}

fn main() -> anyhow::Result<()> {
    let base = match std::env::args().nth(1) {
        Some(p) => read_jsonl(std::path::Path::new(&p))?,
        None => built_in(),
    };
    anyhow::ensure!(!base.is_empty(), "the register has no rows");
    let party = base
        .iter()
        .flat_map(|r| &r.parties)
        .map(|p| p.name.clone())
        .next()
        .unwrap_or_else(|| "Acme".into());
    let queries: Vec<(&str, Query, Option<CountBy>)> = vec![
        (
            "--lacks \"cap on liability\"",
            Query {
                lacks: vec![resolve("cap on liability")?],
                ..Default::default()
            },
            None,
        ),
        (
            "--has non-compete --has \"governing law\"",
            Query {
                has: vec![resolve("non-compete")?, resolve("governing law")?],
                ..Default::default()
            },
            None,
        ),
        (
            "--party <first party>",
            Query {
                party: Some(party),
                ..Default::default()
            },
            None,
        ),
        (
            "--law \"New York\"",
            Query {
                law: Some("New York".into()),
                ..Default::default()
            },
            None,
        ),
        (
            "--expires-before 2017-01",
            Query {
                expires_before: PartialDate::parse("2017-01"),
                ..Default::default()
            },
            None,
        ),
        (
            "--renews --notice-max 30",
            Query {
                renews: true,
                notice_max: Some(30),
                ..Default::default()
            },
            None,
        ),
        ("--count-by party", Query::default(), Some(CountBy::Party)),
        (
            "--count-by category",
            Query::default(),
            Some(CountBy::Category),
        ),
    ];
    let dir = tempfile::tempdir()?;
    let mut timed: Vec<Vec<(Duration, usize)>> = Vec::new();
    for n in [200, 2000] {
        let path = dir.path().join(format!("register-{n}.jsonl"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path)?);
        write_jsonl(&replicate(&base, n), &mut f)?;
        drop(f);
        let mut row = Vec::new();
        for (_, q, by) in &queries {
            row.push(best(|| {
                let rows = read_jsonl(&path).expect("register");
                let hits = select(&rows, q);
                let out = match by {
                    Some(by) => render::counts("field", &count_by(&hits, *by), Format::Table),
                    None => render::contracts(&hits, Format::Table),
                }
                .expect("render");
                std::hint::black_box(out);
                hits.len()
            }));
        }
        timed.push(row);
    }
    println!(
        "register of {} contracts replicated; best of {RUNS} runs, read + filter + render",
        base.len()
    );
    println!(
        "{:<44} {:>12} {:>12} {:>7}",
        "query", "200", "2000", "ratio"
    );
    for (i, (name, _, _)) in queries.iter().enumerate() {
        let (a, b) = (timed[0][i], timed[1][i]);
        println!(
            "{:<44} {:>9.2} ms {:>9.2} ms {:>6.1}x   ({} / {} contracts)",
            name,
            a.0.as_secs_f64() * 1e3,
            b.0.as_secs_f64() * 1e3,
            b.0.as_secs_f64() / a.0.as_secs_f64(),
            a.1,
            b.1
        );
    }
    Ok(())
}
