//! `--headless`: frames rendered offscreen, the last one saved as a PNG; with
//! `--gpu-world`, of the GPU world (`headless_world`).

use std::time::Instant;

use wgpu_sat::{CpuNarrowPhase, NarrowPhase, World};

use crate::Args;
use crate::gpu_world::WorldHost;
use crate::host::{Host, request_device};
use crate::shared::{OFFSCREEN_FORMAT, Offscreen, Result, request_adapter, write_png};

/// `--headless`: no window and no event loop; frames rendered offscreen, the last one saved.
pub fn headless(args: &Args) -> Result<()> {
    let instance = wgpu::Instance::new(wgpu_sat::gpu::without_indirect_validation(
        wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    ));
    let adapter = request_adapter(&instance, None)?;
    let (device, queue) = request_device(&adapter)?;
    let mut host = Host::new(device.clone(), queue.clone(), OFFSCREEN_FORMAT, args.count)?;
    let (width, height) = (1280u32, 800u32);
    let offscreen = Offscreen::new(&device, "embed offscreen", width, height);
    let touching_bytes = 4 * args.count.max(1) as u64;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("embed staging"),
        size: touching_bytes + offscreen.copy_bytes(),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });

    let start = Instant::now();
    let frames = args.frames.max(1);
    for frame in 1..=frames {
        let last = frame == frames;
        let t = frame as f32 / 60.0;
        let mut encoder = host.encode_frame(t, &offscreen.view, (width, height), last)?;
        if last {
            // The summary's one-off readback: the touching flags and the picture.
            encoder.copy_buffer_to_buffer(
                host.gpu.touching_buffer(),
                0,
                &staging,
                0,
                touching_bytes,
            );
            offscreen.copy_to(&mut encoder, &staging, touching_bytes);
        }
        queue.submit([encoder.finish()]);
    }
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the staging buffer")
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let elapsed = start.elapsed();
    let (touching, pixels) = {
        let mapped = slice.get_mapped_range()?;
        let (flags, image) = mapped.split_at(touching_bytes as usize);
        let flags: Vec<u32> = bytemuck::pod_collect_to_vec(flags);
        (flags, offscreen.unpad(image))
    };
    staging.unmap();
    // The non-blocking readback requested in the last frame: poll, waiting in between.
    let contacts = loop {
        match host.gpu.poll_readback() {
            Some(result) => break result?,
            None => _ = device.poll(wgpu::PollType::wait_indefinitely())?,
        }
    };

    // Cross-check the colours against the CPU narrow phase on the same pairs.
    let pairs = host.broad.find_pairs(&host.scene.aabbs);
    let mut cpu = CpuNarrowPhase::new();
    cpu.set_shapes(&host.scene.shapes)?;
    let expected = cpu.collide_pairs(&host.scene.colliders, pairs)?;
    let mut cpu_touching = vec![false; args.count];
    for c in &expected {
        cpu_touching[c.a as usize] = true;
        cpu_touching[c.b as usize] = true;
    }
    let gpu_count = touching.iter().filter(|&&n| n > 0).count();
    let differ = (0..args.count)
        .filter(|&i| (touching[i] > 0) != cpu_touching[i])
        .count();
    println!(
        "embed: {} polygons, {frames} frames in {:.2} s on {}: {} pairs, {} contacts, \
         {gpu_count} touching colliders ({})",
        args.count,
        elapsed.as_secs_f64(),
        adapter.get_info().name,
        host.pairs,
        contacts.len(),
        if differ == 0 {
            "the CPU narrow phase agrees".to_string()
        } else {
            format!("{differ} differ from the CPU narrow phase")
        }
    );
    if let Some(path) = &args.screenshot {
        write_png(path, width, height, &pixels)?;
        println!("embed: wrote {} ({width}x{height})", path.display());
    }
    Ok(())
}

/// `--headless --gpu-world`: the GPU world stepped and drawn `--frames` times offscreen,
/// the last picture saved. Nothing is read back until the end, when the world is, once,
/// for the summary.
pub fn headless_world(args: &Args) -> Result<()> {
    let instance = wgpu::Instance::new(wgpu_sat::gpu::without_indirect_validation(
        wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    ));
    let adapter = request_adapter(&instance, None)?;
    let (device, queue) = request_device(&adapter)?; // STEP W1, as STEP 1
    let mut host = WorldHost::new(device.clone(), queue.clone(), OFFSCREEN_FORMAT, args.count)?;
    // The world as uploaded: `read_world` before any step gives it back as it was.
    let dropped = mean_box_height(&host.gpu.read_world()?);
    let (width, height) = (1280u32, 800u32);
    let offscreen = Offscreen::new(&device, "embed offscreen", width, height);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("embed staging"),
        size: offscreen.copy_bytes(),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });

    let start = Instant::now();
    let frames = args.frames.max(1);
    for frame in 1..=frames {
        let mut encoder = host.encode_frame(&offscreen.view, (width, height))?;
        if frame == frames {
            offscreen.copy_to(&mut encoder, &staging, 0); // the screenshot, once
        }
        queue.submit([encoder.finish()]);
    }
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the staging buffer")
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let elapsed = start.elapsed();
    let pixels = offscreen.unpad(&slice.get_mapped_range()?);
    staging.unmap();

    let world = host.gpu.read_world()?; // STEP W5: the one readback, for this summary
    println!(
        "embed: GPU world of {} bodies, {frames} frames in {:.2} s on {}, drawn from \
         GpuWorld::transforms with no readback: {} contacts; the boxes' mean height fell \
         from {dropped:.1} to {:.1}",
        host.bodies(),
        elapsed.as_secs_f64(),
        adapter.get_info().name,
        world.contacts().len(),
        mean_box_height(&world),
    );
    if let Some(path) = &args.screenshot {
        write_png(path, width, height, &pixels)?;
        println!("embed: wrote {} ({width}x{height})", path.display());
    }
    Ok(())
}

/// The mean height of the moving bodies' origins.
fn mean_box_height(world: &World) -> f32 {
    let (sum, count) = world
        .bodies()
        .filter(|&b| !world.is_static(b))
        .fold((0.0, 0), |(sum, n), b| {
            (sum + world.transform(b).translation().y, n + 1)
        });
    sum / count.max(1) as f32
}
