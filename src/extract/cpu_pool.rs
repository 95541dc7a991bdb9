//! A fixed pool of threads, one per core, that runs the offline rules for
//! the whole process.
//!
//! Why not `tokio::task::spawn_blocking`: its threads come and go (idle
//! ones exit after ten seconds, new ones start with new ids), and the regex
//! crate keeps a lazy-DFA cache per regex for the first thread that used it
//! (forever, even after that thread exits) and further caches on stacks
//! chosen by thread id. With threads that keep changing, every regex of the
//! rules collected up to nine caches, each filling towards its 2 MB limit as
//! more text was read: an offline batch grew by about 64 KB per document
//! (500 -> 5,000 documents: 211 -> 501 MB). Threads that live as long as the
//! process keep that to one cache per regex per thread, filled once.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

/// The pool's queue; its threads take jobs in order.
pub struct CpuPool {
    jobs: Mutex<Sender<Job>>,
    threads: usize,
}

impl CpuPool {
    /// A pool of `threads` threads (at least one), named `kgroute-rules-N`.
    fn new(threads: usize) -> CpuPool {
        let threads = threads.max(1);
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads {
            let rx = Arc::clone(&rx);
            std::thread::Builder::new()
                .name(format!("kgroute-rules-{i}"))
                .spawn(move || work(&rx))
                .expect("cannot start a rules thread");
        }
        CpuPool {
            jobs: Mutex::new(tx),
            threads,
        }
    }

    /// The process's pool: one thread per core.
    pub fn global() -> &'static CpuPool {
        static POOL: OnceLock<CpuPool> = OnceLock::new();
        POOL.get_or_init(|| {
            CpuPool::new(
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            )
        })
    }

    /// How many threads run jobs.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `f` on a pool thread and waits for it without blocking the
    /// async runtime. A panic in `f` comes back as `Err` with its message.
    pub async fn run<T, F>(&self, f: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let out = std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_message(&*p));
            let _ = tx.send(out);
        });
        if self.jobs.lock().expect("rules queue").send(job).is_err() {
            return Err("the rules threads are gone".to_string());
        }
        rx.await
            .unwrap_or_else(|_| Err("the rules thread dropped the job".to_string()))
    }
}

fn work(rx: &Mutex<Receiver<Job>>) {
    loop {
        // The lock is held only while waiting for the next job.
        let job = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_on_the_same_few_threads() {
        let pool = CpuPool::new(2);
        let mut names = std::collections::BTreeSet::new();
        for i in 0..20u32 {
            let (n, name) = pool
                .run(move || (i * 2, std::thread::current().name().map(str::to_string)))
                .await
                .unwrap();
            assert_eq!(n, i * 2);
            names.insert(name.unwrap());
        }
        assert!(!names.is_empty() && names.len() <= 2, "{names:?}");
        assert!(names.iter().all(|n| n.starts_with("kgroute-rules-")));
    }

    #[tokio::test]
    async fn a_panic_is_an_error_and_the_pool_goes_on() {
        let pool = CpuPool::new(1);
        let err = pool
            .run(|| -> u32 { panic!("rule broke") })
            .await
            .unwrap_err();
        assert!(err.contains("rule broke"), "{err}");
        assert_eq!(pool.run(|| 7).await.unwrap(), 7);
    }
}
