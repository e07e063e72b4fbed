//! `--gpu-world`: the host steps a whole [`World`] on its own device as a
//! [`GpuWorld`], and draws every body from the GPU world's transforms buffer in its own
//! render pass. No pose is uploaded and nothing is read back per frame: the device writes
//! the transforms at the end of each step, and the host's vertex shader reads them.
//!
//! The scene is a floor between two low walls and a few hundred boxes in rows above it,
//! all in the upper half of the picture at the start, falling into a pile.
//!
//! Only wgpu, wgpu-sat, bytemuck and rand are used here, so that tests/gpu/embed.rs can
//! include this module as it is and check its picture.

mod renderer;

use bytemuck::{Pod, Zeroable};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wgpu_sat::glam::Vec2;
use wgpu_sat::gpu::GpuWorld;
use wgpu_sat::{BodyDef, Error, Polygon, World};

pub use renderer::BodyRenderer;

/// One step per frame.
pub const DT: f32 = 1.0 / 60.0;
/// The world point at the centre of the picture.
pub const VIEW_CENTER: Vec2 = Vec2::new(0.0, 22.0);
/// World units from the centre of the picture to its top edge.
pub const VIEW_HALF_HEIGHT: f32 = 25.0;
/// The lowest boxes start their fall here: above the picture's middle.
pub const DROP_HEIGHT: f32 = 24.0;
/// Half the floor's width (its top is at y = 0).
const FLOOR_HALF_WIDTH: f32 = 24.0;
/// Room per box in the starting rows: wider than two boxes turned and shifted as far as
/// `falling_boxes` turns and shifts them (2 × 0.5 × (cos 0.4 + sin 0.4) + 2 × 0.1), so that
/// none touch at the start.
const SPACING: f32 = 1.55;

/// One body as the host draws it, at its body slot (`BodyId::index`): a box's half
/// extents and colour, uploaded once. As `Box` in `bodies.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct BoxGpu {
    pub half_extents: [f32; 2],
    /// RGBA8, sRGB, red in the lowest byte.
    pub color: u32,
    pub _pad: u32,
}
const _: () = assert!(size_of::<BoxGpu>() == 16);

/// sRGB fills of the falling boxes (saturated, so a picture tells them from the grey floor
/// and the dark background), and of the floor and walls.
const BOX_COLORS: [[u8; 3]; 6] = [
    [230, 90, 70],
    [240, 170, 50],
    [90, 190, 110],
    [70, 150, 230],
    [170, 100, 220],
    [230, 110, 170],
];
const STATIC_COLOR: [u8; 3] = [130, 134, 140];

fn rgba8([r, g, b]: [u8; 3]) -> u32 {
    u32::from_le_bytes([r, g, b, 255])
}

/// A floor between two walls and `count` boxes (each side 0.5 to 1.0) in rows from
/// [`DROP_HEIGHT`] up, slightly turned and shifted so that the pile topples, and per body
/// slot the box the renderer draws. The same for the same `count`.
pub fn falling_boxes(count: usize) -> Result<(World, Vec<BoxGpu>), Error> {
    let mut world = World::default();
    let mut boxes = Vec::new();
    let mut add = |world: &mut World, def: &BodyDef, half: Vec2, color| -> Result<(), Error> {
        let slot = world.add_body(def)?.index();
        if boxes.len() <= slot {
            boxes.resize(slot + 1, BoxGpu::default());
        }
        boxes[slot] = BoxGpu {
            half_extents: half.to_array(),
            color: rgba8(color),
            _pad: 0,
        };
        Ok(())
    };
    let fixed = |half: Vec2, at: Vec2| BodyDef::fixed(Polygon::rectangle(half.x, half.y), at);
    let floor = Vec2::new(FLOOR_HALF_WIDTH, 0.5);
    add(
        &mut world,
        &fixed(floor, Vec2::new(0.0, -0.5)),
        floor,
        STATIC_COLOR,
    )?;
    let wall = Vec2::new(0.5, 6.0);
    for side in [-1.0, 1.0] {
        let at = Vec2::new(side * (FLOOR_HALF_WIDTH + 0.5), 6.0);
        add(&mut world, &fixed(wall, at), wall, STATIC_COLOR)?;
    }

    // A fixed seed: every run (and every test) drops the same boxes.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let columns = ((2.0 * (FLOOR_HALF_WIDTH - 2.0)) / SPACING) as usize;
    let x0 = -0.5 * SPACING * (columns - 1) as f32;
    for k in 0..count {
        let (row, column) = (k / columns, k % columns);
        let half = Vec2::new(rng.random_range(0.25..0.5), rng.random_range(0.25..0.5));
        let jitter = rng.random_range(-0.1..0.1);
        let at = Vec2::new(
            x0 + SPACING * column as f32 + jitter,
            DROP_HEIGHT + SPACING * row as f32,
        );
        let mut def = BodyDef::dynamic(Polygon::rectangle(half.x, half.y), at);
        def.angle = rng.random_range(-0.4..0.4);
        add(&mut world, &def, half, BOX_COLORS[k % BOX_COLORS.len()])?;
    }
    Ok((world, boxes))
}

/// What a host keeps for the GPU world: its device and queue, the GPU world, and its
/// renderer.
pub struct WorldHost {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub gpu: GpuWorld,
    renderer: BodyRenderer,
}

impl WorldHost {
    /// STEP W2 and W3: the world uploaded once, and the renderer with its boxes.
    pub fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        format: wgpu::TextureFormat,
        count: usize,
    ) -> Result<WorldHost, Error> {
        let (world, boxes) = falling_boxes(count)?;
        let gpu = GpuWorld::new(&device, &queue, &world)?; // a copy of the host's world
        let renderer = BodyRenderer::new(&device, &queue, format, &boxes);
        Ok(WorldHost {
            device,
            queue,
            gpu,
            renderer,
        })
    }

    /// Bodies drawn: one instance per body slot.
    pub fn bodies(&self) -> usize {
        self.renderer.bodies() as usize
    }

    /// STEP W4: one step, then an encoder holding the render pass that draws every body
    /// from the transforms that step wrote, for the caller to add its own work (a present,
    /// a screenshot copy) and submit. The step submits its own work on the same queue
    /// first, so queue order puts the draw after the transforms are written.
    pub fn encode_frame(
        &mut self,
        target: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Result<wgpu::CommandEncoder, Error> {
        self.gpu.step(DT)?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.renderer
            .draw(self.gpu.transforms(), &mut encoder, target, size);
        Ok(encoder)
    }
}
