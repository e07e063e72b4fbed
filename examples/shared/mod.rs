//! What the examples with a picture share: finding an adapter, setting up an sRGB surface,
//! an offscreen target whose pixels can be read back, and writing them to a PNG.
//!
//! Included by `simulate` and `embed` with `#[path]` (a folder without a `main.rs` is not
//! an example of its own). Each example uses what it needs of it.

#![allow(dead_code)]

use std::path::Path;

/// A failure to tell the user about, in one line.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The offscreen target's format: what a PNG stores (8-bit RGBA, sRGB-encoded).
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// An adapter (able to present to `surface`, if given): the one `WGPU_ADAPTER_NAME` names
/// if set (part of its name), else the default one (`WGPU_POWER_PREF` honoured), else a
/// fallback (software) one. The error says what to install, or which adapters exist.
pub fn request_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter> {
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        // wgpu's own lookup panics when nothing matches: look ourselves and list what exists.
        let wanted = name.to_lowercase();
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| {
                a.get_info().name.to_lowercase().contains(&wanted)
                    && surface.is_none_or(|s| a.is_surface_supported(s))
            })
            .ok_or_else(|| {
                format!(
                    "WGPU_ADAPTER_NAME={name:?} matches no adapter that can draw here; \
                     adapters present: {names:?}"
                )
                .into()
            });
    }
    let mut options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
        compatible_surface: surface,
        ..Default::default()
    };
    pollster::block_on(instance.request_adapter(&options)).or_else(|first| {
        options.force_fallback_adapter = true;
        pollster::block_on(instance.request_adapter(&options)).map_err(|_| {
            format!(
                "no graphics adapter ({first}); drawing needs one, even with the CPU narrow \
                 phase. Install a Vulkan driver: on Debian or Ubuntu \
                 `apt-get install mesa-vulkan-drivers` provides a software one"
            )
            .into()
        })
    })
}

/// The surface's default configuration for a `width` x `height` window, with an sRGB format
/// when the surface offers one (so that colours blend and look as picked; the examples'
/// shaders handle either kind). Not yet applied: the caller configures the surface.
pub fn srgb_surface_config(
    surface: &wgpu::Surface<'_>,
    adapter: &wgpu::Adapter,
    width: u32,
    height: u32,
) -> Result<wgpu::SurfaceConfiguration> {
    let mut config = surface
        .get_default_config(adapter, width.max(1), height.max(1))
        .ok_or("the adapter cannot present to this window")?;
    let formats = surface.get_capabilities(adapter).formats;
    if let Some(&srgb) = formats.iter().find(|f| f.is_srgb()) {
        config.format = srgb;
    }
    Ok(config)
}

/// An offscreen colour target of [`OFFSCREEN_FORMAT`] whose pixels can be copied out.
pub struct Offscreen {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub width: u32,
    pub height: u32,
}

impl Offscreen {
    pub fn new(device: &wgpu::Device, label: &str, width: u32, height: u32) -> Offscreen {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        Offscreen {
            texture,
            view,
            width,
            height,
        }
    }

    /// Bytes of one row in a copy: texture-to-buffer copies pad rows to 256 bytes.
    pub fn padded_row_bytes(&self) -> u32 {
        (4 * self.width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
    }

    /// Bytes the copy of the picture takes in a buffer.
    pub fn copy_bytes(&self) -> u64 {
        self.padded_row_bytes() as u64 * self.height as u64
    }

    /// Records a copy of the picture into `buffer` at `offset` (padded rows).
    pub fn copy_to(&self, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer, offset: u64) {
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset,
                    bytes_per_row: Some(self.padded_row_bytes()),
                    rows_per_image: Some(self.height),
                },
            },
            self.texture.size(),
        );
    }

    /// The tightly packed RGBA pixels from a copy's bytes (the padding dropped).
    pub fn unpad(&self, copied: &[u8]) -> Vec<u8> {
        copied
            .chunks_exact(self.padded_row_bytes() as usize)
            .flat_map(|row| &row[..4 * self.width as usize])
            .copied()
            .collect()
    }
}

/// Writes `rgba` (tightly packed, `width` x `height`) to `path` as an 8-bit RGBA PNG.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<()> {
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgba)?;
    writer.finish()?;
    Ok(())
}
