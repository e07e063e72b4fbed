//! Every world the API can build and step reads its own snapshot back (issues 36 and 37):
//! random worlds with bodies of every kind and joints of every kind, hostile values in every
//! field and option, removals under live joints, the runtime setters with junk, stepped; at
//! random points (right after an add among them) the snapshot is read back and both worlds
//! step on to the same state hash. The generator and the checks are the fuzz harness's
//! `roundtrip` target (`examples/fuzz/roundtrip.rs`); here proptest draws its bytes, from a
//! fixed seed, and shrinks a failure to a short input.

#[path = "../examples/fuzz/hostile.rs"]
#[allow(dead_code)]
mod hostile;
#[path = "../examples/fuzz/roundtrip.rs"]
mod roundtrip;

use std::cell::RefCell;

use arbitrary::Unstructured;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use roundtrip::{JOINT_KINDS, Tally};

/// Worlds per run: each is up to 53 calls with up to ten steps a call.
const WORLDS: u32 = 2000;

#[test]
fn every_world_reads_its_own_snapshot_back_and_steps_on_the_same() {
    let config = Config {
        cases: WORLDS,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let tally = RefCell::new(Tally::default());
    let result = runner.run(&vec(any::<u8>(), 64..4096), |bytes| {
        let input = roundtrip::generate(&mut Unstructured::new(&bytes))
            .map_err(|e| TestCaseError::reject(e.to_string()))?;
        let t =
            roundtrip::check(&input).map_err(|e| TestCaseError::fail(format!("{e}\n{input:?}")))?;
        tally.borrow_mut().add(&t);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let t = tally.into_inner();
    println!("{t:#?}");
    // The generator reaches what the issues name, or the test proves nothing.
    assert!(t.worlds >= u64::from(WORLDS) * 9 / 10, "{t:?}");
    assert!(t.round_trips >= t.worlds, "{t:?}");
    assert!(t.round_trips_before_a_step >= 100, "{t:?}");
    for (kind, count) in JOINT_KINDS.iter().zip(t.joints) {
        assert!(
            count >= 50,
            "only {count} {kind} joints were accepted: {t:?}"
        );
    }
    assert!(t.joints_refused >= 200, "{t:?}");
    assert!(t.removed_under_joints >= 50, "{t:?}");
    assert!(
        t.setters_refused >= 100 && t.setters >= 2 * t.setters_refused,
        "{t:?}"
    );
    assert!(t.bodies_refused >= 100, "{t:?}");
}
