//! The central scheduler's link (Eagle SoCC'16 §3.2): long task sets go to it
//! (`SubmitLong`), with what it places against (this driver's executor hosts, its short
//! load); tasks it could not place are asked again, then placed locally; while it is
//! unreachable, local LWL takes them.

use super::{State, CENTRAL};
use crate::books::CENTRAL_RETRIES;
use crate::link::LinkEvent;
use crate::Event;
use eagle_wire::{FromCentral, ToCentral};

impl State {
    /// Tells the central the hosts where this application has executors and a node link
    /// now, when they changed since the last report: it places long tasks only there.
    pub(super) fn report_executors(&mut self) {
        if !self.central_up || !self.executors_stale {
            return;
        }
        self.executors_stale = false;
        // `hosts` is keyed by link id; the central wants names, in a stable order.
        let mut on: Vec<String> = self.hosts.values().filter(|h| h.up).map(|h| h.name.clone()).collect();
        on.sort();
        if self.executors_sent.as_ref() != Some(&on) {
            self.writers.send(CENTRAL, &ToCentral::Executors { hosts: on.clone() });
            self.executors_sent = Some(on);
            self.executors_epoch += 1;
            // Tasks it could not place (e.g. against the empty list it had before the
            // first host linked up) may fit now: ask again without waiting for the tick.
            self.retry_unplaced();
        }
    }

    /// Sends the long tasks the central could not place to it again, or, once it was asked
    /// [`CENTRAL_RETRIES`] times or is down, places them locally.
    pub(super) fn retry_unplaced(&mut self) {
        let unplaced: Vec<u64> = self.jobs.iter().filter(|(_, j)| j.unplaced > 0).map(|(&id, _)| id).collect();
        for job in unplaced {
            let central_up = self.central_up;
            let j = self.jobs.get_mut(&job).unwrap();
            let n = std::mem::take(&mut j.unplaced);
            if central_up && j.central_tries < CENTRAL_RETRIES {
                j.central_tries += 1;
                j.reserved += n;
                j.asked_at = self.executors_epoch;
                let msg = j.submit_long(job, n);
                self.writers.send(CENTRAL, &msg);
            } else {
                self.place_locally(job, n);
            }
        }
    }

    /// The central's link dropped: the long tasks asked of it and neither placed nor
    /// refused (`reserved` beyond its placements and the local shares) may have reached no
    /// node, and no answer will come, so local LWL places them now. Any the central did
    /// place before it died come as spare grants, and go back as "no task" once the job
    /// has none left: Spark's TaskSetManager launches each task once either way. The
    /// `Placed` that the nodes' early answers waited for will not come either.
    fn place_in_flight_locally(&mut self) {
        let mut lost = Vec::new();
        for (&job, j) in self.jobs.iter_mut().filter(|(_, j)| j.long) {
            j.early.clear();
            let out: u32 = j.placed.values().chain(j.share.values()).sum();
            let in_flight = j.reserved.saturating_sub(out);
            if in_flight > 0 {
                j.reserved -= in_flight;
                lost.push((job, in_flight.min(j.left)));
            }
        }
        for (job, n) in lost.into_iter().filter(|&(_, n)| n > 0) {
            log::info!(
                "eagle-client: {n} long task(s) of job {job} were with the central when it went: placed locally"
            );
            self.place_locally(job, n);
        }
    }

    /// The node of `link` will not grant `tasks` placements of `job` the central made there
    /// (it refused them, or handed them back). While the central is up it answers
    /// `Unplaced` for them and places them again, and should it die first they count as in
    /// flight ([`Self::place_in_flight_locally`]); once it is gone nobody else will: local
    /// LWL places them now.
    pub(super) fn unqueued(&mut self, link: u64, job: u64, tasks: u32) {
        let central_up = self.central_up;
        let Some(j) = self.jobs.get_mut(&job) else { return };
        j.unqueue_placed(link, tasks, central_up);
        if !central_up {
            j.reserved = j.reserved.saturating_sub(tasks);
            let n = tasks.min(j.left);
            if n > 0 {
                log::info!("eagle-client: {n} long task(s) of job {job} handed back by a node with the central gone: placed locally");
                self.place_locally(job, n);
            }
        }
    }

    /// Tells the central this application's short tasks holding a slot and not yet
    /// launched, when either changed since the last report (the central's adaptive short
    /// partition sizes itself from them).
    pub(super) fn report_short_load(&mut self) {
        if !self.central_up {
            return;
        }
        let short = |job: &u64| self.jobs.get(job).is_some_and(|j| !j.long);
        let running = self.leases.values().filter(|l| short(&l.job)).count() as u32;
        let waiting = self.jobs.values().filter(|j| !j.long).map(|j| j.left).sum();
        if self.short_load_sent != Some((running, waiting)) {
            self.short_load_sent = Some((running, waiting));
            self.writers.send(CENTRAL, &ToCentral::ShortLoad { running, waiting });
        }
    }

    /// A central placement of `job` was spent on a grant of `host` that went back unused.
    pub(super) fn placement_spent(&mut self, job: u64, host: &str) {
        if let Some(j) = self.jobs.get_mut(&job) {
            j.spent += 1;
            j.spent_on.insert(host.to_string());
        }
    }

    /// Long jobs whose placements were spent on grants that went back unused are placed
    /// again, as far as they still have tasks that no placement or grant covers, elsewhere
    /// than where they were spent while the central has another host (a speculative copy
    /// cannot run beside its original: placed there again, it would go back at every tick
    /// until the original ended). Unplaced again, a long task set whose last grant went back
    /// (its task refused by delay scheduling, or by an excluded executor) would wait for good. At the
    /// tick, not at once, so a task Spark keeps refusing is not placed and returned at the
    /// rate of offer rounds.
    pub(super) fn place_spent(&mut self) {
        let spent: Vec<(u64, u32)> =
            self.jobs.iter().filter(|(_, j)| j.spent > 0).map(|(&id, j)| (id, j.spent)).collect();
        for (job, n) in spent {
            let unlaunched = self.unlaunched(job);
            let j = self.jobs.get_mut(&job).unwrap();
            j.spent = 0;
            let more = n.min(j.left.saturating_sub(j.reserved + j.unplaced + unlaunched));
            if more > 0 {
                self.place_long(job, more);
            }
        }
    }

    /// Places `tasks` more long tasks of `job`: by the central when it is linked, over the
    /// general hosts the job may run on (a job Spark excluded from some hosts names the
    /// others, so a task is not placed for good where Spark will not launch it).
    pub(super) fn place_long(&mut self, job: u64, tasks: u32) {
        if self.central_up && self.jobs.contains_key(&job) {
            // The central places against the hosts it was told of: tell it first, so a
            // host that linked up in this same turn is among them.
            self.report_executors();
            let Some(j) = self.jobs.get_mut(&job) else { return };
            j.reserved += tasks;
            j.asked_at = self.executors_epoch;
            let msg = j.submit_long(job, tasks);
            self.writers.send(CENTRAL, &msg);
        } else {
            self.place_locally(job, tasks);
        }
    }

    /// The central link's first outcome, for [`Client::central_first`](crate::Client::central_first); later ones are not sent.
    pub(super) fn first_outcome(&mut self, r: Result<bool, crate::Refused>) {
        if let Some(tx) = self.first_central.take() {
            let _ = tx.try_send(r);
        }
    }

    pub(super) fn central_event(&mut self, e: LinkEvent<FromCentral>) {
        match e {
            LinkEvent::Up { writer, .. } => {
                self.writers.insert(CENTRAL, writer);
                self.central_up = true;
                self.short_load_sent = None;
                self.executors_sent = None;
                self.executors_stale = true;
                log::info!("eagle-client: central scheduler {} linked", self.cfg.central);
                self.first_outcome(Ok(true));
                self.emit(Event::CentralUp);
            }
            LinkEvent::Down { why, refused, .. } => {
                self.first_outcome(refused.map_or(Ok(false), Err));
                self.writers.remove(CENTRAL);
                if std::mem::replace(&mut self.central_up, false) {
                    log::warn!("eagle-client: central scheduler unreachable, long task sets placed locally: {why}");
                    self.emit(Event::CentralDown);
                    self.place_in_flight_locally();
                }
            }
            LinkEvent::Msg { msg, .. } => match msg {
                FromCentral::Hosts { names } => self.central_hosts = names,
                FromCentral::ShortOnly { hosts } => {
                    let names = hosts.iter().filter_map(|&i| self.central_hosts.get(i as usize)).cloned().collect();
                    self.emit(Event::ShortOnly(names));
                }
                FromCentral::Placed { job, hosts } => {
                    // Which of this driver's hosts got the tasks. A host it has no link up
                    // to refuses them (they come back as `Unplaced`), and could not say so
                    // here: only the linked ones count as queued.
                    let links: Vec<u64> = hosts
                        .iter()
                        .filter_map(|&i| self.central_hosts.get(i as usize))
                        .filter_map(|name| self.by_name.get(name).copied())
                        .filter(|link| self.hosts.get(link).is_some_and(|h| h.up))
                        .collect();
                    if let Some(j) = self.jobs.get_mut(&job) {
                        for link in links {
                            j.add_placed(link);
                        }
                    }
                }
                FromCentral::Unplaced { job, tasks, host } => {
                    self.counters.unplaced_long.fetch_add(tasks as u64, std::sync::atomic::Ordering::Relaxed);
                    // A task the node refused left the driver's count of that host's queue
                    // when the node said so (`Unqueued`): here it only goes back to placing.
                    if let Some(j) = self.jobs.get_mut(&job) {
                        j.reserved = j.reserved.saturating_sub(tasks);
                        // A job Spark keeps off every general host it has: only the driver
                        // can place it, over the hosts it may use (else it would never run).
                        let kept_off = host.is_none() && j.allowed.is_some();
                        if self.central_up && j.central_tries < CENTRAL_RETRIES && !kept_off {
                            // Keep the central's partitions: ask it again at the next tick,
                            // or now if it was asked before it heard of this driver's
                            // latest hosts (messages to it arrive in order).
                            j.unplaced += tasks;
                            if j.asked_at < self.executors_epoch {
                                self.retry_unplaced();
                            }
                        } else {
                            self.place_locally(job, tasks);
                        }
                    }
                }
                FromCentral::Error { what } => log::warn!("eagle-client: central: {what}"),
                _ => {}
            },
        }
    }
}
