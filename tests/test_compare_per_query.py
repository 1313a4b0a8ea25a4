"""`compare` per query. `ndcg-nb compare ... -q` prints each run's value and its difference from the
baseline on each query, in each `--format`; `RunsEvaluation.per_query_table()` is the same table in Python."""
import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.__main__ import main
from ndcg_nb.analysis.comparison import SAMPLE_RUN_B, evaluate_runs, per_query_table
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.evaluation import evaluate

MEASURES = ["ndcg", "ndcg_cut.10"]
pytestmark = pytest.mark.filterwarnings("ignore:.*counted for only one of:UserWarning")   # the short run's, expected
HEAD = "per query: each run's value, and each other run's difference from sample"


@pytest.fixture
def short_run(tmp_path):
    "A third run with two of the sample's queries (101 and 103), so that the others have no difference."
    path = tmp_path / "short.run"
    path.write_text("".join(line for line in SAMPLE_RUN.read_text().splitlines(keepends=True)
                            if line.split()[0] in ("101", "103")).replace(" sample\n", " short\n"))
    return path


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _expected(short_run) -> pd.DataFrame:
    "The table from each run's own evaluation: values by query, differences from the first run."
    rows = []
    for measure in ("ndcg", "ndcg_cut_10"):
        values = {}
        for name, path in (("sample", SAMPLE_RUN), ("sample_b", SAMPLE_RUN_B), ("short", short_run)):
            table = evaluate(SAMPLE_QRELS, path, [measure]).per_query
            values[name] = table[table.counted].set_index("query")["value"]
        frame = pd.DataFrame(values)
        for name in ("sample_b", "short"):
            frame[f"{name} - sample"] = frame[name] - frame["sample"]
        rows.append(frame.assign(measure=measure))
    return pd.concat(rows).rename_axis("query").reset_index().set_index(["measure", "query"]).sort_index()


def test_python_table(short_run):
    table = evaluate_runs(SAMPLE_QRELS, [SAMPLE_RUN, SAMPLE_RUN_B, short_run], MEASURES).per_query_table()
    expected = _expected(short_run)
    assert list(table.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(table.sort_index(), expected, check_exact=True)
    assert table["short - sample"].notna().sum() == 4          # 101 and 103, on both measures
    assert set(table.index.get_level_values("query")) == {"101", "102", "103", "104", "105"}


def test_a_baseline_of_choice(short_run):
    evaluated = evaluate_runs(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN_B}, MEASURES)
    table = per_query_table(evaluated, "b")
    assert list(table.columns) == ["a", "b", "a - b"]
    np.testing.assert_array_equal(table["a - b"], table["a"] - table["b"])


def test_text_lines(capsys, short_run):
    out = run_cli(capsys, "compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_RUN_B, short_run, "-m", "ndcg", "-m", "ndcg_cut.10",
                  "--test", "t", "-q")
    without = run_cli(capsys, "compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_RUN_B, short_run, "-m", "ndcg", "-m",
                      "ndcg_cut.10", "--test", "t")
    assert out.startswith(without.rstrip("\n") + "\n\n" + HEAD + "\n\n")
    lines = out.split(HEAD + "\n\n")[1].splitlines()
    assert lines[0].split() == ["measure", "query", "sample", "sample_b", "short", "sample_b", "-", "sample", "short",
                                "-", "sample"]
    expected = _expected(short_run)
    assert len(lines) == 1 + len(expected)
    for line, ((measure, query), row) in zip(lines[1:], expected.iterrows()):
        cells = line.split()
        assert cells[:2] == [measure, query]
        assert cells[2:] == [f"{v:.4f}" for v in row if not math.isnan(v)]     # NaN: an empty cell


def test_csv_and_json(capsys, short_run):
    argv = ["compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_RUN_B, short_run, "-m", "ndcg", "-m", "ndcg_cut.10", "-q"]
    expected = _expected(short_run)
    table = pd.read_csv(io.StringIO(run_cli(capsys, *argv, "--format", "csv")), dtype={"query": str})
    pd.testing.assert_frame_equal(table.set_index(["measure", "query"]).sort_index(), expected, check_exact=True)
    both = json.loads(run_cli(capsys, *argv, "--format", "json"))
    assert both["tests"] == json.loads(run_cli(capsys, *argv[:-1], "--format", "json"))
    rows = pd.DataFrame(both["per_query"]).set_index(["measure", "query"]).sort_index().astype(float)
    pd.testing.assert_frame_equal(rows, expected, check_exact=True)
    assert any(row["short - sample"] is None for row in both["per_query"])        # no difference: null, not NaN


def test_markdown_and_latex(capsys):
    argv = ["compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_RUN_B, "-m", "ndcg_cut.10", "--test", "t", "-q"]
    markdown = run_cli(capsys, *argv, "--format", "markdown").split(HEAD + "\n\n")[1].splitlines()
    assert markdown[0] == "| measure | query | sample | sample_b | sample_b - sample |"
    assert markdown[1] == "| :--- | :--- | ---: | ---: | ---: |" and len(markdown) == 2 + 5
    latex = run_cli(capsys, *argv, "--format", "latex")
    assert "% " + HEAD in latex
    assert latex.rstrip().endswith(r"\end{tabular}") and latex.count(r"\begin{tabular}") == 3   # means, tests, per query
    assert r"ndcg\_cut\_10 & 101 &" in latex
