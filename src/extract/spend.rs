//! What a document's LLM requests may spend: the `--max-cost` gate the
//! pipeline hands the extractor, asked before each pack and told after.

/// What the requests of a document may spend (`--max-cost`): asked once
/// per pack just before its first request (with a concurrency permit
/// held), and told what each answer cost while the permit is still held,
/// so the next pack's reservation already sees it.
pub struct Spend<'a> {
    /// Reserves the estimated price of a request whose messages are this
    /// text; the reserved dollars, or why it is refused (nothing is sent
    /// and the pack's sections fail with the reason).
    pub reserve: &'a (dyn Fn(&str) -> Result<f64, String> + Sync),
    /// Settles an answer: the reservation it replaces (0 after a pack's
    /// first answer), its tokens in and out.
    pub settle: &'a (dyn Fn(f64, u64, u64) + Sync),
}

fn reserve_nothing(_: &str) -> Result<f64, String> {
    Ok(0.0)
}

fn settle_nothing(_: f64, _: u64, _: u64) {}

impl Spend<'static> {
    /// No budget: every request is sent.
    pub const UNLIMITED: Spend<'static> = Spend {
        reserve: &reserve_nothing,
        settle: &settle_nothing,
    };
}
