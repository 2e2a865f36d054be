//! The driver's inbox of client events in cluster mode: the pump thread pushes them, the
//! engine's calls drain them in order, and the plugin's revive thread waits on it for grants.

use crate::client::Event;
use parking_lot::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The client's events, moved by the pump thread; [`Inbox::wait`] wakes on each grant.
#[derive(Default)]
pub struct Inbox {
    q: Mutex<InboxState>,
    cv: Condvar,
}

#[derive(Default)]
struct InboxState {
    events: Vec<Event>,
    /// Grants pushed so far.
    grants: u64,
    closed: bool,
}

impl Inbox {
    pub(super) fn push(&self, e: Event) {
        let mut q = self.q.lock();
        if matches!(e, Event::Grant(_)) {
            q.grants += 1;
        }
        q.events.push(e);
        self.cv.notify_all();
    }

    pub(super) fn close(&self) {
        self.q.lock().closed = true;
        self.cv.notify_all();
    }

    pub(super) fn drain(&self) -> Vec<Event> {
        std::mem::take(&mut self.q.lock().events)
    }

    /// Waits up to `timeout` for a grant after the `seen`-th; returns the number of grants
    /// pushed so far, or `None` once the client is gone.
    pub fn wait(&self, seen: u64, timeout: Duration) -> Option<u64> {
        let deadline = Instant::now() + timeout;
        let mut q = self.q.lock();
        while !q.closed && q.grants <= seen {
            if self.cv.wait_until(&mut q, deadline).timed_out() {
                break;
            }
        }
        (!q.closed).then_some(q.grants)
    }
}
