//! Parameters in filters: `.param set` and `--param` bind typed values to `$name`
//! placeholders of --filter/--where in every command, never spliced in as text.

use crate::harness::{wordnet, xvec};

fn shell(statements: &[&str]) -> crate::harness::Run {
    let mut args = vec!["shell", wordnet().to_str().unwrap(), "--mode", "tsv", "--no-headers"];
    for s in statements {
        args.extend(["-c", s]);
    }
    xvec(&args).run()
}

#[test]
fn shell_parameters_bind_strings_numbers_and_lists() {
    let run = shell(&[
        ".param set $p v",
        ".param set n 3",
        ".param set pos [\"a\", \"s\"]",
        "count --filter \"pos = $p\"",
        "count --filter \"pos = $p AND n_lemmas >= $n\"",
        "count --filter \"pos IN $pos\"",
        "count --filter 'pos IN ($pos, $p)'",
        // Unquoted `$p` inside a longer word is the filter's, not the shell's.
        "count --filter pos=$p",
        // Whole-word substitution of an unquoted argument still works.
        ".param set k n.07580359",
        "fetch $k --fields lemma",
        ".param unset $k",
        ".param list",
    ]);
    let list = "$n\tnumber\t3\n$p\tstring\tv\n$pos\tlist(2)\t[\"a\", \"s\"]\n";
    assert_eq!(run.ok().stdout, format!("296\n52\n391\n687\n296\nn.07580359\tcasserole\n{list}"));
}

#[test]
fn param_list_shows_types() {
    let run = xvec(&["shell", "--mode", "tsv"])
        .stdin(".param set s fruit\n.param set n -1.5e3\n.param set b true\n.param set q [0.5, 1]\n.param set l [1, \"a\"]\n.param set t \"'42'\"\n.param list\n")
        .run();
    assert_eq!(
        run.ok().stdout,
        "name\ttype\tvalue\n$b\tbool\ttrue\n$l\tlist(2)\t[1, \"a\"]\n$n\tnumber\t-1.5e3\n$q\tvector(2)\t[0.5, 1]\n\
         $s\tstring\tfruit\n$t\tstring\t'42'\n"
    );
    let run = xvec(&["shell"]).stdin(".param set a-b 1\n").run();
    run.code(2);
    assert!(run.stderr.contains("bad parameter name \"a-b\""), "{run}");
}

#[test]
fn injection_attempts_stay_one_string() {
    for evil in ["\"x' OR 1=1 OR pos = 'v\"", "\"'; drop\"", "\"v' OR 'a' = 'a\""] {
        let set = format!(".param set p {evil}");
        let run = shell(&[&set, "count --filter \"pos = $p\"", "count --filter \"pos != $p\""]);
        assert_eq!(run.ok().stdout, "0\n2500\n", "{evil}: {run}");
    }
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["count", c, "--filter", "pos = $p", "--param", "p=x' OR 1=1 OR pos = 'v", "--mode", "tsv"]).run();
    assert_eq!(run.ok().stdout, "count\n0\n");
}

#[test]
fn quoted_dollar_is_literal_text() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let c = c.to_str().unwrap();
    xvec(&["create", c, "--field", "cat:string", "--vector", "v:2:l2"]).run().ok();
    let docs = dir.path().join("d.jsonl");
    std::fs::write(
        &docs,
        "{\"id\":\"a\",\"cat\":\"$cat\",\"v\":[1,0]}\n{\"id\":\"b\",\"cat\":\"fruit\",\"v\":[0,1]}\n",
    )
    .unwrap();
    xvec(&["import", c, docs.to_str().unwrap()]).run().ok();
    let count = |filter: &str| {
        let run =
            xvec(&["count", c, "--filter", filter, "--param", "cat=fruit", "--mode", "tsv", "--no-headers"]).run();
        run.ok().stdout.clone()
    };
    assert_eq!(count("cat = '$cat'"), "1\n");
    assert_eq!(count("cat = $cat"), "1\n");
    assert_eq!(count("cat IN ('$cat', $cat)"), "2\n");
    // --param works on every filter-taking command: query, export, delete.
    let run = xvec(&["query", c, "[0, 1]", "--filter", "cat = $cat", "--param", "cat=$cat", "--mode", "tsv"]).run();
    assert!(run.ok().stdout.starts_with("_key\tscore\tcat\na\t"), "{run}");
    let run = xvec(&["query", c, "$q", "--param", "q=[1, 0]", "-k", "1", "--mode", "tsv", "--no-headers"]).run();
    assert!(run.ok().stdout.starts_with("a\t"), "{run}");
    let run = xvec(&["query", c, "$q", "--param", "q=[1, \"x\"]"]).run();
    run.code(2);
    assert!(run.stderr.starts_with("error: the query vector `$q` is a list with string at element 2"), "{run}");
    let run = xvec(&["export", c, "--filter", "cat = $cat", "--param", "cat=fruit", "--fields", "cat"]).run();
    assert_eq!(run.ok().stdout, "{\"id\":\"b\",\"cat\":\"fruit\"}\n");
    let run = xvec(&["delete", c, "--where", "cat = $c", "--param", "c=fruit"]).run();
    assert!(run.ok().stderr.starts_with("deleted 1 "), "{run}");
    // Shell --param seeds the session; a statement's --param wins for that statement.
    let run = xvec(&["shell", c, "--param", "cat=$cat", "--mode", "tsv", "--no-headers"])
        .stdin("count --filter \"cat = $cat\"\ncount --filter \"cat = $cat\" --param cat=fruit\n")
        .run();
    assert_eq!(run.ok().stdout, "1\n0\n");
}

#[test]
fn unbound_parameter_is_an_error_with_caret_and_hint() {
    let c = wordnet().to_str().unwrap();
    let run = xvec(&["count", c, "--filter", "pos = 'n' AND lexname = $lex"]).run();
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: filter: line 1, column 25: parameter `$lex` is not bound\npos = 'n' AND lexname = $lex\n\
         \x20                       ^^^^\nhint: .param set lex VALUE in the shell, or --param lex=VALUE\n"
    );
    let run = shell(&["count --filter \"n_lemmas = $n\""]);
    assert!(
        run.stderr.contains("parameter `$n` is not bound\nn_lemmas = $n\n           ^^\nhint: .param set n"),
        "{run}"
    );
    let run = xvec(&["count", c, "--filter", "n_lemmas = $n", "--param", "n=two"]).run();
    run.code(2);
    assert!(run.stderr.contains("field `n_lemmas` is int32 but `$n` is a string ('two'); expected a number"), "{run}");
    let run = xvec(&["count", c, "--param", "nope"]).run();
    run.code(2);
    assert!(run.stderr.contains("expected NAME=VALUE"), "{run}");
}
