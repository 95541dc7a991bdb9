//! The `--max-cost` gate: reserves the estimated price of a section before
//! it is sent, so concurrent sends never overshoot the budget together.

use std::sync::Mutex;

/// Spend so far, in US dollars: reservations for sections in flight plus the
/// actual cost of answered ones.
#[derive(Debug)]
pub struct Budget {
    limit_usd: Option<f64>,
    spent: Mutex<f64>,
}

impl Budget {
    pub fn new(limit_usd: Option<f64>) -> Budget {
        Budget {
            limit_usd,
            spent: Mutex::new(0.0),
        }
    }

    /// Reserves `estimate_usd`; false (and nothing reserved) when that would
    /// pass the limit.
    pub fn try_reserve(&self, estimate_usd: f64) -> bool {
        let mut spent = self.spent.lock().expect("budget lock");
        match self.limit_usd {
            Some(limit) if *spent + estimate_usd > limit => false,
            _ => {
                *spent += estimate_usd;
                true
            }
        }
    }

    /// Replaces a reservation by what the section really cost.
    pub fn settle(&self, estimate_usd: f64, actual_usd: f64) {
        let mut spent = self.spent.lock().expect("budget lock");
        *spent += actual_usd - estimate_usd;
    }

    pub fn spent(&self) -> f64 {
        *self.spent.lock().expect("budget lock")
    }

    pub fn limit(&self) -> Option<f64> {
        self.limit_usd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_stop_at_the_limit_and_settle_to_actual_cost() {
        let b = Budget::new(Some(1.0));
        assert!(b.try_reserve(0.6));
        assert!(!b.try_reserve(0.6), "0.6 + 0.6 passes 1.0");
        b.settle(0.6, 0.2);
        assert!(b.try_reserve(0.6), "0.2 + 0.6 fits");
        assert!((b.spent() - 0.8).abs() < 1e-9);
    }

    #[test]
    fn no_limit_never_refuses() {
        let b = Budget::new(None);
        assert!(b.try_reserve(1e9));
    }
}
