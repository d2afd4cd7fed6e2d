//! `skills search QUERY`: the skills that best match a task, best first, with their scores
//! and the fields that matched. A table by default; `--json` prints
//! `{"query": ..., "results": [skills::search::Hit, ...]}`. Names and descriptions come from skill
//! folders, so they are sanitised like every other skill text a terminal shows.

use anstream::{eprintln, println};

use crate::Exit;
use crate::cli::{Global, SearchArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &SearchArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let query = args.query.join(" ");
    let hits = match skills.search(&query, usize::from(args.limit)) {
        Ok(hits) => hits,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&skills::search::Results {
            query,
            results: hits,
        });
    } else if hits.is_empty() {
        if !global.quiet {
            eprintln!("no skill matches '{}'", output::shown(&query));
        }
    } else {
        print_table(&hits);
    }
    Exit::Success
}

fn print_table(hits: &[skills::search::Hit]) {
    let width = output::width();
    let widest = hits
        .iter()
        .map(|hit| output::shown(&hit.name).chars().count())
        .max()
        .unwrap_or(0);
    let name_width = output::column(widest, 48, width);
    for hit in hits {
        let name = output::shown(&hit.name);
        let matched = hit.matched.join(",");
        let description = output::shown_description(&hit.description);
        // Off a terminal nothing is cut; on one, the description fits the rest of the line.
        let description: String = match width {
            Some(width) => {
                let used = name_width + 8 + matched.len() + 2;
                description
                    .chars()
                    .take(width.saturating_sub(used).max(20))
                    .collect()
            }
            None => description.into_owned(),
        };
        println!(
            "{name:<name_width$}  {:>6.2}  {matched}  {description}",
            hit.score
        );
    }
}
