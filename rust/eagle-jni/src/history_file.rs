//! The history file of stage estimates (`history.path`): its on-disk format
//! (`{"format": "eagle-history/1", "entries": [...]}`), parsing with every entry validated,
//! and rendering. Reading and writing the file, and merging it into a driver, are
//! [`crate::state`]'s.

use serde::{Deserialize, Serialize};
use std::fmt;

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
