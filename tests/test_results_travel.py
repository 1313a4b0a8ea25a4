"""Results travel: an `Evaluation`, the result of several runs, a comparison and an `Evaluator` (one whose measures
pytrec_eval computes included) pickle, and unpickle in a fresh process with the same values. A process pool,
joblib's cache and a Dask worker all move objects this way."""
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_nb import Evaluator, compare, evaluate, evaluate_runs

TEST = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"
QRELS, RUN, TRUNC = TEST / "qrels.test", TEST / "results.test", TEST / "results.trunc"
MEASURES = ["ndcg", "ndcg_cut.10", "map", "P.10"]

READ_BACK = """
import pickle, sys
obj = pickle.load(sys.stdin.buffer)
kind = sys.argv[1]
if kind == "evaluator":
    obj = obj.evaluate(sys.argv[2])
if kind == "compare":
    print(obj.to_csv(index=False))
elif kind == "runs":
    print(obj.means.to_csv())
    print(obj.per_query("ndcg").to_csv())
else:
    print(obj.per_query.to_csv(index=False))
    print(obj.aggregate.to_csv(index=False))
"""


def _in_fresh_process(obj, kind: str, *args) -> str:
    "What a new interpreter prints of `obj` after unpickling it."
    done = subprocess.run([sys.executable, "-c", READ_BACK, kind, *map(str, args)], input=pickle.dumps(obj),
                          capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


@pytest.mark.parametrize("measures", [["ndcg", "ndcg_cut.10"], MEASURES])
@pytest.mark.parametrize("preset", ["trec_eval", "trec_eval_9"])
def test_an_evaluation_travels(preset, measures):
    result = evaluate(QRELS, RUN, measures, preset=preset)
    expected = result.per_query.to_csv(index=False) + "\n" + result.aggregate.to_csv(index=False) + "\n"
    assert _in_fresh_process(result, "evaluation") == expected


@pytest.mark.parametrize("preset", ["trec_eval", "trec_eval_9"])
def test_an_evaluator_travels_and_scores_alike(preset):
    "Under trec_eval_9 the evaluator holds pytrec_eval's evaluators, which do not pickle: they are built again."
    evaluator = Evaluator(QRELS, MEASURES, preset=preset)
    result = evaluator.evaluate(RUN)
    expected = result.per_query.to_csv(index=False) + "\n" + result.aggregate.to_csv(index=False) + "\n"
    assert _in_fresh_process(evaluator, "evaluator", RUN) == expected
    again = pickle.loads(pickle.dumps(evaluator)).evaluate(TRUNC)
    assert again.aggregate.equals(evaluator.evaluate(TRUNC).aggregate)


def test_several_runs_and_a_comparison_travel():
    runs = {"full": RUN, "trunc": TRUNC}
    several = evaluate_runs(QRELS, runs, ["ndcg", "map"], missing_queries="zero")
    assert _in_fresh_process(several, "runs") == several.means.to_csv() + "\n" + several.per_query("ndcg").to_csv() + "\n"
    compared = compare(QRELS, runs, ["ndcg"], tests=("t",), missing_queries="zero")
    assert _in_fresh_process(compared, "compare") == compared.to_csv(index=False) + "\n"
