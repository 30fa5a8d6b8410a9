//! `kerf`: pack glyph-size traces, build glyph atlases, profile the glyph
//! cache, render shaped text.

#[macro_use]
mod stdout;

mod atlas_command;
mod compare;
mod corpus;
mod gpu;
mod pack;
mod picture;
mod plot;
mod profile;
mod render;
mod runner;
mod soak;
mod trace;

use clap::{Parser, Subcommand};

/// kerf: GPU glyph-cache runtime tools.
#[derive(Parser, Debug)]
#[command(name = "kerf", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Pack a glyph-size trace (`w h` per line) and report placements, occupancy and speed.
    Pack(pack::PackArgs),
    /// Build the glyph cache for a text and write its pages as PNG.
    Atlas(atlas_command::AtlasArgs),
    /// Run glyph-cache workloads frame by frame and report throughput, hit rate and occupancy.
    Profile(profile::ProfileArgs),
    /// Many frames of churn with invariant checks every frame and memory recorded over time.
    Soak(soak::SoakArgs),
    /// Shape a text with cosmic-text, draw it with kerf-wgpu, write a PNG and/or a JSON of its glyphs.
    Render(render::RenderArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Pack(args) => pack::run(args),
        Command::Atlas(args) => atlas_command::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Soak(args) => soak::run(args),
        Command::Render(args) => render::run(args),
    };
    if let Err(e) = result {
        eprintln!("kerf: error: {e}");
        std::process::exit(2);
    }
}
