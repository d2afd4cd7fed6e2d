//! The server's instructions: the budgeted catalog a host's model reads before its first
//! tool call, with a sentence on how to use it. Below both the server, which gives them to a
//! new session, and the live catalog (`changes`), which renders them again on each change.

use skills_types::Error;
use skills_types::render::{Format, RenderOptions, Rendered};
use skills_types::service::SkillsService;

/// The instructions' budget when the configuration sets none: the catalog a host's model
/// reads before its first tool call, so it is kept to a few thousand tokens.
pub(crate) const DEFAULT_INSTRUCTIONS_BUDGET_CHARS: usize = 24_000;

/// How the instructions' catalog is rendered: the configuration's budget, or ours.
pub(crate) fn render_options(service: &dyn SkillsService) -> RenderOptions {
    let mut options = RenderOptions::new(Format::Xml);
    options.budget_chars = Some(
        service
            .config()
            .budget_chars
            .unwrap_or(DEFAULT_INSTRUCTIONS_BUDGET_CHARS),
    );
    options
}

/// The budgeted catalog text; a catalog that cannot be rendered becomes a sentence saying so,
/// because a server without instructions is still useful through its tools.
pub(crate) fn instructions(service: &dyn SkillsService) -> String {
    match service.render_catalog(&render_options(service)) {
        Ok(rendered) => instructions_from(Ok(rendered)),
        Err(error) => instructions_from(Err(&error)),
    }
}

/// The instructions around a rendering of the catalog.
pub(crate) fn instructions_from(rendered: Result<Rendered, &Error>) -> String {
    match rendered {
        Ok(rendered) => format!(
            "{}\n\nThese are the Agent Skills available here. Call `load_skill` with a \
             skill's name to read its instructions before following them, and \
             `read_skill_resource` for the files they mention.",
            rendered.text
        ),
        Err(error) => format!("The skills catalog could not be read: {error}"),
    }
}
