//! Subcommands of the `gerbil` binary, one file each.

pub mod bench;
pub mod complete;
pub mod dump_graph;
pub mod profile;
pub mod serve;
pub mod speak;
pub mod speak_out;
pub mod transcribe;
