//! The one name of every scheduling policy: parsed and printed here only.
//!
//! The simulator runs them all; the Spark driver and the node daemon run subsets and say so
//! through [`System::require`]. The Spark key `spark.scheduler.eagle.policy` also accepts
//! the aliases its users set: `paper` (Eagle as published) and `adaptive` (eagle-adaptive).

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The scheduling system. All share one engine; the flags of the engine's `Config` differ.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum System {
    /// Sparrow: batch sampling of 2t probes over all nodes, late binding, FIFO queues.
    Sparrow,
    /// Hawk: centralized LWL for long jobs, Sparrow probing for short ones, work stealing.
    Hawk,
    /// Eagle: SSS + retry rounds + SBP + SRPT with starvation cap, max(K, 2t) probes.
    #[serde(alias = "paper")]
    Eagle,
    /// Yaq-D style distributed LWL with heartbeat-stale queue state, SRPT queues.
    Dlwl,
    /// Omniscient centralized LWL for every task, same partitions, FIFO queues.
    Clwl,
    /// eagle-adaptive: exact central SRPT over (query) remaining work, a floating
    /// slot-level short reservation sized from the observed load, a starvation deadline
    /// (see [`crate::policy::adaptive`]). What the Spark plugin runs by default.
    #[serde(rename = "eagle-adaptive", alias = "adaptive")]
    EagleAdaptive,
}

impl System {
    pub const ALL: [System; 6] =
        [System::Sparrow, System::Hawk, System::Eagle, System::Dlwl, System::Clwl, System::EagleAdaptive];

    /// What the Spark driver runs.
    pub const DRIVER: [System; 2] = [System::Eagle, System::EagleAdaptive];

    /// Other names accepted for a system: the values of the Spark key `policy`.
    pub const ALIASES: [(&'static str, System); 2] = [("adaptive", System::EagleAdaptive), ("paper", System::Eagle)];

    pub fn name(self) -> &'static str {
        match self {
            System::Sparrow => "sparrow",
            System::Hawk => "hawk",
            System::Eagle => "eagle",
            System::Dlwl => "dlwl",
            System::Clwl => "clwl",
            System::EagleAdaptive => "eagle-adaptive",
        }
    }

    /// The alias of [`System::ALIASES`] that names `self`, else its name (the Spark key's
    /// value as printed in the run summary).
    pub fn alias(self) -> &'static str {
        System::ALIASES.iter().find(|(_, s)| *s == self).map_or(self.name(), |(a, _)| a)
    }

    /// `self` if `allowed` holds it, else an error naming `component`, `self` and `allowed`.
    pub fn require(self, component: &'static str, allowed: &'static [System]) -> Result<System, ConfigError> {
        if allowed.contains(&self) {
            Ok(self)
        } else {
            Err(ConfigError::PolicyNotRun { component, policy: self.name(), allowed: list(allowed) })
        }
    }
}

impl fmt::Display for System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for System {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = System::ALIASES.iter().find(|(a, _)| *a == lower).map(|(_, s)| *s);
        alias
            .or_else(|| System::ALL.iter().copied().find(|x| x.name() == lower))
            .ok_or_else(|| ConfigError::UnknownSystem(s.to_string()))
    }
}

/// Names `allowed` as the error messages do: `a, b or c`.
pub fn list(allowed: &[System]) -> String {
    let names: Vec<&str> = allowed.iter().map(|s| s.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_to_one_enum() {
        for s in System::ALL {
            assert_eq!(s.name().parse::<System>().unwrap(), s);
            assert_eq!(s.to_string().parse::<System>().unwrap(), s);
        }
        assert_eq!("paper".parse::<System>().unwrap(), System::Eagle);
        assert_eq!("Adaptive".parse::<System>().unwrap(), System::EagleAdaptive);
        assert_eq!((System::Eagle.alias(), System::Hawk.alias()), ("paper", "hawk"));
        let e = "lifo".parse::<System>().unwrap_err().to_string();
        assert!(e.contains("'lifo'"), "{e}");
        let e = System::Hawk.require("the Spark driver", &System::DRIVER).unwrap_err().to_string();
        assert!(e.contains("hawk") && e.contains("eagle or eagle-adaptive"), "{e}");
        assert_eq!(serde_json::from_str::<System>("\"paper\"").unwrap(), System::Eagle);
    }
}
