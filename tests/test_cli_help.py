"""The command line's options say what they do, and no two read alike: `-q` is `--per-query` (trec_eval's flag),
`--silent` turns off what goes to standard error, and `--quiet`, its old name, still works with a note."""
import argparse

import pytest

from ndcg_nb.__main__ import build_parser, main
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN


def subcommands():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"ndcg-nb": parser, **sub.choices}


def test_every_option_has_help():
    missing = [f"{name} {'/'.join(action.option_strings) or action.dest}"
               for name, parser in subcommands().items() for action in parser._actions
               if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) and not action.help]
    assert missing == []


def test_per_query_and_silent_are_two_names_that_do_not_read_alike():
    evaluation = subcommands()["eval"]
    by_option = {option: action for action in evaluation._actions for option in action.option_strings}
    assert by_option["-q"] is by_option["--per-query"] and by_option["-q"].dest == "per_query"
    assert by_option["--silent"].dest == "silent"
    assert "--quiet" not in evaluation.format_help()                  # taken, not offered


def test_quiet_still_silences_with_a_note(capsys):
    argv = ["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10", "--preset", "trec_eval"]
    assert main(argv) == 0
    loud = capsys.readouterr()
    assert "note:" in loud.err                                        # the note --silent is there to hide
    assert main([*argv, "--silent"]) == 0
    silent = capsys.readouterr()
    assert silent.err == "" and silent.out == loud.out
    assert main([*argv, "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.out == loud.out
    assert quiet.err == "ndcg-nb eval: --quiet is now --silent (-q is --per-query); --quiet goes in 0.6\n"


@pytest.mark.parametrize("flag", ["-q", "--per-query"])
def test_per_query_prints_each_query(capsys, flag):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10", flag, "--silent"]) == 0
    queries = {line.split()[1] for line in capsys.readouterr().out.splitlines()}
    assert "all" in queries and len(queries) > 2
