"""Dict runs scored by a held `Evaluator` against the same runs scored each by a fresh one, to the bit.

A held evaluator matches the first dict run by text; from the second on it may match runs by a table of document
ids it made from an earlier run (`RunIds` in nbs/43a_matching.ipynb): grades found by a join on integer codes, ties
broken by the codes (`_integer_tie_order` in nbs/43_judgments.ipynb). A fresh evaluator (`evaluate`) never makes a
table, so each run below is scored both ways: by text (the reference) and, in the held evaluator, by codes for
every run the table holds. Hypothesis draws ids of several scripts (a lone surrogate among them), grades, scores
with many ties, and sequences of runs that repeat, reorder or change their ids; conventions that read ties, depth,
negative grades, unjudged documents and float32 scores.
"""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from ndcg_nb import Evaluator, evaluate

SETTINGS = settings(max_examples=60, deadline=None)
SPELLINGS = ["d{}", "D{}", "é{}", "中{}", "\U0001F600{}", "{}", "doc-{}-x"]
CONVENTIONS = [dict(preset="trec_eval"), dict(preset="trec_eval", ties="docno_ascending"),
               dict(preset="trec_eval", ties="worst"), dict(ties="best", negative="drop"),
               dict(preset="trec_eval", unjudged="drop", max_docs=4), dict(preset="trec_eval", float32_scores=False),
               dict(ties="input"), dict(ties="average", negative="zero")]
MEASURES = [["ndcg", "ndcg_cut.3"], ["ndcg_cut.2"], ["ndcg", "ndcg_cut.1", "ndcg_cut.5"]]


@st.composite
def judged_and_runs(draw, surrogate=False):
    "Qrels over a pool of ids, and runs that repeat one set of ids (same order, another order) or draw new ones."
    n_ids = draw(st.integers(1, 40))
    pool = [SPELLINGS[i % len(SPELLINGS)].format(draw(st.integers(0, 30))) for i in range(n_ids)]
    if surrogate:
        pool.append("\ud800x")
    pool = list(dict.fromkeys(pool))
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    qrels = {}
    for q in queries:
        judged = draw(st.lists(st.sampled_from(pool), max_size=12, unique=True))
        if judged:
            qrels[q] = {d: draw(st.sampled_from([-1, 0, 0, 1, 2, 3, 1.5])) for d in judged}
    if not qrels:
        qrels = {queries[0]: {pool[0]: 1}}
    base = {q: draw(st.lists(st.sampled_from(pool), max_size=15, unique=True)) for q in queries + ["unjudged"]}
    runs = []
    for _ in range(draw(st.integers(2, 6))):
        shape = draw(st.sampled_from(["same", "same", "shuffled", "new"]))
        if shape == "new":
            docs = {q: draw(st.lists(st.sampled_from(pool), max_size=15, unique=True)) for q in base}
        elif shape == "shuffled":
            docs = {q: draw(st.permutations(ids)) for q, ids in base.items()}
        else:
            docs = base
        scores = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, -1.0, 0.1 + 0.2])
        runs.append({q: {d: draw(scores) for d in ids} for q, ids in docs.items()})
    return qrels, runs


def same_bits(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    values = [np.asarray(frame["value"], dtype=float) for frame in (a, b)]
    assert np.array_equal(values[0].view(np.int64), values[1].view(np.int64))


def outcome(score, run):
    "The evaluation of `run`, or the error it raised (type and message), as a value to compare."
    try:
        return score(run)
    except Exception as error:      # the same error either way: compared by type and message
        return type(error), str(error)


def check_held_equals_fresh(qrels, runs, measures, convention):
    held = Evaluator(qrels, measures, **convention)
    for run in runs:
        ours = outcome(lambda r: held.evaluate(r, progress=False, no_common_query="score"), run)
        fresh = outcome(lambda r: evaluate(qrels, r, measures, progress=False, no_common_query="score", **convention),
                        run)
        if isinstance(fresh, tuple) or isinstance(ours, tuple):
            assert ours == fresh
            continue
        same_bits(ours.per_query, fresh.per_query)
        same_bits(ours.aggregate, fresh.aggregate)
    return held


@SETTINGS
@given(judged_and_runs(), st.sampled_from(MEASURES), st.sampled_from(CONVENTIONS))
def test_held_dict_runs_equal_fresh_evaluations(drawn, measures, convention):
    qrels, runs = drawn
    check_held_equals_fresh(qrels, runs, measures, convention)


@settings(max_examples=20, deadline=None)
@given(judged_and_runs(surrogate=True), st.sampled_from(CONVENTIONS[:3]))
def test_ids_no_utf8_holds_are_ordered_as_python_orders_them(drawn, convention):
    qrels, runs = drawn
    check_held_equals_fresh(qrels, runs, ["ndcg", "ndcg_cut.3"], convention)


def test_the_table_is_used():
    "The held evaluator matches the second run on by codes (so the test above compares two paths)."
    qrels = {"q1": {"b": 1, "a": 2, "é": 3}, "q2": {"a": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "é": 1.0}, "q2": {"a": 0.5, "z": 0.5}}
    held = check_held_equals_fresh(qrels, [run, run, dict(reversed(run.items()))], ["ndcg"], dict(preset="trec_eval"))
    table = held.judgments.run_ids.table
    assert table is not None and table.served == 1 and sorted(table.code_of) == ["a", "b", "c", "z", "é"]
