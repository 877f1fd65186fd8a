//! Subcommands of the `gerbil` binary, one file each.

pub mod complete;
pub mod serve;
