//! Whether the device still works. A GPU can be lost under a running server (a driver reset, a
//! hung kernel killed by the OS watchdog, an eGPU unplugged): wgpu then calls the device-lost
//! callback, every later submission is dropped and every readback fails. The worker reads this
//! after each step to tell that apart from a failing request, fails what was in flight with
//! "device lost" and opens the device again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

#[derive(Default)]
pub struct DeviceHealth {
    lost: AtomicBool,
    reason: Mutex<Option<String>>,
}

impl DeviceHealth {
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Why the device was lost, as the driver or wgpu said it (None while it works).
    pub fn reason(&self) -> Option<String> {
        self.reason.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn mark_lost(&self, why: String) {
        let mut reason = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        if reason.is_none() {
            *reason = Some(why);
        }
        self.lost.store(true, Ordering::Release);
    }
}

/// Installs the callbacks that keep `health` current on `device`. Other uncaptured errors keep
/// wgpu's default behaviour (a validation error is a bug: panic with it); once the device is lost,
/// the errors that follow from the loss are expected and only logged.
pub(crate) fn watch(device: &wgpu::Device, health: &std::sync::Arc<DeviceHealth>) {
    let h = health.clone();
    device.set_device_lost_callback(move |reason, message| {
        tracing::error!(?reason, "GPU device lost: {message}");
        h.mark_lost(format!("{reason:?}: {message}"));
    });
    let h = health.clone();
    device.on_uncaptured_error(std::sync::Arc::new(move |e: wgpu::Error| {
        if h.is_lost() {
            tracing::debug!("after the device was lost: {e}");
        } else {
            panic!("wgpu error: {e}");
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reason_is_kept() {
        let h = DeviceHealth::default();
        assert!(!h.is_lost());
        assert_eq!(h.reason(), None);
        h.mark_lost("Destroyed: first".into());
        h.mark_lost("Unknown: second".into());
        assert!(h.is_lost());
        assert_eq!(h.reason().as_deref(), Some("Destroyed: first"));
    }
}
