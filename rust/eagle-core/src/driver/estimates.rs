//! How the driver estimates a task set's mean task duration, and keeps the estimate
//! current: the precedence hint → history → running mean → default of [`crate::estimate`]
//! (Eagle §3.1, where an estimate is what SRPT (§3.3) and the short/long split rank by),
//! and under the adaptive policy the warm mean, the typical task as the default, the
//! learned cutoff and the no-flapping rule for classes.
use super::Driver;
use crate::estimate::{EstimateSource, RunningMean};
use crate::locality::delay::StageDelay;
use crate::types::*;
use crate::System;

/// Adaptive: how many tasks the estimate a task set was submitted with counts for against
/// its cold completions, until a warm one ends (see [`Driver::task_finished`]).
const PRIOR_TASKS: f64 = 2.0;

#[derive(Clone, Debug)]
pub(super) struct Meta {
    pub(super) signature: u64,
    pub(super) source: EstimateSource,
    pub(super) class_forced: bool,
    pub(super) observed: RunningMean,
    pub(super) delay: Option<StageDelay>,
    /// The class may still change once (it was set before any cutoff was known).
    pub(super) unsettled: bool,
    /// Adaptive: the class was set from cold completions alone, which bound the warm tasks
    /// from above only; the first warm completion sets it once more.
    pub(super) cold_class: bool,
    /// Scheduled as short because Spark lets this long job run only on short-only nodes
    /// (see [`Driver::restrict`]).
    pub(super) demoted: bool,
    /// The estimate the task set was submitted with (while it is the typical task, the
    /// typical task of now: [`Driver::follow_typical`]).
    pub(super) submitted: f64,
    /// The class hint it came with (which typical task a default estimate is).
    pub(super) hint_class: Option<Class>,
    /// Cluster mode: when a task of it started on an executor where it was cold, by
    /// executor ([`Driver::worth_grant`] weighs how long the first task there has run).
    pub(super) started_cold: Vec<(u32, f64)>,
    /// The tenant it runs for, once known.
    pub(super) tenant: Option<u64>,
    /// When it was submitted.
    pub(super) at: Time,
}

impl Driver {
    /// The estimate of a task set with no hint and no history: `defaultEstimateMs`, or under
    /// the adaptive policy the application's typical task once a task set has ended.
    pub(super) fn default_estimate(&self) -> f64 {
        match self.cfg.policy {
            System::EagleAdaptive => self.typical.median().unwrap_or(self.cfg.default_estimate),
            _ => self.cfg.default_estimate,
        }
    }

    /// [`Driver::default_estimate`] for a task set hinted `hint_class`: a task set hinted
    /// long (when the default class is short) gets the long class's typical task, since the
    /// typical task of the default class is a query stage's (the sort's reduce stage came in
    /// at 0.4 s against 30 s tasks).
    pub(super) fn default_estimate_for(&self, hint_class: Option<Class>) -> f64 {
        match hint_class {
            Some(Class::Long) if self.cfg.default_class != Class::Long => {
                self.typical_long.median().unwrap_or_else(|| self.default_estimate())
            }
            _ => self.default_estimate(),
        }
    }

    /// Adaptive, with tenants: the estimate of a task set of unknown size from a session whose
    /// recent task sets were all long ([`super::sessions`]); `None` where the typical task
    /// stands.
    fn session_estimate(&self, m: &Meta) -> Option<f64> {
        if self.cfg.policy != System::EagleAdaptive || m.hint_class.is_some() {
            return None;
        }
        self.sessions.guess(m.tenant?, self.cutoff()?)
    }

    /// A task set of unknown size (no hint, no history, no task ended) whose session's recent
    /// task sets were all long enters at the session's estimate, as long work, instead of at
    /// the typical task: an ETL session's next stage is long far more often than it is a
    /// query stage. It is still a guess ([`crate::engine::Engine::set_guessed`]).
    pub(super) fn session_guess(&mut self, job: JobId) {
        let Some(m) = self.meta.get(&job.0) else { return };
        if m.source != EstimateSource::Default || m.observed.count > 0 {
            return;
        }
        let Some(est) = self.session_estimate(m) else { return };
        let at = m.at;
        if let Some(m) = self.meta.get_mut(&job.0) {
            m.submitted = est;
        }
        self.out.clear();
        self.engine.set_estimate(at, job, est, Some(Class::Long), &mut self.out);
    }

    /// Learns from a task set's mean duration (adaptive without an explicit cutoff); a
    /// moved boundary restarts the engine's short-demand window.
    pub(super) fn learn(&mut self, now: Time, seconds: f64) {
        if self.cfg.policy == System::EagleAdaptive && self.cfg.cutoff.is_none() && self.split.observe(seconds) {
            self.engine.classes_changed(now);
        }
    }

    pub(super) fn learn_from_task(&mut self, now: Time, job: JobId, duration: Option<f64>) {
        let Some(d) = duration.filter(|d| d.is_finite() && *d >= 0.0) else { return };
        let cutoff = self.cutoff();
        let adaptive = self.cfg.policy == System::EagleAdaptive;
        // Adaptive: the warm mean (a task's first tasks on each executor paid the warm-up).
        let warm = if adaptive { self.warmup.warm_mean(job.0) } else { None };
        let cold_only = adaptive && self.warmup.measured_warm_mean(job.0).is_none();
        let Some(m) = self.meta.get_mut(&job.0) else { return };
        m.observed.add(d);
        let current = self.engine.job(job).map(|j| (j.class, j.estimate));
        let revise = matches!(m.source, EstimateSource::Default | EstimateSource::RunningMean);
        let was_guess = m.source == EstimateSource::Default;
        if revise {
            m.source = EstimateSource::RunningMean;
        }
        let est = if revise { warm.or(m.observed.mean()).unwrap_or(d) } else { current.map_or(d, |c| c.1) };
        // Paper: the class follows the running mean through the cutoff. Adaptive: a class
        // is set once from a real estimate and a known cutoff, then kept (no flapping); a
        // class set from cold completions alone is set once more by the first warm one.
        let warm_now = m.cold_class && !cold_only;
        let class = if m.class_forced || m.demoted || (adaptive && !m.unsettled && !warm_now) {
            current.map(|c| c.0)
        } else if adaptive {
            match cutoff {
                Some(c) => {
                    m.unsettled = false;
                    m.cold_class = cold_only && revise;
                    Some(Class::from_estimate(est, c))
                }
                None => current.map(|c| c.0),
            }
        } else {
            None
        };
        // Adaptive: cold completions alone bound the warm tasks from above only (contention
        // can make them many times slower), so they raise the estimate above the one the
        // task set came with only gradually: in log space the submitted estimate counts as
        // PRIOR_TASKS tasks against each cold completion. An overestimate would keep the
        // task set last by SRPT, launching nothing, with no warm task ever ending to correct
        // it; a long stage's first wave, all cold, still moves it most of the way. Its
        // class follows the cold evidence as it is, until the first warm task ends (above).
        let est = if revise && cold_only && est > m.submitted && m.submitted > 0.0 {
            let n = self.warmup.cold_completions(job.0) as f64;
            ((PRIOR_TASKS * m.submitted.ln() + n * est.ln()) / (PRIOR_TASKS + n)).exp()
        } else {
            est
        };
        if was_guess {
            self.engine.set_guessed(job, false);
        }
        let reclassify = adaptive && class != current.map(|c| c.0);
        if revise || reclassify {
            self.engine.set_estimate(now, job, est, class, &mut self.out);
        }
        self.record_point(now);
    }

    /// Adaptive: the typical task moved, so every other task set still estimated at it (no
    /// hint, no history, no task of its own ended) takes the new one. SRPT then compares such
    /// task sets by their task counts at one per-task estimate, whenever each came; a stale
    /// estimate would only correct itself once a task ran, which SRPT may put off for long
    /// (TPC-H under a sort: queries that came while the typical task was the sort's setup
    /// stages' 1.1 s looked two to four times their size against later ones). The class
    /// stays as it was: a task set does not change class on a guess.
    fn follow_typical(&mut self, now: Time, ended: JobId) {
        if self.cfg.policy != System::EagleAdaptive {
            return;
        }
        let mut moved: Vec<(u32, f64)> = Vec::new();
        for (&id, m) in self.meta.iter() {
            if id == ended.0 || m.source != EstimateSource::Default || m.observed.count > 0 {
                continue;
            }
            let est = self.session_estimate(m).unwrap_or_else(|| self.default_estimate_for(m.hint_class));
            if est != m.submitted {
                moved.push((id, est));
            }
        }
        moved.sort_unstable_by_key(|e| e.0);
        for (id, est) in moved {
            let Some(class) = self.engine.job(JobId(id)).map(|j| j.class) else { continue };
            if let Some(m) = self.meta.get_mut(&id) {
                m.submitted = est;
            }
            self.out.clear();
            self.engine.set_estimate(now, JobId(id), est, Some(class), &mut self.out);
        }
    }

    /// Adaptive: a task set ended with a measured warm mean; the typical task of its class
    /// (the default class's, or the long class's) takes it, and the task sets still
    /// estimated at the typical task follow if it moved.
    pub(super) fn typical_ended(&mut self, now: Time, job: JobId) {
        // The typical task is of the class a task set nothing is known about gets (the
        // default class), from measured warm means only (a one-task stage has none).
        // A tenant's task sets also go into its session's ([`super::sessions`]), whatever their class.
        let class = self.engine.job(job).map(|j| j.class);
        if let (Some(w), Some(class)) = (self.warmup.measured_warm_mean(job.0), class) {
            let before = (self.typical.median(), self.typical_long.median());
            if class == self.cfg.default_class {
                self.typical.ended(w);
            } else if class.is_long() {
                self.typical_long.ended(w);
            }
            let mut session_moved = false;
            if let Some(t) = self.meta.get(&job.0).and_then(|m| m.tenant) {
                let cutoff = self.cutoff().unwrap_or(f64::INFINITY);
                let guess = self.sessions.guess(t, cutoff);
                self.sessions.ended(t, w);
                session_moved = guess != self.sessions.guess(t, cutoff);
            }
            if session_moved || before != (self.typical.median(), self.typical_long.median()) {
                self.follow_typical(now, job);
            }
        }
    }
}
