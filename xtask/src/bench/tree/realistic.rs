//! The realistic shape of a bench skill: sizes and file counts drawn from the distribution of
//! real public skills (884 measured, issue 11 §5), so the bench times what users actually have
//! rather than the uniform 2–6 KiB definitions of the classic shape.
//!
//! Every table below is one measured fact. Sizes and counts are drawn by inverse transform
//! from a piecewise-linear distribution through the measured quantiles: a uniform draw in
//! millionths is mapped onto the segment between the two quantiles around it. What was not
//! measured (the size of a bundled script or reference, the file kinds beyond scripts) is
//! invented, kept small so that the tree stays a few hundred MiB, and said so in
//! `docs/benchmark.md`.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;

use super::{Entry, Malformation, Rng, WORDS, description, sentence, title};

/// A distribution given by its quantiles: `(cumulative share in millionths, value)`, both
/// increasing, from share 0 (the minimum) to 1,000,000 (the maximum).
type Quantiles = [(u64, u64)];

/// Bytes of a `SKILL.md` (KB = 1,000 bytes): p25 2.7 KB, median 7.6 KB, p90 17 KB, p99 37 KB,
/// max 74 KB. The minimum is not in the measurement: 600 bytes is a frontmatter and a line.
pub(super) const DEFINITION_BYTES: [(u64, u64); 6] = [
    (0, 600),
    (250_000, 2_700),
    (500_000, 7_600),
    (900_000, 17_000),
    (990_000, 37_000),
    (1_000_000, 74_000),
];

/// Files per skill, `SKILL.md` included: median 1, p75 5, p90 10, p99 61. The maximum is not
/// in the measurement; 100 keeps the tail as long as the p90→p99 step suggests.
pub(super) const FILES_PER_SKILL: [(u64, u64); 6] = [
    (0, 1),
    (500_000, 1),
    (750_000, 5),
    (900_000, 10),
    (990_000, 61),
    (1_000_000, 100),
];

/// Which kinds of script a skill bundles, in thousandths of all skills: 15% bundle scripts;
/// Python in 13%, JavaScript in 2%, shell in 3%. The shares overlap (13 + 2 + 3 > 15): the
/// mixes are chosen so that each language's total is the measured one. Only a skill with more
/// than its definition file can bundle a script, so the mix is drawn among those
/// ([`WITH_MORE_FILES_PER_MILLE`] of all skills), which keeps the median of one file.
const SCRIPT_MIXES: [(u64, &[Language]); 5] = [
    (100, &[Language::Python]),
    (10, &[Language::JavaScript]),
    (10, &[Language::Shell]),
    (20, &[Language::Python, Language::Shell]),
    (10, &[Language::Python, Language::JavaScript]),
];

/// The thousandths of skills that [`FILES_PER_SKILL`] gives more than one file (a draw above
/// 1,000,000 × 0.53125 rounds to 2 or more).
const WITH_MORE_FILES_PER_MILLE: u64 = 469;

/// Invented sizes (not measured) of the other files a skill bundles.
const SCRIPT_BYTES: [(u64, u64); 4] = [
    (0, 400),
    (500_000, 2_500),
    (900_000, 8_000),
    (1_000_000, 24_000),
];
const REFERENCE_BYTES: [(u64, u64); 4] = [
    (0, 300),
    (500_000, 2_500),
    (900_000, 8_000),
    (1_000_000, 30_000),
];
const ASSET_BYTES: [(u64, u64); 3] = [(0, 100), (500_000, 1_000), (1_000_000, 8_000)];

/// Of the files beyond the first script of each kind, the share (percent) that are more
/// scripts, in a skill that has scripts at all; the rest are references and assets.
const MORE_SCRIPTS_PERCENT: u64 = 30;
/// Of the remaining files, the share (percent) under `references/`; the rest under `assets/`.
const REFERENCES_PERCENT: u64 = 70;

/// Description styles, in percent: a plain scalar, a double-quoted one (with a colon inside,
/// which is why people quote), and the rest a folded block (`>-`).
const PLAIN_DESCRIPTION_PERCENT: u64 = 75;
const QUOTED_DESCRIPTION_PERCENT: u64 = 15;

/// The language of a bundled script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Language {
    Python,
    JavaScript,
    Shell,
}

impl Language {
    fn extension(self) -> &'static str {
        match self {
            Self::Python => "py",
            Self::JavaScript => "js",
            Self::Shell => "sh",
        }
    }

    /// How the body tells the agent to run it.
    fn runner(self) -> &'static str {
        match self {
            Self::Python => "python3",
            Self::JavaScript => "node",
            Self::Shell => "bash",
        }
    }
}

/// What one skill directory holds, decided before it is written.
#[derive(Debug, Default)]
pub(super) struct Bundle {
    /// Script kinds bundled (none for most skills).
    pub(super) scripts: &'static [Language],
    /// Relative paths and kinds of every file besides `SKILL.md`.
    files: Vec<(String, Kind)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Script(Language),
    Reference,
    Asset,
}

/// What was written for one skill.
pub(super) struct Written {
    pub(super) definition_bytes: u64,
    /// Files, `SKILL.md` included.
    pub(super) files: usize,
    /// Bytes of every file, `SKILL.md` included.
    pub(super) bytes: u64,
    pub(super) scripts: &'static [Language],
}

/// A draw from `quantiles` (piecewise linear between them, rounded to the nearest integer).
pub(super) fn draw(rng: &mut Rng, quantiles: &Quantiles) -> u64 {
    interpolate(quantiles, rng.below(1_000_001))
}

/// The value at cumulative share `at` (millionths).
fn interpolate(quantiles: &Quantiles, at: u64) -> u64 {
    let mut previous = quantiles.first().copied().unwrap_or((0, 0));
    for &(share, value) in quantiles {
        if at <= share {
            let (low_share, low) = previous;
            let span = share.saturating_sub(low_share);
            if span == 0 {
                return value;
            }
            let offset = at - low_share;
            return if value >= low {
                low + ((value - low) * offset + span / 2) / span
            } else {
                low - ((low - value) * offset + span / 2) / span
            };
        }
        previous = (share, value);
    }
    previous.1
}

/// The script kinds of a skill that has more than one file.
fn scripts(rng: &mut Rng) -> &'static [Language] {
    let mut draw = rng.below(WITH_MORE_FILES_PER_MILLE);
    for (per_mille, mix) in SCRIPT_MIXES {
        if draw < per_mille {
            return mix;
        }
        draw -= per_mille;
    }
    &[]
}

/// Decides the files of one skill: how many, which kinds, their names.
pub(super) fn bundle(rng: &mut Rng) -> Bundle {
    let drawn = usize::try_from(draw(rng, &FILES_PER_SKILL)).unwrap_or(1);
    let scripts = if drawn > 1 { scripts(rng) } else { &[] };
    // At least one file per language beside the definition (a two-language mix drawn for a
    // two-file skill gets a third: rare enough to leave the quantiles alone).
    let files = drawn.max(1 + scripts.len());
    let mut names = HashSet::new();
    let mut bundle = Bundle {
        scripts,
        files: Vec::with_capacity(files - 1),
    };
    for index in 0..files - 1 {
        let kind = match scripts.get(index) {
            Some(&script) => Kind::Script(script),
            None if !scripts.is_empty() && rng.chance(MORE_SCRIPTS_PERCENT) => {
                let at = usize::try_from(rng.below(scripts.len() as u64)).unwrap_or(0);
                Kind::Script(scripts.get(at).copied().unwrap_or(Language::Python))
            }
            None if rng.chance(REFERENCES_PERCENT) => Kind::Reference,
            None => Kind::Asset,
        };
        let stem = match kind {
            Kind::Script(_) => format!("{}_{}", rng.pick(&VERBS), rng.pick(&WORDS)),
            Kind::Reference => rng.pick(&WORDS).to_owned(),
            Kind::Asset => format!("{}-template", rng.pick(&WORDS)),
        };
        let (folder, extension) = match kind {
            Kind::Script(script) => ("scripts", script.extension()),
            Kind::Reference => ("references", "md"),
            Kind::Asset => ("assets", rng.pick(&["json", "html", "csv", "txt"])),
        };
        let mut path = format!("{folder}/{stem}.{extension}");
        let mut suffix = 2;
        while !names.insert(path.clone()) {
            path = format!("{folder}/{stem}-{suffix}.{extension}");
            suffix += 1;
        }
        bundle.files.push((path, kind));
    }
    bundle
}

/// Writes one skill into `dir` (which exists): its definition file and its bundle.
pub(super) fn write(
    rng: &mut Rng,
    entry: &Entry,
    dir: &Path,
    text: &mut String,
) -> io::Result<Written> {
    let bundle = bundle(rng);
    text.clear();
    definition(rng, entry, &bundle, text);
    fs::write(dir.join("SKILL.md"), &*text)?;
    let definition_bytes = text.len() as u64;
    let mut bytes = definition_bytes;
    let mut folders = HashSet::new();
    for (path, kind) in &bundle.files {
        if let Some((folder, _)) = path.split_once('/')
            && folders.insert(folder)
        {
            fs::create_dir_all(dir.join(folder))?;
        }
        text.clear();
        match *kind {
            Kind::Script(script) => script_text(rng, script, path, text),
            Kind::Reference => reference(rng, path, text),
            Kind::Asset => asset(rng, path, text),
        }
        let file = dir.join(path);
        fs::write(&file, &*text)?;
        if matches!(kind, Kind::Script(_)) {
            executable(&file)?;
        }
        bytes += text.len() as u64;
    }
    Ok(Written {
        definition_bytes,
        files: 1 + bundle.files.len(),
        bytes,
        scripts: bundle.scripts,
    })
}

#[cfg(unix)]
fn executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn executable(_: &Path) -> io::Result<()> {
    Ok(())
}

const VERBS: [&str; 16] = [
    "build", "check", "clean", "convert", "export", "extract", "fetch", "fill", "merge", "parse",
    "recalc", "render", "scan", "split", "sync", "validate",
];

const SECTIONS: [&str; 12] = [
    "Overview",
    "Quick start",
    "When to use",
    "Workflow",
    "Scripts",
    "Examples",
    "Common pitfalls",
    "Output format",
    "Reference",
    "Troubleshooting",
    "Best practices",
    "Checklist",
];

/// The definition file: frontmatter in one of the common shapes, then a Markdown body that
/// names the skill's own scripts and references, filling the drawn size.
fn definition(rng: &mut Rng, entry: &Entry, bundle: &Bundle, out: &mut String) {
    let target = usize::try_from(draw(rng, &DEFINITION_BYTES)).unwrap_or(7_600);
    out.push_str("---\n");
    out.push_str(&format!("name: {}\n", entry.name));
    let style = rng.below(100);
    if style < PLAIN_DESCRIPTION_PERCENT {
        out.push_str("description: ");
        description(rng, out);
        out.push('\n');
    } else if style < PLAIN_DESCRIPTION_PERCENT + QUOTED_DESCRIPTION_PERCENT {
        out.push_str("description: \"");
        description(rng, out);
        out.push_str(" Triggers: ");
        out.push_str(rng.pick(&WORDS));
        out.push_str(", ");
        out.push_str(rng.pick(&WORDS));
        out.push_str(".\"\n");
    } else {
        let mut text = String::new();
        description(rng, &mut text);
        out.push_str("description: >-\n");
        let mut line = 0;
        out.push_str("  ");
        for word in text.split(' ') {
            if line > 0 && line + word.len() > 76 {
                out.push_str("\n  ");
                line = 0;
            } else if line > 0 {
                out.push(' ');
                line += 1;
            }
            out.push_str(word);
            line += word.len();
        }
        out.push('\n');
    }
    if rng.chance(40) {
        out.push_str(&format!("license: {}\n", rng.pick(&super::LICENSES)));
    }
    if entry.malformed == Some(Malformation::InvalidYaml) {
        out.push_str("metadata: {version: 1.0, tags: [draft, wip\n");
    } else if rng.chance(50) {
        let (major, minor) = (rng.below(4), rng.below(20));
        out.push_str(&format!(
            "metadata:\n  author: {}\n  version: \"{major}.{minor}.0\"\n",
            rng.pick(&super::NOUNS)
        ));
    }
    if rng.chance(30) {
        out.push_str(&format!("allowed-tools: {}\n", rng.pick(&super::TOOLS)));
    }
    if entry.malformed != Some(Malformation::Unterminated) {
        out.push_str("---\n");
    }
    out.push_str(&format!("\n# {}\n", title(&entry.name)));
    let scripts: Vec<(&str, Language)> = bundle
        .files
        .iter()
        .filter_map(|(path, kind)| match kind {
            Kind::Script(script) => Some((path.as_str(), *script)),
            _ => None,
        })
        .collect();
    let references: Vec<&str> = bundle
        .files
        .iter()
        .filter(|(_, kind)| *kind == Kind::Reference)
        .map(|(path, _)| path.as_str())
        .collect();
    while out.len() < target {
        out.push_str(&format!("\n## {}\n\n", rng.pick(&SECTIONS)));
        match rng.below(5) {
            0 => {
                for _ in 0..3 + rng.below(4) {
                    out.push_str("- ");
                    sentence(rng, (6, 15), out);
                    out.push('\n');
                }
            }
            1 => {
                out.push_str("```bash\n");
                for _ in 0..2 + rng.below(3) {
                    match pick_of(rng, &scripts) {
                        Some((path, script)) => out.push_str(&format!(
                            "{} {path} --{} {}.{}\n",
                            script.runner(),
                            rng.pick(&WORDS),
                            rng.pick(&WORDS),
                            rng.pick(&["json", "csv", "md", "pdf", "xlsx"])
                        )),
                        None => out.push_str(&format!(
                            "{} {} {}.{}\n",
                            rng.pick(&["git", "jq", "rg", "curl -s", "npx prettier"]),
                            rng.pick(&WORDS),
                            rng.pick(&WORDS),
                            rng.pick(&["json", "csv", "md"])
                        )),
                    }
                }
                out.push_str("```\n");
            }
            2 => {
                for step in 1..=3 + rng.below(4) {
                    out.push_str(&format!("{step}. "));
                    sentence(rng, (5, 12), out);
                    out.push('\n');
                }
            }
            3 => {
                out.push_str("| Option | Meaning |\n|---|---|\n");
                for _ in 0..2 + rng.below(5) {
                    out.push_str(&format!("| `--{}` | ", rng.pick(&WORDS)));
                    sentence(rng, (4, 9), out);
                    out.push_str(" |\n");
                }
            }
            _ => {
                for _ in 0..2 + rng.below(3) {
                    sentence(rng, (8, 21), out);
                    out.push(' ');
                }
                if let Some(path) = pick_of(rng, &references) {
                    out.push_str(&format!("See [{path}]({path}) for the details."));
                }
                out.push('\n');
            }
        }
    }
}

fn pick_of<T: Copy>(rng: &mut Rng, items: &[T]) -> Option<T> {
    if items.is_empty() {
        return None;
    }
    let index = usize::try_from(rng.below(items.len() as u64)).unwrap_or(0);
    items.get(index).copied()
}

/// A script that looks like the ones skills bundle: a shebang, a docstring, argument parsing,
/// a few functions, an entry point.
fn script_text(rng: &mut Rng, script: Language, path: &str, out: &mut String) {
    let target = usize::try_from(draw(rng, &SCRIPT_BYTES)).unwrap_or(2_500);
    let name = path.rsplit('/').next().unwrap_or(path);
    match script {
        Language::Python => {
            out.push_str("#!/usr/bin/env python3\n\"\"\"");
            sentence(rng, (6, 14), out);
            out.push_str(&format!(
                "\n\nUsage: python3 {path} INPUT [--out FILE]\n\"\"\"\n\nimport argparse\nimport json\nimport sys\nfrom pathlib import Path\n\n"
            ));
            let mut functions = Vec::new();
            while out.len() + 200 < target {
                let function = format!("{}_{}", rng.pick(&VERBS), rng.pick(&WORDS));
                out.push_str(&format!(
                    "\ndef {function}(path: Path) -> dict:\n    \"\"\""
                ));
                sentence(rng, (5, 12), out);
                out.push_str("\"\"\"\n    data = json.loads(path.read_text(encoding=\"utf-8\"))\n");
                for _ in 0..1 + rng.below(4) {
                    let word = rng.pick(&WORDS);
                    out.push_str(&format!(
                        "    if \"{word}\" in data:\n        data[\"{word}\"] = sorted(set(data[\"{word}\"]))\n"
                    ));
                }
                out.push_str("    return data\n\n");
                functions.push(function);
            }
            out.push_str("\ndef main() -> int:\n    parser = argparse.ArgumentParser(description=__doc__)\n    parser.add_argument(\"input\", type=Path)\n    parser.add_argument(\"--out\", type=Path)\n    args = parser.parse_args()\n    result = {}\n");
            for function in &functions {
                out.push_str(&format!("    result.update({function}(args.input))\n"));
            }
            out.push_str("    text = json.dumps(result, indent=2)\n    if args.out:\n        args.out.write_text(text, encoding=\"utf-8\")\n    else:\n        sys.stdout.write(text)\n    return 0\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n");
        }
        Language::JavaScript => {
            out.push_str("#!/usr/bin/env node\n// ");
            sentence(rng, (6, 14), out);
            out.push_str(&format!(
                "\n// Usage: node {path} <input> [--out file]\n'use strict';\n\nconst fs = require('node:fs');\nconst path = require('node:path');\n\n"
            ));
            while out.len() + 200 < target {
                let word = rng.pick(&WORDS);
                out.push_str(&format!(
                    "function {}{}(input) {{\n  const data = JSON.parse(fs.readFileSync(input, 'utf8'));\n  return Object.keys(data).filter((key) => key.includes('{word}'));\n}}\n\n",
                    rng.pick(&VERBS),
                    title(word).replace(' ', "")
                ));
            }
            out.push_str(&format!(
                "const [input, flag, out] = process.argv.slice(2);\nif (!input) {{\n  console.error('usage: node {name} <input> [--out file]');\n  process.exit(2);\n}}\nconst result = JSON.stringify({{ input: path.resolve(input) }}, null, 2);\nif (flag === '--out' && out) fs.writeFileSync(out, result);\nelse process.stdout.write(result);\n"
            ));
        }
        Language::Shell => {
            out.push_str("#!/usr/bin/env bash\n# ");
            sentence(rng, (6, 14), out);
            out.push_str(&format!(
                "\n# Usage: bash {path} DIR\nset -euo pipefail\n\ndir=\"${{1:?usage: {name} DIR}}\"\n\n"
            ));
            while out.len() + 120 < target {
                let word = rng.pick(&WORDS);
                out.push_str(&format!(
                    "{}_{word}() {{\n  find \"$dir\" -name '*.{}' -print0 | xargs -0 -r grep -l '{word}' || true\n}}\n\n",
                    rng.pick(&VERBS),
                    rng.pick(&["json", "md", "csv", "txt"])
                ));
            }
            out.push_str("echo \"done: $dir\"\n");
        }
    }
}

/// A reference document: headings and prose.
fn reference(rng: &mut Rng, path: &str, out: &mut String) {
    let target = usize::try_from(draw(rng, &REFERENCE_BYTES)).unwrap_or(2_500);
    let stem = path
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".md");
    out.push_str(&format!("# {}\n\n", title(stem)));
    while out.len() < target {
        if rng.chance(15) {
            out.push_str(&format!("\n## {}\n\n", rng.pick(&SECTIONS)));
        }
        sentence(rng, (10, 24), out);
        out.push_str(if rng.chance(30) { "\n\n" } else { " " });
    }
    out.push('\n');
}

/// A template the skill fills in.
fn asset(rng: &mut Rng, path: &str, out: &mut String) {
    let target = usize::try_from(draw(rng, &ASSET_BYTES)).unwrap_or(1_000);
    let json = path.ends_with(".json");
    if json {
        out.push_str("{\n");
    }
    let mut first = true;
    while out.len() < target {
        let (key, value) = (rng.pick(&WORDS), rng.pick(&WORDS));
        if json {
            if !first {
                out.push_str(",\n");
            }
            out.push_str(&format!("  \"{key}_{}\": \"{{{{{value}}}}}\"", out.len()));
        } else {
            out.push_str(&format!("{key}: {{{{{value}}}}}\n"));
        }
        first = false;
    }
    if json {
        out.push_str("\n}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value at quantile `per_mille` of `values` (sorted in place).
    fn quantile(values: &mut [u64], per_mille: usize) -> u64 {
        values.sort_unstable();
        values[(values.len() - 1) * per_mille / 1_000]
    }

    #[test]
    fn interpolates_between_the_quantiles() {
        assert_eq!(interpolate(&DEFINITION_BYTES, 0), 600);
        assert_eq!(interpolate(&DEFINITION_BYTES, 500_000), 7_600);
        assert_eq!(interpolate(&DEFINITION_BYTES, 700_000), 12_300);
        assert_eq!(interpolate(&DEFINITION_BYTES, 1_000_000), 74_000);
        assert_eq!(interpolate(&FILES_PER_SKILL, 250_000), 1);
        assert_eq!(interpolate(&FILES_PER_SKILL, 625_000), 3);
    }

    #[test]
    fn definitions_follow_the_measured_sizes() {
        let mut rng = Rng::new(11);
        let mut sizes = Vec::new();
        for index in 0..4_000 {
            let entry = Entry {
                root: 0,
                category: None,
                name: format!("quick-reader-{index:05}"),
                malformed: None,
            };
            let bundle = bundle(&mut rng);
            let mut text = String::new();
            definition(&mut rng, &entry, &bundle, &mut text);
            assert!(text.starts_with("---\nname: quick-reader-"));
            assert_eq!(text.matches("\n---\n").count(), 1, "{text}");
            // Commands name only scripts the skill really has.
            for line in text.lines().filter(|line| line.contains(" scripts/")) {
                let named = line.split(' ').nth(1).unwrap();
                assert!(bundle.files.iter().any(|(path, _)| path == named), "{line}");
            }
            sizes.push(text.len() as u64);
        }
        // Within a tenth of the measured quantile (the body overshoots by one block).
        for (per_mille, expected) in [(250, 2_700), (500, 7_600), (900, 17_000), (990, 37_000)] {
            let got = quantile(&mut sizes, per_mille) as f64;
            let expected = expected as f64;
            assert!(
                (got - expected).abs() <= expected * 0.1 + 400.0,
                "p{per_mille}: {got} vs {expected}"
            );
        }
        assert!(quantile(&mut sizes, 1_000) <= 75_000);
    }

    #[test]
    fn bundles_follow_the_measured_counts_and_script_shares() {
        let mut rng = Rng::new(12);
        let mut files = Vec::new();
        let (mut any, mut python, mut javascript, mut shell) = (0, 0, 0, 0);
        let skills = 20_000;
        for _ in 0..skills {
            let bundle = bundle(&mut rng);
            files.push(1 + bundle.files.len() as u64);
            any += usize::from(!bundle.scripts.is_empty());
            python += usize::from(bundle.scripts.contains(&Language::Python));
            javascript += usize::from(bundle.scripts.contains(&Language::JavaScript));
            shell += usize::from(bundle.scripts.contains(&Language::Shell));
            for script in bundle.scripts {
                assert!(
                    bundle
                        .files
                        .iter()
                        .any(|(path, kind)| path.starts_with("scripts/")
                            && *kind == Kind::Script(*script))
                );
            }
        }
        assert_eq!(quantile(&mut files, 500), 1);
        assert!((4..=6).contains(&quantile(&mut files, 750)));
        assert!((9..=11).contains(&quantile(&mut files, 900)));
        assert!((55..=67).contains(&quantile(&mut files, 990)));
        let percent = |count: usize| count as f64 * 100.0 / skills as f64;
        for (count, expected) in [(any, 15.0), (python, 13.0), (javascript, 2.0), (shell, 3.0)] {
            assert!(
                (percent(count) - expected).abs() < 0.8,
                "{} vs {expected}",
                percent(count)
            );
        }
    }

    #[test]
    fn descriptions_come_in_the_common_shapes() {
        let mut rng = Rng::new(13);
        let mut shapes = HashSet::new();
        for index in 0..300 {
            let entry = Entry {
                root: 0,
                category: None,
                name: format!("tidy-runner-{index:05}"),
                malformed: None,
            };
            let mut text = String::new();
            definition(&mut rng, &entry, &Bundle::default(), &mut text);
            let line = text.lines().nth(2).unwrap();
            shapes.insert(if line == "description: >-" {
                "folded"
            } else if line.starts_with("description: \"") {
                "quoted"
            } else {
                assert!(line.starts_with("description: Use when"), "{line}");
                "plain"
            });
        }
        assert_eq!(shapes.len(), 3);
    }
}
