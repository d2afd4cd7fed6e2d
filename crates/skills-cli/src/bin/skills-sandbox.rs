//! `skills-sandbox`: the sandbox helper alone. `skills run` starts it (two stages of it) in
//! front of every sandboxed script: a program that does nothing but `sandbox_main()` starts in
//! a fraction of the time the whole `skills` binary takes (fewer pages to map and relocate),
//! and each run starts it twice. Started by hand, it says what it is for.

fn main() -> std::process::ExitCode {
    skills::run::sandbox_main();
    eprintln!(
        "skills-sandbox is the sandbox helper `skills` starts in front of a script; it is not \
         run by hand"
    );
    std::process::ExitCode::from(2)
}
