//! Planning a repair: what to do with each file verify found damaged, and what data that
//! gives up.

use std::sync::Arc;

use roaring::RoaringBitmap;

use super::{Action, LOST_FOUND, Loss, Repair};
use crate::schema::Schema;
use crate::storage::column::{ColumnSource, VarColumn};
use crate::storage::manifest::SegmentEntry;
use crate::storage::wal::Record;
use crate::storage::wal::sync_record::SYNC_NAME;
use crate::storage::{FileKind, IndexKind};
use crate::verify::Severity;
use crate::verify::exam::{DelState, IdxDamage, SegState};
use crate::verify::recover;

/// One step, with what it needs to run.
pub(super) enum Step {
    CreateWal,
    TruncateWal {
        at: u64,
    },
    /// Copy `records` into a new live WAL; `fold_sealed`: they include the sealed WAL's,
    /// which leaves the manifest (its rows go back to the memtable).
    RewriteWal {
        records: Vec<Record>,
        fold_sealed: bool,
    },
    /// Remove segment `pos` from the manifest (its files go to lost+found).
    DropSegment {
        pos: usize,
    },
    /// Write the readable rows `keep` of segment `pos` into a new segment.
    Salvage {
        pos: usize,
        keep: Vec<u32>,
    },
    Deletes {
        pos: usize,
        set: RoaringBitmap,
    },
    DropIndex {
        pos: usize,
        field: u16,
        kind: IndexKind,
    },
    BuildIndex {
        pos: usize,
        field: u16,
        kind: IndexKind,
    },
    Recode {
        pos: usize,
        field: u16,
    },
    Reconnect {
        pos: usize,
        field: u16,
    },
    Move {
        name: String,
    },
}

/// Keys of a segment's rows (each `None` where unreadable), when the key sections read.
fn keys_of(s: &SegState) -> Option<Vec<Option<String>>> {
    if let Some(seg) = &s.segment {
        let k: VarColumn = seg.keys();
        return Some((0..seg.rows()).map(|r| Some(k.get_str(r).to_string())).collect());
    }
    let salvage = s.salvage()?;
    salvage.has_keys().then(|| (0..s.entry.rows as usize).map(|r| salvage.key(r).map(String::from)).collect())
}

/// Live rows of a segment by the manifest's record (rows less recorded deletes).
fn live_estimate(entry: &SegmentEntry) -> u64 {
    entry.rows.saturating_sub(entry.deletes.as_ref().map_or(0, |d| d.count))
}

impl Repair {
    fn act(&mut self, file: &str, what: String) {
        self.plan.actions.push(Action { file: file.to_string(), what });
    }

    fn doubt(&mut self, file: &str, what: String) {
        self.plan.unproven.push(Action { file: file.to_string(), what });
    }

    fn lose(&mut self, file: &str, what: String, rows: u64, keys: Vec<String>) {
        self.plan.losses.push(Loss { file: file.to_string(), what, rows, keys });
    }

    pub(super) fn make_plan(&mut self) {
        let Some(base) = &self.exam.base else {
            self.plan.blocked =
                Some("no manifest or schema is readable, so the files cannot be interpreted; give the schema".into());
            return;
        };
        let schema = base.schema.clone();
        let sealed_records = base.manifest.sealed_wal.map_or(0, |s| s.records);
        let generation = self
            .exam
            .listing
            .iter()
            .filter(|e| e.kind == Some(FileKind::Manifest))
            .filter_map(|e| recover::name_numbers(&e.name).first().copied())
            .chain([base.manifest.generation])
            .max()
            .unwrap_or(0)
            + 1;
        let base_name = base.name.clone().unwrap_or_else(|| "CURRENT".into());
        let recovered = base.recovered.clone();
        if let Some(how) = recovered {
            self.publish = true;
            self.act(&base_name, format!("the live manifest is damaged; publish generation {generation} ({how})"));
        } else if !self.exam.current_ok {
            self.publish = true;
            self.act("CURRENT", format!("point CURRENT at a new generation {generation}"));
        }

        // A damaged sealed WAL: its good records and the live WAL's go into one new WAL.
        if let Some(sealed) = self.exam.sealed_wal.as_ref().filter(|w| w.damaged()) {
            let live = self.exam.wal.as_ref();
            let (sealed_name, live_name) = (sealed.name.clone(), live.map(|w| w.name.clone()).unwrap_or_default());
            let wanted = sealed_records;
            let short = wanted.saturating_sub(sealed.scan.records.len() as u64);
            let sealed_lost = sealed.missing || short > 0;
            let mut losses: Vec<(String, String, u64, Vec<String>)> = Vec::new();
            for w in [Some(sealed), live].into_iter().flatten() {
                losses.extend(w.scan.bad.iter().map(|b| {
                    (w.name.clone(), format!("damage at offset {}: {}", b.offset, b.what), b.lost, b.keys.clone())
                }));
            }
            let records: Vec<Record> = [Some(sealed), live]
                .into_iter()
                .flatten()
                .flat_map(|w| w.scan.records.iter().map(|(_, r)| r.clone()))
                .collect();
            self.publish = true;
            self.act(
                &sealed_name,
                format!(
                    "copy its good records and those of {live_name} ({} in all) into a new WAL; both old files go to {LOST_FOUND}",
                    records.len()
                ),
            );
            if sealed_lost {
                let what = format!("{short} of the {wanted} records the flush in progress had sealed");
                losses.push((sealed_name.clone(), what, short, Vec::new()));
            }
            self.steps.push(Step::RewriteWal { records, fold_sealed: true });
            for (file, what, lost, keys) in losses {
                self.lose(&file, what, lost, keys);
            }
        } else if let Some(w) = &self.exam.wal {
            let name = w.name.clone();
            if w.missing {
                let durable = w.durable;
                self.steps.push(Step::CreateWal);
                self.act(&name, "create it, empty (the manifest names it)".into());
                match durable {
                    Some(d) => {
                        let what = format!("the {} records its sync record says an fsync made durable", d.records);
                        self.lose(&name, what, d.records, Vec::new())
                    }
                    None => self.lose(&name, "unflushed writes the missing WAL held, if any".into(), 0, Vec::new()),
                }
            } else if w.damaged() {
                let records: Vec<Record> = w.scan.records.iter().map(|(_, r)| r.clone()).collect();
                let bad: Vec<(String, u64, Vec<String>)> = w
                    .scan
                    .bad
                    .iter()
                    .map(|b| (format!("damage at offset {}: {}", b.offset, b.what), b.lost, b.keys.clone()))
                    .collect();
                let (shortfall, durable) = (w.shortfall.clone(), w.durable.is_some());
                self.publish = true;
                self.act(
                    &name,
                    format!(
                        "copy its {} good records into a new WAL; the old file goes to {LOST_FOUND}",
                        records.len()
                    ),
                );
                self.steps.push(Step::RewriteWal { records, fold_sealed: false });
                for (what, lost, keys) in bad {
                    self.lose(&name, what, lost, keys);
                }
                if let Some(short) = shortfall {
                    self.lose(&name, short.describe(), short.lost, Vec::new());
                } else if !durable {
                    let what = "its damage may hide records cut off after the last good frame: with no sync record, \
                                they cannot be counted";
                    self.doubt(&name, what.into());
                }
            } else if let Some((at, len)) = w.scan.torn {
                let what = format!(
                    "the torn tail it cuts ({len} bytes at offset {at}, kept in {LOST_FOUND}) is {}",
                    crate::collection::recovery::torn_tail_is(w.durable.as_ref())
                );
                self.steps.push(Step::TruncateWal { at });
                self.act(&name, format!("truncate the torn tail ({len} bytes at offset {at}, kept in {LOST_FOUND})"));
                self.doubt(&name, what);
            }
        }

        // A sync record that does not read proves nothing: it goes to lost+found, and the
        // next writer makes it anew.
        if self.exam.report.findings.iter().any(|f| f.file == SYNC_NAME && f.severity == Severity::Warning) {
            self.act(
                SYNC_NAME,
                format!("move to {LOST_FOUND}/ (it does not read; the next writable open makes it anew)"),
            );
            self.steps.push(Step::Move { name: SYNC_NAME.into() });
        }

        // Segments, their delete files and indexes.
        let segments = std::mem::take(&mut self.exam.segments);
        for pos in 0..segments.len() {
            self.plan_segment(&segments, pos, &schema);
        }
        self.exam.segments = segments;

        let orphans: Vec<String> = self.exam.orphans.iter().map(|o| o.name.clone()).collect();
        for name in orphans {
            self.act(&name, format!("move to {LOST_FOUND}/ (no manifest names it)"));
            self.steps.push(Step::Move { name });
        }
        if self.publish {
            self.plan.generation = Some(generation);
        }
    }

    /// The deleted rows of segment `pos`: read, restored, or reconstructed from the keys of
    /// later segments (a newer version of a key deletes the older one). `None` when the
    /// file is intact and unchanged.
    fn plan_deletes(&mut self, segs: &[SegState], pos: usize) -> Option<RoaringBitmap> {
        let s = &segs[pos];
        let d = s.entry.deletes.clone()?;
        if let DelState::Ok(set) = &s.deletes {
            return s.deletes_count_wrong.then(|| set.clone());
        }
        let rows = s.entry.rows;
        let restored = match s.deletes {
            DelState::Damaged => crate::storage::disk::read(&self.dir.join(&d.file))
                .ok()
                .and_then(|b| recover::recover_deletes(&b, rows, d.count)),
            _ => None,
        };
        if let Some(set) = restored {
            self.act(
                &d.file,
                "restore the deleted rows exactly (one damaged byte or header) into a new delete file".into(),
            );
            return Some(set);
        }
        let mut set = RoaringBitmap::new();
        if let Some(keys) = keys_of(s) {
            let later: std::collections::HashSet<String> =
                segs[pos + 1..].iter().filter_map(keys_of).flatten().flatten().collect();
            set.extend(
                keys.iter()
                    .enumerate()
                    .filter(|(_, k)| k.as_ref().is_some_and(|k| later.contains(k)))
                    .map(|(r, _)| r as u32),
            );
        }
        self.act(
            &d.file,
            format!("reconstruct the deleted rows from newer versions of their keys ({} found)", set.len()),
        );
        let unknown = d.count.saturating_sub(set.len());
        if unknown > 0 {
            self.lose(
                &d.file,
                format!("{unknown} deleted rows cannot be identified; they reappear"),
                unknown,
                Vec::new(),
            );
        }
        Some(set)
    }

    /// Plans the repair of segment `pos`: dropped when its file is missing, its delete
    /// file rewritten when wrong, then its indexes when the segment opened, or what its
    /// readable columns hold when it did not.
    fn plan_segment(&mut self, segs: &[SegState], pos: usize, schema: &Arc<Schema>) {
        let entry = &segs[pos].entry;
        if segs[pos].missing {
            self.publish = true;
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, "remove from the manifest (the file is missing)".into());
            self.lose(
                &entry.file,
                "segment file missing; its live rows are lost (keys unknown)".into(),
                live_estimate(entry),
                Vec::new(),
            );
            return;
        }
        let new_deletes = self.plan_deletes(segs, pos);
        let s = &segs[pos];
        let Some(seg) = &s.segment else {
            self.plan_segment_file(s, pos, new_deletes, schema);
            return;
        };
        if let Some(set) = new_deletes {
            self.publish = true;
            self.steps.push(Step::Deletes { pos, set });
        }
        if seg.file_len() != entry.size {
            self.publish = true;
            self.act(&entry.file, format!("correct the manifest's record of its size ({} bytes)", seg.file_len()));
        }
        self.plan_segment_indexes(s, pos);
    }

    /// Plans each damaged index of segment `pos`, whose file is sound: dropped, rebuilt,
    /// re-encoded or reconnected; a size record corrected.
    fn plan_segment_indexes(&mut self, s: &SegState, pos: usize) {
        let entry = &s.entry;
        let damages: Vec<(u16, IndexKind, String, bool, IdxDamage, Option<u64>)> = s
            .indexes
            .iter()
            .map(|i| (i.entry.field, i.entry.kind, i.entry.file.clone(), i.field_ok, i.damage.clone(), i.len))
            .collect();
        for (field, kind, file, field_ok, damage, len) in damages {
            let (step, what) = match damage {
                _ if !field_ok => {
                    (Step::DropIndex { pos, field, kind }, format!("remove from the manifest and move to {LOST_FOUND}"))
                }
                IdxDamage::Missing | IdxDamage::Broken => {
                    let from = if kind == IndexKind::Vector { "vectors" } else { "column" };
                    (Step::BuildIndex { pos, field, kind }, format!("rebuild from the segment's {from}"))
                }
                IdxDamage::Codes => {
                    (Step::Recode { pos, field }, "re-encode the codes and sketches from the originals".into())
                }
                IdxDamage::Unreachable(ids) => (
                    Step::Reconnect { pos, field },
                    format!("reconnect {} unreachable nodes (or rebuild the graph)", ids.len()),
                ),
                IdxDamage::None => {
                    let recorded =
                        entry.indexes.iter().find(|i| i.field == field && i.kind == kind).map_or(0, |i| i.size);
                    if len.is_some_and(|l| l != recorded) {
                        self.publish = true;
                        self.act(&file, "correct the manifest's record of its size".into());
                    }
                    continue;
                }
            };
            self.publish = true;
            self.steps.push(step);
            self.act(&file, what);
        }
    }

    /// Plans segment `pos`, whose file is damaged: the readable live rows written into a
    /// new segment, or the segment dropped when its keys or a required field are
    /// unreadable; every row given up is listed as a loss.
    fn plan_segment_file(&mut self, s: &SegState, pos: usize, new_deletes: Option<RoaringBitmap>, schema: &Schema) {
        let entry = &s.entry;
        let live_estimate = live_estimate(entry);
        self.publish = true;
        let Some(salvage) = s.salvage() else {
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: its header or section table is unreadable"));
            self.lose(
                &entry.file,
                "section table unreadable; its live rows are lost (keys unknown)".into(),
                live_estimate,
                Vec::new(),
            );
            return;
        };
        let deleted = match (&s.deletes, new_deletes) {
            (_, Some(set)) => set,
            (DelState::Ok(set), None) => set.clone(),
            _ => RoaringBitmap::new(),
        };
        let live: RoaringBitmap = (0..entry.rows as u32).filter(|r| !deleted.contains(*r)).collect();
        if !salvage.has_keys() {
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: its keys are unreadable"));
            self.lose(&entry.file, "keys unreadable; its live rows are lost".into(), live.len(), Vec::new());
            return;
        }
        let keys_of = |rows: &RoaringBitmap| -> Vec<String> {
            rows.iter().filter_map(|r| salvage.key(r as usize).map(String::from)).collect()
        };
        // Salvage reads the fields the file stores; one the schema dropped since costs nothing.
        let (stored, current) = (&*s.fields.schema, schema);
        let schema = stored;
        let kept = |f: usize| current.position_of_id(stored.field_id(f)).is_some();
        let damaged: Vec<usize> = salvage.damaged_fields().into_iter().filter(|&f| kept(f)).collect();
        let names = |fields: &[usize]| {
            fields.iter().map(|&f| format!("`{}`", schema.field(f).name)).collect::<Vec<_>>().join(", ")
        };
        let required: Vec<usize> = damaged.iter().copied().filter(|&f| !schema.field(f).nullable).collect();
        if !required.is_empty() {
            let keys = keys_of(&live);
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: the values of {} are unreadable", names(&required)));
            self.lose(
                &entry.file,
                format!("rows lost: their required field {} is unreadable", names(&required)),
                live.len(),
                keys,
            );
            return;
        }
        // Rows whose damage lies in a damaged block: their key, or a required value, is
        // lost with the row; a nullable value becomes null.
        let mut keep = live.clone();
        let no_key = &live & salvage.key_lost();
        if !no_key.is_empty() {
            self.lose(
                &entry.file,
                format!("{} rows lost: their keys lie in damaged blocks (keys unknown)", no_key.len()),
                no_key.len(),
                Vec::new(),
            );
            keep -= &no_key;
        }
        let mut losses: Vec<(String, RoaringBitmap)> = Vec::new();
        for (f, field) in schema.fields().iter().enumerate().filter(|&(f, _)| kept(f)) {
            let Some(hit) = salvage.lost_rows(f).map(|l| l & &keep).filter(|l| !l.is_empty()) else { continue };
            if field.nullable {
                losses.push((
                    format!(
                        "values of `{}` lie in damaged blocks; these rows keep their other fields, `{}` becomes null",
                        field.name, field.name
                    ),
                    hit,
                ));
            } else {
                keep -= &hit;
                losses.push((format!("rows lost: their required field `{}` lies in a damaged block", field.name), hit));
            }
        }
        for (what, rows) in losses {
            let keys = keys_of(&rows);
            self.lose(&entry.file, what, rows.len(), keys);
        }
        if !damaged.is_empty() {
            let rows = &keep;
            self.lose(
                &entry.file,
                format!(
                    "values of {} are unreadable; the rows keep their other fields, these become null",
                    names(&damaged)
                ),
                rows.len(),
                keys_of(rows),
            );
        }
        if keep.is_empty() {
            self.steps.push(Step::DropSegment { pos });
            self.act(&entry.file, format!("move to {LOST_FOUND}: none of its live rows is readable"));
            return;
        }
        self.act(
            &entry.file,
            format!(
                "write its {} readable live rows into a new segment (derived sections recomputed); the old file goes to {LOST_FOUND}",
                keep.len()
            ),
        );
        self.steps.push(Step::Salvage { pos, keep: keep.iter().collect() });
    }
}
