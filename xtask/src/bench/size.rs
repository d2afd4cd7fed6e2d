//! The binary-size rows (issue 32 §8): how large the release `skills` binary is as a user
//! installs it (the release profile strips its symbols), and what each crate adds to it.
//!
//! A stripped binary has no names left to attribute its bytes to, so the breakdown is read
//! from a second build of the same code with the symbols kept (the `release-symbols` profile:
//! the release profile with `strip = "none"`). Every function and data symbol's size is
//! summed under the crate its demangled name starts with — the method of `cargo bloat`,
//! written small: a generic instantiated for another crate's type counts under the crate that
//! defined the generic (`alloc::vec::Vec<my::T>` is `alloc`'s), and `<T as Trait>::method` under
//! `T`'s crate. Symbols that are not Rust (the C library's static parts, `ring`'s assembly) are
//! one row. What no symbol covers (section headers, relocations, unwind tables, string
//! constants merged across crates) is the difference between the total and the sum.

use std::collections::BTreeMap;
use std::path::Path;

use object::{Object as _, ObjectSection as _, ObjectSymbol as _, SectionKind, SymbolKind};

/// The profile the breakdown is read from; `Cargo.toml` defines it.
pub(crate) const SYMBOLS_PROFILE: &str = "release-symbols";

/// Crates shown by name; the rest are summed in one row.
const SHOWN_CRATES: usize = 20;

/// What one binary is made of.
#[derive(Debug, Default)]
pub(crate) struct Breakdown {
    /// The file's size.
    pub(crate) file_bytes: u64,
    /// The executable code (`.text`).
    pub(crate) text_bytes: u64,
    /// Bytes of function and data symbols by crate, largest first.
    pub(crate) crates: Vec<(String, u64)>,
}

/// `xtask __size BINARY`: the breakdown by crate of one unstripped binary, printed as the
/// bench prints it (for a binary built by hand, say the release build before `strip`).
pub(crate) fn main(args: &[String]) -> std::process::ExitCode {
    let [binary] = args else {
        eprintln!("usage: xtask __size BINARY");
        return std::process::ExitCode::from(2);
    };
    match breakdown(Path::new(binary)) {
        Ok(breakdown) => {
            println!("{binary}:");
            for line in breakdown.lines() {
                println!("{line}");
            }
            std::process::ExitCode::SUCCESS
        }
        Err(reason) => {
            eprintln!("error: {reason}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The size of the file at `path`.
pub(crate) fn file_size(path: &Path) -> std::io::Result<u64> {
    Ok(std::fs::metadata(path)?.len())
}

/// Reads the symbols of the unstripped binary at `path` and sums their sizes by crate.
pub(crate) fn breakdown(path: &Path) -> Result<Breakdown, String> {
    let bytes = std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let file = object::File::parse(&*bytes)
        .map_err(|error| format!("{} is not an object file: {error}", path.display()))?;
    let text_bytes = file
        .sections()
        .filter(|section| section.kind() == SectionKind::Text)
        .map(|section| section.size())
        .sum();
    let mut by_crate: BTreeMap<String, u64> = BTreeMap::new();
    let mut symbols = 0usize;
    for symbol in file.symbols() {
        if !matches!(symbol.kind(), SymbolKind::Text | SymbolKind::Data) || symbol.size() == 0 {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        symbols += 1;
        *by_crate.entry(crate_of(name)).or_default() += symbol.size();
    }
    if symbols == 0 {
        return Err(format!(
            "{} has no symbol table (was it stripped?)",
            path.display()
        ));
    }
    let mut crates: Vec<(String, u64)> = by_crate.into_iter().collect();
    crates.sort_by(|(a_name, a), (b_name, b)| b.cmp(a).then_with(|| a_name.cmp(b_name)));
    Ok(Breakdown {
        file_bytes: bytes.len() as u64,
        text_bytes,
        crates,
    })
}

/// The crate a symbol's code belongs to, from its demangled name; `[not Rust]` for a symbol
/// that does not demangle (C, assembly). The standard library's three crates are one row.
pub(crate) fn crate_of(symbol: &str) -> String {
    let Ok(demangled) = rustc_demangle::try_demangle(symbol) else {
        return "[not Rust]".to_owned();
    };
    // Without the hash suffix (`{:#}`), which is no part of the path.
    let name = format!("{demangled:#}");
    let path = leading_path(&name);
    let first = path.split("::").next().unwrap_or(path).trim();
    match first {
        "" => "[not Rust]".to_owned(),
        // The standard library, and its primitive types (`<[u8] as Debug>::fmt`).
        "core" | "alloc" | "std" | "std_detect" | "panic_unwind" | "compiler_builtins" | "u8"
        | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" | "f32" | "f64" | "bool" | "char" | "str" | "_" | "T" | "(" | "()" => {
            "std".to_owned()
        }
        other => other.to_owned(),
    }
}

/// The path a demangled name is filed under: `<T as Trait>::f` is `T`'s, `<T>::f` is `T`'s,
/// (and a reference `<&T as ...>` is `T`'s), anything else its own leading path.
fn leading_path(name: &str) -> &str {
    let mut rest = name;
    while let Some(inner) = rest.strip_prefix('<') {
        rest = inner
            .trim_start_matches('&')
            .trim_start_matches("mut ")
            .trim_start_matches("dyn ")
            .trim_start_matches('[');
    }
    let end = rest
        .find(['<', '>', ' ', '(', ';', ']'])
        .unwrap_or(rest.len());
    &rest[..end]
}

impl Breakdown {
    /// The table's lines: the largest crates, the rest, and what no symbol covers.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        let mut lines = vec![format!(
            "  unstripped: {:.1} MiB, of which code (.text) {:.1} MiB; a generic counts under the crate that defined it (`std` holds every crate's `Vec<T>`), and `skills` is the facade and the CLI together (both crates have that name)",
            mib(self.file_bytes),
            mib(self.text_bytes)
        )];
        let attributed: u64 = self.crates.iter().map(|(_, bytes)| bytes).sum();
        for (name, bytes) in self.crates.iter().take(SHOWN_CRATES) {
            lines.push(format!(
                "  {name:<28} {:>7.2} MiB  {:>5.1}%",
                mib(*bytes),
                100.0 * *bytes as f64 / attributed.max(1) as f64
            ));
        }
        let rest: u64 = self
            .crates
            .iter()
            .skip(SHOWN_CRATES)
            .map(|(_, bytes)| bytes)
            .sum();
        if rest > 0 {
            lines.push(format!(
                "  {:<28} {:>7.2} MiB  {:>5.1}%",
                format!(
                    "{} other crates",
                    self.crates.len().saturating_sub(SHOWN_CRATES)
                ),
                mib(rest),
                100.0 * rest as f64 / attributed.max(1) as f64
            ));
        }
        lines.push(format!(
            "  symbols, all crates: {:.1} MiB; the rest of the file (symbol names, unwind tables, headers, constants no symbol covers): {:.1} MiB",
            mib(attributed),
            mib(self.file_bytes.saturating_sub(attributed))
        ));
        lines
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "file_bytes": self.file_bytes,
            "text_bytes": self.text_bytes,
            "crates": self
                .crates
                .iter()
                .map(|(name, bytes)| serde_json::json!({ "crate": name, "bytes": bytes }))
                .collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_symbols_under_their_crates() {
        // Legacy mangling, as rustc emits by default.
        assert_eq!(
            crate_of("_ZN10skills_cli4list3run17h0123456789abcdefE"),
            "skills_cli"
        );
        assert_eq!(
            crate_of("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
            "std"
        );
        assert_eq!(crate_of("memcpy"), "[not Rust]");
        assert_eq!(
            leading_path("<serde_json::Value as core::fmt::Debug>::fmt"),
            "serde_json::Value"
        );
        assert_eq!(leading_path("<&mut regex::Regex>::find"), "regex::Regex");
        assert_eq!(
            leading_path("tokio::runtime::Runtime::new"),
            "tokio::runtime::Runtime::new"
        );
        assert_eq!(leading_path("<[u8] as core::fmt::Debug>::fmt"), "u8");
    }

    #[test]
    fn refuses_a_file_that_is_not_an_object() {
        let dir = std::env::temp_dir().join(format!("xtask-size-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let path = dir.join("not-an-elf");
        std::fs::write(&path, b"plain text").ok();
        assert!(breakdown(&path).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn reads_the_symbols_of_a_real_binary() {
        // This test binary is built by the dev profile, which keeps its symbols.
        let me = std::env::current_exe().expect("the test binary's path");
        let breakdown = breakdown(&me).expect("the test binary's symbols");
        assert!(breakdown.text_bytes > 0);
        assert!(breakdown.crates.iter().any(|(name, _)| name == "std"));
        assert!(breakdown.crates.iter().any(|(name, _)| name == "xtask"));
    }
}
