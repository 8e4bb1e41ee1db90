//! The node blocks of a disk index, as verify reads them: each block's checksum and
//! neighbour ids (the checks a search applies as it reads), the graph they form (the
//! topology checks Vamana's gets), and each node's vector and norm against the segment's
//! row (a sample, every node with `deep`). One pass over the blocks does all three.

use roaring::RoaringBitmap;

use super::files::Checker;
use super::index_checks::Sample;
use crate::index::disk::DiskGraph;
use crate::index::disk::layout::{row_bytes, row_norm};
use crate::storage::column::SegmentView;
use crate::storage::manifest::IndexEntry;
use crate::storage::segment::Segment;
use crate::verify::scan::describe;
use crate::verify::topology::{GraphTopology, disk_adjacency, disk_topology};
use crate::verify::{Finding, Severity};

/// The section name findings about node blocks carry.
const SECTION: &str = "disk node blocks";

/// Blocks named one finding each; past these, one finding counts the rest.
const NAMED_BLOCKS: usize = 16;

impl Checker<'_> {
    /// Walks the node blocks of `g` (the disk index of entry `ie`), reporting each block
    /// that fails its check with its number and file offset, and nodes whose vector
    /// differs from row of `seg` it stands for. Returns the topology of the graph (`None`
    /// when a block failed: its nodes' neighbours are unknown) and whether anything was
    /// wrong; `ignored` rows need not be reachable.
    pub(super) fn disk_blocks(
        &mut self,
        ie: &IndexEntry,
        g: &DiskGraph,
        seg: Option<&Segment>,
        ignored: &RoaringBitmap,
    ) -> (Option<GraphTopology>, bool) {
        let col = seg.map(|s| s.vector(s.schema().position_of_id(ie.field).expect("the entry's field was checked")));
        let nodes = g.layout().nodes.min(seg.map_or(0, Segment::rows));
        let step = self.sample_step(nodes);
        let mut sample = Sample::default();
        let mut bad: Vec<(usize, crate::error::StorageError)> = Vec::new();
        let walked = disk_adjacency(
            g,
            |id, n| {
                if let Some(col) = col
                    && (id as usize) < nodes
                    && (id as usize).is_multiple_of(step)
                {
                    let r = id as usize;
                    let same =
                        n.vector_bytes() == row_bytes(&col, r) && n.norm().to_bits() == row_norm(&col, r).to_bits();
                    sample.add(r, same);
                }
            },
            |b, e| bad.push((b, e)),
        );
        let adjacency = match walked {
            Ok(a) => a,
            Err(e) => {
                let (at, what) = describe(&e);
                let mut f =
                    Finding::new(Severity::Corrupt, &ie.file, SECTION, format!("node blocks unreadable: {what}"));
                f.offset = at;
                self.f.push(f);
                return (None, true);
            }
        };
        for (_, e) in bad.iter().take(NAMED_BLOCKS) {
            let (at, what) = describe(e);
            let mut f = Finding::new(Severity::Corrupt, &ie.file, SECTION, what);
            f.offset = at;
            self.f.push(f);
        }
        if bad.len() > NAMED_BLOCKS {
            let what = format!("{} more node blocks fail their checks", bad.len() - NAMED_BLOCKS);
            self.f
                .push(Finding::new(Severity::Corrupt, &ie.file, SECTION, what).at(g.block_offset(bad[NAMED_BLOCKS].0)));
        }
        self.report_sample(&ie.file, SECTION, &sample);
        let wrong = !bad.is_empty() || sample.differs();
        (bad.is_empty().then(|| disk_topology(g, &adjacency, ignored)), wrong)
    }
}
