//! Hosts a long task set cannot get a slot on, for Spark's delay scheduling.
//!
//! In cluster mode the central places long tasks over the general partition only (Eagle
//! §3.1: the short partition is for short work alone), and Spark launches a task only
//! under a grant. A long task whose input is on a short-only host (a block cached there,
//! a reduce task's map output, a file's replica) can therefore never run where its input
//! is, yet Spark's delay scheduling, and Dynamic Delay Scheduling which starts from
//! Spark's waits, held it back for that locality: the general hosts' grants went back
//! unused for a whole locality wait (3 s by default) before the task ran remotely anyway.
//! The central tells every driver its short-only hosts (`ShortOnly`, protocol version 8),
//! and the plugin leaves them out of the locations a long task set waits for.
//!
//! Only while the central places the task set: with the central down, or with no general
//! host among the application's executors, or with Spark restricting the task set to some
//! executors, the driver may place it itself on any of its hosts, so nothing is left out.

use super::ClusterSide;
use eagle_core::{JobId, NodeId};

impl ClusterSide {
    /// The central's short-only hosts changed (`ShortOnly`).
    pub(super) fn set_short_only(&mut self, hosts: Vec<String>) {
        self.short_only = hosts.into_iter().collect();
    }

    /// The executors where `job` cannot get a slot now, so none of its tasks should wait to
    /// run there: those on short-only hosts while `job` is long, the central places it (it
    /// is up and the application has an executor on a linked general host) and Spark lets it
    /// run on every executor. Empty otherwise.
    pub fn out_of_reach(&mut self, job: JobId) -> Vec<NodeId> {
        self.drain();
        if !self.central_up
            || self.short_only.is_empty()
            || !self.long.contains(&job)
            || self.restricted.contains_key(&job)
        {
            return Vec::new();
        }
        let general_up = self.executors_on.keys().any(|h| self.up.contains(h) && !self.short_only.contains(h));
        if !general_up {
            return Vec::new();
        }
        let mut out: Vec<NodeId> =
            self.host_of.iter().filter(|(_, h)| self.short_only.contains(*h)).map(|(n, _)| *n).collect();
        out.sort();
        out
    }
}
