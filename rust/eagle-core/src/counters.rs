//! The counters every host reports (simulator JSON, plugin summary), Eirene's among them
//! (CCDM and SATC, Eirene §4-5). Plain numbers, kept by the policies and read by the drivers.

use serde::Serialize;

/// Counters every host can report (simulator JSON, plugin summary).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Launch decisions (task handed to a slot).
    pub decisions: u64,
    /// Probes and reservations enqueued on nodes.
    pub probes_placed: u64,
    /// Probes refused by SSS because the node held long work.
    pub probes_rejected_sss: u64,
    /// Short probes that queued behind long work the node already held, or that
    /// was already placed on it, when the probe was sent (Eagle: always 0; Hawk and
    /// Sparrow: SSS is off, every short probe queued behind long work counts here).
    pub probes_behind_long: u64,
    /// Eagle (SSS on): short probes accepted for a node free of long work that a long
    /// reservation placed *after* the probe left reached first (a round-2 or fallback
    /// probe flies 2 network delays, a reservation 1). The reference simulator decides
    /// acceptance at send time too, and counts these as queued behind long.
    pub probes_overtaken_by_long: u64,
    /// Short tasks launched from a probe that had queued behind long work.
    pub short_tasks_after_hol: u64,
    /// Probes re-sent in an SSS round after the first.
    pub rescheduled_probes: u64,
    /// Probes that fell back to the short-only partition.
    pub fallback_probes: u64,
    /// Probes moved by work stealing.
    pub stolen_probes: u64,
    /// SRPT picks that bypassed at least one probe ahead (adaptive: a job with
    /// waiting tasks and less remaining work).
    pub srpt_bypasses: u64,
    /// Task fetches that found the job had nothing left.
    pub empty_fetches: u64,
    /// Driver mode: launches for a job that held no reservation on the node.
    pub backfills: u64,
    /// Driver mode: launches the host declined.
    pub declines: u64,
    /// Driver mode: long attempts killed for a short job that waited past the bound
    /// ([`crate::adaptive::preempt`]).
    pub preemptions: u64,
    /// Their run time when killed (the work lost), milliseconds.
    pub preempted_ms: u64,
    /// Eirene, when a scheme is on.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub eirene: Option<EireneCounters>,
}

/// What Eirene did (reported under the host's counters when a scheme is on).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EireneCounters {
    /// Tasks (primary or clone) that read input migrated by CCDM.
    pub ccdm_helped: u64,
    /// Migrations started (MQ and fast lane).
    pub migrations: u64,
    /// Clones launched by SATC.
    pub clones_launched: u64,
    /// Clones that ended before their primary.
    pub clones_won: u64,
    /// Clones cancelled because their primary ended first.
    pub clones_wasted: u64,
}
