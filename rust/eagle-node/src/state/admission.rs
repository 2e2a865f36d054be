//! Where a probe or a long task may go on this node beyond the policy's pick: eagle-adaptive's
//! admission of short probes beside long work (Eagle §3.1's Succinct State Sharing, bounded by
//! the driver engine's `adaptive.min_wait`), and the room the central's kept short slots leave
//! to long work (`ShortSlots`, see the parent module's "Short slots").

use super::{Ms, NodeState, LEND_AFTER_MS};

impl NodeState {
    /// eagle-adaptive: a short probe of `cpus`-slot tasks finds enough free slots and an
    /// empty queue, so its grant comes now, before any long work could take the slot.
    pub(super) fn admits_at_once(&self, cpus: u32) -> bool {
        self.adaptive && self.node.free >= cpus && self.node.queue.is_empty()
    }

    /// eagle-adaptive: a short probe of `cpus`-slot tasks reaching a host that holds long
    /// work is queued here, not rejected, when enough slots for it are expected to free within
    /// `min_wait` (the wait a short task is already allowed, 1 s): the short work queued here
    /// first (a probe served once beside long work takes one turn, a sticky one all its tasks
    /// left) and then this probe, in the order the host's leases are expected to end (a lease's
    /// estimate less its time so far; one past its estimate is counted a whole estimate more,
    /// one without an estimate never).
    ///
    /// The paper rejects it (§3.1), and its job then re-probes the hosts the bitvector shows
    /// free of long work: on a small cluster the short partition, which a burst of short jobs
    /// can keep busy for seconds while long tasks that are about to end hold every other slot
    /// (testbed: jobs confined to the one short host waited 5-6 s, where queueing
    /// behind a 0.85 s long task would have cost under 0.9 s). The bound keeps the guarantee's
    /// point: a short task waits behind long work at most `min_wait` by the estimates, never
    /// behind a long task that has far to go. Its grant is not sticky ([`Self::grant`]), so it
    /// takes one slot-turn from the long work here, as [`Self::admits_at_once`]'s does.
    ///
    /// Long work is protected the same way short work is, in wall time: while a long job's
    /// entry queued here has waited `min_wait` or more (since the first of its entries now
    /// queued here was placed), no probe is queued beside it, so short work passes long work
    /// only in the first second of its wait here and a burst of short probes cannot keep a
    /// long queue waiting. Without that bound (testbed) short jobs of 400-500
    /// tasks took general slots turn after turn, probe after probe, and long jobs of a few
    /// short tasks placed behind them waited 9 s where the static split ran them in 0.5 s: the
    /// long p50 rose to 1.58x the static split's at ratio 1.2. (Bounding the short job's size
    /// instead was worse for both classes.)
    pub(super) fn admits_soon(&self, now: Ms, cpus: u32) -> bool {
        if !self.adaptive || cpus > self.settings.slots {
            return false;
        }
        let floor = self.min_wait_ms;
        let overdue = self.node.queue.iter().any(|e| {
            e.long && self.jobs[e.job.0 as usize].as_ref().is_some_and(|j| now.saturating_sub(j.since) as f64 >= floor)
        });
        if overdue {
            return false;
        }
        let mut need = cpus;
        for e in self.node.queue.iter().filter(|e| !e.long) {
            let j = self.jobs[e.job.0 as usize].as_ref().unwrap();
            need += j.cpus * if e.sticky { j.tasks.max(1) } else { 1 };
        }
        if self.node.free >= need {
            return true;
        }
        let mut ends: Vec<(f64, u32)> = self
            .leases
            .values()
            .map(|l| {
                let ran = now.saturating_sub(l.granted) as f64;
                let left = match l.est {
                    e if e <= 0.0 => f64::INFINITY, // no estimate: not known to end soon
                    e if ran < e => e - ran,
                    e => e,
                };
                (left, l.cpus)
            })
            .collect();
        ends.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut freed = self.node.free;
        for (left, slots) in ends {
            if left > floor {
                return false;
            }
            freed += slots;
            if freed >= need {
                return true;
            }
        }
        false
    }

    /// eagle-adaptive: whether long work waiting here is due, and takes the next slot it fits
    /// before short work: short work has passed it (local probes, stolen ones) for
    /// `min_wait` of wall time since a long task last started here, and short leases
    /// already hold `floor((1 − long_share) × slots)` slots (1 of 2). So short work passes
    /// waiting long work in bursts of at most `min_wait`, as admission bounds it for new
    /// probes ([`Self::admits_soon`]), and keeps the rest of the host meanwhile; no steal
    /// goes before due long work. Without it, the steal's budget (a share of the host over
    /// a minute) let stolen short tasks hold both slots of a host for seconds while a
    /// one-task long job queued there waited.
    pub(super) fn long_due(&mut self, now: Ms) -> bool {
        if self.node.queued_long == 0 {
            self.long_passed = None;
        }
        let Some(since) = self.long_passed else { return false };
        if !self.adaptive || (now.saturating_sub(since) as f64) < self.min_wait_ms {
            return false;
        }
        let short: u32 = self.leases.values().filter(|l| !l.long).map(|l| l.cpus).sum();
        short >= self.short_cap
    }

    /// The slots long work may still take here: while the central keeps short slots
    /// (`ShortSlots`), the host's slots less those and the long leases; while a hold keeps
    /// `held` slots free ([`super::held`]), the free slots less those; `None` when neither
    /// applies (the central's kept slots are lent once short work has been away for
    /// [`LEND_AFTER_MS`]).
    pub(super) fn long_room(&self, now: Ms, held: u32) -> Option<u32> {
        let away = self.last_short.is_none_or(|t| now.saturating_sub(t) >= LEND_AFTER_MS);
        let kept = if self.short_slots == 0 || (away && self.node.queue.iter().all(|e| e.long)) {
            None
        } else {
            let long: u32 = self.leases.values().filter(|l| l.long).map(|l| l.cpus).sum();
            Some(self.settings.slots.saturating_sub(self.short_slots + long))
        };
        if held == 0 {
            return kept;
        }
        let room = self.node.free.saturating_sub(held);
        Some(kept.map_or(room, |k| k.min(room)))
    }
}
