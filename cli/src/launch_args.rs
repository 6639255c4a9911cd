//! The arguments `pops run` and `pops compare` share: where the layer is and what it runs.

use compare::launch::{find_layer, LaunchError};
use std::ffi::OsString;
use std::path::PathBuf;

/// Where the layer is and what it runs: the arguments `pops run` and `pops compare` share.
#[derive(clap::Args)]
pub struct Launch {
    /// The layer manifest (VkLayer_pops_interlock.json) or its folder, instead of searching.
    #[arg(long)]
    layer: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "PROGRAM"
    )]
    command: Vec<OsString>,
}

impl Launch {
    /// The program and its arguments.
    pub fn program(&self) -> Result<(&OsString, &[OsString]), LaunchError> {
        self.command.split_first().ok_or(LaunchError::NoProgram)
    }

    /// The folder of the layer manifest, absolute.
    pub fn layer_dir(&self) -> Result<PathBuf, LaunchError> {
        let dir = find_layer(self.layer.as_deref())?;
        Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
    }
}
