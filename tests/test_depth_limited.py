"""Rankings read only as deep as their measures (`ranking_depths`, `lines_read`): a held `Evaluator` whose measures are
all cut at a depth ranks, breaks ties and (for dict runs) looks up grades only for the lines that can reach that depth.
Its values must be those of the whole ranking: the same measures scored beside `ndcg`, which reads every line, on
random runs built to stress the cut (many tied scores, ties straddling the cut, scores that tie only as float32,
ragged and empty queries, unjudged and negative grades), under every tie rule and the conventions that change what is
ranked; and trec_eval's own values through pytrec_eval."""
import numpy as np
import pytest

from ndcg_nb.engine.evaluator import Evaluator
from ndcg_nb.engine.scoring import lines_read

CUT = ["ndcg_cut.1", "ndcg_cut.3", "ndcg_cut.10"]


def random_case(seed: int, float32_ties: bool = False):
    "Qrels and a dict run of ragged queries whose scores tie often (a few values), some ties only as float32."
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 12))):
        docs = [f"d{int(i)}" for i in rng.permutation(60)[:int(rng.integers(0, 40))]]
        if float32_ties:
            scores = 1.0 + rng.integers(0, 3, len(docs)) * 2.0 ** -10 + rng.integers(0, 2, len(docs)) * 2.0 ** -40
        else:
            scores = rng.integers(0, 6, len(docs)) / 4.0
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
        judged = [f"d{int(i)}" for i in rng.permutation(60)[:int(rng.integers(1, 30))]]
        qrels[f"q{q}"] = dict(zip(judged, (rng.integers(-1, 4, len(judged)) if seed % 3 == 0 else
                                           rng.integers(0, 4, len(judged))).tolist()))
    qrels["only_judged"] = {"d1": 2}
    run["only_run"] = {"d1": 1.0}
    return qrels, run


def cut_values(evaluation):
    table = evaluation.per_query
    table = table[table.measure.isin([m.replace(".", "_") for m in CUT])]
    assert len(table)
    return dict(zip(zip(table["query"], table["measure"]), table["value"]))


CONVENTIONS = [
    {"preset": "trec_eval"},
    {"preset": "trec_eval", "ties": "docno_ascending"},
    {"preset": "trec_eval", "ties": "input"},
    {"preset": "trec_eval", "ties": "best"},
    {"preset": "trec_eval", "ties": "worst"},
    {"preset": "trec_eval", "ties": "average"},
    {"preset": "trec_eval", "float32_scores": False},
    {"preset": "trec_eval", "gain": "exponential", "discount": "ln"},
    {"preset": "trec_eval", "negative": "keep"},
    {"preset": "trec_eval", "max_docs": 4},
    {"preset": "trec_eval", "unjudged": "drop"},
    {"preset": "ranx"},
    {"preset": "ir_measures"},
]


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("seed", range(12))
def test_cut_rankings_equal_the_whole_ranking(conv, seed):
    qrels, run = random_case(seed, float32_ties=seed % 2 == 1)
    cut = Evaluator(qrels, CUT, **conv)
    whole = Evaluator(qrels, CUT + ["ndcg"], **conv)
    assert whole._depth is None
    if conv.get("unjudged") != "drop":     # the cut path is taken: the test does not compare the whole ranking with itself
        assert cut._depth == 10
    ours, theirs = cut_values(cut.evaluate(run, progress=False)), cut_values(whole.evaluate(run, progress=False))
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key


def test_lines_read_is_none_where_lines_can_move_up():
    qrels, _ = random_case(0)
    assert Evaluator(qrels, CUT, preset="trec_eval", negative="drop")._depth is None
    assert Evaluator(qrels, CUT, preset="trec_eval", ties="numpy_argsort")._depth is None
    assert Evaluator(qrels, CUT, preset="trec_eval", unjudged="drop")._depth is None
    assert Evaluator(qrels, CUT, preset="torchmetrics")._depth is None      # sums every retrieved grade
    assert lines_read(Evaluator(qrels, ["ndcg_cut.5", "nDCG@20"]).plan) == 20


@pytest.mark.parametrize("seed", range(8))
def test_cut_rankings_equal_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_case(seed, float32_ties=True)
    qrels = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}
    held = Evaluator(qrels, ["ndcg_cut.3", "ndcg_cut.10"], preset="trec_eval_9")   # pytrec_eval: float scores
    assert held._depth == 10
    ours = held.evaluate(run, progress=False).per_query
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3", "ndcg_cut.10"}).evaluate(run)
    for query, values in theirs.items():
        for name in ("ndcg_cut_3", "ndcg_cut_10"):
            row = ours[(ours["query"] == query) & (ours.measure == name)]
            assert row["value"].iloc[0] == pytest.approx(values[name], abs=1e-12), (query, name)
