//! Typed configuration, read once at start-up. The only place that reads the
//! process environment.

use crate::weights::hub::HubOptions;

/// Hugging Face hub settings from the standard variables (HF_HOME is read by hf-hub itself).
pub fn hub_options_from_env(progress: bool) -> HubOptions {
    let offline = std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| matches!(v.as_str(), "1" | "true" | "TRUE" | "yes"));
    let token = std::env::var("HF_TOKEN").ok().filter(|t| !t.is_empty());
    HubOptions { offline, token, progress }
}
