//! `kerf`: pack glyph-size traces with kerf's packers (more subcommands to come:
//! `atlas`, `profile`).

mod compare;
mod pack;
mod picture;
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
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Pack(args) => pack::run(args),
    };
    if let Err(e) = result {
        eprintln!("kerf: error: {e}");
        std::process::exit(2);
    }
}
