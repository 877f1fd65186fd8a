//! `gerbil serve` (being built: see src/server/ and src/worker/).

#[derive(clap::Args, Debug)]
pub struct ServeArgs {}

pub fn run(_args: ServeArgs) -> anyhow::Result<()> {
    anyhow::bail!("`gerbil serve` is not implemented yet")
}
