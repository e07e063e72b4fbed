//! Where the step's parallel passes run. Each pass splits its work into blocks that are
//! written alone, so the bits are the same however the blocks are shared out; what differs
//! is what the sharing costs. A pass started from outside rayon's pool (an application's own
//! thread, on the global pool) sends a job in and puts the calling thread to sleep until the
//! pool is done with it: a wake-up and a sleep per pass, with the work moving to another
//! core and back. So:
//!
//! ```text
//! one thread in the pool:       every pass runs on the calling thread and the pool never
//!                               sees it (`min_len`, `join`): a parallel iterator that does
//!                               not split runs where it is called
//! more, called from outside:    the step sends each stretch between its calls into the
//!                               user's narrow phase to the pool as one job (`in_pool`), so
//!                               that its passes start on a worker; a narrow phase that may
//!                               move between threads (`NarrowPhase::as_send`) goes along,
//!                               and the whole step is one job
//! called from a worker:         as it comes
//! ```

/// Whether the current pool (the global one, from outside any pool) has a single thread:
/// then a pass gains nothing from rayon and runs on the calling thread.
fn one_thread() -> bool {
    rayon::current_num_threads() == 1
}

/// The least items a task of a parallel iterator takes (`with_min_len`): `per_task`, or all
/// of them when the pool has one thread, so that the iterator does not split and runs on
/// the calling thread without a job for the pool.
pub(crate) fn min_len(per_task: usize) -> usize {
    if one_thread() { usize::MAX } else { per_task }
}

/// `a` and `b`: at once over the pool (`rayon::join`), or one after the other on the
/// calling thread when the pool has one thread.
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if one_thread() {
        (a(), b())
    } else {
        rayon::join(a, b)
    }
}

/// Runs `f` as one job on the pool when called from outside it with more than one thread
/// (the caller sleeps meanwhile), so that every pass inside starts from a worker; else here.
pub(crate) fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_none() && !one_thread() {
        rayon::scope(|_| f())
    } else {
        f()
    }
}

/// A list that the blocks of a parallel pass write, each at its own indices (a scatter: the
/// indices come from counts made before, so no two blocks share one). Borrows the list for
/// as long as it lives.
pub(crate) struct SharedOut<'a, T> {
    start: *mut T,
    len: usize,
    list: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: blocks write disjoint indices (each `write`'s caller promises it), and `T` may be
// sent to the thread that writes it.
unsafe impl<T: Send> Sync for SharedOut<'_, T> {}

impl<'a, T> SharedOut<'a, T> {
    /// `list`, to be written through `write` from several threads.
    pub fn new(list: &'a mut [T]) -> Self {
        SharedOut {
            start: list.as_mut_ptr(),
            len: list.len(),
            list: std::marker::PhantomData,
        }
    }

    /// Sets element `at` to `value`.
    ///
    /// # Safety
    /// No other thread reads or writes element `at` while the list is shared.
    pub unsafe fn write(&self, at: usize, value: T) {
        assert!(at < self.len, "a shared write at {at} of {}", self.len);
        // SAFETY: in bounds (above); written by this caller alone (its promise). The old
        // value is dropped in place, as an assignment does.
        unsafe { *self.start.add(at) = value };
    }
}
