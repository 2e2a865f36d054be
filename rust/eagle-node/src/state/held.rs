//! eagle-adaptive's hold on a node: the rule the driver engine applies to its own slots
//! ([`eagle_core::adaptive::hold`]), applied to the host's. On a small cluster every slot of a host
//! can hold long work; the moment a short job's last task here ends, the slot would go to
//! the long work queued here, and the same application's next short job (an interactive
//! user's next query, whose probes go first to the hosts that ran its last one) waits for a
//! long task to end.
//!
//! - **When.** A short job's last lease here ends (nothing of it queued or leased here)
//!   while long work is queued here; or while none is, when long work was placed here within
//!   the reservation's `idle`: then a long placement within the window finds the slots held,
//!   and the hold is charged from that placement on (the driver's rule with nothing waiting).
//! - **Size.** The most slots the job held here at once, at most `max_fraction` of the
//!   host's slots (at least one), and only beyond the slots the central keeps for short
//!   work (`ShortSlots`).
//! - **Window.** eagle-core's: the 0.9 quantile of the gaps seen here between such an end
//!   and the next short probe (a probe of the same job again teaches none), plus 0.2 s, at
//!   most `hold_max`.
//! - **Budget.** Held slot-seconds at most `hold_fraction` of the slot-seconds the host's
//!   long leases held over the reservation window ([`LongWork`]): the long work pays for the
//!   holds kept from it, in proportion to what it has run here. Long work placed on a host a
//!   moment ago has paid for none: short work has the short partition, and a slot held from
//!   long work that just came would cost it a whole window for a probe that finds another.
//! - **Effect.** Long work may take only the free slots beyond those held
//!   ([`NodeState::long_room`]); a short probe that finds a held slot is queued instead of
//!   rejected (Succinct State Sharing spares it), and the first short probe ends the hold.
//!   When the window passes with no probe, the next tick gives the slots to the long work.
//!
//! Invariants: a hold never keeps a slot from short work, nor more than the cap from long
//! work; nothing is held under the other policies or with `hold_max` or `hold_fraction` 0.

use super::{ConnId, Ms, NodeState, Policy, Settings};
use eagle_core::adaptive::hold::Hold;
use eagle_core::adaptive::windowed::Windowed;
use eagle_core::types::JobId;
use eagle_core::Config;

fn secs(now: Ms) -> f64 {
    now as f64 / 1000.0
}

/// The hold of a node running `settings`' policy under `cfg` (eagle-adaptive only).
pub(super) fn hold_for(settings: &Settings, cfg: &Config) -> Option<Hold> {
    let a = &cfg.adaptive;
    (settings.policy == Policy::EagleAdaptive && a.hold_max > 0.0 && a.hold_fraction > 0.0)
        .then(|| Hold::new(a.hold_max, a.hold_fraction, a.window))
}

/// The slot-seconds the host's long leases held over the last window, integrated from one
/// event to the next: what pays for the holds.
#[derive(Debug)]
pub(super) struct LongWork {
    held: Windowed,
    mark: Option<Ms>,
    window_ms: f64,
}

impl LongWork {
    pub(super) fn new(cfg: &Config) -> LongWork {
        let window_ms = cfg.adaptive.window * 1000.0;
        LongWork { held: Windowed::new(window_ms), mark: None, window_ms }
    }

    /// `slots` long slots were held from the last event until `now`.
    fn advance(&mut self, now: Ms, slots: u32) {
        let since = self.mark.replace(now).unwrap_or(now);
        self.held.add(now as f64, slots as f64 * now.saturating_sub(since) as f64);
    }

    /// The slots long work held on average over the window before `now`.
    fn mean_slots(&self, now: Ms) -> f64 {
        self.held.total(now as f64) / self.window_ms
    }
}

impl NodeState {
    /// Counts the long leases' slots since the last event (call before the event changes them);
    /// nothing to count where the policy holds nothing.
    pub(super) fn count_long_work(&mut self, now: Ms) {
        if self.hold.is_none() {
            return;
        }
        let slots = self.leases.values().filter(|l| l.long).map(|l| l.cpus).sum();
        self.long_work.advance(now, slots);
    }

    /// Slots held free for short work at `now` (0 once the window has passed).
    pub(super) fn held(&mut self, now: Ms) -> u32 {
        self.hold.as_mut().map_or(0, |h| h.held(secs(now)))
    }

    /// A short probe of `cpus`-slot tasks finds enough held slots free.
    pub(super) fn admits_held(&mut self, now: Ms, cpus: u32) -> bool {
        self.held(now) >= cpus && self.node.free >= cpus
    }

    /// A short probe of `conn`'s `job` arrived: the hold ends, and the gap since the short job
    /// that opened it ended is learned, unless this is that job again.
    pub(super) fn short_arrived(&mut self, now: Ms, conn: ConnId, job: u64) {
        let Some(hold) = self.hold.as_mut() else { return };
        hold.arrived(secs(now));
        if self.hold_ended.take() == Some((conn, job)) {
            hold.not_a_new_unit();
        }
    }

    /// Long work was placed here: an open hold keeps its slots from it, charged from now.
    pub(super) fn long_placed(&mut self, now: Ms) {
        self.last_long = Some(now);
        if let Some(hold) = self.hold.as_mut() {
            hold.larger_arrived(secs(now));
        }
    }

    /// A short lease of `job` ended: if nothing of the job is left here, and long work is
    /// queued here or was placed here within `idle`, its slots are held for the next short
    /// probe.
    pub(super) fn maybe_hold(&mut self, now: Ms, job: JobId) {
        let Some(j) = self.jobs[job.0 as usize].as_ref() else { return };
        // (A stolen job's probes go to other hosts: its next one is not expected here.)
        if j.queued > 0 || j.leases > 0 || j.stolen {
            return;
        }
        let waiting = self.node.queued_long > 0;
        let lately = self.last_long.is_some_and(|t| (now.saturating_sub(t) as f64) <= self.idle_ms);
        if !waiting && !lately {
            return;
        }
        let (peak, key) = (j.peak, (j.conn, j.id));
        let (slots, cap, kept) = (self.long_work.mean_slots(now), self.hold_cap, self.short_slots);
        let Some(hold) = self.hold.as_mut() else { return };
        if waiting {
            hold.small_ended(secs(now), peak, slots, cap, kept);
        } else {
            hold.small_ended_alone(secs(now), peak, slots, cap, kept);
        }
        self.hold_ended = Some(key);
    }

    /// Holds opened here, and those a short probe used before their window passed.
    pub fn holds(&self) -> (u64, u64) {
        self.hold.as_ref().map_or((0, 0), |h| (h.opened, h.used))
    }
}
