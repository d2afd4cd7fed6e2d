//! `skills registry browse|search|categories|sources|install`: the registry catalog (03
//! §Registry catalog) in aligned columns fitted to the terminal, or `--json` (the
//! `skills::registry` types; `install` prints `{"installed": [outcome]}` like `skills install`).
//!
//! A command has no runtime of its own to refresh a stale cache behind after it exits, so
//! `browse`, `categories` and `sources` print the cached answer first and then refresh the
//! cache before exiting (with a note on stderr); `search` and `install` refresh first. With
//! `SKILLS_REGISTRY_REFRESH_ON_BOOT=1` every command fetches the catalog before answering.

use anstream::eprintln;
use skills::Skills;
use skills::registry::{Counts, Details, Entry, InstallRequest, Listing, Query, Status};

use crate::Exit;
use crate::cli::{Global, RegistryCommand};
use crate::context;
use crate::install::runtime;
use crate::output::{self, DIM};
use crate::progress::Progress;

/// Widest name, category and version columns before they are cut.
const NAME_WIDTH: usize = 40;
const CATEGORY_WIDTH: usize = 20;
const VERSION_WIDTH: usize = 12;

pub(crate) fn run(global: &Global, command: &RegistryCommand) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    if skills.home_config().registry.catalog_url.is_none() {
        let hint = format!(
            "set {} to the catalog's https URL (a JSON array of entries), or `url` under \
             [registry] in the home skills.toml",
            context::REGISTRY_CATALOG_URL
        );
        return output::usage_with_hint(global, "no registry catalog is configured", Some(&hint));
    }
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    // While a request may be made: a spinner on a terminal, nothing otherwise.
    let working = |what: &str| {
        let progress = Progress::start(global, what);
        let skills = match &progress {
            Some(progress) => skills.clone().with_progress(progress.sink()),
            None => skills.clone(),
        };
        (skills, progress)
    };
    let mut refreshed = false;
    if context::refresh_registry_on_boot() {
        let (skills, progress) = working("refreshing the registry catalog");
        let result = runtime.block_on(skills.registry_refresh());
        drop(progress);
        match result {
            Ok(_) => refreshed = true,
            Err(error) => warn(&format!("the catalog could not be refreshed: {error}")),
        }
    }
    let stale = match command {
        RegistryCommand::Browse(args) => {
            let (skills, progress) = working("reading the registry catalog");
            let result = runtime.block_on(skills.registry_browse(args.category.as_deref()));
            drop(progress);
            match result {
                Ok(listing) => print_entries(global, &listing),
                Err(error) => return fail(global, &error),
            }
        }
        RegistryCommand::Search(args) => {
            let mut query = Query::new(args.query.join(" "));
            query.category = args.category.clone();
            query.source = args.source.clone();
            let (skills, progress) = working("reading the registry catalog");
            let result = runtime.block_on(skills.registry_search(&query));
            drop(progress);
            match result {
                Ok(listing) => print_entries(global, &listing),
                Err(error) => return fail(global, &error),
            }
        }
        RegistryCommand::Categories | RegistryCommand::Sources => {
            let (skills, progress) = working("reading the registry catalog");
            let result = runtime.block_on(async {
                if matches!(command, RegistryCommand::Categories) {
                    skills.registry_categories().await
                } else {
                    skills.registry_sources().await
                }
            });
            drop(progress);
            match result {
                Ok(counts) => print_counts(global, &counts),
                Err(error) => return fail(global, &error),
            }
        }
        RegistryCommand::Show(args) => {
            let (skills, progress) = working("reading the registry");
            let result = runtime.block_on(skills.registry_show(&args.id));
            drop(progress);
            match result {
                Ok(details) => print_details(global, &details),
                Err(error) => return fail(global, &error),
            }
        }
        RegistryCommand::Install(args) => {
            let mut request = InstallRequest::new(&args.id);
            request.scope = args.placement.scope_or(crate::cli::WritableScope::User);
            match crate::cli::agent_choice(&args.placement.agent) {
                Ok((agent, agents)) => {
                    request.agent = agent;
                    request.agents = agents;
                }
                Err(message) => return output::usage(global, &message),
            }
            request.force = args.force;
            request.audit = crate::install::consent(args.force, args.yes);
            request.timeout_secs = Some(args.placement.timeout);
            let (skills, progress) = working("installing");
            let result = crate::install::with_agreement(global, request.audit, |audit| {
                let mut request = request.clone();
                request.audit = audit;
                runtime.block_on(skills.registry_install(&request))
            });
            drop(progress);
            return match result {
                Ok(outcome) => print_installed(global, &outcome),
                Err(error) => fail(global, &error),
            };
        }
    };
    if stale && !refreshed {
        refresh_before_exit(global, &runtime, &skills);
    }
    Exit::Success
}

/// The stale answer was printed; now the cache is brought up to date for the next command.
fn refresh_before_exit(global: &Global, runtime: &tokio::runtime::Runtime, skills: &Skills) {
    let progress = Progress::start(global, "refreshing the registry catalog");
    let skills = match &progress {
        Some(progress) => skills.clone().with_progress(progress.sink()),
        None => skills.clone(),
    };
    let result = runtime.block_on(skills.registry_refresh());
    drop(progress);
    match result {
        Ok(status) if !global.quiet && !global.json => eprintln!(
            "{DIM}refreshed the catalog: {} entr{}{DIM:#}",
            status.total,
            if status.total == 1 { "y" } else { "ies" }
        ),
        Ok(_) => {}
        Err(error) => warn(&format!("the catalog could not be refreshed: {error}")),
    }
}

/// Reports a failure with advice for the registry's own cases.
fn fail(global: &Global, error: &skills::Error) -> Exit {
    let hint = match error {
        skills::Error::SkillNotFound { .. } => {
            Some("find an entry's id with 'skills registry search WORD'")
        }
        skills::Error::UrlRefused { .. } => Some(
            "the registry's URLs (SKILLS_REGISTRY_CATALOG_URL, SKILLS_REGISTRY_DOWNLOAD_BASE_URL) must be https URLs of public hosts",
        ),
        other => output::hint_of(other),
    };
    output::fail_with_hint(global, error, hint)
}

fn warn(message: &str) {
    output::warn(message);
}

/// Prints entries (or the listing as JSON); returns whether the catalog was stale.
fn print_entries(global: &Global, listing: &Listing) -> bool {
    if global.json {
        output::print_json(listing);
    } else if listing.entries.is_empty() {
        if !global.quiet {
            eprintln!("no entries match");
        }
    } else {
        print_table(&listing.entries);
    }
    print_notes(global, &listing.catalog, Some(listing.entries.len()));
    listing.catalog.stale
}

/// Name, category, version and description, aligned; the description cut to the terminal.
fn print_table(entries: &[Entry]) {
    let width = output::width();
    let width_of = |cell: fn(&Entry) -> &str, cap: usize| {
        let widest = entries
            .iter()
            .map(|entry| single_line(cell(entry)).chars().count())
            .max()
            .unwrap_or(0);
        output::column(widest, cap, width)
    };
    let name_width = width_of(|entry| &entry.name, NAME_WIDTH);
    let category_width = width_of(|entry| &entry.category, CATEGORY_WIDTH);
    let version_width = width_of(|entry| &entry.version, VERSION_WIDTH);
    let used = name_width + category_width + version_width + 6;
    // Cells are cut only on a terminal; piped output keeps every cell whole.
    let cell = |text: &str, cell_width: usize| match width {
        Some(_) => output::fit(&single_line(text), cell_width),
        None => single_line(text),
    };
    let mut table = String::new();
    for entry in entries {
        let description = output::shown_description(&entry.description).into_owned();
        let description = match width {
            Some(width) => output::fit(&description, width.saturating_sub(used).max(20)),
            None => description,
        };
        let line = format!(
            "{:<name_width$}  {:<category_width$}  {:<version_width$}  {description}",
            cell(&entry.name, name_width),
            cell(&entry.category, category_width),
            cell(&entry.version, version_width),
        );
        table.push_str(line.trim_end());
        table.push('\n');
    }
    anstream::print!("{table}");
}

/// Prints one entry's fields, one per line (or the details as JSON), its notes as warnings;
/// returns whether the catalog was stale.
fn print_details(global: &Global, details: &Details) -> bool {
    if global.json {
        output::print_json(details);
    } else {
        let entry = &details.entry;
        let lists = [entry.tags.join(", "), entry.platforms.join(", ")];
        let fields = [
            ("name", entry.name.as_str()),
            ("version", entry.version.as_str()),
            ("description", entry.description.as_str()),
            ("author", entry.author.as_str()),
            ("license", entry.license.as_str()),
            ("source", entry.source.as_str()),
            ("category", entry.category.as_str()),
            ("tags", lists[0].as_str()),
            ("platforms", lists[1].as_str()),
            ("page", entry.docs_path.as_deref().unwrap_or_default()),
            (
                "source url",
                entry.source_url.as_deref().unwrap_or_default(),
            ),
        ];
        let mut text = String::new();
        for (label, value) in fields {
            if !value.trim().is_empty() {
                text.push_str(&format!("{label:<12} {}\n", single_line(value)));
            }
        }
        anstream::print!("{text}");
    }
    for note in &details.notes {
        warn(note);
    }
    details.catalog.stale
}

/// Prints counts (or them as JSON); returns whether the catalog was stale.
fn print_counts(global: &Global, answer: &Counts) -> bool {
    let (counts, catalog) = (&answer.counts, &answer.catalog);
    if global.json {
        output::print_json(answer);
    } else if counts.is_empty() {
        if !global.quiet {
            eprintln!("the catalog names none");
        }
    } else {
        let width = output::width();
        let widest = counts
            .iter()
            .map(|count| single_line(&count.name).chars().count())
            .max()
            .unwrap_or(0);
        let name_width = output::column(widest, NAME_WIDTH, width);
        let count_width = counts
            .iter()
            .map(|count| count.count.to_string().len())
            .max()
            .unwrap_or(1);
        let mut table = String::new();
        for count in counts {
            table.push_str(&format!(
                "{:<name_width$}  {:>count_width$}\n",
                match width {
                    Some(_) => output::fit(&single_line(&count.name), name_width),
                    None => single_line(&count.name),
                },
                count.count
            ));
        }
        anstream::print!("{table}");
    }
    print_notes(global, catalog, None);
    catalog.stale
}

/// What went wrong, then (unless quiet) the skipped entries and where the answer came from.
/// Skipped entries are the publisher's to fix and stay until the catalog changes, so they are
/// counted in one note; `-v` lists them.
fn print_notes(global: &Global, catalog: &Status, shown: Option<usize>) {
    for warning in &catalog.warnings {
        warn(warning);
    }
    if global.verbose > 0 {
        for skipped in &catalog.skipped {
            warn(skipped);
        }
    }
    if global.quiet || global.json {
        return;
    }
    if global.verbose == 0 && !catalog.skipped.is_empty() {
        eprintln!(
            "{DIM}note{DIM:#}: the catalog has entries that cannot be read ({}); -v shows why",
            catalog.skipped.len()
        );
    }
    let entries = |count: usize| format!("{count} entr{}", if count == 1 { "y" } else { "ies" });
    let what = match shown {
        Some(shown) if shown != catalog.total => {
            format!("{} of {}", shown, entries(catalog.total))
        }
        _ => entries(catalog.total),
    };
    eprintln!(
        "{DIM}{what} in the catalog fetched {} ({}){DIM:#}",
        age(catalog.age_secs),
        output::shown(&catalog.url)
    );
    if catalog.stale {
        eprintln!(
            "{DIM}note{DIM:#}: the cached catalog is older than an hour; it is refreshed now for the next command"
        );
    }
}

fn print_installed(global: &Global, outcome: &skills::install::Outcome) -> Exit {
    crate::install::print_outcomes(global, std::slice::from_ref(outcome))
}

/// "just now", "12 minutes ago", "3 hours ago", "2 days ago".
fn age(seconds: u64) -> String {
    let (count, unit) = match seconds {
        0..60 => return "just now".to_owned(),
        60..3_600 => (seconds / 60, "minute"),
        3_600..86_400 => (seconds / 3_600, "hour"),
        _ => (seconds / 86_400, "day"),
    };
    format!("{count} {unit}{} ago", if count == 1 { "" } else { "s" })
}

/// A registry's cell as one sanitised line: the catalog is someone else's text.
fn single_line(text: &str) -> String {
    output::shown_description(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_naturally() {
        assert_eq!(age(0), "just now");
        assert_eq!(age(59), "just now");
        assert_eq!(age(60), "1 minute ago");
        assert_eq!(age(3_599), "59 minutes ago");
        assert_eq!(age(7_200), "2 hours ago");
        assert_eq!(age(86_400), "1 day ago");
    }
}
