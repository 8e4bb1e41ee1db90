//! The live WAL against its sync record (`WAL.sync`): a WAL shorter than an fsync made it
//! lost acknowledged records (corruption); with no record to compare with, the report says
//! what cannot be known rather than that nothing was lost.

use std::path::Path;

use super::WalState;
use crate::storage::manifest::Manifest;
use crate::storage::wal::sync_record::{self, SYNC_NAME, SyncState};
use crate::verify::{Finding, Severity};

/// Reads the sync record of the live WAL. Called before the WAL is read: the record never
/// claims bytes a writer has not written yet, so a WAL read after it is never shorter than
/// it says unless bytes were cut off.
pub(super) fn read(dir: &Path, m: &Manifest, f: &mut Vec<Finding>) -> SyncState {
    let state = sync_record::read(dir, m.wal_seq, m.wal_salt).unwrap_or_else(|e| SyncState::Damaged(e.to_string()));
    if let SyncState::Damaged(why) = &state {
        let what = format!(
            "{why}: a WAL cut short at a frame boundary cannot be detected; the next writable open makes it anew"
        );
        f.push(Finding::new(Severity::Warning, SYNC_NAME, "", what));
    }
    state
}

/// Compares the live WAL, `bytes` long, with its sync record `state`; marks it short (for
/// repair) and reports what is lost, or what cannot be told.
pub(super) fn check(state: SyncState, wal: &mut WalState, bytes: u64, f: &mut Vec<Finding>) {
    if wal.missing {
        wal.durable = state.durable().copied();
        return;
    }
    let s = &wal.scan;
    let ends = s.torn.map_or(bytes, |(at, _)| at);
    match state {
        SyncState::Found(d) => {
            let before = s.records.iter().filter(|(at, _)| *at < d.len).count() as u64;
            let damaged = s.bad.iter().map(|b| b.lost).sum();
            if let Some(short) = sync_record::shortfall(&d, ends, before, damaged) {
                let finding = Finding::new(Severity::Corrupt, &wal.name, "frame", short.describe())
                    .at(ends)
                    .expected(format!("{} bytes", d.len), format!("{ends} bytes"));
                f.push(finding);
                wal.short = true;
                wal.shortfall = Some(short);
            }
            wal.durable = Some(d);
        }
        SyncState::None if s.torn.is_none() && wal.header_ok && s.bad.is_empty() => {
            f.push(Finding::new(Severity::Info, &wal.name, "frame", sync_record::blind_spot(ends)).at(ends));
        }
        SyncState::None | SyncState::Damaged(_) => {}
    }
}
