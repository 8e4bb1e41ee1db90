//! Graph search of HNSW: greedy descent through the upper layers, then the best-first beam
//! of width `ef` ([`search_layer`]) on the base layer.

use super::GraphView;
use crate::index::graph::{Beam, Links, SearchScratch, search_layer};
use crate::index::scorer::{Scored, Scorer};

/// Moves from `cur` to ever closer neighbours on one layer until none is closer.
pub(super) fn greedy<L: Links, S: Scorer>(
    g: &L,
    s: &S,
    mut cur: Scored,
    level: usize,
    sc: &mut SearchScratch,
) -> Scored {
    loop {
        let mut changed = false;
        g.neighbors(cur.id, level, &mut sc.links);
        sc.distances += sc.links.len() as u64;
        for &nb in &sc.links {
            let d = s.dist(nb);
            if d < cur.dist {
                cur = Scored { dist: d, id: nb };
                changed = true;
            }
        }
        if !changed {
            return cur;
        }
    }
}
/// Searches a finished graph: leaves up to `beam.ef` nearest allowed nodes in `out`, best
/// first. False when the beam's budget did not suffice (see [`search_layer`]).
pub(crate) fn search<S: Scorer>(
    g: &GraphView,
    s: &S,
    beam: Beam,
    sc: &mut SearchScratch,
    out: &mut Vec<Scored>,
) -> bool {
    out.clear();
    if g.nodes() == 0 {
        return true;
    }
    let mut cur = Scored { dist: s.dist(g.entry), id: g.entry };
    sc.distances += 1;
    for level in (1..=g.max_level).rev() {
        cur = greedy(g, s, cur, level, sc);
    }
    search_layer(g, s, cur, 0, beam, sc, out)
}
