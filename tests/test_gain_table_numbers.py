"""A gain table written in a measure's name (`ndcg.1=3`) takes finite numbers: `nan`, `inf` and numbers too large
for a double (which read as infinity) are refused with the measure and the pair named, on the command line as in
Python, rather than ending in a traceback or a message about converting NaN to an integer."""
import pytest

from ndcg_nb import evaluate
from ndcg_nb.__main__ import main
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.errors import UsageError

TABLES = ["ndcg.1=nan", "ndcg.1=inf", "ndcg.1=-inf", "ndcg.1=1e400", "ndcg.nan=1", "dcg.1=3,2=inf", "ndcg.1e300=2"]


@pytest.mark.parametrize("measure", TABLES)
def test_a_table_of_numbers_that_are_not_finite_is_refused(measure):
    with pytest.raises(UsageError, match=f"measure '{measure}'"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, [measure])


@pytest.mark.parametrize("measure", TABLES)
def test_the_command_line_says_which(measure, capsys):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", measure]) == 2          # a usage error
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"ndcg-nb: error: measure '{measure}'") and "Traceback" not in err


def test_finite_tables_still_score():
    assert evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg.1=1e300"]).value("ndcg.1=1e300") >= 0
