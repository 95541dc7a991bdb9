use std::io::BufRead;
fn main() {
    let idx = kgroute::index::GraphabilityIndex::load(&[std::env::args().nth(1).unwrap().into()])
        .unwrap();
    for line in std::io::stdin().lock().lines() {
        let t = line.unwrap();
        let m = idx.match_title(&t);
        println!(
            "{:<70} | {:?} {:.2} {:?} {:?}",
            t, m.method, m.score, m.tier, m.entry
        );
    }
}
