//! The solver's stages run on every thread of the current rayon pool, and a thread waits
//! only for work another running thread has claimed. So a step finishes, with the same bits,
//! when the pool's other threads are busy elsewhere and never join in.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use wgpu_sat::{CpuNarrowPhase, scenes};

fn stepped_pyramid(steps: usize) -> u64 {
    let mut world = scenes::pyramid(20);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..steps {
        world.step(1.0 / 60.0, &mut narrow).unwrap();
    }
    world.state_hash()
}

#[test]
fn a_step_finishes_with_the_same_bits_while_the_pools_other_thread_is_busy() {
    let steps = 60;
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
    );
    let free = pool.install(|| stepped_pyramid(steps));

    // Occupy one of the two workers until the test is done.
    let busy = Arc::new(AtomicBool::new(true));
    let (started_tx, started_rx) = mpsc::channel();
    {
        let busy = Arc::clone(&busy);
        pool.spawn(move || {
            started_tx.send(()).unwrap();
            while busy.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
    started_rx.recv().unwrap();

    // Step on the other worker; a watchdog turns a hang into a failure.
    let (done_tx, done_rx) = mpsc::channel();
    {
        let pool = Arc::clone(&pool);
        std::thread::spawn(move || {
            done_tx
                .send(pool.install(|| stepped_pyramid(steps)))
                .unwrap();
        });
    }
    let result = done_rx.recv_timeout(Duration::from_secs(120));
    busy.store(false, Ordering::Relaxed);
    let crowded = result.expect("the steps did not finish while one worker was busy");
    println!("{steps} steps: free pool {free:016x}, one worker busy {crowded:016x}");
    assert_eq!(crowded, free);
}
