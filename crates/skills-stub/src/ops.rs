//! The twin of `skills-ops`: loading and validating definition files.

pub mod load {
    //! The twin of `skills_ops::load`. Parsing is not a query with an empty answer, so every
    //! call is `Err(Error::Disabled)`.

    use std::path::{Path, PathBuf};

    use skills_types::{Error, SkillDocument};

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn find_definition(_dir: &Path) -> Result<PathBuf, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn load_document(_path: &Path) -> Result<SkillDocument, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn parse_document(_path: &Path, _bytes: &[u8]) -> Result<SkillDocument, Error> {
        Err(Error::Disabled)
    }
}

pub mod validate {
    //! The twin of `skills_ops::validate`. An empty report would read as "valid", so every
    //! call is `Err(Error::Disabled)`.

    use std::path::Path;

    use skills_types::Error;
    use skills_types::validate::{Options, Report};

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn validate_path(_path: &Path, _options: &Options) -> Result<Report, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn validate_bytes(
        _file: &Path,
        _bytes: &[u8],
        _options: &Options,
    ) -> Result<Report, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn validate_tree(
        _path: &Path,
        _options: &Options,
    ) -> Result<Vec<Result<Report, Error>>, Error> {
        Err(Error::Disabled)
    }
}

pub mod discover {
    //! The twin of `skills_ops::discover`: an empty catalog is the honest answer.

    use skills_types::{Catalog, Error, SkillsConfig};

    /// Disabled: an empty catalog.
    pub fn discover(_config: &SkillsConfig) -> Result<Catalog, Error> {
        Ok(Catalog::default())
    }

    /// Disabled: no file is read, the configuration is the caller's.
    pub fn home_config(config: &SkillsConfig) -> SkillsConfig {
        config.clone()
    }

    /// Disabled: no file is read, so nothing is wrong with one.
    pub fn settings_diagnostics(_config: &SkillsConfig) -> Vec<skills_types::Diagnostic> {
        Vec::new()
    }

    /// Disabled: there is no walk to keep.
    #[derive(Debug, Default)]
    pub struct Walked {
        _nothing: (),
    }

    impl Walked {
        /// Disabled: nothing is ever taken from a last walk.
        pub fn reused(&self) -> bool {
            false
        }
    }

    /// Disabled: an empty catalog.
    pub fn rediscover(
        _config: &SkillsConfig,
        _walked: &mut Walked,
        _touched: &std::collections::BTreeSet<std::path::PathBuf>,
    ) -> Result<Catalog, Error> {
        Ok(Catalog::default())
    }
}

pub mod catalog {
    //! The twin of `skills_ops::catalog`. Listing and rendering answer "no skills"; asking for
    //! one skill by name is `Err(Error::Disabled)` rather than a misleading "not found".

    use skills_types::catalog::{Explanation, ListOptions, Listing, SkillBody};
    use skills_types::render::{RenderOptions, Rendered};
    use skills_types::{Error, SkillsConfig};

    /// Disabled: an empty listing.
    pub fn list(_config: &SkillsConfig, _options: &ListOptions) -> Result<Listing, Error> {
        Ok(Listing::default())
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn read(_config: &SkillsConfig, _names: &[&str]) -> Result<Vec<SkillBody>, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn read_with(
        _config: &SkillsConfig,
        _names: &[&str],
        _annotate: Annotate<'_>,
    ) -> Result<Vec<SkillBody>, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn explain(_config: &SkillsConfig, _name: &str) -> Result<Explanation, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: an empty listing and the rendering of an empty catalog.
    pub fn overview(
        _config: &SkillsConfig,
        _list: &ListOptions,
        _render: &RenderOptions,
    ) -> Result<(Listing, Rendered), Error> {
        Ok((Listing::default(), Rendered::default()))
    }

    /// Disabled: the rendering of an empty catalog, which is empty text.
    pub fn render_catalog(
        _config: &SkillsConfig,
        _options: &RenderOptions,
    ) -> Result<Rendered, Error> {
        Ok(Rendered::default())
    }

    /// The twin of `skills_ops::catalog::Annotate`: what a layer above fills in on the
    /// records before they are listed (never called here: there are none).
    pub type Annotate<'a> = &'a (dyn Fn(&SkillsConfig, &mut [skills_types::Skill]) + Sync);

    /// Disabled: an empty listing.
    pub fn list_with(
        config: &SkillsConfig,
        options: &ListOptions,
        _annotate: Annotate<'_>,
    ) -> Result<Listing, Error> {
        list(config, options)
    }

    /// Disabled: an empty listing and the rendering of an empty catalog.
    pub fn overview_with(
        config: &SkillsConfig,
        list: &ListOptions,
        render: &RenderOptions,
        _annotate: Annotate<'_>,
    ) -> Result<(Listing, Rendered), Error> {
        overview(config, list, render)
    }

    /// Disabled: the rendering of an empty catalog, which is empty text.
    pub fn render_catalog_with(
        config: &SkillsConfig,
        options: &RenderOptions,
        _annotate: Annotate<'_>,
    ) -> Result<Rendered, Error> {
        render_catalog(config, options)
    }
}

pub mod agents_md {
    //! The twin of `skills_ops::agents_md`: writing a file is a mutation.

    use skills_types::render::{SyncOptions, SyncOutcome};
    use skills_types::{Error, SkillsConfig};

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn sync(_config: &SkillsConfig, _options: &SyncOptions) -> Result<SyncOutcome, Error> {
        Err(Error::Disabled)
    }
}

pub mod trust {
    //! The twin of `skills_ops::trust`: nothing is trusted, and no record is read or written.

    use std::path::Path;

    use skills_types::trust::{TrustChange, TrustedWorkspace};
    use skills_types::{Error, SkillsConfig};

    /// Disabled: never trusted.
    pub fn is_trusted(_config: &SkillsConfig) -> bool {
        false
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn trust(_config: &SkillsConfig, _workspace: &Path) -> Result<TrustChange, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn revoke(_config: &SkillsConfig, _workspace: &Path) -> Result<TrustChange, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn list(_config: &SkillsConfig) -> Result<Vec<TrustedWorkspace>, Error> {
        Err(Error::Disabled)
    }
}

pub mod resources {
    //! The twin of `skills_ops::resources`: no skill, so no bundled file.

    use std::path::Path;

    use skills_types::skill::{Resource, ResourceBytes, ResourceContent};
    use skills_types::{Error, Skill, SkillsConfig};

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn describe(_config: &SkillsConfig, _name: &str) -> Result<Skill, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn read_resource(
        _config: &SkillsConfig,
        _id_or_name: &str,
        _relative_path: &str,
    ) -> Result<ResourceContent, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn read_resource_bytes(
        _config: &SkillsConfig,
        _id_or_name: &str,
        _relative_path: &str,
    ) -> Result<ResourceBytes, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: no skill, so no file; one empty inventory per folder asked.
    pub fn inventories(folders: &[&Path]) -> Vec<Vec<Resource>> {
        vec![Vec::new(); folders.len()]
    }
}

pub mod search {
    //! The twin of `skills_ops::search`: no skill, so no hit.

    use skills_types::search::SearchHit;
    use skills_types::{Catalog, Error, SkillsConfig};

    /// Disabled: nothing matches.
    pub fn search(
        _config: &SkillsConfig,
        _query: &str,
        _limit: usize,
    ) -> Result<Vec<SearchHit>, Error> {
        Ok(Vec::new())
    }

    /// An index that holds nothing.
    #[derive(Clone, Debug, Default)]
    pub struct OpenIndex {
        _empty: (),
    }

    impl OpenIndex {
        /// Disabled: nothing matches.
        pub fn search(
            &self,
            _config: &SkillsConfig,
            _catalog: &Catalog,
            _generation: u64,
            _query: &str,
            _limit: usize,
        ) -> Result<Vec<SearchHit>, Error> {
            Ok(Vec::new())
        }
    }
}

pub mod manage {
    //! The twin of `skills_ops::manage`: every call is a mutation.

    use skills_types::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
    use skills_types::{Error, SkillScope, SkillsConfig};

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn create(_config: &SkillsConfig, _request: &CreateSkill) -> Result<Written, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn update(
        _config: &SkillsConfig,
        _id: &str,
        _changes: &UpdateSkill,
    ) -> Result<Written, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn uninstall(
        _config: &SkillsConfig,
        _name: &str,
        _scope: Option<SkillScope>,
    ) -> Result<Uninstalled, Error> {
        Err(Error::Disabled)
    }
}

pub mod watch {
    //! The twin of `skills_ops::watch`: nothing is watched.

    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use skills_types::watch::{WatchMode, WatchOptions};
    use skills_types::{Diagnostic, Error, SkillsConfig};

    /// What a watch would tell whoever started it; never called here.
    pub trait Listener: Send + 'static {
        /// A burst changed what the catalog is made of.
        fn changed(&mut self, touched: &BTreeSet<PathBuf>);

        /// `path` is watched another way from now on.
        fn watching(&mut self, path: &Path, mode: WatchMode, diagnostic: Diagnostic);
    }

    /// A watch that never runs.
    #[derive(Debug)]
    pub struct Watcher {
        _inert: (),
    }

    impl Watcher {
        /// Nothing is watched.
        pub fn watching(&self) -> &[PathBuf] {
            &[]
        }
    }

    /// Stamps that are never kept.
    #[derive(Clone, Debug, Default)]
    pub struct FolderStamps {
        _inert: (),
    }

    impl FolderStamps {
        /// Does nothing.
        pub fn enable(&self) {}

        /// Nothing moved.
        pub fn follow(
            &self,
            _catalog: &skills_types::Catalog,
            _touched: &BTreeSet<PathBuf>,
        ) -> BTreeSet<String> {
            BTreeSet::new()
        }
    }

    /// Disabled.
    pub fn start(
        _config: &SkillsConfig,
        _options: &WatchOptions,
        _listener: impl Listener,
    ) -> Result<Watcher, Error> {
        Err(Error::Disabled)
    }
}
