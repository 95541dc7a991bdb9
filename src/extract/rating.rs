//! The section's actual tier: the model's own rating checked against
//! relational density (relations per 1,000 chars) and anchors. Both inputs
//! are kept in [`super::SectionExtraction`] so reviewers see disagreement.

use crate::index::{DensityThresholds, Tier};

/// How far (in tiers) the model's rating may sit from the density tier
/// before density pulls it back.
pub const MAX_DISAGREEMENT: u8 = 1;

/// Tier from relational density.
pub fn density_tier(density: &DensityThresholds, relations: usize, chars: usize) -> Tier {
    density.tier_for(relations, chars)
}

/// The tier used for alignment. Anchors are pinned Very High. Without a
/// model rating, density decides. With one, the model's rating stands when
/// it is within [`MAX_DISAGREEMENT`] tier of density; otherwise it is pulled
/// to one tier from density, on the model's side.
pub fn actual_tier(model: Option<Tier>, density: Tier, anchor: bool) -> Tier {
    if anchor {
        return Tier::VeryHigh;
    }
    let Some(m) = model else { return density };
    let (mr, dr) = (m.rank() as i16, density.rank() as i16);
    let limit = MAX_DISAGREEMENT as i16;
    if (mr - dr).abs() <= limit {
        return m;
    }
    let r = if mr > dr { dr + limit } else { dr - limit };
    Tier::ALL
        .into_iter()
        .find(|t| t.rank() as i16 == r)
        .unwrap_or(density)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_pinned() {
        assert_eq!(
            actual_tier(Some(Tier::Low), Tier::VeryLow, true),
            Tier::VeryHigh
        );
    }

    #[test]
    fn model_close_to_density_stands() {
        assert_eq!(
            actual_tier(Some(Tier::High), Tier::Medium, false),
            Tier::High
        );
        assert_eq!(actual_tier(None, Tier::Medium, false), Tier::Medium);
    }

    #[test]
    fn model_far_from_density_is_pulled_back() {
        assert_eq!(
            actual_tier(Some(Tier::VeryHigh), Tier::Low, false),
            Tier::Medium
        );
        assert_eq!(
            actual_tier(Some(Tier::VeryLow), Tier::VeryHigh, false),
            Tier::High
        );
    }
}
