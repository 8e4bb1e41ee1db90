//! The visited set of one graph search: open addressing over u32 ids, cleared per search.
//! Memory is O(visited), not O(nodes), so a thread's scratch stays small on any index.

#[derive(Debug)]
pub(crate) struct VisitedSet {
    /// `id + 1`, 0 = empty slot.
    slots: Vec<u32>,
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
        VisitedSet { slots: vec![0; cap], len: 0, shift: 64 - cap.trailing_zeros() }
    }

    /// Empties the set, keeping a capacity fit for `expected` insertions.
    pub(crate) fn clear(&mut self, expected: usize) {
        if expected.saturating_mul(2) > self.slots.len() {
            *self = VisitedSet::with_capacity(expected);
        } else {
            self.slots.fill(0);
            self.len = 0;
        }
    }

    #[inline]
    fn slot(&self, id: u32) -> usize {
        ((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Inserts `id`; true when it was not there yet.
    #[inline]
    pub(crate) fn insert(&mut self, id: u32) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(id);
        let key = id + 1;
        loop {
            let s = self.slots[i];
            if s == key {
                return false;
            }
            if s == 0 {
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
        let mask = self.slots.len() - 1;
        let mut i = self.slot(id);
        loop {
            match self.slots[i] {
                0 => return false,
                s if s == id + 1 => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    #[cold]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        *self = VisitedSet::with_capacity(old.len());
        for k in old.into_iter().filter(|&k| k != 0) {
            self.insert(k - 1);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 4
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
}
