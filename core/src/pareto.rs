//! A Pareto front of two costs, both to be made small (the search's cycles and shared-memory
//! bytes): a point stays while no other is at most as large in both and smaller in one. Of points
//! equal in both, the first found stays.

use serde::{Deserialize, Serialize};

/// The front, sorted by the first cost (and so by the second, descending).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Front<T> {
    points: Vec<(u64, u64, T)>,
}

impl<T> Default for Front<T> {
    fn default() -> Self {
        Front { points: Vec::new() }
    }
}

impl<T> Front<T> {
    /// Whether a point `(a, b)` would be dominated by, or equal to, one already there.
    pub fn covers(&self, a: u64, b: u64) -> bool {
        self.points.iter().any(|(x, y, _)| *x <= a && *y <= b)
    }

    /// The smallest first cost of the points whose second is at most `b`: a point `(a, b)` is
    /// covered exactly when `a` is at least this.
    pub fn fewest_within(&self, b: u64) -> Option<u64> {
        self.points
            .iter()
            .filter(|(_, y, _)| *y <= b)
            .map(|(x, _, _)| *x)
            .min()
    }

    /// Adds the point unless it is covered, dropping those it dominates. Whether it was added.
    pub fn offer(&mut self, a: u64, b: u64, value: T) -> bool {
        if self.covers(a, b) {
            return false;
        }
        self.points.retain(|(x, y, _)| !(a <= *x && b <= *y));
        let at = self.points.partition_point(|(x, _, _)| *x < a);
        self.points.insert(at, (a, b, value));
        true
    }

    /// The points, smallest first cost first.
    pub fn points(&self) -> impl Iterator<Item = (u64, u64, &T)> {
        self.points.iter().map(|(a, b, v)| (*a, *b, v))
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The values, smallest first cost first.
    pub fn into_values(self) -> Vec<T> {
        self.points.into_iter().map(|(_, _, v)| v).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_undominated_points() {
        let mut f = Front::default();
        assert!(f.offer(10, 5, 'a'));
        assert!(f.offer(8, 9, 'b'));
        assert!(!f.offer(10, 5, 'c'), "an equal point is covered");
        assert!(!f.offer(12, 6, 'd'));
        assert!(f.offer(8, 5, 'e'), "dominates both");
        let got: Vec<_> = f.points().map(|(a, b, v)| (a, b, *v)).collect();
        assert_eq!(got, vec![(8, 5, 'e')]);
        assert!(f.offer(4, 20, 'f'));
        let got: Vec<_> = f.points().map(|(_, _, v)| *v).collect();
        assert_eq!(got, vec!['f', 'e']);
    }
}
