//! One graph index, HNSW or Vamana, as a single value: what a build produces, what an index
//! file is written around, and what a search walks. Callers match once per operation (a
//! search, a write, a repair) and the work inside runs on the concrete graph, so no search
//! loop pays for the choice.

use super::graph::{Beam, GraphError, SearchScratch};
use super::hnsw;
use super::reach::BaseLayer;
use super::scorer::{Scored, Scorer};
use super::vamana;

/// An owned graph, as a build produces it or a repair changes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GraphIndex {
    Hnsw(hnsw::Graph),
    Vamana(vamana::Graph),
}

/// A finished graph, borrowed from an index file (mapped) or from a [`GraphIndex`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum GraphIndexView<'a> {
    Hnsw(hnsw::GraphView<'a>),
    Vamana(vamana::GraphView<'a>),
}

impl GraphIndex {
    pub(crate) fn view(&self) -> GraphIndexView<'_> {
        match self {
            GraphIndex::Hnsw(g) => GraphIndexView::Hnsw(g.view()),
            GraphIndex::Vamana(g) => GraphIndexView::Vamana(g.view()),
        }
    }

    /// The base layer, to link unreachable nodes back in.
    pub(crate) fn base_layer(&mut self) -> BaseLayer<'_> {
        match self {
            GraphIndex::Hnsw(g) => hnsw_base(g),
            GraphIndex::Vamana(g) => vamana_base(g),
        }
    }
}

impl GraphIndexView<'_> {
    /// An owned copy, to change and write again (repair, tests).
    pub(crate) fn to_graph(self) -> GraphIndex {
        match self {
            GraphIndexView::Hnsw(g) => GraphIndex::Hnsw(g.to_graph()),
            GraphIndexView::Vamana(g) => GraphIndex::Vamana(g.to_graph()),
        }
    }

    /// Most neighbours a base-layer node may have: what a search's cost scales with.
    pub(crate) fn fanout(&self) -> usize {
        match self {
            GraphIndexView::Hnsw(g) => g.m0,
            GraphIndexView::Vamana(g) => g.degree,
        }
    }

    /// Checks everything search relies on, for a graph over `rows` rows (see
    /// [`hnsw::GraphView::validate`], [`vamana::GraphView::validate`]).
    pub(crate) fn validate(&self, rows: usize) -> Result<(), GraphError> {
        match self {
            // Searches return node ids as rows: a node past the segment's rows would read
            // past its columns. Builds make one node per row.
            GraphIndexView::Hnsw(g) if g.nodes() != rows => {
                Err(GraphError { at: None, what: format!("{} nodes for a segment of {rows} rows", g.nodes()) })
            }
            GraphIndexView::Hnsw(g) => g.validate(),
            GraphIndexView::Vamana(g) => g.validate(rows),
        }
    }

    /// Searches the graph: leaves up to `beam.ef` nearest allowed nodes in `out`, best
    /// first. False when the beam's budget did not suffice (see
    /// [`search_layer`](super::graph::search_layer)).
    #[inline]
    pub(crate) fn search<S: Scorer>(&self, s: &S, beam: Beam, sc: &mut SearchScratch, out: &mut Vec<Scored>) -> bool {
        match self {
            GraphIndexView::Hnsw(g) => hnsw::search(g, s, beam, sc, out),
            GraphIndexView::Vamana(g) => vamana::search(g, s, beam.ef, beam.allowed, beam.budget, sc, out),
        }
    }
}

fn hnsw_base(g: &mut hnsw::Graph) -> BaseLayer<'_> {
    BaseLayer { stride: g.m0 + 1, entry: g.entry, words: &mut g.base }
}

fn vamana_base(g: &mut vamana::Graph) -> BaseLayer<'_> {
    BaseLayer { stride: g.degree + 1, entry: g.medoid, words: &mut g.adjacency }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::graph::NONE;

    #[test]
    fn a_graph_must_have_one_node_per_row() {
        let (levels, offsets) = ([0u8, 0], [hnsw::NO_UPPER, hnsw::NO_UPPER]);
        let base = [1, 1, NONE, 1, 0, NONE];
        let g = hnsw::GraphView {
            m: 1,
            m0: 2,
            entry: 0,
            max_level: 0,
            levels: &levels,
            base: &base,
            upper_offsets: &offsets,
            upper: &[],
        };
        let view = GraphIndexView::Hnsw(g);
        assert_eq!(view.validate(2), Ok(()));
        for rows in [0, 1, 3] {
            let e = view.validate(rows).unwrap_err();
            assert!(e.what.contains(&format!("2 nodes for a segment of {rows} rows")), "{e:?}");
        }
    }
}
