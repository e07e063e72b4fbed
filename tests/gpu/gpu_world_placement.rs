//! The GPU world's colliders placed on the device (`src/gpu/place.rs`): each step's
//! collision stage reads the colliders' poses from the transforms buffer its solver wrote,
//! and computes their boxes there, instead of being sent those of the colliders that
//! moved; and its pair set found there (`src/gpu/world/pairs.rs`), its fat boxes grown
//! there from the placed boxes; its recycling pass, merge and match of warm starts run
//! there too (`src/gpu/collision/recycle/`), and its joints are prepared there. Held
//! against the CPU world's bits and the plain GPU collision stage's uploads (and the bytes
//! a contact and a joint no longer send), and its safety nets (the band entries the
//! device's boxes span, the hash of its fat boxes, of its fresh pairs and of its merged
//! contacts) made to catch a transforms buffer that is not the world's, and kept manifolds
//! that are not.

use crate::common;
use common::state_bits;

use super::gpu_world::{gpu_world, remove_two_in_three};
use wgpu_sat::gpu::layout::BodyTransformGpu;
use wgpu_sat::gpu::{GpuCollision, GpuWorld};
use wgpu_sat::{CpuNarrowPhase, World, scenes};

const DT: f32 = 1.0 / 60.0;

/// Where the adapter keeps the CPU's bits, asserts that `b`'s bodies have `a`'s.
fn check_bits(a: &World, b: &World, what: &str, step: usize) {
    if common::adapter_gives_cpu_bits() {
        let (a, b) = (state_bits(a), state_bits(b));
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            panic!(
                "{what}, step {step}, body {i}: {:?} against {:?}",
                a[i], b[i]
            );
        }
    }
}

#[test]
fn a_falling_pile_is_placed_on_the_device_to_the_cpu_bits_and_sends_no_pose() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(1500, 7);
    let colliders = world.colliders().len() as u64;
    let mut cpu = world.clone();
    let mut sent = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut collision = GpuCollision::new(&device, &queue).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    let mut moved_steps = 0;
    for step in 0..40 {
        cpu.step(DT, &mut narrow).unwrap();
        let stats = sent.step_on_gpu(DT, &mut collision).unwrap();
        gpu.step(DT).unwrap();
        let moves = gpu.stats().proxy_moves as u64;
        moved_steps += u64::from(moves > 0);
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
        check_bits(&cpu, &sent, "step_on_gpu", step);
        // After the first step (every collider up, both ways), the stage that is sent the
        // moved colliders sends 48 bytes each (36 when most moved); the placed one none.
        // Both send the sweep's uniforms, and the placed one those of its two dispatches
        // (256 bytes each): at least 32 bytes a collider less while the pile falls.
        let up = |s: &wgpu_sat::StepStats| s.narrow_phase_detail.unwrap().uploaded_bytes;
        let (placed, moved) = (up(gpu.stats()), up(&stats));
        if step > 0 {
            assert!(
                placed + 32 * colliders <= moved,
                "step {step}: {placed} bytes placed, {moved} sent, {colliders} colliders"
            );
        }
        // The pair set's fat boxes grow on the device from the placed boxes: when most
        // left theirs, the world's were sent whole before (16 bytes each); now the
        // passes' uniforms go up (those that changed), and no box.
        let [pair_set_up, _] = gpu.pair_set_bytes();
        if step > 0 && 2 * moves > colliders {
            assert!(
                pair_set_up < 16 * colliders,
                "step {step}: {pair_set_up} bytes up for {moves} moved fat boxes"
            );
        }
        if moves == 0 {
            assert_eq!(gpu.pair_set_bytes(), [0; 2], "step {step}: nothing moved");
        }
    }
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.placement_misses(), 0);
        assert_eq!(gpu.fat_misses(), 0);
        // The device's recycling pass found the host's fresh pairs at every step, its
        // kept manifolds carried over the set's changes as the pile fell.
        assert_eq!(gpu.recycle_misses(), 0);
        assert_eq!(gpu.recycling_steps(), [40, 0]);
        // And merged its contact list there, the list the host merged: its solver took
        // the device's contact inputs at every step.
        assert_eq!(gpu.contact_input_steps(), [40, 0]);
        // And matched their warm starts there from the contacts its solver left, at every
        // step but the first (the host's go up then: the device has no last step).
        assert_eq!(gpu.warm_start_steps(), [39, 1]);
    }
    // Every step's narrow phase took the device's pair set's pairs: it held the world's
    // list from the first step's update on.
    assert_eq!(gpu.collision_steps(), [40, 0]);
    // Every step's pair set whose fat boxes moved from the device but the first (the host
    // sweeps its own then, which the device's copy becomes).
    assert_eq!(gpu.pair_set_steps(), [moved_steps - 1, 1]);
    assert!(moved_steps > 20, "{moved_steps}");
}

#[test]
fn a_transforms_buffer_a_host_wrote_to_is_caught_and_the_step_keeps_the_cpu_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(300, 3);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut bad_step = None;
    for step in 0..30 {
        // The CPU world steps first: it says whether this step moves a fat box, so that
        // the GPU world's pair set asks the device too.
        let stats = cpu.step(DT, &mut narrow).unwrap();
        let moves = stats.proxy_moves;
        if step >= 10 && bad_step.is_none() && moves > 0 {
            // A body's transform scaled a thousandfold: its placed box spans hundreds of
            // bands where the host's spans one or two.
            let body = gpu.read_world().unwrap().bodies().last().unwrap();
            let bad = BodyTransformGpu {
                origin: [0.0, 5.0],
                rotation: [0.0, 1000.0],
            };
            let at = (body.index() * size_of::<BodyTransformGpu>()) as u64;
            queue.write_buffer(gpu.transforms(), at, bytemuck::bytes_of(&bad));
            bad_step = Some(step);
        }
        gpu.step(DT).unwrap();
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
        // The same pair set too (a fat box grown from the bad box would pair it with
        // bodies far from it, which no contact shows).
        let pairs = gpu.stats().persistent_pairs;
        assert_eq!(pairs, stats.persistent_pairs, "step {step}: pairs");
        let misses = u64::from(bad_step.is_some());
        assert_eq!(gpu.placement_misses(), misses, "step {step}");
        // The pair set's fat boxes grew from the same placed boxes: its hash caught them
        // too, and the world's went up whole (the step's bits above are the CPU's).
        assert_eq!(gpu.fat_misses(), misses, "step {step}");
    }
    assert!(
        bad_step.is_some(),
        "no step from the 10th on moved a fat box"
    );
}

/// The pair set found on the host (`set_pair_set_on_device(false)`, and the default on a
/// software adapter) gives the same bits, and the device takes over when switched on, its
/// first step swept on the host.
#[test]
fn the_pair_set_goes_to_the_host_and_back_to_the_same_bits() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let world = scenes::pile(400, 9);
    let mut cpu = world.clone();
    let mut gpu = GpuWorld::new(&device, &queue, &world).unwrap();
    let mut narrow = CpuNarrowPhase::new();
    // The default: on the device but on a software adapter. A first step moves every
    // collider into its fat box: the host sweeps, where the device is asked at all.
    let on_device = !common::adapter_gives_cpu_bits();
    gpu.step(DT).unwrap();
    assert_eq!(gpu.pair_set_steps(), [0, u64::from(on_device)]);
    let mut forced = gpu_world(&device, &queue, &world);
    forced.step(DT).unwrap();
    assert_eq!(forced.pair_set_steps(), [0, 1]);
    let mut gpu = GpuWorld::new(&device, &queue, &world).unwrap();
    gpu.set_pair_set_on_device(false);
    let mut moved_after = 0;
    for step in 0..60 {
        if step == 30 {
            assert_eq!(gpu.pair_set_steps(), [0, 0], "none on the device while off");
            gpu.set_pair_set_on_device(true);
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        if step >= 30 {
            moved_after += u64::from(gpu.stats().proxy_moves > 0);
        }
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
    }
    assert!(moved_after > 10, "{moved_after}");
    assert_eq!(gpu.pair_set_steps(), [moved_after - 1, 1]);
    // The device's recycling took over with the set, its kept manifolds sent again, and
    // found the host's fresh pairs at every step.
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.recycle_misses(), 0);
        assert_eq!(gpu.recycling_steps(), [30, 0]);
    }
}

/// A settled pyramid recycles most of its manifolds: the GPU world's narrow phase collides
/// only the pairs that need a fresh manifold (decided on the device), so its readback is a
/// fraction of that of `step_on_gpu`, which collides every pair whose boxes overlap; and
/// the step keeps the CPU world's bits.
#[test]
fn a_settled_pyramid_collides_and_reads_back_only_its_fresh_pairs() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pyramid(20);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..120 {
        world.step(DT, &mut narrow).unwrap();
    }
    let mut cpu = world.clone();
    let mut sent = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut collision = GpuCollision::new(&device, &queue).unwrap();
    let back = |s: &wgpu_sat::StepStats| s.narrow_phase_detail.unwrap().read_back_bytes;
    let (mut ours, mut theirs, mut recycled, mut candidates) = (0, 0, 0, 0);
    for step in 0..30 {
        let stats = cpu.step(DT, &mut narrow).unwrap();
        theirs += back(&sent.step_on_gpu(DT, &mut collision).unwrap());
        gpu.step(DT).unwrap();
        ours += back(gpu.stats());
        (recycled, candidates) = (recycled + stats.recycled, candidates + stats.pairs);
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
    }
    // The premise: settled, the pyramid recycles nearly every manifold.
    assert!(
        recycled * 10 >= candidates * 9,
        "{recycled} of {candidates} recycled"
    );
    // step_on_gpu reads back a record a contact (56 bytes); the GPU world those of the
    // fresh pairs, here none but the first copy's headroom.
    assert!(ours * 10 < theirs, "{ours} bytes back against {theirs}");
    assert_eq!(gpu.collision_steps(), [30, 0]);
    // The pairs to collide were the device's: its recycling pass, from the kept manifolds
    // sent at the first step (the world's, 80 bytes a pair) and kept there after, found
    // the host's pairs at every step.
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.recycle_misses(), 0);
        assert_eq!(gpu.recycling_steps(), [30, 0]);
        // The recycled contacts carried to the poses on the device are the host's, and
        // so are their warm starts matched there after the first step.
        assert_eq!(gpu.contact_input_steps(), [30, 0]);
        assert_eq!(gpu.warm_start_steps(), [29, 1]);
    }
}

/// The device's kept manifolds across what changes the world's: a snapshot restored in
/// an edit (its kept manifolds go up again), a step taken inside one, and the recycling
/// pass switched to the host and back. Each step keeps the CPU world's bits, and the
/// device's fresh pairs are the host's.
#[test]
fn the_device_keeps_its_manifolds_through_edits_and_restores() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pyramid(12);
    let mut narrow = CpuNarrowPhase::new();
    // The pyramid as built, with no manifold kept: restored after it settled, each pair
    // is fresh again where the device's last kept manifolds would recycle it.
    let snapshot = world.snapshot();
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
    }
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let (mut on_device, mut from_host) = (0, 0);
    let mut warm = [0, 0];
    for step in 0..60 {
        match step {
            20 => {
                // Back to the snapshot: the pair list is a new one, with the snapshot's
                // kept manifolds (none).
                cpu.restore_snapshot(&snapshot).unwrap();
                gpu.edit(|w| w.restore_snapshot(&snapshot))
                    .unwrap()
                    .unwrap();
            }
            30 => {
                // A step inside an edit, the pyramid settling again: the world's kept
                // manifolds move on without the device's.
                cpu.step(DT, &mut narrow).unwrap();
                gpu.edit(|w| w.step(DT, &mut CpuNarrowPhase::new()))
                    .unwrap()
                    .unwrap();
            }
            40 => gpu.set_recycling_on_device(false),
            50 => gpu.set_recycling_on_device(true),
            _ => {}
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        let on = (40..50).contains(&step);
        (on_device, from_host) = match on {
            true => (on_device, from_host + 1),
            false => (on_device + 1, from_host),
        };
        // The warm starts are matched on the device from the contacts its solver left at
        // the step before, except at the first step, after the two edits that changed
        // the world's contacts (the device's last ones are not the world's), and while
        // the host's recycling pass is taken (the device merges no list then).
        let host_warm = on || [0, 20, 30].contains(&step);
        warm[usize::from(host_warm)] += 1;
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
        if common::adapter_gives_cpu_bits() {
            assert_eq!(gpu.recycle_misses(), 0, "step {step}");
            assert_eq!(gpu.recycling_steps(), [on_device, from_host], "step {step}");
            assert_eq!(gpu.warm_start_steps(), warm, "step {step}");
        }
    }
}

/// A world with sensors decides its fresh pairs on the device, but merges its contact list
/// on the host alone: the host's list leaves the sensor pairs out, which the device cannot
/// tell. Its steps keep the CPU world's bits and events.
#[test]
fn a_world_with_sensors_sends_its_own_manifolds() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pile(300, 5);
    // A static sensor across the pile's lower half: bodies fall through its box.
    let mut sensor = wgpu_sat::BodyDef::fixed(
        wgpu_sat::Polygon::rectangle(4.0, 1.0),
        wgpu_sat::glam::Vec2::new(0.0, 2.0),
    );
    sensor.is_sensor = true;
    world.add_body(&sensor).unwrap();
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut sensed = 0;
    for step in 0..40 {
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        let read = gpu.read_world().unwrap();
        check_bits(&cpu, &read, "GPU world", step);
        assert_eq!(
            format!("{:?}", cpu.events()),
            format!("{:?}", read.events()),
            "step {step}: events"
        );
        sensed += cpu.events().sensor_begin.len();
    }
    assert!(sensed > 0, "no body entered the sensor");
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.recycle_misses(), 0);
        assert_eq!(gpu.recycling_steps(), [40, 0]);
        assert_eq!(gpu.contact_input_steps(), [0, 40]);
    }
}

/// The pair set taken off the device and given back while the pair list stays the same (a
/// settling pyramid: no fat box moves): the device's kept manifolds fell behind the
/// world's while it was off, and go up again, so that its fresh pairs are the host's at
/// once. (Without that, the step it came back missed.)
#[test]
fn kept_manifolds_go_up_again_when_the_pair_set_comes_back() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pyramid(12);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..10 {
        world.step(DT, &mut narrow).unwrap();
    }
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    for step in 0..40 {
        match step {
            10 => gpu.set_pair_set_on_device(false),
            20 => gpu.set_pair_set_on_device(true),
            _ => {}
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
        if common::adapter_gives_cpu_bits() {
            assert_eq!(gpu.recycle_misses(), 0, "step {step}");
        }
    }
    if common::adapter_gives_cpu_bits() {
        assert_eq!(gpu.recycling_steps(), [30, 0]);
    }
}

/// A settled pyramid's steps send nothing of a contact up once the device matches the
/// warm starts, and read back each contact's impulses alone (16 bytes) unless hit events
/// are asked for: then its hit measures too (16 bytes more), to the CPU world's bits and
/// hit events.
#[test]
fn nothing_of_a_contact_goes_up_and_hits_come_back_only_when_asked_for() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut world = scenes::pyramid(10);
    let mut narrow = CpuNarrowPhase::new();
    for _ in 0..60 {
        world.step(DT, &mut narrow).unwrap();
    }
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    // Per step: contacts, bytes up and back.
    let mut steps = Vec::new();
    for step in 0..12 {
        if step == 6 {
            cpu.set_hit_event_threshold(Some(0.0)).unwrap();
            gpu.edit(|w| w.set_hit_event_threshold(Some(0.0)))
                .unwrap()
                .unwrap();
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        let read = gpu.read_world().unwrap();
        check_bits(&cpu, &read, "GPU world", step);
        assert_eq!(
            read.events().contact_hit,
            cpu.events().contact_hit,
            "step {step}"
        );
        let [up, back] = gpu.solver_bytes();
        steps.push((gpu.stats().contacts as u64, up, back));
    }
    let (contacts, _, without) = steps[5];
    let (same, _, with) = steps[6];
    // The premise: a settled pyramid keeps its contacts.
    assert!(
        contacts > 100 && same == contacts,
        "{contacts} then {same} contacts"
    );
    assert_eq!(
        with - without,
        16 * contacts,
        "{without} then {with} bytes back"
    );
    if common::adapter_gives_cpu_bits() {
        // After the first step, the device's inputs and warm starts: what goes up is the
        // uniforms and the records the host changed, under a byte a contact.
        for (step, &(contacts, up, _)) in steps.iter().enumerate().skip(1) {
            assert!(
                up < contacts,
                "step {step}: {up} bytes up for {contacts} contacts"
            );
        }
        assert_eq!(gpu.warm_start_steps(), [11, 1]);
    }
}

/// Removed colliders stay out of the device's pair set's sweep: a pile that loses two
/// bodies in three keeps finding its pair set on a device whose bindings hold 64 KiB
/// (4,096 of the sweep's pairs). The removed colliders once all sat at one point, and the
/// sweep found each pair of them before the filters refused it: 80,209 candidates here,
/// which sent every later step's pair set to the host. To the CPU world's bits.
#[test]
fn removed_colliders_stay_out_of_the_device_pair_sets_sweep() {
    let Some((device, queue)) = common::small_binding_device() else {
        return;
    };
    let world = scenes::pile(600, 3);
    let mut cpu = world.clone();
    let mut gpu = gpu_world(&device, &queue, &world);
    let mut narrow = CpuNarrowPhase::new();
    let mut moved_steps = 0;
    for step in 0..40 {
        if step == 10 {
            remove_two_in_three(&mut cpu, &mut gpu);
        }
        cpu.step(DT, &mut narrow).unwrap();
        gpu.step(DT).unwrap();
        moved_steps += u64::from(gpu.stats().proxy_moves > 0);
        check_bits(&cpu, &gpu.read_world().unwrap(), "GPU world", step);
    }
    // The host swept once, at the first step; every other step whose fat boxes moved
    // found its pairs on the device, the removal's and those after it included.
    assert_eq!(gpu.pair_set_steps(), [moved_steps - 1, 1]);
    assert!(moved_steps > 10, "{moved_steps} steps moved a fat box");
}

/// A chain's joints are prepared on the device after the first step: its definitions and
/// colouring items stay there, and a step sends every joint's record (144 bytes) less than
/// with the host's joints, and no joint's item, to the CPU world's bits both ways.
#[test]
fn a_chains_joints_are_prepared_on_the_device_and_not_sent() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    use wgpu_sat::glam::Vec2;
    use wgpu_sat::{BodyDef, JointDef, Polygon};
    let mut world = World::default();
    world.set_sleeping(false);
    let ground = world
        .add_body(&BodyDef::fixed(Polygon::rectangle(1.0, 0.5), Vec2::ZERO))
        .unwrap();
    let mut last = ground;
    let links = 300;
    for k in 0..links {
        let at = Vec2::new(0.5 + 0.5 * k as f32, 0.0);
        let link = world
            .add_body(&BodyDef::dynamic(Polygon::rectangle(0.25, 0.05), at))
            .unwrap();
        let joint = JointDef::revolute(last, link, at - Vec2::new(0.25, 0.0));
        world.add_joint(&joint).unwrap();
        last = link;
    }
    let mut cpu = world.clone();
    let mut here = gpu_world(&device, &queue, &world);
    let mut sent = gpu_world(&device, &queue, &world);
    sent.set_joints_on_device(false);
    let mut narrow = CpuNarrowPhase::new();
    for step in 0..12 {
        cpu.step(DT, &mut narrow).unwrap();
        here.step(DT).unwrap();
        sent.step(DT).unwrap();
        check_bits(
            &cpu,
            &here.read_world().unwrap(),
            "joints on the device",
            step,
        );
        check_bits(
            &cpu,
            &sent.read_world().unwrap(),
            "joints from the host",
            step,
        );
        let [[up, _], [up_sent, _]] = [here.solver_bytes(), sent.solver_bytes()];
        // From the third step: the second rewrites the uniforms once (the plan gained
        // the prepare's two dispatches, and every later one moved).
        if step > 1 && common::adapter_gives_cpu_bits() {
            // The same uniforms; every joint's record the difference.
            assert!(
                up + 144 * links as u64 <= up_sent,
                "step {step}: {up} bytes up, {up_sent} with the host's joints"
            );
            // Nor do the joints' colouring items go up (16 bytes each): they are kept on
            // the device too.
            assert!(up < 16 * links as u64, "step {step}: {up} bytes up");
        }
    }
    assert_eq!(sent.joint_prepare_steps(), [0, 12]);
    if common::adapter_gives_cpu_bits() {
        assert_eq!(here.joint_prepare_steps(), [11, 1]);
        assert_eq!(here.joint_misses(), 0);
    }
}
