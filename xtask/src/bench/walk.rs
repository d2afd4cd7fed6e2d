//! The two baselines of 06 §Performance, timed in the bench's own process: the **floor**, a
//! minimal walker that lists the roots and reads the first 4 KiB of every definition file (the
//! physical cost of a correct cold listing), and the **full read**, the same walk reading
//! every definition file whole (the `find -exec cat` baseline).
//!
//! Both run in `xtask __walk`, a release build of xtask started by the bench, under the same
//! protocol as the in-process `discover` bench (one untimed walk, then timed ones, printed as
//! one JSON line): a debug-built floor would be slower than the code it is a floor for, and
//! would flatter every ratio.
//!
//! The walker does the least a correct listing can: `read_dir` per directory (the entry's type
//! comes with it, no `stat`), one `open` of `<dir>/SKILL.md` per directory, which both detects
//! a skill and starts reading it, and no descent into a skill directory or a dot-directory. It
//! neither sorts nor parses, and it allocates one buffer for the whole walk: anything a real
//! tool does beyond this shows up as its ratio to the floor.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The definition file the walker looks for.
const SKILL_MD: &str = "SKILL.md";

/// How much of a definition file the floor reads: enough for any realistic frontmatter.
const FLOOR_READ_BYTES: usize = 4 * 1024;

const USAGE: &str = "usage: xtask __walk --portion head|whole --runs N -- ROOT...";

/// `xtask __walk --portion head|whole --runs N -- ROOT...`: one untimed walk, then `N` timed
/// ones; prints `{"skills":S,"runs_ns":[...]}`.
pub(crate) fn main(args: &[String]) -> ExitCode {
    let (portion, runs, roots) = match parse(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tally = walk(&roots, portion);
    let mut runs_ns = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let again = std::hint::black_box(walk(&roots, portion));
        runs_ns.push(started.elapsed().as_nanos().to_string());
        if again != tally {
            eprintln!("error: the tree changed during the walk ({again:?}, then {tally:?})");
            return ExitCode::FAILURE;
        }
    }
    println!(
        "{{\"skills\":{},\"bytes\":{},\"runs_ns\":[{}]}}",
        tally.skills,
        tally.bytes,
        runs_ns.join(",")
    );
    ExitCode::SUCCESS
}

fn parse(args: &[String]) -> Result<(Portion, usize, Vec<PathBuf>), String> {
    let mut portion = None;
    let mut runs = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--portion" => {
                portion = match args.next().map(String::as_str) {
                    Some("head") => Some(Portion::Head),
                    Some("whole") => Some(Portion::Whole),
                    _ => return Err("`--portion` is `head` or `whole`".to_owned()),
                };
            }
            "--runs" => {
                runs = args.next().and_then(|text| text.parse::<usize>().ok());
                if runs.is_none_or(|runs| runs == 0) {
                    return Err("`--runs` wants a positive number".to_owned());
                }
            }
            "--" => break,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let roots: Vec<PathBuf> = args.map(PathBuf::from).collect();
    match (portion, runs) {
        (Some(portion), Some(runs)) if !roots.is_empty() => Ok((portion, runs, roots)),
        _ => Err("give `--portion`, `--runs` and at least one root".to_owned()),
    }
}

/// How much of each definition file a walk reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Portion {
    /// The first [`FLOOR_READ_BYTES`].
    Head,
    /// All of it.
    Whole,
}

/// What a walk found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Skill directories.
    pub(crate) skills: usize,
    /// Bytes read from definition files.
    pub(crate) bytes: u64,
}

/// Walks every root, reading each definition file as `read` says.
pub(crate) fn walk(roots: &[PathBuf], read: Portion) -> Tally {
    let mut walker = Walker {
        read,
        buffer: Vec::with_capacity(64 * 1024),
        tally: Tally::default(),
    };
    for root in roots {
        walker.category(root);
    }
    walker.tally
}

struct Walker {
    read: Portion,
    buffer: Vec<u8>,
    tally: Tally,
}

impl Walker {
    /// A directory that is not a skill: visit its subdirectories. Unreadable ones are skipped,
    /// as a missing root is.
    fn category(&mut self, dir: &Path) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().as_encoded_bytes().starts_with(b".") {
                continue;
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                self.directory(&entry.path());
            }
        }
    }

    fn directory(&mut self, dir: &Path) {
        match File::open(dir.join(SKILL_MD)) {
            Ok(file) => {
                self.tally.skills += 1;
                // A definition file that cannot be read is still a skill the listing names.
                self.tally.bytes += self.read(file).unwrap_or(0);
            }
            Err(_) => self.category(dir),
        }
    }

    fn read(&mut self, file: File) -> io::Result<u64> {
        self.buffer.clear();
        let read = match self.read {
            Portion::Head => file
                .take(FLOOR_READ_BYTES as u64)
                .read_to_end(&mut self.buffer)?,
            Portion::Whole => {
                let mut file = file;
                file.read_to_end(&mut self.buffer)?
            }
        };
        Ok(read as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_skills_not_inside_skills_and_not_under_dot_directories() {
        let root = std::env::temp_dir().join(format!("xtask-bench-walk-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let skill = |path: &str, bytes: usize| {
            let dir = root.join(path);
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(SKILL_MD), "x".repeat(bytes)).unwrap();
        };
        skill("top", 100);
        skill("category/inner", 5_000);
        skill("category/inner/nested", 10);
        skill(".hidden/secret", 10);
        fs::create_dir_all(root.join("empty/deeper")).unwrap();
        let roots = [root.clone(), root.join("missing")];
        assert_eq!(
            walk(&roots, Portion::Head),
            Tally {
                skills: 2,
                bytes: 100 + 4_096
            }
        );
        assert_eq!(
            walk(&roots, Portion::Whole),
            Tally {
                skills: 2,
                bytes: 5_100
            }
        );
        fs::remove_dir_all(root).unwrap();
    }
}
