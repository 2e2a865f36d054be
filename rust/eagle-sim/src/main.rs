//! `eagle-sim`: see [`eagle_sim::cli`].

fn main() {
    std::process::exit(eagle_sim::cli::main(std::env::args().skip(1).collect()));
}
