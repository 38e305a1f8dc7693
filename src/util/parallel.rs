//! Independent jobs spread over threads: the one work queue of the tools,
//! on the standard library's scoped threads, used by the arena (games),
//! training (labelling, fitting) and anything else that runs a list of
//! jobs at once; and the progress bar of a long run.
//!
//! Workers take the next job from a shared index, so a slow job never holds
//! up the others; each result goes back to the calling thread, which hands
//! it to `done` as it arrives. `done` therefore runs on one thread, in the
//! order jobs finish (job order with one worker), and may print or tally
//! without locks.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// Runs `work` on every item with `jobs` threads (at least one, at most one
/// per item). Each thread first builds its own state with `init` (a
/// searcher, say) and keeps it for all the jobs it takes. `done(i, result)`
/// is called on the caller's thread as each job finishes.
pub fn run<T, S, R>(
    jobs: usize,
    items: &[T],
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &T) -> R + Sync,
    mut done: impl FnMut(usize, R),
) where
    T: Sync,
    R: Send,
{
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            let sender = sender.clone();
            let (next, init, work) = (&next, &init, &work);
            scope.spawn(move || {
                let mut state = init();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if sender.send((i, work(&mut state, item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (i, result) in receiver {
            done(i, result);
        }
    });
}

/// Progress through a long run of jobs: a bar with the count, the time so
/// far and the time left (`indicatif`) while stderr is a terminal, nothing
/// while it is not (a log or a test); then, either way, one closing line
/// to the run's log: `{verb} {total}/{total} {what}, 12s`.
pub struct Progress {
    bar: ProgressBar,
    verb: &'static str,
    what: &'static str,
    total: usize,
    start: Instant,
}

impl Progress {
    /// For `total` jobs.
    #[must_use]
    pub fn new(verb: &'static str, total: usize, what: &'static str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{msg} {wide_bar} {pos}/{len} [{elapsed_precise}, {eta} left]",
        )
        .expect("the template is well formed");
        bar.set_style(style);
        bar.set_message(format!("{verb} {what}"));
        Progress {
            bar,
            verb,
            what,
            total,
            start: Instant::now(),
        }
    }

    /// `done` jobs of the total are done; at the last, the closing line
    /// goes to `log` (a log that fails to take it loses only the line).
    pub fn report(&mut self, done: usize, log: &mut impl Write) {
        self.bar.set_position(done as u64);
        if done == self.total {
            self.bar.finish_and_clear();
            let _ = writeln!(
                log,
                "{} {done}/{} {}, {:.0}s",
                self.verb,
                self.total,
                self.what,
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}

/// `work` on every item with `jobs` threads; the results in item order.
pub fn map<T, R>(jobs: usize, items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let mut slots: Vec<Option<R>> = items.iter().map(|_| None).collect();
    run(
        jobs,
        items,
        || (),
        |(), item| work(item),
        |i, r| slots[i] = Some(r),
    );
    slots
        .into_iter()
        .map(|r| r.expect("every job reports once"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_item_order_whatever_the_threads() {
        let items: Vec<u64> = (0..100).collect();
        for jobs in [1, 3, 200] {
            let squares = map(jobs, &items, |&x| {
                // Uneven work, so jobs finish out of order.
                std::thread::sleep(std::time::Duration::from_micros(100 - x));
                x * x
            });
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
    }

    #[test]
    fn every_job_is_reported_once_with_per_thread_state() {
        let items: Vec<usize> = (0..50).collect();
        let mut seen = vec![0; items.len()];
        run(
            4,
            &items,
            || 0usize,
            |count, &x| {
                *count += 1;
                (x, *count)
            },
            |i, (x, count)| {
                assert_eq!(i, x);
                assert!(count >= 1);
                seen[i] += 1;
            },
        );
        assert!(seen.iter().all(|&n| n == 1));
        assert!(map(2, &Vec::<u8>::new(), |&x| x).is_empty());
    }
}
