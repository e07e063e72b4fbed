//! `request_device` without a usable adapter: errors that say what to do, never a panic.
//!
//! This binary holds a single test because it changes the process environment.

use wgpu_sat::error::GpuError;
use wgpu_sat::{Error, request_device};

#[test]
fn missing_adapters_are_errors_that_say_what_to_do() {
    // SAFETY: the only test in this binary; no other thread reads the environment.
    unsafe {
        std::env::remove_var("WGPU_ADAPTER_NAME");
        // A backend list with no valid name: the instance has no backends at all.
        std::env::set_var("WGPU_BACKEND", "none");
    }
    let e = request_device().unwrap_err();
    assert!(matches!(e, Error::Gpu(GpuError::NoAdapter { .. })), "{e:?}");
    let message = e.to_string();
    assert!(message.contains("mesa-vulkan-drivers"), "{message}");

    unsafe {
        std::env::set_var("WGPU_BACKEND", "vulkan,gl");
        std::env::set_var("WGPU_ADAPTER_NAME", "no adapter is called this");
    }
    let e = request_device().unwrap_err();
    let Error::Gpu(GpuError::AdapterNotFound { name, .. }) = &e else {
        panic!("expected AdapterNotFound, got {e:?}")
    };
    assert_eq!(name, "no adapter is called this");
    assert!(e.to_string().contains("WGPU_ADAPTER_NAME"), "{e}");
}
