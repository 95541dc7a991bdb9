//! `scripts/routing-eval`: prints the routing figures of the shipped
//! credit-agreement index against the expert gold files, for the tuning
//! and the checking half (see `kgroute::route::eval`), then the wide files
//! without gold (every document type) through the real tree builder.
//!
//! Usage: routing_eval [--index YAML] [--shared DIR] [--misses]

use kgroute::index::{GraphabilityIndex, IndexSet};
use kgroute::route::eval::{self, EvalFigures};
use kgroute::route::{plan_document_in, PlanStats, RouteOptions};
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut index = repo.join("indices/credit_agreement.yaml");
    let mut shared = repo
        .ancestors()
        .map(|a| a.join("shared"))
        .find(|p| p.join("corpora").is_dir())
        .unwrap_or_else(|| repo.join("../shared"));
    let mut misses = false;
    let mut entries = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--index" => index = args.next().map(PathBuf::from).unwrap_or(index),
            "--shared" => shared = args.next().map(PathBuf::from).unwrap_or(shared),
            "--misses" => misses = true,
            "--entries" => entries = true,
            other => anyhow::bail!("unknown argument {other}; usage: routing-eval [--index YAML] [--shared DIR] [--misses] [--entries]"),
        }
    }
    let idx = GraphabilityIndex::load(&[index.clone()])?;
    println!(
        "index: {} ({} entries)",
        index.display(),
        idx.entries().len()
    );
    let mut halves: Vec<Vec<EvalFigures>> = Vec::new();
    for (half, names) in [("tuning", eval::TUNING), ("checking", eval::CHECKING)] {
        println!("\n== {half} half");
        println!("{}", EvalFigures::HEADER);
        let mut docs = Vec::new();
        for n in names {
            let p = shared.join(format!("corpora/gold/wide__credit_agreements__{n}.json"));
            let f = eval::evaluate_file(&p, &idx)?;
            println!("{}", f.row());
            docs.push(f);
        }
        let total = EvalFigures::sum("all (pooled)", &docs);
        println!("{}", total.row());
        println!(
            "median new share {:.1}%, median cut/oracle {:.1}%",
            eval::median(docs.iter().map(|d| d.new_share()).collect()),
            eval::median(docs.iter().map(|d| d.cut_of_oracle()).collect()),
        );
        let c = eval::hindsight(&docs);
        println!(
            "hindsight ceiling (each matched entry routed as this half's experts mostly rate it): \
             precision {:.1}%, rel+ {:.1}%, cut/oracle {:.1}%",
            c.precision(),
            c.recall(),
            c.cut_of_oracle()
        );
        println!(
            "section ceiling (any routing of whole sections, every rating known): \
             at most {:.1}% cut with >= 98% of Medium+ relations kept (oracle {:.1}%)",
            eval::most_cut_keeping(&docs, 0.98),
            total.oracle()
        );
        if misses {
            for d in &docs {
                for (t, g, p, e, rel) in &d.misses {
                    let p = p.map_or("new".to_string(), |p| p.key().to_string());
                    println!(
                        "  {:<28} gold {:<9} got {:<9} {:>3} rel {:<40} [{}]",
                        d.name,
                        g.key(),
                        p,
                        rel,
                        t,
                        e
                    );
                }
            }
        }
        halves.push(docs);
    }
    let t = eval::routed_by_votes(&halves[0], &halves[1]);
    println!(
        "\nchecking half routed by the tuning experts' majority per entry (the best a \
         tuning-grounded index can do with these matches): precision {:.1}%, rel+ {:.1}%, cut/oracle {:.1}%",
        t.precision(),
        t.recall(),
        t.cut_of_oracle()
    );
    let six: Vec<EvalFigures> = halves.concat();
    println!(
        "\nall six gold files: titles {:.1}% rel+ at {:.1}% cut; section ceiling at >= 98% rel+: {:.1}% cut (oracle {:.1}%)",
        EvalFigures::sum("six", &six).recall(),
        EvalFigures::sum("six", &six).cut(),
        eval::most_cut_keeping(&six, 0.98),
        EvalFigures::sum("six", &six).oracle()
    );
    if entries {
        print_entry_votes(&idx, &halves);
    }
    // Wide credit agreements without gold, parsed by the real tree builder:
    // the new-section share a user would see (tree quality included).
    let set = IndexSet::load(&[repo.join("indices")])?;
    let mut groups: Vec<(String, String, Vec<&str>)> = vec![
        (
            "credit_agreements".into(),
            "tuning".into(),
            eval::WIDE_TUNING.to_vec(),
        ),
        (
            "credit_agreements".into(),
            "checking".into(),
            eval::WIDE_CHECKING.to_vec(),
        ),
    ];
    for (folder, tuning, checking) in eval::WIDE_OTHER {
        groups.push((folder.to_string(), "tuning".into(), tuning.to_vec()));
        groups.push((folder.to_string(), "checking".into(), checking.to_vec()));
    }
    for (folder, half, names) in groups {
        println!("\n== wide {folder} without gold, {half} half (real tree)");
        let (mut shares, mut cuts) = (Vec::new(), Vec::new());
        for n in names {
            let p = shared.join(format!("corpora/wide/{folder}/{n}.txt"));
            let (_, _, plan, ty) =
                plan_document_in(&p, &set, None, &RouteOptions::default(), true)?;
            let st = PlanStats::of(&plan, None);
            println!(
                "{:<34} type {:<16} ({:.2}) routed {:>4} new {:>5.1}% cut {:>5.1}%",
                n,
                ty.name,
                ty.confidence,
                st.routed_sections,
                st.new_section_pct,
                st.payload_cut_pct
            );
            shares.push(st.new_section_pct);
            cuts.push(st.payload_cut_pct);
        }
        println!(
            "median new share {:.1}%, median payload cut {:.1}%",
            eval::median(shares),
            eval::median(cuts)
        );
    }
    Ok(())
}

/// Per matched entry: its tier, and how each half's experts rated the
/// sections it matched (sent = Medium or above), with their relations.
fn print_entry_votes(idx: &GraphabilityIndex, halves: &[Vec<EvalFigures>]) {
    use std::collections::BTreeMap;
    // entry -> per half (sent, skipped, relations in sent sections)
    let mut votes: BTreeMap<String, [(usize, usize, usize); 2]> = BTreeMap::new();
    for (h, docs) in halves.iter().enumerate() {
        for o in docs.iter().flat_map(|d| &d.outcomes) {
            let Some(e) = &o.entry else { continue };
            let v = &mut votes.entry(e.clone()).or_default()[h];
            if o.gold_sent {
                v.0 += 1;
                v.2 += o.relations;
            } else {
                v.1 += 1;
            }
        }
    }
    println!("\n== experts' votes per matched entry (sent/skipped, relations in sent sections)");
    println!(
        "{:<48} {:<9} {:>16} {:>16}",
        "entry", "tier", "tuning", "checking"
    );
    for (e, [t, c]) in &votes {
        let tier = idx
            .match_title(e)
            .tier
            .map_or("-".to_string(), |t| t.key().to_string());
        let cell = |v: &(usize, usize, usize)| format!("{}/{} ({} rel)", v.0, v.1, v.2);
        println!("{:<48} {:<9} {:>16} {:>16}", e, tier, cell(t), cell(c));
    }
}
