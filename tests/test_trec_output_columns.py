"""trec_eval's output is three whitespace-separated columns: an id that holds whitespace would make more columns, or
a line of its own (a query id holding a line end and `all` forges a summary line). Such ids are refused on output,
with the id named; json and csv carry them."""
import json

import pandas as pd
import pytest

from ndcg_nb import evaluate
from ndcg_nb.errors import InputError


def _scored(query: str):
    qrels = pd.DataFrame({"query": [query, "q2"], "doc": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query": [query, "q2"], "doc": ["a", "b"], "score": [1.0, 1.0]})
    return evaluate(qrels, run, ["ndcg"])


@pytest.mark.parametrize("query", ["x\tall\t1.0000\nndcg", "two words", "line\nend", "tab\there"])
def test_an_id_with_whitespace_is_refused_in_trec_columns(query):
    result = _scored(query)
    with pytest.raises(InputError, match="cannot be written in trec_eval's whitespace-separated columns"):
        result.to_trec(per_query=True)
    assert query in {row["query"] for row in json.loads(result.to_json(per_query=True))["per_query"]}
    assert result.to_trec() == "ndcg                  \tall\t1.0000"      # the summary alone holds no query id


def test_no_forged_summary_line():
    "Whatever the ids, every line written has three columns and one `all` line per measure."
    result = _scored("q1")
    lines = result.to_trec(per_query=True).splitlines()
    assert all(len(line.split("\t")) == 3 for line in lines)
    assert [line.split("\t")[1] for line in lines].count("all") == 1
