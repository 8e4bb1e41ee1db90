//! Which manifest a pass checks against: the one `CURRENT` names, recovered when damaged,
//! or else one rebuilt from the files in the directory.

use std::path::Path;
use std::sync::Arc;

use super::{Base, DirEntry, number};
use crate::error::StorageError;
use crate::schema::Schema;
use crate::storage::container::TABLE_AT;
use crate::storage::manifest::{self, Manifest};
use crate::storage::mmap::FileBytes;
use crate::storage::segment::layout::{Layout, StoredType};
use crate::storage::segment::{SectionKind, claimed_layout};
use crate::storage::{FileKind, deletes, read_u32, read_u64};
use crate::verify::recover::{self, DirFile, Recovered, Salvaged};
use crate::verify::scan::describe;
use crate::verify::{FileReport, Finding, Severity, VerifyOptions};

/// Section of a manifest or delete file (header, length/checksum words, body) at `offset`.
pub(super) fn body_section(offset: u64) -> &'static str {
    match offset {
        0..32 => "header",
        32..48 => "body header",
        _ => "body",
    }
}

/// Row count from a segment's meta section, trusting only that section's own checksum.
fn segment_rows(b: &[u8]) -> Option<u64> {
    let e = TABLE_AT;
    let (offset, len, crc) = (read_u64(b.get(..e + 32)?, e + 8), read_u64(b, e + 16), read_u32(b, e + 24));
    let meta = b.get(usize::try_from(offset).ok()?..usize::try_from(offset.checked_add(len)?).ok()?)?;
    (len == 8 && crc32c::crc32c(meta) == crc).then(|| read_u64(meta, 0))
}

/// Whether the segment files present agree with `schema`: at least one whose section
/// table reads has the sections the schema plans, with vector sections of the planned
/// size (or none reads, so nothing contradicts it). A file with a fields section agrees
/// when every field both name is stored as the schema types it, or narrower.
fn fits_segments(dir: &Path, listing: &[DirEntry], schema: &Schema, mmap: bool) -> bool {
    let own = Layout::of(schema);
    let mut readable = false;
    for e in listing.iter().filter(|e| e.kind == Some(FileKind::Segment)) {
        let path = dir.join(&e.name);
        let Ok(bytes) = FileBytes::open(&path, mmap) else { continue };
        let b = bytes.as_slice();
        let Ok((_, table)) = crate::storage::container::read(&path, b, FileKind::Segment, |_| false) else { continue };
        readable = true;
        let (layout, by_id) = claimed_layout(&path, b, || own.clone());
        if by_id {
            let agrees = layout.fields.iter().all(|f| {
                own.fields.iter().find(|o| o.id == f.id).is_none_or(|o| match (f.ty, o.ty) {
                    (StoredType::Scalar(a), StoredType::Scalar(b)) | (StoredType::Array(a), StoredType::Array(b)) => {
                        a == b || a.widens_to(b)
                    }
                    // A scalar widened to its array type since the segment was written.
                    (StoredType::Scalar(a), StoredType::Array(b)) => a == b,
                    (a, b) => a == b,
                })
            });
            if agrees && layout.fields.iter().any(|f| own.position_of_id(f.id).is_some()) {
                return true;
            }
            continue;
        }
        let plan = own.sections(false);
        let rows = segment_rows(b);
        let fits = table.len() == plan.len()
            && table.iter().zip(&plan).all(|(s, p)| {
                let vector_len = p.field.and_then(|f| schema.field(f).as_vector()).map(|v| v.row_bytes() as u64);
                s.kind == p.kind as u16
                    && s.field == p.tag
                    && (p.kind != SectionKind::Vectors || rows.zip(vector_len).is_none_or(|(r, w)| s.len == r * w))
            });
        if fits {
            return true;
        }
    }
    !readable
}
/// The manifest a pass checks against, and how `CURRENT` led to it.
pub(super) struct Resolved {
    pub base: Option<Base>,
    /// The manifest file read: the one `CURRENT` names, else the newest present.
    pub target: Option<String>,
    /// `CURRENT` names the manifest checked, and that manifest is intact.
    pub current_ok: bool,
}

/// Resolves `CURRENT`, then the manifest it names (or the newest one present), recovering
/// it when damaged; failing that, rebuilds one from the files in the directory with a
/// schema that fits them (`fallback_schema` last). Reports `CURRENT` and the manifest read
/// in `files`, their damage in `f`. Errors only when there is neither `CURRENT` nor any
/// manifest: no collection at all.
pub(super) fn resolve(
    dir: &Path,
    opts: &VerifyOptions,
    listing: &[DirEntry],
    fallback_schema: Option<&Schema>,
    f: &mut Vec<Finding>,
    files: &mut Vec<FileReport>,
    sum: &mut u64,
) -> Result<Resolved, StorageError> {
    let mut manifests: Vec<&DirEntry> = listing.iter().filter(|e| e.kind == Some(FileKind::Manifest)).collect();
    manifests.sort_by_key(|e| std::cmp::Reverse(number(&e.name)));
    let mut r = Resolver { dir, opts, listing, manifests, f };
    let (target, mut current_ok) = r.current()?;
    files.push(FileReport { name: "CURRENT".into(), kind: FileKind::Current, bytes: 0, ok: current_ok });
    let (mut base, salvaged) = match &target {
        Some(name) => r.read(name, &mut current_ok, files, sum),
        None => (None, None),
    };
    if base.is_none() {
        base = r.rebuild(target.as_deref(), salvaged, fallback_schema);
    }
    Ok(Resolved { base, target, current_ok })
}

/// What manifest resolution reads from and reports into.
struct Resolver<'a> {
    dir: &'a Path,
    opts: &'a VerifyOptions,
    listing: &'a [DirEntry],
    /// The manifest files present, newest first.
    manifests: Vec<&'a DirEntry>,
    f: &'a mut Vec<Finding>,
}

impl Resolver<'_> {
    /// The manifest `CURRENT` names when it exists (and `CURRENT` is sound), else the
    /// newest one present.
    fn current(&mut self) -> Result<(Option<String>, bool), StorageError> {
        let (dir, listing, f) = (self.dir, self.listing, &mut *self.f);
        let newest = self.manifests.first().map(|e| e.name.clone());
        Ok(match manifest::read_current(dir) {
            Ok(name) if listing.iter().any(|e| e.name == name) => (Some(name), true),
            Ok(name) => {
                f.push(
                    Finding::new(Severity::Corrupt, "CURRENT", "", format!("names {name}, which does not exist"))
                        .transient(),
                );
                (newest, false)
            }
            Err(StorageError::NotACollection { path }) => {
                if self.manifests.is_empty() {
                    return Err(StorageError::NotACollection { path });
                }
                f.push(Finding::new(Severity::Corrupt, "CURRENT", "", "missing; the collection cannot be opened"));
                (newest, false)
            }
            Err(e) => {
                let (_, what) = describe(&e);
                let damaged = matches!(e, StorageError::Corrupted { .. } | StorageError::UnsupportedVersion { .. });
                let finding = Finding::new(Severity::Corrupt, "CURRENT", "", what).at(0);
                f.push(if damaged { finding } else { finding.unreadable() });
                (newest, false)
            }
        })
    }

    /// Reads manifest `name`: the base when it decodes (or is recovered whole) with a
    /// schema that fits the segment files, else the schema alone when only that is
    /// recoverable. Clears `current_ok` when it does not decode.
    fn read(
        &mut self,
        name: &str,
        current_ok: &mut bool,
        files: &mut Vec<FileReport>,
        sum: &mut u64,
    ) -> (Option<Base>, Option<Salvaged>) {
        let (dir, listing, opts, f) = (self.dir, self.listing, self.opts, &mut *self.f);
        let path = dir.join(name);
        let bytes = match crate::storage::disk::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                let what = format!("cannot be read: {}", describe(&e).1);
                let finding = Finding::new(Severity::Corrupt, name, "", what).transient();
                f.push(if super::gone(&path, &e) { finding } else { finding.unreadable() });
                return (None, None);
            }
        };
        *sum += bytes.len() as u64;
        let decoded = Manifest::decode(&path, &bytes);
        let ok = decoded.is_ok();
        files.push(FileReport { name: name.to_string(), kind: FileKind::Manifest, bytes: bytes.len() as u64, ok });
        let mut salvaged = None;
        let recovered = match decoded {
            Ok(m) => Some((m, None)),
            Err(e) => {
                *current_ok = false;
                let (at, what) = describe(&e);
                let at = at.unwrap_or(0);
                let mut finding = Finding::new(Severity::Corrupt, name, body_section(at), what).at(at);
                let rec = match recover::recover(&path, &bytes) {
                    Recovered::Whole(m, how) => {
                        finding.what.push_str(&format!("; recoverable: {how}"));
                        Some((m, Some(how)))
                    }
                    Recovered::Schema(s) => {
                        finding.what.push_str("; only the schema is readable");
                        salvaged = Some(s);
                        None
                    }
                    Recovered::Nothing => None,
                };
                f.push(finding);
                rec
            }
        };
        let Some((m, how)) = recovered else { return (None, salvaged) };
        let base = match m.schema(&path) {
            Ok(s) if how.is_some() && !fits_segments(dir, listing, &s, opts.mmap) => {
                f.push(Finding::new(
                    Severity::Info,
                    name,
                    "body",
                    "the recovered schema does not fit the segment files; not used",
                ));
                None
            }
            Ok(s) => Some(Base { manifest: m, name: Some(name.to_string()), schema: Arc::new(s), recovered: how }),
            Err(e) => {
                let (at, what) = describe(&e);
                f.push(Finding::new(Severity::Corrupt, name, "body", what).at(at.unwrap_or(48)));
                None
            }
        };
        (base, salvaged)
    }

    /// Rolls forward from the files present, with the schema from the damaged manifest
    /// `target`, or else from any other manifest that still reads, or else
    /// `fallback_schema`; a schema the segment files contradict (damage that still
    /// parses) is passed over.
    fn rebuild(
        &mut self,
        target: Option<&str>,
        salvaged: Option<Salvaged>,
        fallback_schema: Option<&Schema>,
    ) -> Option<Base> {
        let (dir, listing, opts) = (self.dir, self.listing, self.opts);
        let older: Vec<Manifest> = (self.manifests.iter().filter(|e| Some(e.name.as_str()) != target))
            .filter_map(|e| {
                let p = dir.join(&e.name);
                crate::storage::disk::read(&p).ok().and_then(|b| Manifest::decode(&p, &b).ok())
            })
            .collect();
        let others = older.iter().map(|m| Salvaged {
            schema: m.schema.clone(),
            options: Some(m.options.clone()),
            legacy_schema: m.legacy_schema.clone(),
        });
        let fallback = fallback_schema.map(|s| Salvaged { schema: s.to_stored(), options: None, legacy_schema: None });
        let chosen = salvaged
            .into_iter()
            .chain(others)
            .find(|c| c.schema.clone().into_schema().is_ok_and(|s| fits_segments(dir, listing, &s, opts.mmap)))
            .or(fallback);
        let Some(chosen) = chosen else {
            self.f.push(Finding::new(
                Severity::Corrupt,
                target.unwrap_or("CURRENT"),
                "",
                "no manifest or schema is readable: the collection's files cannot be interpreted",
            ));
            return None;
        };
        let generation = self.manifests.first().map_or(0, |e| number(&e.name)) + 1;
        let dir_files: Vec<DirFile> =
            listing.iter().filter_map(|e| Some(DirFile { name: &e.name, kind: e.kind?, bytes: e.bytes })).collect();
        let rows_of = |name: &str| crate::storage::disk::read(&dir.join(name)).ok().and_then(|b| segment_rows(&b));
        let deleted_of = |name: &str, id: u64, rows: u64| {
            let p = dir.join(name);
            let b = crate::storage::disk::read(&p).ok()?;
            Some(deletes::decode(&p, &b, id, rows as usize).map_or(0, |s| s.len()))
        };
        let m = recover::rebuild(chosen, generation, &dir_files, &rows_of, &deleted_of);
        // Retained versions keep superseded segment files, which a rebuild from the files
        // cannot tell from live ones: it keeps them all (losing nothing), so rows deleted
        // or merged since may be there twice. Said, not guessed at.
        let kept: std::collections::HashSet<&str> =
            older.iter().flat_map(|o| o.segments.iter().map(|s| s.file.as_str())).collect();
        let retained = m.segments.iter().filter(|s| kept.contains(s.file.as_str())).count();
        if !older.is_empty() && retained > 0 {
            self.f.push(Finding::new(
                Severity::Warning,
                target.unwrap_or("CURRENT"),
                "",
                format!(
                    "{} older version(s) are kept beside the damaged one and name {retained} of the segment files \
                     the rebuilt manifest takes in: rows those versions held but the lost one had deleted or \
                     merged may come back (twice, when merged); compare with `xvec versions` and `--as-of`",
                    older.len()
                ),
            ));
        }
        let path = dir.join(crate::storage::manifest_name(generation));
        match m.schema(&path) {
            Ok(s) => {
                self.f.push(Finding::new(
                    Severity::Info,
                    target.unwrap_or("CURRENT"),
                    "",
                    format!("checking against a manifest rebuilt from the {} segment files present", m.segments.len()),
                ));
                Some(Base {
                    manifest: m,
                    name: target.map(String::from),
                    schema: Arc::new(s),
                    recovered: Some("rebuilt from the files in the directory".into()),
                })
            }
            Err(e) => {
                self.f.push(Finding::new(Severity::Corrupt, "", "", describe(&e).1));
                None
            }
        }
    }
}
