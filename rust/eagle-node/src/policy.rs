//! The queue policies a node daemon runs (`eagle-node --policy`).
//!
//! * **eagle**: SBP + SRPT with the starvation cap; a short probe arriving while the
//!   host holds long work (queued or leased) is rejected with the node's copy of the
//!   central's bitvector (Succinct State Sharing, §3.1).
//! * **eagle-adaptive**: Eagle without two of its rigid rules. (1) A short probe that
//!   reaches a host holding long work is still rejected, unless a slot is free and nothing
//!   waits there: then it is granted at once (the paper rejects it, and the slot idles until
//!   long work comes); or unless the host's leases are expected to free a slot for it (after
//!   the short work queued there) within `adaptive.min_wait` and no long task queued there
//!   has waited that long: then it is queued. Either way it is not sticky there, so the job's
//!   next task never waits behind long work unbounded (the driver's client probes again when
//!   that task ends, and the same rule decides). (2) Queued long work is served by SRPT within the starvation cap
//!   instead of FIFO ([`eagle_core::eagle::srpt::pick_short_first`]): a long task set of two tasks
//!   no longer waits behind one of forty placed before it, which is what a static split of
//!   the cluster between applications gives operators today. Short work still goes first,
//!   until a long entry has waited its starvation cap. (3) The cap of a short probe counts
//!   only once the probe has waited `adaptive.min_wait` (1 s, the driver engine's floor) of
//!   wall time since it was queued or last served; before that, any probe of less remaining
//!   work may pass it, whatever its estimate. Its probe stays for its job's whole life (SBP),
//!   and Algorithm 1's test (a probe passes only if its estimate fits in 5 × the waiting
//!   one's, minus the delay already charged) kept every small job of 20 ms tasks behind a big
//!   job of 3 ms tasks until all of the big one's tasks had run here. Now small jobs pass a
//!   big one for a second at a time, and the big one is served at least once a second. A job
//!   served under its cap with at most one second of the host's slots of work left stays
//!   protected until its probe leaves, so its last tasks go at full width, not one a second.
//!   (4) A slot a task frees that would go to long work first serves the short probes
//!   waiting on the peers, within a budget ([`crate::state`]'s `steal` module). (5) Short
//!   work passes waiting long work for at most `adaptive.min_wait` at a stretch: then the
//!   long work is due and takes the next slot while short work holds its share of the host
//!   (`floor((1 − long_share) × slots)`), before queued, stolen and held-for short work.
//! * **hawk**: FIFO, one grant per probe, short probes queue behind long work; a node
//!   left with a free slot and an empty queue asks random peers for the short probes
//!   blocked behind their long work (work stealing, [`eagle_core::eagle::steal`]).
//! * **sparrow**: FIFO, one grant per probe, no rejection, no stealing.
//!

use eagle_core::{ConfigError, System};

/// The policy a node runs: the engine's one policy name, one of [`NODE_POLICIES`].
pub use eagle_core::System as Policy;

/// The policies a node daemon runs.
pub const NODE_POLICIES: [System; 4] = [System::Eagle, System::EagleAdaptive, System::Hawk, System::Sparrow];

/// Parses `--policy`: a policy name (or alias) the node runs, else an error naming it and
/// [`NODE_POLICIES`].
pub fn parse(s: &str) -> Result<System, ConfigError> {
    s.parse::<System>()?.require("eagle-node", &NODE_POLICIES)
}

/// The paper system whose switches (SRPT, SBP, SSS, stealing) the node starts from.
pub(crate) fn switches(p: System) -> System {
    match p {
        System::EagleAdaptive => System::Eagle,
        other => other,
    }
}
