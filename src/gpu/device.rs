//! `request_device`: the one place where the crate owns a device.

use crate::error::Error;
use crate::error::GpuError;

/// Creates a device and queue for the narrow phase, blocking until they exist.
///
/// Honours wgpu's environment variables: `WGPU_BACKEND` (e.g. `vulkan`, `gl`),
/// `WGPU_ADAPTER_NAME` (a case-insensitive part of the adapter's name) and
/// `WGPU_POWER_PREF`. Without them it takes the default adapter, and falls back to a
/// software adapter (such as Mesa's lavapipe) when there is no hardware one.
///
/// The device gets `Limits::downlevel_defaults()` (so that whatever runs here runs on any
/// adapter) with the adapter's own storage-buffer sizes, and timestamp queries when the
/// adapter has them.
///
/// Hosts with a renderer of their own should pass their device to
/// [`GpuNarrowPhase::new`](crate::GpuNarrowPhase::new) instead.
pub fn request_device() -> Result<(wgpu::Device, wgpu::Queue), Error> {
    pollster::block_on(request_device_async())
}

async fn request_device_async() -> Result<(wgpu::Device, wgpu::Queue), Error> {
    let instance = wgpu::Instance::new(without_indirect_validation(
        wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
    ));
    let adapter = request_adapter(&instance).await?;
    let adapter_limits = adapter.limits();
    let required_limits = wgpu::Limits {
        max_storage_buffer_binding_size: adapter_limits.max_storage_buffer_binding_size,
        max_buffer_size: adapter_limits.max_buffer_size,
        ..wgpu::Limits::downlevel_defaults().using_resolution(adapter_limits)
    };
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("wgpu-sat device"),
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits,
            ..Default::default()
        })
        .await?;
    Ok((device, queue))
}

/// `descriptor` without wgpu's validation of indirect dispatches
/// ([`wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL`], on by default in every build),
/// unless the environment sets `WGPU_VALIDATION_INDIRECT_CALL=1`.
///
/// wgpu checks an indirect dispatch's workgroups against the device's limits by running a
/// dispatch of its own before it, with a barrier. The GPU world's solver dispatches each
/// colour of each pass indirectly (about 330 a step at four substeps), so the check
/// doubles its dispatches: on an NVIDIA H200 the solver's passes took 27 % less device
/// time at 20,000 bodies without it (docs/performance.md). The crate's kernels write
/// every indirect dispatch's workgroups within the limits (the counts they cover are
/// refused above `max_compute_workgroups_per_dimension` times the workgroup size before a
/// step starts, and the narrow phase's rows never pass a dimension's limit), so the check
/// finds nothing to fix in them. [`request_device`] uses this; a host that makes its own
/// instance passes its descriptor through it (the `embed` and `simulate` examples do),
/// and keeps the check if its own indirect calls need it.
///
/// ```no_run
/// let instance = wgpu::Instance::new(wgpu_sat::gpu::without_indirect_validation(
///     wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
/// ));
/// ```
pub fn without_indirect_validation(
    mut descriptor: wgpu::InstanceDescriptor,
) -> wgpu::InstanceDescriptor {
    let asked = std::env::var("WGPU_VALIDATION_INDIRECT_CALL").is_ok_and(|v| v == "1");
    if !asked {
        descriptor
            .flags
            .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    descriptor
}

/// The adapter named by `WGPU_ADAPTER_NAME`, else the default one, else a fallback
/// (software) one.
async fn request_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter, Error> {
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        // wgpu's own lookup panics when nothing matches: look first, and say what exists.
        let wanted = name.to_lowercase();
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let available: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
            .ok_or(Error::Gpu(GpuError::AdapterNotFound { name, available }));
    }
    let mut options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
        ..Default::default()
    };
    match instance.request_adapter(&options).await {
        Ok(adapter) => Ok(adapter),
        Err(first) => {
            options.force_fallback_adapter = true;
            instance.request_adapter(&options).await.map_err(|_| {
                Error::Gpu(GpuError::NoAdapter {
                    reason: first.to_string(),
                })
            })
        }
    }
}
