//! Graph topology checks, the same for every index that stores fixed-stride adjacency
//! with an entry point: HNSW (one [`Layer`] per level), Vamana (one layer, the medoid
//! as entry), the quantized graph (one layer, the ids of its blocks) and the disk kind
//! (its node blocks read into Vamana's shape). Counts the degree histogram, self loops, duplicate edges, out-of-range ids,
//! lists over the degree bound, edges to nodes outside the layer (HNSW layer membership)
//! and the nodes a BFS from the entry point does not reach.
//!
//! Nothing here trusts the arrays: every access is bounds-checked, so a hostile graph
//! yields counts, never a panic.

use roaring::RoaringBitmap;
use serde::Serialize;

use crate::error::StorageError;
use crate::index::disk::DiskGraph;
use crate::index::disk::layout::Node;
use crate::index::graph_index::GraphIndexView;
use crate::index::qg::{NONE, QgView};
use crate::index::segment_index::SegmentIndex;
use crate::index::{hnsw, vamana};

/// One layer of a graph as the checks see it.
pub(crate) trait Layer {
    /// Node ids are `0..universe()`.
    fn universe(&self) -> usize;
    /// Whether `node` belongs to this layer (HNSW: its level reaches this one).
    fn is_member(&self, node: u32) -> bool;
    /// The stored neighbour count of `node` and the slots it covers, clipped to the block.
    fn list(&self, node: u32) -> (usize, &[u32]);
    /// Most neighbours a node of this layer may have.
    fn bound(&self) -> usize;
}

/// What the checks found in one layer.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LayerStats {
    /// The layer's level: 0 is the base layer (and Vamana's only one).
    pub level: u32,
    /// Member nodes.
    pub nodes: u64,
    /// Neighbour-list entries over all members.
    pub edges: u64,
    /// Most neighbours a node of this layer may have.
    pub degree_bound: u64,
    /// Nodes by out-degree, `0..=degree_bound`.
    pub degree_histogram: Vec<u64>,
    /// Edges from a node to itself.
    pub self_loops: u64,
    /// Edges repeated within one neighbour list.
    pub duplicates: u64,
    /// Edges to node ids at or past the segment's row count.
    pub out_of_range: u64,
    /// Lists whose stored count exceeds the bound.
    pub over_degree: u64,
    /// Edges to nodes that are not members of this layer.
    pub foreign: u64,
    /// Members a BFS from the entry point does not reach.
    pub unreachable: u64,
    /// Of those, rows that are not deleted.
    pub unreachable_live: u64,
    /// The unreachable members that are not deleted, in id order (for repair).
    #[serde(skip)]
    pub unreachable_ids: Vec<u32>,
}

impl LayerStats {
    /// Problems that make the graph wrong, as opposed to merely less connected.
    pub fn defects(&self) -> u64 {
        self.self_loops + self.duplicates + self.out_of_range + self.over_degree + self.foreign
    }
}

/// Checks one layer, with reachability from `entry`; `deleted` rows do not count as live.
pub(crate) fn check_layer(layer: &impl Layer, level: u32, entry: u32, deleted: &RoaringBitmap) -> LayerStats {
    let n = layer.universe();
    let bound = layer.bound();
    let mut s =
        LayerStats { level, degree_bound: bound as u64, degree_histogram: vec![0; bound + 1], ..Default::default() };
    let mut seen: Vec<u32> = Vec::with_capacity(bound);
    for node in 0..n as u32 {
        if !layer.is_member(node) {
            continue;
        }
        s.nodes += 1;
        let (count, slots) = layer.list(node);
        if count > bound {
            s.over_degree += 1;
        }
        if let Some(h) = s.degree_histogram.get_mut(count) {
            *h += 1;
        }
        s.edges += slots.len() as u64;
        seen.clear();
        for &v in slots {
            if v == node {
                s.self_loops += 1;
            }
            if v as usize >= n {
                s.out_of_range += 1;
                continue;
            }
            if !layer.is_member(v) {
                s.foreign += 1;
            }
            if seen.contains(&v) {
                s.duplicates += 1;
            } else {
                seen.push(v);
            }
        }
    }
    let mut reached = vec![false; n];
    if (entry as usize) < n && layer.is_member(entry) {
        reached[entry as usize] = true;
        let mut queue = vec![entry];
        while let Some(u) = queue.pop() {
            for &v in layer.list(u).1 {
                if let Some(r) = reached.get_mut(v as usize)
                    && !*r
                    && layer.is_member(v)
                {
                    *r = true;
                    queue.push(v);
                }
            }
        }
    }
    for node in 0..n as u32 {
        if layer.is_member(node) && !reached[node as usize] {
            s.unreachable += 1;
            if !deleted.contains(node) {
                s.unreachable_live += 1;
                s.unreachable_ids.push(node);
            }
        }
    }
    s
}

/// One HNSW level over the raw arrays of a [`hnsw::GraphView`].
pub(crate) struct HnswLayer<'a> {
    pub graph: &'a hnsw::GraphView<'a>,
    pub level: usize,
}

impl Layer for HnswLayer<'_> {
    fn universe(&self) -> usize {
        self.graph.levels.len()
    }

    fn is_member(&self, node: u32) -> bool {
        self.level == 0 || self.graph.levels.get(node as usize).is_some_and(|&l| l as usize >= self.level)
    }

    fn list(&self, node: u32) -> (usize, &[u32]) {
        let g = self.graph;
        let (words, at, cap) = if self.level == 0 {
            (g.base, node as usize * (g.m0 + 1), g.m0)
        } else {
            match g.upper_offsets.get(node as usize) {
                Some(&off) if off != hnsw::NO_UPPER => (g.upper, off as usize + (self.level - 1) * (g.m + 1), g.m),
                _ => return (0, &[]),
            }
        };
        match words.get(at..at.saturating_add(cap + 1)) {
            Some(block) => {
                let count = block[0] as usize;
                (count, &block[1..1 + count.min(cap)])
            }
            None => (0, &[]),
        }
    }

    fn bound(&self) -> usize {
        if self.level == 0 { self.graph.m0 } else { self.graph.m }
    }
}

/// The single layer of a [`vamana::GraphView`].
pub(crate) struct VamanaLayer<'a> {
    pub graph: &'a vamana::GraphView<'a>,
}

impl Layer for VamanaLayer<'_> {
    fn universe(&self) -> usize {
        self.graph.adjacency.len() / (self.graph.degree + 1)
    }

    fn is_member(&self, _node: u32) -> bool {
        true
    }

    fn list(&self, node: u32) -> (usize, &[u32]) {
        let stride = self.graph.degree + 1;
        match self.graph.adjacency.get(node as usize * stride..(node as usize + 1) * stride) {
            Some(block) => {
                let count = block[0] as usize;
                (count, &block[1..1 + count.min(self.graph.degree)])
            }
            None => (0, &[]),
        }
    }

    fn bound(&self) -> usize {
        self.graph.degree
    }
}

/// The single layer of a [`QgView`]: each block's used slots (those before its first
/// unused one; a used slot after it counts as past the stored count, over the bound).
pub(crate) struct QgLayer<'a> {
    pub graph: &'a QgView<'a>,
}

impl Layer for QgLayer<'_> {
    fn universe(&self) -> usize {
        self.graph.nodes()
    }

    fn is_member(&self, _node: u32) -> bool {
        true
    }

    fn list(&self, node: u32) -> (usize, &[u32]) {
        if node as usize >= self.graph.nodes() {
            return (0, &[]);
        }
        let ids = self.graph.neighbors(node);
        let used = ids.iter().position(|&v| v == NONE).unwrap_or(ids.len());
        // Ids after the first unused slot make the list longer than the bound allows.
        let trailing = ids[used..].iter().filter(|&&v| v != NONE).count();
        let count = if trailing > 0 { self.bound() + 1 } else { used };
        (count, &ids[..used])
    }

    fn bound(&self) -> usize {
        self.graph.layout.degree
    }
}

/// Every level of an HNSW graph, base first.
pub(crate) fn check_hnsw(g: &hnsw::GraphView, deleted: &RoaringBitmap) -> Vec<LayerStats> {
    (0..=g.max_level.min(hnsw::MAX_LEVEL as usize))
        .map(|level| check_layer(&HnswLayer { graph: g, level }, level as u32, g.entry, deleted))
        .collect()
}

/// The one layer of a Vamana graph, entered at the medoid.
pub(crate) fn check_vamana(g: &vamana::GraphView, deleted: &RoaringBitmap) -> LayerStats {
    check_layer(&VamanaLayer { graph: g }, 0, g.medoid, deleted)
}

/// The topology of a graph index of either kind: its name in reports, entry point,
/// layers (base first) and the section a defect is reported in.
pub(crate) struct GraphTopology {
    pub kind: &'static str,
    pub entry: u32,
    pub layers: Vec<LayerStats>,
    pub section: &'static str,
}

/// The topology of `index`'s graph, of whichever kind held in memory; `None` for an index
/// without one (flat, IVF) and for a disk index, whose blocks [`check_disk`] reads.
pub(crate) fn check_index(index: &SegmentIndex, deleted: &RoaringBitmap) -> Option<GraphTopology> {
    if let Some(g) = index.graph_index() {
        return Some(check_graph(g, deleted));
    }
    let g = index.qg_graph()?;
    let layers = vec![check_layer(&QgLayer { graph: &g }, 0, g.entry, deleted)];
    Some(GraphTopology { kind: "qg", entry: g.entry, layers, section: "quantized graph blocks" })
}

/// One pass over the blocks of a disk graph: the adjacency of every node, laid out as
/// Vamana's (a count, then `degree` slots) for the same checks. `node` sees each node of
/// a sound block as it goes by; `bad` each block that fails its check (its nodes keep no
/// edges). Holds 4 bytes per neighbour slot, what an in-memory Vamana graph holds.
pub(crate) fn disk_adjacency(
    g: &DiskGraph,
    mut node: impl FnMut(u32, &Node),
    mut bad: impl FnMut(usize, StorageError),
) -> Result<Vec<u32>, StorageError> {
    let layout = g.layout();
    let (stride, nb, per) = (layout.degree + 1, layout.node_bytes(), layout.per_block());
    let mut adjacency = vec![0u32; layout.nodes * stride];
    g.walk(|b, read| match read {
        Err(e) => bad(b, e),
        Ok(bytes) => {
            for id in b * per..((b + 1) * per).min(layout.nodes) {
                let at = layout.slot_of(id as u32);
                let n = layout.node(&bytes[at..at + nb]);
                let list = &mut adjacency[id * stride..(id + 1) * stride];
                list[0] = n.count() as u32;
                list[1..].fill(vamana::NONE);
                list[1..1 + n.neighbors().len()].copy_from_slice(n.neighbors());
                node(id as u32, &n);
            }
        }
    })?;
    Ok(adjacency)
}

/// The topology of a disk graph's `adjacency` (from [`disk_adjacency`]).
pub(crate) fn disk_topology(g: &DiskGraph, adjacency: &[u32], deleted: &RoaringBitmap) -> GraphTopology {
    let view = vamana::GraphView { degree: g.layout().degree, medoid: g.medoid(), adjacency };
    GraphTopology {
        kind: "disk",
        entry: g.medoid(),
        layers: vec![check_vamana(&view, deleted)],
        section: "disk node blocks",
    }
}

/// The topology of a disk graph, read from its blocks; fails at the first block that
/// fails its check.
pub(crate) fn check_disk(g: &DiskGraph, deleted: &RoaringBitmap) -> Result<GraphTopology, StorageError> {
    let mut first = None;
    let adjacency = disk_adjacency(
        g,
        |_, _| {},
        |_, e| {
            first.get_or_insert(e);
        },
    )?;
    match first {
        Some(e) => Err(e),
        None => Ok(disk_topology(g, &adjacency, deleted)),
    }
}

/// Checks every layer of `g`, whichever graph kind it is.
pub(crate) fn check_graph(g: GraphIndexView, deleted: &RoaringBitmap) -> GraphTopology {
    match g {
        GraphIndexView::Hnsw(g) => {
            GraphTopology { kind: "hnsw", entry: g.entry, layers: check_hnsw(&g, deleted), section: "HNSW base layer" }
        }
        GraphIndexView::Vamana(g) => GraphTopology {
            kind: "vamana",
            entry: g.medoid,
            layers: vec![check_vamana(&g, deleted)],
            section: "Vamana adjacency",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4-node ring plus an island with a self loop and a duplicate edge.
    #[test]
    fn counts_defects_and_unreachable_nodes() {
        let degree = 3;
        let none = vamana::NONE;
        #[rustfmt::skip]
        let adjacency = vec![
            1, 1, none, none,
            1, 2, none, none,
            1, 3, none, none,
            1, 0, none, none,
            3, 4, 5, 5,        // node 4: self loop and a duplicate
            1, 4, none, none,
        ];
        let g = vamana::GraphView { degree, medoid: 0, adjacency: &adjacency };
        let deleted: RoaringBitmap = [5u32].into_iter().collect();
        let s = check_vamana(&g, &deleted);
        assert_eq!((s.nodes, s.edges), (6, 8));
        assert_eq!((s.self_loops, s.duplicates, s.out_of_range, s.over_degree), (1, 1, 0, 0));
        assert_eq!((s.unreachable, s.unreachable_live, s.unreachable_ids.clone()), (2, 1, vec![4]));
        assert_eq!(s.degree_histogram, vec![0, 5, 0, 1]);
    }

    #[test]
    fn hostile_counts_and_ids_are_counted_not_followed() {
        let adjacency = vec![9, 7, 0, 0, u32::MAX, 1, 2, 3];
        let g = vamana::GraphView { degree: 3, medoid: 7, adjacency: &adjacency };
        let s = check_vamana(&g, &RoaringBitmap::new());
        assert_eq!((s.over_degree, s.out_of_range, s.self_loops, s.unreachable), (2, 3, 3, 2));
    }
}
