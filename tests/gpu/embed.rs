//! The embedding path: a host's device and encoder, results kept on the GPU, a readback
//! that never blocks, downlevel limits, and a lost device.

use crate::common;

use common::{assert_same_contacts, host_frame, read_words};
use wgpu_sat::error::{BatchError, GpuError};
use wgpu_sat::{Contact, CpuNarrowPhase, Error, GpuNarrowPhase, NarrowPhase};

/// Per collider, how many of the contacts it is in.
fn touch_counts(contacts: &[Contact], colliders: usize) -> Vec<u32> {
    let mut counts = vec![0; colliders];
    for c in contacts {
        counts[c.a as usize] += 1;
        counts[c.b as usize] += 1;
    }
    counts
}

fn check_host_path(device: &wgpu::Device, queue: &wgpu::Queue) {
    let batch = wgpu_sat::scenes::narrow_phase_batch(30_000, 12);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&batch.shapes).unwrap();
    let expected = cpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();
    assert!(expected.len() > 10_000);

    let mut gpu = GpuNarrowPhase::new(device, queue).unwrap();
    gpu.set_shapes(&batch.shapes).unwrap();
    let recorded = host_frame(&mut gpu, device, queue, &batch.colliders, &batch.pairs);
    assert_same_contacts(&expected, &recorded);
    // The blocking call on the same narrow phase agrees too.
    assert_same_contacts(
        &expected,
        &gpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap(),
    );

    // The touching flags, straight from the GPU buffer, against the CPU reference. Pairs
    // of near-zero depth may differ between backends; this batch has none that do.
    let host = host_frame(&mut gpu, device, queue, &batch.colliders, &batch.pairs);
    let touching = read_words(device, queue, gpu.touching_buffer(), batch.colliders.len());
    assert_eq!(touching, touch_counts(&host, batch.colliders.len()));
    assert_eq!(
        touch_counts(&host, batch.colliders.len()),
        touch_counts(&expected, batch.colliders.len())
    );
    // The poses the renderer draws from are this frame's.
    let poses = read_words(device, queue, gpu.poses_buffer(), 4 * batch.colliders.len());
    let t = batch.colliders[7].transform;
    assert_eq!(
        &poses[28..32],
        bytemuck::cast_slice::<f32, u32>(&[
            t.translation().x,
            t.translation().y,
            t.rotation().x,
            t.rotation().y
        ])
    );
    let shape_ids = read_words(
        device,
        queue,
        gpu.collider_shapes_buffer(),
        batch.colliders.len(),
    );
    assert!(
        shape_ids
            .iter()
            .zip(&batch.colliders)
            .all(|(&s, c)| s == c.shape)
    );
}

#[test]
fn recording_into_a_host_encoder_gives_the_contacts_and_flags_of_collide_pairs() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    check_host_path(&device, &queue);
}

#[test]
fn a_host_device_with_downlevel_limits_works() {
    let Some((device, queue)) =
        common::device_with_limits("host", wgpu::Limits::downlevel_defaults())
    else {
        return;
    };
    assert_eq!(device.limits().max_storage_buffers_per_shader_stage, 4);
    assert_eq!(device.limits().max_compute_invocations_per_workgroup, 256);
    check_host_path(&device, &queue);
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    assert!(matches!(
        gpu.record(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    assert!(matches!(
        gpu.request_readback(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
    // Nothing requested: nothing to return, and no error (hosts poll every frame).
    assert!(gpu.poll_readback().is_none() && !gpu.readback_pending());
    // A bad batch is refused by prepare as by collide_pairs.
    let batch = wgpu_sat::scenes::narrow_phase_batch(100, 1);
    gpu.set_shapes(&batch.shapes).unwrap();
    let e = gpu.prepare(&batch.colliders, &[[0, 99_999]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Batch(BatchError::PairIndexOutOfRange {
                pair: 0,
                index: 99_999,
                ..
            })
        ),
        "{e:?}"
    );
    assert!(matches!(
        gpu.record(&mut encoder),
        Err(Error::Gpu(GpuError::NotPrepared))
    ));
}

#[test]
fn a_lost_device_gives_an_error_not_a_panic_or_a_hang() {
    let Some((device, queue)) =
        common::device_with_limits("host", wgpu::Limits::downlevel_defaults())
    else {
        return;
    };
    let batch = wgpu_sat::scenes::narrow_phase_batch(5_000, 3);
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shapes(&batch.shapes).unwrap();
    assert!(
        !gpu.collide_pairs(&batch.colliders, &batch.pairs)
            .unwrap()
            .is_empty()
    );
    device.destroy();
    // The blocking path reports the loss when it fetches the results.
    let e = gpu
        .collide_pairs(&batch.colliders, &batch.pairs)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Gpu(GpuError::Readback(_))
                | Error::Gpu(GpuError::Poll(_))
                | Error::Gpu(GpuError::Device(_))
        ),
        "{e:?}"
    );
    // The host path: a lost device takes writes and recordings without complaint (wgpu has
    // no way to ask), and the readback reports it instead of waiting forever.
    gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    gpu.record(&mut encoder).unwrap();
    gpu.request_readback(&mut encoder).unwrap();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    queue.submit([encoder.finish()]);
    drop(pollster::block_on(scope.pop()));
    for _ in 0..10_000 {
        if let Some(result) = gpu.poll_readback() {
            let e = result.unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::Gpu(GpuError::Readback(_))
                        | Error::Gpu(GpuError::Poll(_))
                        | Error::Gpu(GpuError::Device(_))
                ),
                "{e:?}"
            );
            return;
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    panic!("the readback of a lost device neither arrived nor failed");
}

#[test]
fn a_world_stepped_on_the_gpu_leaves_its_poses_where_a_renderer_reads_them() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    let mut world = wgpu_sat::scenes::pile(300, 4);
    for _ in 0..30 {
        world.step(1.0 / 60.0, &mut gpu).unwrap();
    }
    gpu.write_poses(world.colliders()).unwrap();
    let n = world.colliders().len();
    let poses = read_words(&device, &queue, gpu.poses_buffer(), 4 * n);
    let shapes = read_words(&device, &queue, gpu.collider_shapes_buffer(), n);
    for i in 0..n {
        // Nothing was removed, so every collider slot is live.
        let collider = world.collider_id(i).expect("a live collider slot");
        let t = world.transform(world.collider_body(collider).expect("its body"));
        let expected = [
            t.translation().x,
            t.translation().y,
            t.rotation().x,
            t.rotation().y,
        ];
        assert_eq!(
            &poses[4 * i..4 * i + 4],
            bytemuck::cast_slice::<f32, u32>(&expected),
            "collider {i}"
        );
        assert_eq!(shapes[i], world.colliders()[i].shape, "collider {i}");
    }
    // A bad pose is refused, naming the collider.
    let mut colliders = world.colliders().to_vec();
    colliders[5].transform = wgpu_sat::Transform::new(wgpu_sat::glam::Vec2::NAN, 0.0);
    assert!(matches!(
        gpu.write_poses(&colliders),
        Err(Error::Batch(BatchError::NonFiniteTransform { collider: 5 }))
    ));
}

/// Submits an encoder with the prepared batch recorded and, with `readback`, a readback
/// request: one host frame, without waiting for anything.
fn submit_frame(
    gpu: &mut GpuNarrowPhase,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    readback: bool,
) {
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("host frame"),
    });
    gpu.record(&mut encoder).unwrap();
    if readback {
        gpu.request_readback(&mut encoder).unwrap();
    }
    queue.submit([encoder.finish()]);
}

/// Polls (never waits) until the pending readback arrives; panics after about ten seconds.
fn poll_until_ready(gpu: &mut GpuNarrowPhase) -> Result<Vec<Contact>, Error> {
    for _ in 0..100_000 {
        if let Some(result) = gpu.poll_readback() {
            return result;
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    panic!("the readback never arrived");
}

/// The host of `examples/embed/` prepares every frame and reads back now and then: the
/// readback of frame 1 arrives after frame 2 was prepared (other pairs, another count). It
/// must still name frame 1's colliders and hold all of frame 1's contacts.
#[test]
fn a_readback_that_arrives_after_the_next_prepare_names_its_own_batch() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let first = wgpu_sat::scenes::narrow_phase_batch(20_000, 21);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&first.shapes).unwrap();
    let expected = cpu.collide_pairs(&first.colliders, &first.pairs).unwrap();
    assert!(expected.len() > 5_000);

    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shapes(&first.shapes).unwrap();
    gpu.prepare(&first.colliders, &first.pairs).unwrap();
    submit_frame(&mut gpu, &device, &queue, true);

    // Frame 2: another scene, fewer pairs, no readback requested.
    let second = wgpu_sat::scenes::narrow_phase_batch(7_000, 22);
    assert_ne!(second.pairs.len(), first.pairs.len());
    gpu.set_shapes(&second.shapes).unwrap();
    gpu.prepare(&second.colliders, &second.pairs).unwrap();
    submit_frame(&mut gpu, &device, &queue, false);

    assert_same_contacts(&expected, &poll_until_ready(&mut gpu).unwrap());
    assert!(!gpu.readback_pending());
}

/// A second request replaces one still under way: the contacts that arrive are the second
/// batch's, whether the first was only recorded or already polled once.
#[test]
fn a_second_readback_request_replaces_one_still_under_way() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let first = wgpu_sat::scenes::narrow_phase_batch(20_000, 31);
    let second = wgpu_sat::scenes::narrow_phase_batch(9_000, 32);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&second.shapes).unwrap();
    let expected = cpu.collide_pairs(&second.colliders, &second.pairs).unwrap();

    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    for poll_in_between in [false, true] {
        gpu.set_shapes(&first.shapes).unwrap();
        gpu.prepare(&first.colliders, &first.pairs).unwrap();
        submit_frame(&mut gpu, &device, &queue, true);
        if poll_in_between {
            // The first request is most likely not back yet (then this returns `None`); if
            // it is, it is the first batch's, and nothing is pending.
            if let Some(result) = gpu.poll_readback() {
                assert_eq!(result.unwrap().len(), {
                    let mut cpu = CpuNarrowPhase::new();
                    cpu.set_shapes(&first.shapes).unwrap();
                    cpu.collide_pairs(&first.colliders, &first.pairs)
                        .unwrap()
                        .len()
                });
            }
        }
        gpu.set_shapes(&second.shapes).unwrap();
        gpu.prepare(&second.colliders, &second.pairs).unwrap();
        submit_frame(&mut gpu, &device, &queue, true);
        assert_same_contacts(&expected, &poll_until_ready(&mut gpu).unwrap());
        assert!(!gpu.readback_pending() && gpu.poll_readback().is_none());
    }
}

/// A host that polls before submitting the encoder holding the request gets `None` (the
/// copy has not run), and after the submit the right contacts, with no validation error
/// at its submit (the buffer must not be mapped while the copy into it is submitted).
#[test]
fn polling_before_the_submit_returns_nothing_and_spoils_nothing() {
    let Some((device, queue)) = common::gpu() else {
        return;
    };
    let batch = wgpu_sat::scenes::narrow_phase_batch(5_000, 41);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&batch.shapes).unwrap();
    let expected = cpu.collide_pairs(&batch.colliders, &batch.pairs).unwrap();

    let mut gpu = GpuNarrowPhase::new(&device, &queue).unwrap();
    gpu.set_shapes(&batch.shapes).unwrap();
    gpu.prepare(&batch.colliders, &batch.pairs).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    gpu.record(&mut encoder).unwrap();
    gpu.request_readback(&mut encoder).unwrap();
    for _ in 0..3 {
        assert!(gpu.poll_readback().is_none());
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(gpu.readback_pending());
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    queue.submit([encoder.finish()]);
    let error = pollster::block_on(scope.pop());
    assert!(error.is_none(), "the host's submit failed: {error:?}");
    assert_same_contacts(&expected, &poll_until_ready(&mut gpu).unwrap());
}

/// The embed example's `--gpu-world` mode (its renderer and scene, included as they are):
/// a host steps a `GpuWorld` on its own device and draws it from `GpuWorld::transforms`
/// alone, with no readback and no pose upload.
#[allow(dead_code)]
#[path = "../../examples/embed/gpu_world/mod.rs"]
mod gpu_world;
#[path = "../../examples/shared/mod.rs"]
mod shared;

/// Pixels of box colour (saturated: the floor and walls are grey, the background almost
/// black) in rows `rows` of a tightly packed RGBA picture `width` pixels wide.
fn box_pixels(rgba: &[u8], width: u32, rows: std::ops::Range<u32>) -> usize {
    let row_bytes = 4 * width as usize;
    rgba[rows.start as usize * row_bytes..rows.end as usize * row_bytes]
        .chunks_exact(4)
        .filter(|p| {
            let (max, min) = (p[..3].iter().max().unwrap(), p[..3].iter().min().unwrap());
            max - min > 60
        })
        .count()
}

/// The boxes start in the upper half of the picture; after three seconds of falling they
/// lie in a pile on the floor, in the lower half. A renderer that drew anything but the
/// transforms the device wrote (the poses as uploaded, or none) fails this.
#[test]
fn a_host_draws_a_gpu_world_from_its_transforms_buffer() {
    let Some((device, queue)) =
        common::device_with_limits("host", wgpu::Limits::downlevel_defaults())
    else {
        return;
    };
    let mut host =
        gpu_world::WorldHost::new(device.clone(), queue.clone(), shared::OFFSCREEN_FORMAT, 300)
            .unwrap();
    let (width, height) = (320, 200);
    let target = shared::Offscreen::new(&device, "gpu world test", width, height);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu world test staging"),
        size: target.copy_bytes(),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    // One step and its picture, as the example's headless run takes its last one.
    let mut frame = |picture: bool| -> Option<Vec<u8>> {
        let mut encoder = host.encode_frame(&target.view, (width, height)).unwrap();
        if picture {
            target.copy_to(&mut encoder, &staging, 0);
        }
        queue.submit([encoder.finish()]);
        if !picture {
            return None;
        }
        let slice = staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.unwrap());
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let pixels = target.unpad(&slice.get_mapped_range().unwrap());
        staging.unmap();
        Some(pixels)
    };
    let first = frame(true).unwrap();
    for _ in 2..180 {
        frame(false);
    }
    let last = frame(true).unwrap();

    let (upper, lower) = (0..height / 2, height / 2..height);
    let half_area = (width * height / 2) as usize;
    let [first_upper, first_lower] = [&upper, &lower].map(|r| box_pixels(&first, width, r.clone()));
    let [last_upper, last_lower] = [&upper, &lower].map(|r| box_pixels(&last, width, r.clone()));
    assert!(
        first_upper > half_area / 20 && first_lower == 0,
        "frame 1: {first_upper} box pixels above the middle, {first_lower} below"
    );
    assert!(
        last_lower > half_area / 20 && last_upper < first_upper / 10,
        "frame 180: {last_upper} box pixels above the middle, {last_lower} below \
         (frame 1: {first_upper} above)"
    );
    // What was drawn is where the world is: every box came down to the floor's half.
    let world = host.gpu.read_world().unwrap();
    let highest = world
        .bodies()
        .filter(|&b| !world.is_static(b))
        .map(|b| world.transform(b).translation().y)
        .fold(f32::MIN, f32::max);
    assert!(
        highest < gpu_world::VIEW_CENTER.y,
        "a box is still at y = {highest}"
    );
}
