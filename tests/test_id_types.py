"""Ids whose types differ between the qrels and the run: matched as the text they print as (the integer 12 and the
text "12" are one id, as trec_eval reads them from a file), or refused with an error naming both forms, never a
silent 0.0. A float id prints as "12.0", which is not "12": a run whose document ids are floats against integer qrels
(a column that once held a NaN) matches nothing, and that is an `InputError` (see nbs/43_judgments.ipynb, "Ids of
different types"). The forms are looked at only when nothing matched."""
import numpy as np
import pandas as pd
import pytest

import ndcg_nb.engine.judgments as judgments_module
from ndcg_nb import evaluate
from ndcg_nb.errors import InputError

QRELS = pd.DataFrame({"query": ["q1"] * 4 + ["q2"] * 2, "doc": [12, 13, 14, 15, 12, 16],
                      "relevance": [2, 1, 0, 1, 1, 1]})
DOCS = [13, 12, 15, 99, 16, 12]
SCORES = [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]


def run_with(docs, queries=("q1",) * 4 + ("q2",) * 2) -> pd.DataFrame:
    return pd.DataFrame({"query": list(queries), "doc": docs, "score": SCORES})


def ndcg(qrels, run, **options) -> float:
    return evaluate(qrels, run, ["ndcg"], progress=False, **options).value("ndcg")


def pytrec_eval_ndcg(qrels: pd.DataFrame, run: pd.DataFrame) -> float:
    "pytrec_eval's mean ndcg on the same ids written as text (int ids as '12'), as they would be in TREC files."
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged, ranked = {}, {}
    for query, doc, grade in qrels.itertuples(index=False):
        judged.setdefault(str(query), {})[str(doc)] = int(grade)
    for query, doc, score in run.itertuples(index=False):
        ranked.setdefault(str(query), {})[str(doc)] = float(score)
    values = pytrec_eval.RelevanceEvaluator(judged, {"ndcg"}).evaluate(ranked)
    return float(np.mean([v["ndcg"] for v in values.values()]))


def float_column_from_a_nan() -> pd.Series:
    "Document ids that once shared a column with a NaN: float64 after the NaN is gone."
    with_nan = pd.Series([*DOCS, np.nan])
    return with_nan.dropna().reset_index(drop=True)


# -- int against float --------------------------------------------------------------------------------------------

def test_the_text_ids_score_what_pytrec_eval_scores():
    run = run_with(DOCS)
    assert ndcg(QRELS, run) == pytest.approx(pytrec_eval_ndcg(QRELS, run), abs=1e-12)
    assert ndcg(QRELS, run) > 0.9


def test_float_doc_ids_against_integer_ones_are_refused_naming_both():
    run = run_with(float_column_from_a_nan())
    assert run["doc"].dtype == np.float64 and QRELS["doc"].dtype == np.int64
    with pytest.raises(InputError) as refused:
        ndcg(QRELS, run)
    message = str(refused.value)
    assert "no document of the run is judged" in message
    assert "doc ids are integers in the qrels ('12', '13', '14', '15', '16') and floats in the run ('13.0'" in message
    assert "astype('int64')" in message
    assert ndcg(QRELS, run.astype({"doc": "int64"})) == pytest.approx(pytrec_eval_ndcg(QRELS, run_with(DOCS)), abs=1e-12)


def test_integer_doc_ids_against_float_ones_are_refused():
    with pytest.raises(InputError, match=r"floats in the qrels \('12.0', .*\) and integers in the run \('13'"):
        ndcg(QRELS.astype({"doc": float}), run_with(DOCS))


@pytest.mark.parametrize("dtype", ["float32", "Float64"])
def test_other_float_dtypes_are_refused(dtype):
    with pytest.raises(InputError, match="floats in the run"):
        ndcg(QRELS, run_with(pd.Series(DOCS).astype(dtype)))


def test_float_ids_with_a_fraction_are_refused():
    with pytest.raises(InputError, match="an id with a fraction is no integer id: check the doc column of the run"):
        ndcg(QRELS, run_with([d + 0.5 for d in DOCS]))


def test_dicts_with_float_doc_keys_are_refused():
    qrels = {"q1": {12: 2, 13: 1}}
    with pytest.raises(InputError, match="integers in the qrels .* floats in the run"):
        ndcg(qrels, {"q1": {12.0: 1.0, 13.0: 2.0}})
    with pytest.raises(InputError, match="floats in the run"):          # the same ids as text keys
        ndcg(qrels, {"q1": {"12.0": 1.0, "13.0": 2.0}})


def test_floats_on_both_sides_still_match():
    float_qrels, float_run = QRELS.astype({"doc": float}), run_with(float_column_from_a_nan())
    assert ndcg(float_qrels, float_run) == pytest.approx(ndcg(QRELS, run_with(DOCS)), abs=1e-15)


# -- int against str ----------------------------------------------------------------------------------------------

def test_integer_and_text_ids_are_one_id():
    "12 and '12' print alike, whatever the column types: matched, as trec_eval matches them in files."
    expected = pytrec_eval_ndcg(QRELS, run_with(DOCS))
    assert ndcg(QRELS, run_with([str(d) for d in DOCS])) == pytest.approx(expected, abs=1e-12)
    assert ndcg(QRELS.astype({"doc": str}), run_with(DOCS)) == pytest.approx(expected, abs=1e-12)
    assert ndcg({"q1": {12: 2, 13: 1}}, {"q1": {"12": 1.0, "13": 2.0}}) == \
        pytest.approx(ndcg({"q1": {"12": 2, "13": 1}}, {"q1": {"12": 1.0, "13": 2.0}}), abs=1e-15)


def test_text_written_as_floats_against_integers_is_refused():
    "'12.0' as text (a float column written out and read back as text) meets no integer id: refused, not 0.0."
    with pytest.raises(InputError, match=r"floats in the run \('13.0', '12.0'"):
        ndcg(QRELS, run_with([f"{d}.0" for d in DOCS]))


def test_other_text_is_another_id_without_a_word():
    "'012' is not 12 (nor is it to trec_eval), and a run of documents nobody judged scores 0: no clash of forms."
    assert ndcg(QRELS, run_with([f"0{d}" for d in DOCS])) == 0.0
    assert ndcg(QRELS, run_with([d + 1000 for d in DOCS])) == 0.0


# -- query ids ----------------------------------------------------------------------------------------------------

def test_float_query_ids_against_integer_ones_are_refused_naming_both():
    qrels = QRELS.assign(query=QRELS["query"].str[1:].astype(int))
    run = run_with(DOCS, queries=[1.0] * 4 + [2.0] * 2)
    with pytest.raises(InputError) as refused:
        ndcg(qrels, run)
    message = str(refused.value)
    assert message.startswith("no query of the run is in the qrels, so there is nothing to score")
    assert "query ids are integers in the qrels ('1', '2') and floats in the run ('1.0', '2.0')" in message
    assert ndcg(qrels, run.astype({"query": "int64"})) == pytest.approx(ndcg(QRELS, run_with(DOCS)), abs=1e-15)


def test_integer_query_ids_against_text_ones_match():
    qrels = QRELS.assign(query=QRELS["query"].str[1:].astype(int))
    assert ndcg(qrels, run_with(DOCS, queries=["1"] * 4 + ["2"] * 2)) == \
        pytest.approx(ndcg(QRELS, run_with(DOCS)), abs=1e-15)


def test_query_ids_from_dicts():
    with pytest.raises(InputError, match=r"query ids are integers in the qrels \('1'\) and floats in the run \('1.0'\)"):
        ndcg({1: {"a": 2}}, {1.0: {"a": 1.0}})


# -- the usual path ------------------------------------------------------------------------------------------------

def test_the_forms_are_looked_at_only_when_nothing_matched(monkeypatch):
    "A run that matches pays no look at its ids' forms (the check is one look at the first matched lines)."
    def looked(*args):
        raise AssertionError("id_form called on a run that matches")
    monkeypatch.setattr(judgments_module, "id_form", looked)
    assert ndcg(QRELS, run_with(DOCS)) > 0.9
    assert ndcg({"q1": {"12": 2}}, {"q1": {"12": 1.0, "x": 2.0}}) > 0


def test_a_judged_id_that_is_not_unicode_text_is_named():
    "Dict qrels holding a lone surrogate (bytes decoded with surrogateescape) give an error naming the id, not a crash."
    import ndcg_nb
    from ndcg_nb.errors import InputError
    with pytest.raises(InputError, match=r"document id 'a\\udc80' is not valid Unicode text"):
        ndcg_nb.evaluate({"q": {"a\udc80": 1, "b": 0}}, {"q": {"x": 1.0}}, "ndcg")
