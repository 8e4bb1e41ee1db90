//! The visited set of one graph search: open addressing over u32 ids, cleared per search.
//! Memory is O(visited), not O(nodes), so a thread's scratch stays small on any index.
//!
//! Each slot carries the epoch (the search) that filled it, so clearing is one increment
//! instead of zeroing the table: hnswlib's `visited_list_pool.h` tags an array over all
//! nodes the same way. Zeroing the table was 3% of a quantized-graph query's instructions
//! (callgrind, wordnet-minilm-384 at ef 48), for a table the search then mostly leaves
//! untouched.

#[derive(Debug)]
pub(crate) struct VisitedSet {
    /// `epoch << 32 | id`; a slot of another epoch is empty.
    slots: Vec<u64>,
    epoch: u32,
    len: usize,
    shift: u32,
}

impl Default for VisitedSet {
    fn default() -> Self {
        VisitedSet::with_capacity(1024)
    }
}

impl VisitedSet {
    pub(crate) fn with_capacity(n: usize) -> VisitedSet {
        let cap = n.saturating_mul(2).checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1)).max(64);
        // Slots start at epoch 0, which no search uses.
        VisitedSet { slots: vec![0; cap], epoch: 1, len: 0, shift: 64 - cap.trailing_zeros() }
    }

    /// Empties the set, keeping a capacity fit for `expected` insertions.
    pub(crate) fn clear(&mut self, expected: usize) {
        if expected.saturating_mul(2) > self.slots.len() {
            *self = VisitedSet::with_capacity(expected);
            return;
        }
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Once in 2³² searches: slots of the epoch about to be reused must go.
            self.slots.fill(0);
            self.epoch = 1;
        }
    }

    #[inline]
    fn slot(&self, id: u32) -> usize {
        ((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn tagged(&self, id: u32) -> u64 {
        (self.epoch as u64) << 32 | id as u64
    }

    /// Inserts `id`; true when it was not there yet.
    #[inline]
    pub(crate) fn insert(&mut self, id: u32) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let (mask, key, epoch) = (self.slots.len() - 1, self.tagged(id), self.epoch);
        let mut i = self.slot(id);
        loop {
            let s = self.slots[i];
            if s == key {
                return false;
            }
            if (s >> 32) as u32 != epoch {
                self.slots[i] = key;
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /// True when `id` is in the set.
    #[inline]
    pub(crate) fn contains(&self, id: u32) -> bool {
        let (mask, key, epoch) = (self.slots.len() - 1, self.tagged(id), self.epoch);
        let mut i = self.slot(id);
        loop {
            match self.slots[i] {
                s if s == key => return true,
                s if (s >> 32) as u32 != epoch => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    #[cold]
    fn grow(&mut self) {
        let epoch = self.epoch;
        let old = std::mem::take(&mut self.slots);
        *self = VisitedSet::with_capacity(old.len());
        for s in old.into_iter().filter(|&s| (s >> 32) as u32 == epoch) {
            self.insert(s as u32);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_hash_set() {
        let mut v = VisitedSet::with_capacity(4);
        let mut model = std::collections::HashSet::new();
        let mut x = 12345u32;
        for round in 0..3 {
            for _ in 0..5000 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let id = x % 3000 + if round == 1 { u32::MAX - 3001 } else { 0 };
                assert_eq!(v.insert(id), model.insert(id));
            }
            assert_eq!(v.len(), model.len());
            v.clear(100);
            model.clear();
        }
    }

    #[test]
    fn ids_of_past_searches_are_gone_across_the_epoch_wrap() {
        let mut v = VisitedSet::with_capacity(64);
        for id in 0..40 {
            assert!(v.insert(id * 7 + u32::MAX / 2));
        }
        v.epoch = u32::MAX;
        v.clear(10);
        assert_eq!(v.epoch, 1, "the wrap restarts at epoch 1 with zeroed slots");
        assert!((0..40).all(|id| !v.contains(id * 7 + u32::MAX / 2)));
        assert!(v.insert(u32::MAX - 1) && !v.insert(u32::MAX - 1) && v.contains(u32::MAX - 1));
        // A search many epochs on sees none of an earlier one's ids.
        for round in 0..300u32 {
            v.clear(10);
            assert!(!v.contains(round.wrapping_sub(1)));
            assert!(v.insert(round) && v.contains(round) && v.len() == 1);
        }
    }
}
