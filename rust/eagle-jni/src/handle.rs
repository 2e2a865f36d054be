//! Handles: what a JNI `long` handle names, in safe Rust.
//!
//! A handle is not a pointer. It is a key into a process-wide [`Registry`] of live
//! engines, issued once and never reused. Every call looks its key up, takes a reference
//! (`Arc`) to the engine's slot and locks the slot's mutex; `destroy` removes the key and
//! then, under the same mutex, takes the state out of the slot and drops it. So:
//!
//! - a call that starts after `destroy` finds no key: [`HandleError::Unknown`];
//! - a call that looked the key up just before `destroy` holds its own `Arc`, and either
//!   finishes before `destroy` gets the mutex, or gets the mutex after it and finds the
//!   slot empty: [`HandleError::Closed`];
//! - `destroy` waits for the call in progress (it needs the mutex), never frees memory a
//!   call is using, and is idempotent.
//!
//! No thread can reach freed state, whatever the JVM side does; the plugin turns both
//! errors into "engine gone" (no error storm at `stop`).

use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Why a handle could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// 0: never a valid handle.
    Null,
    /// No live engine has this handle (destroyed, or never created).
    Unknown(i64),
    /// The engine was destroyed while the call waited for it.
    Closed(i64),
}

impl HandleError {
    /// True for the errors that mean the engine is gone (destroyed), as opposed to a bug.
    pub fn is_closed(&self) -> bool {
        matches!(self, HandleError::Unknown(_) | HandleError::Closed(_))
    }
}

impl fmt::Display for HandleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandleError::Null => f.write_str("null handle"),
            HandleError::Unknown(h) => write!(f, "engine closed: handle {h} was destroyed or never created"),
            HandleError::Closed(h) => write!(f, "engine closed: handle {h} was destroyed during the call"),
        }
    }
}

type Slot<T> = Arc<Mutex<Option<T>>>;

/// Live engines by handle.
pub struct Registry<T> {
    slots: RwLock<HashMap<i64, Slot<T>>>,
    next: AtomicI64,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry { slots: RwLock::new(HashMap::new()), next: AtomicI64::new(1) }
    }
}

impl<T> Registry<T> {
    /// Registers `state`; returns its handle (> 0, never reused in this registry).
    pub fn insert(&self, state: T) -> i64 {
        let h = self.next.fetch_add(1, Ordering::Relaxed);
        self.slots.write().insert(h, Arc::new(Mutex::new(Some(state))));
        h
    }

    /// Runs `f` on the state of `h`, holding its mutex (calls on one handle are serialized).
    pub fn with<R>(&self, h: i64, f: impl FnOnce(&mut T) -> R) -> Result<R, HandleError> {
        if h == 0 {
            return Err(HandleError::Null);
        }
        let slot = self.slots.read().get(&h).cloned().ok_or(HandleError::Unknown(h))?;
        let mut guard = slot.lock();
        let state = guard.as_mut().ok_or(HandleError::Closed(h))?;
        Ok(f(state))
    }

    /// Destroys the engine of `h`: waits for the call in progress, then drops the state.
    /// Returns false if `h` was not live (already destroyed, 0, or unknown).
    pub fn destroy(&self, h: i64) -> bool {
        let Some(slot) = self.slots.write().remove(&h) else { return false };
        let state = slot.lock().take();
        drop(state); // outside the mutex: a slow Drop does not hold up waiting calls
        true
    }

    /// Number of live engines.
    pub fn len(&self) -> usize {
        self.slots.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::thread;

    #[test]
    fn lifecycle_and_errors() {
        let r: Registry<u32> = Registry::default();
        let h = r.insert(7);
        assert!(h > 0);
        assert_eq!(r.with(h, |s| *s + 1), Ok(8));
        assert_eq!(r.with(0, |s| *s), Err(HandleError::Null));
        assert_eq!(r.with(h + 1, |s| *s), Err(HandleError::Unknown(h + 1)));
        assert!(r.destroy(h));
        assert!(!r.destroy(h), "destroy is idempotent");
        assert!(!r.destroy(0));
        let e = r.with(h, |s| *s).unwrap_err();
        assert!(e.is_closed() && e.to_string().contains("engine closed"), "{e}");
        let h2 = r.insert(1);
        assert_ne!(h, h2, "handles are never reused");
        assert_eq!(r.with(h, |s| *s), Err(HandleError::Unknown(h)), "an old handle never reaches a new engine");
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn a_call_in_progress_delays_destroy_and_a_waiting_call_sees_closed() {
        let r: Arc<Registry<Vec<u64>>> = Arc::new(Registry::default());
        let h = r.insert(vec![1, 2, 3]);
        let (entered_tx, entered_rx) = std::sync::mpsc::channel();
        let r1 = r.clone();
        let caller = thread::spawn(move || {
            r1.with(h, |v| {
                entered_tx.send(()).unwrap();
                thread::sleep(std::time::Duration::from_millis(50));
                v.iter().sum::<u64>() // the state is still there
            })
        });
        entered_rx.recv().unwrap();
        assert!(r.destroy(h)); // blocks until the call above is done
        assert_eq!(caller.join().unwrap(), Ok(6));
        assert!(r.with(h, |v| v.len()).unwrap_err().is_closed());
    }

    /// Counts live states: each state decrements it when dropped, and panics if it is
    /// used after being dropped (a stand-in for the engine's memory).
    struct Tracked {
        alive: Arc<AtomicU64>,
        dropped: bool,
        uses: u64,
    }

    impl Tracked {
        fn touch(&mut self) -> u64 {
            assert!(!self.dropped, "state used after drop");
            self.uses += 1;
            self.uses
        }
    }

    impl Drop for Tracked {
        fn drop(&mut self) {
            assert!(!self.dropped, "state dropped twice");
            self.dropped = true;
            self.alive.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Spark drives one handle from its dispatcher (status updates), task-result getters
    /// and the DAG thread at once, and `stop` destroys it while they may still be calling.
    /// Many rounds of several callers racing with a destroy: every call either runs on
    /// live state or gets a closed error, every state is dropped exactly once, none leaks.
    #[test]
    fn stress_calls_racing_with_destroy() {
        let rounds: usize = std::env::var("EAGLE_HANDLE_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000);
        let r: Arc<Registry<Tracked>> = Arc::new(Registry::default());
        let alive = Arc::new(AtomicU64::new(0));
        let (mut ok, mut closed) = (0u64, 0u64);
        for round in 0..rounds {
            alive.fetch_add(1, Ordering::SeqCst);
            let h = r.insert(Tracked { alive: alive.clone(), dropped: false, uses: 0 });
            let barrier = Arc::new(std::sync::Barrier::new(5));
            let callers: Vec<_> = (0..4)
                .map(|t| {
                    let (r, barrier) = (r.clone(), barrier.clone());
                    thread::spawn(move || {
                        barrier.wait();
                        let (mut ok, mut closed) = (0u64, 0u64);
                        for i in 0..(50 + t * 10) {
                            match r.with(h, |s| s.touch()) {
                                Ok(n) => {
                                    assert!(n >= 1);
                                    ok += 1
                                }
                                Err(e) => {
                                    assert!(e.is_closed(), "{e}");
                                    closed += 1
                                }
                            }
                            if i % 16 == 0 {
                                thread::yield_now();
                            }
                        }
                        (ok, closed)
                    })
                })
                .collect();
            barrier.wait();
            // Destroy at a varying point of the callers' runs.
            for _ in 0..(round % 64) {
                thread::yield_now();
            }
            assert!(r.destroy(h));
            for c in callers {
                let (o, c) = c.join().expect("a caller panicked (use after drop?)");
                ok += o;
                closed += c;
            }
            assert_eq!(alive.load(Ordering::SeqCst), 0, "round {round}: the state was not dropped exactly once");
            assert!(r.with(h, |s| s.touch()).unwrap_err().is_closed());
        }
        assert!(r.is_empty());
        eprintln!("{rounds} rounds: {ok} calls on live state, {closed} calls found the engine closed");
        assert!(ok > 0);
    }
}
