//! `skills runtimes [KIND]`: the interpreters runs use, as the runtime resolved them (the
//! configured path in the home `skills.toml` first, then `PATH`), with their versions and
//! whether runs may use them.

use skills::run::RuntimeSource;

use crate::Exit;
use crate::cli::{Global, RuntimesArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &RuntimesArgs) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    output::print_settings_problems(&skills);
    let runtimes = skills.resolve_runtimes(args.kind.map(Into::into));
    if global.json {
        output::print_json(&runtimes);
    } else {
        let rows: Vec<[String; 4]> = runtimes
            .iter()
            .map(|runtime| {
                let path = runtime.path.as_deref().map_or_else(
                    || format!("(not found: {})", output::shown(&runtime.looked_for)),
                    output::shown_path,
                );
                let from = match runtime.source {
                    Some(RuntimeSource::Config) => " (skills.toml)",
                    Some(RuntimeSource::Managed) => " (managed)",
                    Some(RuntimeSource::Path) | None => "",
                };
                let state = if runtime.usable {
                    "usable".to_owned()
                } else {
                    output::shown(runtime.problem.as_deref().unwrap_or("not usable")).into_owned()
                };
                [
                    runtime.kind.as_str().to_owned(),
                    runtime
                        .version
                        .as_deref()
                        .map_or_else(|| "-".to_owned(), |v| output::shown(v).into_owned()),
                    format!("{path}{from}"),
                    state,
                ]
            })
            .collect();
        let mut widths = [0; 3];
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut text = String::new();
        for (row, runtime) in rows.iter().zip(&runtimes) {
            let style = if runtime.usable {
                output::OK
            } else {
                output::FAIL
            };
            let [kind, version, path, state] = row;
            text.push_str(&format!(
                "{kind:w0$}  {version:w1$}  {path:w2$}  {style}{state}{style:#}\n",
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
            ));
        }
        output::block(&text);
    }
    // Asked about one interpreter, the status says whether runs can use it.
    if args.kind.is_some() && !runtimes.iter().any(|runtime| runtime.usable) {
        Exit::Failure
    } else {
        Exit::Success
    }
}
