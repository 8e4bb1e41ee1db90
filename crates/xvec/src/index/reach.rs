//! Reachability of a graph's base layer from its entry point, and linking unreachable
//! nodes back in. Pruning can leave a few nodes that no neighbour list points to (1–8 of
//! 116,659 in HNSW builds of wordnet-minilm-384), and a search never returns those: a build
//! links them in before saving, and `repair` does the same for a saved graph.

use crate::index::flat::{self, PreparedQuery};
use crate::index::graph::{Beam, Links, SearchScratch, search_layer};
use crate::index::scorer::{Originals, Scored, Scorer};
use crate::kernels::Kernels;
use crate::schema::Metric;
use crate::storage::column::VectorColumn;

/// Nodes a search for an unreachable node's nearest reachable ones keeps.
const SEARCH_LIST: usize = 32;

/// A base layer: per node `stride` words, a neighbour count then up to `stride − 1`
/// neighbours (HNSW's base layer and Vamana's adjacency share this layout).
pub(crate) struct BaseLayer<'a> {
    pub words: &'a mut [u32],
    pub stride: usize,
    pub entry: u32,
}

impl BaseLayer<'_> {
    /// Links every node a walk from the entry point does not reach (but those `skip`
    /// names: deleted, or without a vector) from its nearest reachable node that has a free
    /// slot, then walks on from it. Returns the number of nodes linked, or `None` when some
    /// node finds no such neighbour (the layer is then partly linked).
    ///
    /// The nearest reachable nodes come from a search of the layer itself (which only
    /// walks reachable nodes), so the cost per linked node is one search, not a scan; only
    /// when none of the [`SEARCH_LIST`] found has room are all reachable nodes ranked.
    pub(crate) fn link_unreachable(
        &mut self,
        k: &'static Kernels,
        metric: Metric,
        col: &VectorColumn,
        skip: impl Fn(u32) -> bool,
    ) -> Option<usize> {
        let (stride, cap) = (self.stride, self.stride - 1);
        let n = self.words.len() / stride;
        if self.entry as usize >= n {
            return None;
        }
        let mut reached = vec![false; n];
        self.spread(self.entry, &mut reached);
        let (mut linked, mut sc, mut found) = (0, SearchScratch::default(), Vec::new());
        for u in 0..n as u32 {
            if reached[u as usize] || skip(u) {
                continue;
            }
            let has_room = |v: u32| (self.words[v as usize * stride] as usize) < cap;
            let query = PreparedQuery::from_row(metric, col, u as usize);
            let scorer = Originals { kernels: k, col: *col, query: &query, screen: None };
            let entry = Scored { dist: scorer.dist(self.entry), id: self.entry };
            let beam = Beam { ef: SEARCH_LIST, allowed: None, budget: usize::MAX };
            search_layer(&*self, &scorer, entry, 0, beam, &mut sc, &mut found);
            let v = match found.iter().map(|c| c.id).find(|&v| has_room(v)) {
                Some(v) => v,
                None => {
                    let mut near: Vec<(f32, u32)> = (0..n as u32)
                        .filter(|&v| reached[v as usize])
                        .map(|v| (flat::row_distance(k, metric, col, v as usize, u as usize), v))
                        .collect();
                    near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    near.iter().map(|&(_, v)| v).find(|&v| has_room(v))?
                }
            };
            let at = v as usize * stride;
            let count = self.words[at] as usize;
            self.words[at + 1 + count] = u;
            self.words[at] = count as u32 + 1;
            self.spread(u, &mut reached);
            linked += 1;
        }
        Some(linked)
    }

    /// Marks everything reachable from `from`.
    fn spread(&self, from: u32, reached: &mut [bool]) {
        let (stride, n) = (self.stride, reached.len());
        let mut queue = vec![from];
        reached[from as usize] = true;
        while let Some(u) = queue.pop() {
            let at = u as usize * stride;
            let count = (self.words[at] as usize).min(stride - 1);
            for &v in &self.words[at + 1..at + 1 + count] {
                if (v as usize) < n && !reached[v as usize] {
                    reached[v as usize] = true;
                    queue.push(v);
                }
            }
        }
    }
}

impl Links for BaseLayer<'_> {
    fn neighbors(&self, node: u32, _level: usize, out: &mut Vec<u32>) {
        let at = node as usize * self.stride;
        let count = (self.words[at] as usize).min(self.stride - 1);
        let n = self.words.len() / self.stride;
        out.clear();
        // Ids out of range (a damaged graph under repair) are not followed.
        out.extend(self.words[at + 1..at + 1 + count].iter().filter(|&&v| (v as usize) < n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::column::{Validity, VectorData};

    /// Node 3 is in no list, node 4 is skipped: 3 gets linked from its nearest reachable
    /// node with room (0 is full), 4 stays out.
    #[test]
    fn links_unreachable_nodes_from_their_nearest_reachable_node_with_room() {
        let data = [0.0f32, 1.0, 2.0, 2.1, 9.0];
        let col = VectorColumn { dim: 1, validity: Validity(None), data: VectorData::Fp32(&data), norms: None };
        // stride 3: count + 2 slots. 0 -> 1, 2 (full); 1 -> 2; 2 -> 1.
        let mut words = vec![2, 1, 2, 1, 2, u32::MAX, 1, 1, u32::MAX, 0, u32::MAX, u32::MAX, 0, u32::MAX, u32::MAX];
        let mut layer = BaseLayer { words: &mut words, stride: 3, entry: 0 };
        let linked = layer.link_unreachable(crate::kernels::scalar(), Metric::L2, &col, |u| u == 4);
        assert_eq!(linked, Some(1));
        // Nearest to 3 (at 2.1) is 2 (at 2.0), which had a free slot.
        assert_eq!(&words[6..9], &[2, 1, 3]);
        // With every reachable list full, there is nowhere to link from.
        let mut full = vec![1, 1, 1, 0, 0, u32::MAX];
        let mut layer = BaseLayer { words: &mut full, stride: 2, entry: 0 };
        assert_eq!(layer.link_unreachable(crate::kernels::scalar(), Metric::L2, &col, |_| false), None);
    }
}
