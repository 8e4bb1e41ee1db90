//! Ctrl-C while a command runs: the shell installs a handler that records the request,
//! and long-running work (imports, exports, batch scripts) checks it between steps and
//! stops with [`CliError::interrupted`]. Without the handler (argv use) Ctrl-C ends the
//! process the usual way.

use std::sync::atomic::{AtomicBool, Ordering};

use super::CliError;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Routes Ctrl-C to [`check`] instead of ending the process.
pub fn install() -> Result<(), CliError> {
    ctrlc::set_handler(|| REQUESTED.store(true, Ordering::SeqCst))
        .map_err(|e| CliError::failed(format!("cannot install the Ctrl-C handler: {e}")))
}

/// Fails with [`CliError::interrupted`] once Ctrl-C was pressed, and forgets the press.
pub fn check() -> Result<(), CliError> {
    if REQUESTED.swap(false, Ordering::SeqCst) { Err(CliError::interrupted()) } else { Ok(()) }
}

/// The flag itself, for engine work that polls a cancel flag (`optimize`).
pub fn flag() -> &'static AtomicBool {
    &REQUESTED
}

/// Forgets a press that arrived while no command was running.
pub fn clear() {
    REQUESTED.store(false, Ordering::SeqCst);
}
