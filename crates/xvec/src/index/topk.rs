//! Bounded top-k selection with a deterministic order: distance, then segment, then row.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scored row. Lower `dist` is better for every metric (similarities are negated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Candidate {
    pub dist: f32,
    /// Position of the segment in the snapshot (the mutable segment is last).
    pub segment: u32,
    pub row: u32,
}

impl Eq for Candidate {}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.dist.total_cmp(&other.dist).then(self.segment.cmp(&other.segment)).then(self.row.cmp(&other.row))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Where a search delivers candidates: a bounded top-k, or a per-group collector.
pub(crate) trait Sink {
    /// Distance a candidate must not exceed to be worth pushing.
    fn threshold(&self) -> f32;
    fn push(&mut self, c: Candidate);
}

/// Keeps the `k` best candidates seen; memory is O(k) whatever the number pushed.
#[derive(Debug)]
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Candidate>,
}

impl TopK {
    /// Reserves `k + 1` slots up front (callers bound `k`).
    pub(crate) fn new(k: usize) -> TopK {
        TopK { k, heap: BinaryHeap::with_capacity(k.saturating_add(1)) }
    }

    /// Reserves nothing: the heap grows with what is pushed, up to `k + 1`.
    pub(crate) fn unreserved(k: usize) -> TopK {
        TopK { k, heap: BinaryHeap::new() }
    }

    /// The kept candidates, best first.
    pub(crate) fn into_sorted(self) -> Vec<Candidate> {
        self.heap.into_sorted_vec()
    }
}

impl Sink for TopK {
    #[inline]
    fn threshold(&self) -> f32 {
        if self.heap.len() < self.k { f32::INFINITY } else { self.heap.peek().map_or(f32::INFINITY, |c| c.dist) }
    }

    #[inline]
    fn push(&mut self, c: Candidate) {
        if self.heap.len() < self.k {
            self.heap.push(c);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && c < *worst
        {
            *worst = c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_k_with_deterministic_ties() {
        let mut t = TopK::new(3);
        for (i, d) in [5.0f32, 1.0, 3.0, 1.0, 9.0, 0.5, 1.0].into_iter().enumerate() {
            t.push(Candidate { dist: d, segment: 0, row: i as u32 });
        }
        let rows: Vec<u32> = t.into_sorted().iter().map(|c| c.row).collect();
        assert_eq!(rows, vec![5, 1, 3]);
    }
}
