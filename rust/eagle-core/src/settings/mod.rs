//! The engine's part of the Spark configuration: one typed value per
//! `spark.scheduler.eagle.*` key the engine reads, decoded and validated in one place.
//!
//! [`KEYS`] defines every such key once: its name (relative to [`SPARK_PREFIX`]), its
//! type and range, its meaning, and how it reads and writes [`EngineSettings`]. The
//! defaults are those of [`EngineSettings::default`] (that is, [`DriverConfig`],
//! [`AdaptiveParams`](crate::adaptive::reservation::AdaptiveParams) and the DDS bounds), so the key
//! table, the docs and the run summary show them without restating them.
//! [`EngineSettings::from_pairs`] is the one decoder: an unknown key or a bad value is a
//! [`ConfigError`] naming the key. [`keys_json`] prints the table (the plugin's registry
//! and the generated configuration reference read it).

mod keys;

pub use keys::KEYS;

use crate::error::{Bound, ConfigError};
use crate::locality::delay::DelayParams;
use crate::System;
use crate::{Class, DriverConfig};
use serde_json::{json, Map, Value};

/// The prefix every key name here is relative to.
pub use crate::error::SPARK_PREFIX;

/// Upper bound of `debug.holdCallMs` (a test hook; one minute is far more than any test needs).
pub const MAX_HOLD_CALL_MS: i64 = 60_000;

/// Seeds cross the plugin as doubles elsewhere; integers above 2^53 would not survive.
pub const MAX_SEED: i64 = (1 << 53) - 1;

/// Everything the engine reads from `spark.scheduler.eagle.*`.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    pub driver: DriverConfig,
    pub seed: u64,
    /// Most stage signatures the history keeps (least recently used evicted first).
    pub history_max_entries: usize,
    /// Test hook: panic on every bridge call after this many (None = never).
    pub fail_after_calls: Option<u64>,
    /// Test hook: every `taskFinished` call holds the engine this long (ms, 0 = off).
    pub hold_call_ms: u64,
    /// `placement=lotes`: LoTES filters which task sets an executor's offer may serve.
    pub lotes: bool,
    /// Dynamic Delay Scheduling on (`dds.enabled`).
    pub dds: bool,
    /// Its bounds, window and inheritance; the initial waits are Spark's own
    /// `spark.locality.wait.*` (see [`EngineSettings::delay_params`]).
    pub delay: DelayParams,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            driver: DriverConfig::default(),
            seed: 42,
            history_max_entries: crate::estimate::DEFAULT_HISTORY_ENTRIES,
            fail_after_calls: None,
            hold_call_ms: 0,
            lotes: false,
            dds: true,
            delay: DelayParams { inherit: true, ..DelayParams::spark_default() },
        }
    }
}

/// What a key's value must be.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Kind {
    /// An integer in `[min, max]` (`max == i64::MAX`: no upper bound).
    Int { min: i64, max: i64 },
    /// The same, in milliseconds.
    Ms { min: i64, max: i64 },
    /// A finite number within the bound.
    Num(Bound),
    /// One of the words (case-insensitive).
    Word(&'static [&'static str]),
    /// `true` or `false` (case-insensitive).
    Bool,
    /// A policy the driver runs ([`System::DRIVER`], by name or Spark alias).
    Policy,
}

/// A value as its [`Kind`] parsed it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Parsed {
    Int(i64),
    Num(f64),
    Word(&'static str),
    Bool(bool),
    Policy(System),
}

/// `Parsed`'s accessors: a key's `set` reads the variant its own kind parses to.
macro_rules! accessors {
    ($($name:ident: $variant:ident -> $t:ty),* $(,)?) => {
        impl Parsed {
            $(pub(crate) fn $name(self) -> $t {
                match self {
                    Parsed::$variant(v) => v,
                    other => unreachable!("{other:?} is not a {}", stringify!($variant)),
                }
            })*
        }
    };
}

accessors!(int: Int -> i64, num: Num -> f64, word: Word -> &'static str, policy: Policy -> System, flag: Bool -> bool);

/// One engine key: the whole of its definition.
pub struct Key {
    /// Name after [`SPARK_PREFIX`].
    pub name: &'static str,
    pub kind: Kind,
    /// The range as the docs word it, where the kind's own wording is not all of it.
    pub range: Option<&'static str>,
    /// What leaving the key unset means (its default is then shown as `(that)`).
    pub unset: Option<&'static str>,
    /// Meaning, as the configuration reference shows it.
    pub doc: &'static str,
    /// The value in `s`, in the key's units (`Null`: unset).
    pub get: fn(&EngineSettings) -> Value,
    /// Stores a value its kind accepted.
    pub set: fn(&mut EngineSettings, Parsed),
}

fn bound_words(b: Bound) -> String {
    match b {
        Bound::Positive => "> 0".into(),
        Bound::NonNegative | Bound::FiniteNonNegative => ">= 0".into(),
        Bound::AtLeast(x) => format!(">= {x}"),
        Bound::Within(lo, hi) => format!("[{lo}, {hi}]"),
        Bound::WithinHalfOpen(lo, hi) => format!("[{lo}, {hi})"),
        Bound::PositiveSeconds => "> 0".into(),
    }
}

fn int_words(min: i64, max: i64) -> String {
    if max == i64::MAX {
        format!(">= {min}")
    } else {
        format!("[{min}, {max}]")
    }
}

fn within(b: Bound, v: f64) -> bool {
    v.is_finite()
        && match b {
            Bound::Positive | Bound::PositiveSeconds => v > 0.0,
            Bound::NonNegative | Bound::FiniteNonNegative => v >= 0.0,
            Bound::AtLeast(x) => v >= x,
            Bound::Within(lo, hi) => (lo..=hi).contains(&v),
            Bound::WithinHalfOpen(lo, hi) => (lo..hi).contains(&v),
        }
}

impl Kind {
    /// The type column of the docs.
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::Int { .. } => "integer",
            Kind::Ms { .. } => "integer (ms)",
            Kind::Num(_) => "number",
            Kind::Word(_) | Kind::Policy => "enum",
            Kind::Bool => "boolean",
        }
    }

    /// The range column of the docs.
    pub fn range(self) -> String {
        match self {
            Kind::Int { min, max } | Kind::Ms { min, max } => int_words(min, max),
            Kind::Num(b) => bound_words(b),
            Kind::Word(words) => words.join(", "),
            Kind::Bool => "true, false".into(),
            Kind::Policy => System::ALIASES.map(|(a, _)| a).join(", "),
        }
    }

    /// What an error says the value must be.
    pub fn expected(self) -> String {
        let or = |w: &[&str]| match w.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => w.concat(),
        };
        match self {
            Kind::Int { min, max } | Kind::Ms { min, max } if max == i64::MAX => format!("an integer >= {min}"),
            Kind::Int { min, max } | Kind::Ms { min, max } => format!("an integer in [{min}, {max}]"),
            Kind::Num(b) => match b {
                Bound::Within(..) | Bound::WithinHalfOpen(..) => format!("a number in {}", bound_words(b)),
                _ => format!("a number {}", bound_words(b)),
            },
            Kind::Word(words) => or(words),
            Kind::Bool => "true or false".into(),
            Kind::Policy => or(&System::ALIASES.map(|(a, _)| a)),
        }
    }

    /// Parses `text` (trimmed), or `None` when it is not such a value.
    pub fn parse(self, text: &str) -> Option<Parsed> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        match self {
            Kind::Int { min, max } | Kind::Ms { min, max } => {
                t.parse::<i64>().ok().filter(|v| (min..=max).contains(v)).map(Parsed::Int)
            }
            Kind::Num(b) => t.parse::<f64>().ok().filter(|&v| within(b, v)).map(Parsed::Num),
            Kind::Word(words) => words.iter().find(|w| **w == lower).map(|w| Parsed::Word(w)),
            Kind::Bool => match lower.as_str() {
                "true" => Some(Parsed::Bool(true)),
                "false" => Some(Parsed::Bool(false)),
                _ => None,
            },
            Kind::Policy => t.parse::<System>().ok().filter(|s| System::DRIVER.contains(s)).map(Parsed::Policy),
        }
    }
}

impl Key {
    /// The default as the docs show it.
    pub fn default_text(&self) -> String {
        match (self.get)(&EngineSettings::default()) {
            Value::Null => format!("({})", self.unset.unwrap_or("none")),
            Value::String(s) => s,
            v => v.to_string(),
        }
    }

    /// The range as the docs show it.
    pub fn range_text(&self) -> String {
        self.range.map_or_else(|| self.kind.range(), str::to_string)
    }
}

/// The key named `name` (relative to [`SPARK_PREFIX`]).
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

impl EngineSettings {
    /// Decodes and validates `(key, value)` pairs, keys relative to [`SPARK_PREFIX`]; an
    /// absent key keeps its default. The one place a Spark setting of the engine is read.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, ConfigError> {
        let mut s = EngineSettings::default();
        for (name, text) in pairs {
            let k = key(name).ok_or_else(|| ConfigError::UnknownKey(name.to_string()))?;
            let v = k.kind.parse(text).ok_or_else(|| ConfigError::BadValue {
                key: k.name,
                value: text.trim().to_string(),
                expected: k.kind.expected(),
            })?;
            (k.set)(&mut s, v);
        }
        if s.delay.max < s.delay.min {
            return Err(ConfigError::BadValue {
                key: "dds.maxWaitMs",
                value: keys::ms(s.delay.max).to_string(),
                expected: format!("an integer >= {SPARK_PREFIX}dds.minWaitMs ({})", keys::ms(s.delay.min)),
            });
        }
        s.driver.validate()?;
        s.delay.validate()?;
        Ok(s)
    }

    /// The delay parameters with Spark's initial waits (ms: process, node, rack).
    pub fn delay_params(&self, initial_ms: [i64; 3]) -> Result<DelayParams, ConfigError> {
        let mut d = self.delay.clone();
        let levels = crate::driver::STATUS_LEVELS;
        d.initial = [0.0; 5];
        for (l, ms) in levels.iter().zip(initial_ms) {
            if ms < 0 {
                return Err(ConfigError::out_of_range("initial wait", ms as f64, Bound::NonNegative));
            }
            d.initial[*l as usize] = ms as f64 / 1000.0;
        }
        d.validate()?;
        Ok(d)
    }

    /// Every key and its value, in [`KEYS`] order (the run summary's `config`); an unset
    /// key shows what that means.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for k in KEYS {
            let v = match (k.get)(self) {
                Value::Null => k.unset.map_or(Value::Null, |u| Value::String(u.into())),
                v => v,
            };
            m.insert(k.name.to_string(), v);
        }
        Value::Object(m)
    }
}

/// The key table as JSON: `[{"name", "default", "type", "range", "doc"}, ...]`.
pub fn keys_json() -> String {
    let rows: Vec<Value> = KEYS
        .iter()
        .map(|k| {
            json!({"name": k.name, "default": k.default_text(), "type": k.kind.type_name(),
                   "range": k.range_text(), "doc": k.doc})
        })
        .collect();
    Value::Array(rows).to_string()
}

/// Class by name, as the `defaultClass` key spells it.
pub(crate) fn class_name(c: Class) -> &'static str {
    match c {
        Class::Short => "short",
        Class::Long => "long",
    }
}

#[cfg(test)]
mod tests;
