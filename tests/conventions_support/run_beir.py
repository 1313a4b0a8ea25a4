"""BEIR 2.2.0 `EvaluateRetrieval.evaluate(qrels, results, k_values, ignore_identical_ids)` (beir/retrieval/evaluation.py),
run on each case as BEIR's users call it: the qrels and the run as dicts, k_values = [k] (1000 for a case without a
depth: deeper than any list and any ideal here, so ndcg_cut_1000 is the full NDCG). It returns only NDCG@k averaged
over the queries pytrec_eval scored, rounded to 5 decimals (the mean recorded); the per-query values are what BEIR's
own pytrec_eval.RelevanceEvaluator returned inside that call, caught by a subclass that keeps them. BEIR pops the
identical-id documents from the results it is given: each call gets a copy. pytrec_eval refuses non-integer grades.
Installed in a venv of its own (pip install beir: sentence-transformers and more), so the test skips here without it."""
import copy
from .common import load_cases, run_variant, save

FULL_DEPTH = 1000


def evaluate(ignore_identical_ids):
    def fn(case):
        from beir.retrieval import evaluation
        k, caught = case["k"] or FULL_DEPTH, []
        relevance_evaluator = evaluation.pytrec_eval.RelevanceEvaluator

        class Keeping(relevance_evaluator):
            def evaluate(self, run):
                caught.append(super().evaluate(run))
                return caught[-1]
        evaluation.pytrec_eval.RelevanceEvaluator = Keeping
        try:
            ndcg, *_ = evaluation.EvaluateRetrieval.evaluate(copy.deepcopy(case["qrels"]), copy.deepcopy(case["run"]), [k],
                                                             ignore_identical_ids=ignore_identical_ids)
        finally:
            evaluation.pytrec_eval.RelevanceEvaluator = relevance_evaluator
        return {q: scores[f"ndcg_cut_{k}"] for q, scores in caught[0].items()}, ndcg[f"NDCG@{k}"]
    return fn


variants = {"evaluate": evaluate(True), "evaluate_keep_identical_ids": evaluate(False)}
if __name__ == "__main__":   # python -m tests.conventions_support.run_beir, in a venv with beir
    from importlib.metadata import version
    meta = {"version": version("beir"), "pytrec_eval": version("pytrec_eval-terrier"),
            "notes": "per-query values caught from BEIR's pytrec_eval call; mean as BEIR returns it (5 decimals)"}
    for more in (False, True):
        save("beir", meta, {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases(more)},
             more=more)
