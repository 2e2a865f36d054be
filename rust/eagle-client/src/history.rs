//! The history file of stage estimates (`history.path`): its on-disk format
//! (`{"format": "eagle-history/1", "entries": [...]}`), parsing with every entry validated,
//! rendering, and loading it into a [`Driver`] or saving a driver's history to it.
//!
//! Invariants: a file with one bad entry is rejected whole, naming the entry's line (a
//! corrupt or hand-edited file never turns into NaN or overflowing estimates); a save is
//! atomic (a unique temporary file, then a rename), so a reader never sees a partial file
//! and two applications saving one path never write into one file.

use eagle_core::Driver;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where in a history file a bad entry is: its line and its index among the entries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EntryAt {
    pub line: usize,
    pub entry: usize,
}

impl fmt::Display for EntryAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} (entry {})", self.line, self.entry)
    }
}

/// Why a history file's text was rejected (see [`parse_history`]).
#[derive(Debug)]
pub enum HistoryFormatError {
    NotJson(serde_json::Error),
    /// A `format` other than [`HISTORY_FORMAT`].
    UnknownFormat(String),
    BadEntry {
        at: EntryAt,
        cause: serde_json::Error,
    },
    BadSignature {
        at: EntryAt,
        signature: String,
    },
    BadMean {
        at: EntryAt,
        mean_ms: f64,
        signature: String,
        max_ms: f64,
    },
    BadSamples {
        at: EntryAt,
        samples: u64,
        signature: String,
        max: u64,
    },
}

impl fmt::Display for HistoryFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryFormatError::NotJson(e) => write!(f, "not a history file: {e}"),
            HistoryFormatError::UnknownFormat(s) => {
                write!(f, "unknown history format {s:?} (expected {:?})", HISTORY_FORMAT)
            }
            HistoryFormatError::BadEntry { at, cause } => write!(f, "{at}: bad entry: {cause}"),
            HistoryFormatError::BadSignature { at, signature } => {
                write!(f, "{at}: bad signature {signature:?} (expected 16 hex digits)")
            }
            HistoryFormatError::BadMean { at, mean_ms, signature, max_ms } => write!(
                f,
                "{at}: bad meanMs {mean_ms} for signature {signature} (expected a finite number in [0, {max_ms}])"
            ),
            HistoryFormatError::BadSamples { at, samples, signature, max } => {
                write!(f, "{at}: bad samples {samples} for signature {signature} (expected an integer in [1, {max}])")
            }
        }
    }
}

impl std::error::Error for HistoryFormatError {}

/// Why the history file could not be loaded or saved; each names the path.
#[derive(Debug)]
pub enum HistoryError {
    Read { path: PathBuf, cause: io::Error },
    Format { path: PathBuf, cause: HistoryFormatError },
    CreateDir { dir: PathBuf, cause: io::Error },
    Write { path: PathBuf, cause: io::Error },
    Rename { path: PathBuf, cause: io::Error },
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::Read { path, cause } => write!(f, "cannot read history {}: {cause}", path.display()),
            HistoryError::Format { path, cause } => write!(f, "history {}: {cause}", path.display()),
            HistoryError::CreateDir { dir, cause } => write!(f, "cannot create {}: {cause}", dir.display()),
            HistoryError::Write { path, cause } => write!(f, "cannot write {}: {cause}", path.display()),
            HistoryError::Rename { path, cause } => write!(f, "cannot rename to {}: {cause}", path.display()),
        }
    }
}

impl std::error::Error for HistoryError {}

/// One history entry as stored on disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// Stage signature, 16 lower-case hex digits (a JSON number would lose bits in many readers).
    pub signature: String,
    pub mean_ms: f64,
    pub samples: u64,
}

/// The history file: `{"format": "eagle-history/1", "entries": [...]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryFile {
    pub format: String,
    pub entries: Vec<HistoryEntry>,
}

pub const HISTORY_FORMAT: &str = "eagle-history/1";

/// The file as read: entries kept raw so that a bad one can be reported with its line.
#[derive(Deserialize)]
struct RawHistoryFile<'a> {
    format: String,
    #[serde(borrow)]
    entries: Vec<&'a serde_json::value::RawValue>,
}

/// Largest `samples` an entry of the file may claim.
pub const MAX_FILE_SAMPLES: u64 = 1_000_000_000_000;

/// Parses a history file's text into engine entries `(signature, mean seconds, samples)`.
/// Every entry is validated: 16 hex digits of signature, `meanMs` finite and within
/// `[0, MAX_HISTORY_MEAN]` (30 days), `samples` within `[1, MAX_FILE_SAMPLES]`; the first bad
/// one rejects the file with its line number (a corrupt or hand-edited file must not turn
/// into NaN or overflowing estimates).
pub fn parse_history(text: &str) -> Result<Vec<(u64, f64, u64)>, HistoryFormatError> {
    let f: RawHistoryFile<'_> = serde_json::from_str(text).map_err(HistoryFormatError::NotJson)?;
    if f.format != HISTORY_FORMAT {
        return Err(HistoryFormatError::UnknownFormat(f.format));
    }
    let max_mean_ms = eagle_core::estimate::MAX_HISTORY_MEAN * 1000.0;
    f.entries
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let offset = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize).min(text.len());
            let line = text[..offset].matches('\n').count() + 1;
            let at = EntryAt { line, entry: i };
            let e: HistoryEntry =
                serde_json::from_str(raw.get()).map_err(|cause| HistoryFormatError::BadEntry { at, cause })?;
            let sig = u64::from_str_radix(&e.signature, 16)
                .map_err(|_| HistoryFormatError::BadSignature { at, signature: e.signature.clone() })?;
            if !e.mean_ms.is_finite() || !(0.0..=max_mean_ms).contains(&e.mean_ms) {
                let (mean_ms, signature) = (e.mean_ms, e.signature);
                return Err(HistoryFormatError::BadMean { at, mean_ms, signature, max_ms: max_mean_ms });
            }
            if !(1..=MAX_FILE_SAMPLES).contains(&e.samples) {
                let (samples, signature) = (e.samples, e.signature);
                return Err(HistoryFormatError::BadSamples { at, samples, signature, max: MAX_FILE_SAMPLES });
            }
            Ok((sig, e.mean_ms / 1000.0, e.samples))
        })
        .collect()
}

/// Renders engine entries as a history file.
pub fn render_history(entries: &[(u64, f64, u64)]) -> String {
    let f = HistoryFile {
        format: HISTORY_FORMAT.to_string(),
        entries: entries
            .iter()
            .map(|&(sig, mean, n)| HistoryEntry {
                signature: format!("{sig:016x}"),
                mean_ms: mean * 1000.0,
                samples: n,
            })
            .collect(),
    };
    serde_json::to_string_pretty(&f).expect("history serializes")
}

/// Loads the history at `path` into the driver. Returns the number of entries,
/// or -1 when the file does not exist (a first run).
pub fn load_history(driver: &mut Driver, path: &Path) -> Result<i32, HistoryError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(-1),
        Err(cause) => return Err(HistoryError::Read { path: path.to_path_buf(), cause }),
    };
    let entries = parse_history(&text).map_err(|cause| HistoryError::Format { path: path.to_path_buf(), cause })?;
    driver.load_history(&entries);
    Ok(entries.len() as i32)
}

/// A temporary file next to `path`, unique to this process and call: two applications (or
/// two engines of one JVM) saving the same history never write into one file.
fn temp_path(path: &Path) -> PathBuf {
    static SAVES: AtomicU64 = AtomicU64::new(0);
    let n = SAVES.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().map(|f| f.to_os_string()).unwrap_or_default();
    name.push(format!(".{}.{n}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Writes the driver's history to `path` atomically (unique temporary file + rename): the
/// last writer wins, and a reader never sees a partial file.
pub fn save_history(driver: &Driver, path: &Path) -> Result<i32, HistoryError> {
    let entries = driver.history();
    let text = render_history(&entries);
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|cause| HistoryError::CreateDir { dir: dir.to_path_buf(), cause })?;
        }
    }
    let tmp = temp_path(path);
    std::fs::write(&tmp, text).map_err(|cause| HistoryError::Write { path: tmp.clone(), cause })?;
    std::fs::rename(&tmp, path).map_err(|cause| {
        let _ = std::fs::remove_file(&tmp);
        HistoryError::Rename { path: path.to_path_buf(), cause }
    })?;
    Ok(entries.len() as i32)
}

#[cfg(test)]
mod tests;
