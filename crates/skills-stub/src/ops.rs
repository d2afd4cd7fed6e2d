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
