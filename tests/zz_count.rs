#[path = "../examples/fuzz/hostile.rs"]
#[allow(dead_code)]
mod hostile;
#[path = "../examples/fuzz/roundtrip.rs"]
#[allow(dead_code)]
mod roundtrip;
use rand::{RngCore, SeedableRng};
#[test]
fn count() {
    let mut kinds = std::collections::BTreeMap::<String, u32>::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let (mut worlds, mut joints, mut trips) = (0, 0u64, 0);
    for _ in 0..4000 {
        let mut bytes = vec![0u8; 2048];
        rng.fill_bytes(&mut bytes);
        let input = roundtrip::generate(&mut arbitrary::Unstructured::new(&bytes)).unwrap();
        worlds += 1;
        match roundtrip::check(&input) {
            Ok(t) => {
                joints += t.joints.iter().sum::<u64>();
                trips += t.round_trips;
            }
            Err(e) => {
                let key = match e.find("unreadable at byte") {
                    Some(i) => {
                        let rest = &e[i..];
                        let c = rest.find(':').unwrap();
                        rest[c + 2..].split(" =").next().unwrap().to_string()
                    }
                    None => e.chars().take(60).collect(),
                };
                if key.contains("density") {
                    println!("{}", &e[..e.len().min(300)]);
                }
                *kinds.entry(key).or_default() += 1;
            }
        }
    }
    println!("worlds {worlds} joints(in passing worlds) {joints} trips {trips}");
    for (k, n) in kinds {
        println!("{n:6} {k}");
    }
}
