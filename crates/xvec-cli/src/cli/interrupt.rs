//! Ctrl-C while a command runs: the shell routes SIGINT to a flag, and long-running work
//! (imports, exports, optimize, batch scripts) checks it between steps and stops with
//! [`CliError::interrupted`]. Without the flag (argv use) Ctrl-C ends the process the usual
//! way. The flag is set inside the signal handler itself, so a statement read after the
//! signal always sees it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

use super::CliError;

static REQUESTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// Routes Ctrl-C to [`check`] instead of ending the process; once per process, however
/// often it is called (the shell, then each `backup` it runs).
pub fn install() -> Result<(), CliError> {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&REQUESTED))
        .map(|_| ())
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
