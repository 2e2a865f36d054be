//! Engine configuration: which system to run and its parameters.
//!
//! Defaults follow the Eagle paper (§5, §6) and the parameter lines of the reference
//! simulator's `simulation/README.md` (epfl-labos/eagle).

use crate::error::{Bound, ConfigError};
pub use crate::system::System;
use serde::{Deserialize, Serialize};

/// Every knob of the engine. Build one with [`Config::for_system`] and adjust.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub system: System,
    /// Scheduling cutoff in seconds: a job whose estimated task duration exceeds it is long.
    pub cutoff: f64,
    /// Percent of nodes, counted from node 0, where short tasks may run (reference arg 6).
    pub small_partition_pct: f64,
    /// Percent of nodes, counted from the highest id, where long tasks may run (reference arg 7).
    /// The nodes below it form the short-only partition.
    pub big_partition_pct: f64,
    /// Minimum number of probes per short job (K, Eagle §3.2). 20 for Eagle, 2 elsewhere.
    pub min_probes: u32,
    /// Probes per task (the "2" of max(K, 2t)).
    pub probe_ratio: u32,
    /// One-way network delay in seconds (reference: 0.5 ms). Zero in the Spark plugin.
    pub network_delay: f64,
    /// SRPT starvation cap: a probe may be bypassed while its accumulated delay stays
    /// within `starvation_factor × its own estimated task duration` (Eagle Algorithm 1).
    pub starvation_factor: f64,
    /// Probing rounds with SSS before the fallback to the short-only partition (reference: 2).
    pub sss_rounds: u32,
    /// DLWL heartbeat period in seconds.
    pub heartbeat: f64,
    /// Hawk stealing: victims tried per idle node, and probes taken per steal.
    pub steal_attempts: u32,
    pub steal_limit: u32,
    /// Feature switches; [`Config::for_system`] sets them.
    pub srpt: bool,
    pub sbp: bool,
    pub sss: bool,
    pub stealing: bool,
    /// Place long jobs' tasks with centralized LWL (Hawk, Eagle) instead of probing (Sparrow).
    pub centralized_long: bool,
    /// Place every job by LWL (CLWL exact, DLWL heartbeat-stale).
    pub lwl_all: bool,
    /// Driver mode (Spark plugin): exact state instead of stale bitvectors, one probe per
    /// node per job, slots are pulled only through [`crate::policy::Policy::offer`], and an idle slot
    /// whose queue is empty backfills from any eligible job (no slot idles while work waits).
    pub driver: bool,
    /// Simulator locality mode: jobs submitted with input-block locations wait for a
    /// node-local slot according to these (fixed or adaptive) delays.
    pub locality: Option<crate::locality::delay::DelayParams>,
    /// eagle-adaptive: the reservation and starvation knobs.
    #[serde(default)]
    pub adaptive: crate::adaptive::reservation::AdaptiveParams,
    /// Eirene's CCDM and SATC (simulator; both off by default).
    #[serde(default)]
    pub eirene: crate::eirene::EireneParams,
}

impl Config {
    /// The reference parameter line for `system` on the Yahoo trace family.
    pub fn for_system(system: System) -> Config {
        let mut c = Config {
            system,
            cutoff: 90.5811,
            small_partition_pct: 100.0,
            big_partition_pct: 98.0,
            min_probes: 2,
            probe_ratio: 2,
            network_delay: 0.0005,
            starvation_factor: 5.0,
            sss_rounds: 2,
            heartbeat: 8.0,
            steal_attempts: 10,
            steal_limit: 10_000,
            srpt: false,
            sbp: false,
            sss: false,
            stealing: false,
            centralized_long: false,
            lwl_all: false,
            driver: false,
            locality: None,
            adaptive: Default::default(),
            eirene: Default::default(),
        };
        match system {
            System::Sparrow => {
                c.big_partition_pct = 100.0;
            }
            System::Hawk => {
                c.stealing = true;
                c.centralized_long = true;
            }
            System::Eagle => {
                c.min_probes = 20;
                c.srpt = true;
                c.sbp = true;
                c.sss = true;
                c.centralized_long = true;
            }
            System::Dlwl => {
                c.srpt = true;
                c.lwl_all = true;
                c.centralized_long = true;
            }
            System::Clwl => {
                c.centralized_long = true;
                c.lwl_all = true;
            }
            System::EagleAdaptive => {
                // Central exact SRPT: no probes, partitions or reservations of the paper.
                c.srpt = true;
                c.big_partition_pct = 100.0;
                // Demand is observed over ten cutoffs of trace time (the cutoff sets the
                // time scale of a workload); the plugin sets its own window.
                c.adaptive.window = 10.0 * c.cutoff;
                c.adaptive.idle = 5.0 * c.cutoff;
            }
        }
        c
    }

    /// Eagle as the Spark plugin runs it: exact driver state, no network delay.
    pub fn driver(cutoff: f64, short_partition_fraction: f64) -> Config {
        let mut c = Config::for_system(System::Eagle);
        c.cutoff = cutoff;
        c.small_partition_pct = 100.0;
        c.big_partition_pct = 100.0 * (1.0 - short_partition_fraction);
        c.network_delay = 0.0;
        c.driver = true;
        c
    }

    /// Rejects values that would make the engine misbehave, naming the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let pct = |key: &'static str, v: f64| {
            if !(0.0..=100.0).contains(&v) || v.is_nan() {
                Err(ConfigError::out_of_range(key, v, Bound::Within(0.0, 100.0)))
            } else {
                Ok(())
            }
        };
        pct("small_partition_pct", self.small_partition_pct)?;
        pct("big_partition_pct", self.big_partition_pct)?;
        if self.cutoff.is_nan() {
            return Err(ConfigError::NotANumber { key: "cutoff" });
        }
        if self.network_delay.is_nan() || self.network_delay < 0.0 {
            return Err(ConfigError::out_of_range("network_delay", self.network_delay, Bound::NonNegative));
        }
        if self.starvation_factor.is_nan() || self.starvation_factor < 0.0 {
            return Err(ConfigError::out_of_range("starvation_factor", self.starvation_factor, Bound::NonNegative));
        }
        if self.probe_ratio == 0 {
            return Err(ConfigError::Invalid { key: "probe_ratio", bound: Bound::AtLeast(1.0) });
        }
        if self.sss_rounds == 0 {
            return Err(ConfigError::Invalid { key: "sss_rounds", bound: Bound::AtLeast(1.0) });
        }
        self.adaptive.validate()?;
        self.eirene.validate()?;
        if self.eirene.on() && (self.driver || self.locality.is_some()) {
            return Err(ConfigError::EireneOutsideSimulator);
        }
        if self.heartbeat.is_nan() || self.heartbeat < 0.0 {
            return Err(ConfigError::out_of_range("heartbeat", self.heartbeat, Bound::NonNegative));
        }
        Ok(())
    }
}
