//! Generated documents stay fresh and agree: the committed completions and man pages equal
//! what the binary generates now, and `--help`, the shell's `.help` and the man page
//! describe each command the same way.

use std::path::Path;

use crate::harness::{assert_golden, xvec};

fn repo(path: &str) -> std::path::PathBuf {
    crate::util::repo_root().join(path)
}

#[test]
fn committed_completions_are_fresh() {
    for (shell, file) in [
        ("bash", "xvec.bash"),
        ("zsh", "_xvec"),
        ("fish", "xvec.fish"),
        ("elvish", "xvec.elv"),
        ("powershell", "_xvec.ps1"),
    ] {
        let run = xvec(&["completions", shell]).run();
        assert_golden(&repo("completions").join(file), &run.ok().stdout);
    }
}

#[test]
fn committed_man_pages_are_fresh() {
    let dir = tempfile::tempdir().unwrap();
    xvec(&["man", dir.path().to_str().unwrap()]).run().ok();
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .map(|r| r.map(|e| e.unwrap().file_name().into_string().unwrap()).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let fresh = names(dir.path());
    assert!(fresh.contains(&"xvec.1".to_string()) && fresh.contains(&"xvec-query.1".to_string()), "{fresh:?}");
    if std::env::var_os("XVEC_BLESS").is_some_and(|v| v == "1") {
        let _ = std::fs::remove_dir_all(repo("man"));
        std::fs::create_dir_all(repo("man")).unwrap();
    }
    for name in &fresh {
        assert_golden(&repo("man").join(name), &std::fs::read_to_string(dir.path().join(name)).unwrap());
    }
    assert_eq!(names(&repo("man")), fresh, "man/ has pages the tool no longer generates; regenerate: xvec man man/");
}

#[test]
fn man_pages_document_exit_status_environment_and_files() {
    for page in ["xvec.1", "xvec-query.1", "xvec-shell.1"] {
        let text = std::fs::read_to_string(repo("man").join(page)).unwrap();
        for section in [".SH \"EXIT STATUS\"", ".SH \"ENVIRONMENT\"", ".SH \"FILES\"", "\\fB130\\fR", "NO_COLOR"] {
            assert!(text.contains(section), "{page} lacks {section}");
        }
    }
    let shell = std::fs::read_to_string(repo("man/xvec-shell.1")).unwrap();
    assert!(shell.contains(".SH \"SHELL COMMANDS\"") && shell.contains("\\&.open DIR [\\-\\-write]"), "{shell}");
}

#[test]
fn help_shell_help_and_man_page_agree() {
    let help = xvec(&["query", "--help"]).run().ok().stdout.clone();
    let shell_help = xvec(&["shell", "-c", ".help query"]).run().ok().stdout.clone();
    // The same text, but the usage a statement has: no program name, no collection.
    let as_statement = help
        .replace("Usage: xvec query [OPTIONS] <DIR> [VECTOR]", "Usage: query [OPTIONS] [VECTOR]")
        .replace("  <DIR>\n          Collection directory\n\n", "")
        .replace("  xvec query words ", "  query ");
    assert_eq!(shell_help, as_statement);
    let man = std::fs::read_to_string(repo("man/xvec-query.1")).unwrap();
    for flag in help.split_whitespace().filter(|w| w.starts_with("--")) {
        let flag = flag.split(['<', '=', ',', '.']).next().unwrap().trim_end_matches(|c: char| !c.is_alphanumeric());
        assert!(man.contains(&flag.replace('-', "\\-")), "man page lacks {flag}");
    }
    let overview = xvec(&["shell", "-c", ".help"]).run().ok().stdout.clone();
    let top = xvec(&["--help"]).run().ok().stdout.clone();
    let commands = top.split("Commands:\n").nth(1).unwrap().split("\n\n").next().unwrap();
    for line in commands.lines() {
        let (name, about) = line.trim().split_once(' ').unwrap();
        if !["help", "shell"].contains(&name) {
            assert!(overview.contains(&format!("  {name} ")), ".help lacks {name}: {overview}");
            assert!(overview.contains(about.trim()), ".help describes {name} differently: {overview}");
        }
    }
}

#[test]
fn verify_and_shell_help_say_how_no_mmap_avoids_a_sigbus() {
    for cmd in ["verify", "shell"] {
        let help = xvec(&[cmd, "--help"]).run().ok().stdout.clone();
        let at = help.find("SIGBUS").unwrap_or_else(|| panic!("{cmd} --help names no SIGBUS:\n{help}"));
        let said = &help[at.saturating_sub(200)..(at + 200).min(help.len())];
        assert!(said.contains("cut short") && said.contains("--no-mmap"), "{cmd} --help: {said}");
    }
}
