"""MTEB 2.26 `RetrievalEvaluator.evaluate(qrels, results, k_values, ignore_identical_ids)`
(mteb/_evaluators/retrieval_evaluator.py, then calculate_retrieval_scores in mteb/_evaluators/retrieval_metrics.py),
run on each case with k_values = [k] (1000 for a case without a depth, deeper than any list here). The qrels go
through the cast of MTEB's loader (mteb/abstasks/retrieval_dataset_loaders.py: a `datasets` table cast to
{"query-id": string, "corpus-id": string, "score": int32}, which refuses a fractional grade), and the run holds the
judged queries only, as MTEB searches only the queries its qrels judge (its mrr() indexes qrels[query] for every
query of the run). The mean is MTEB's NDCG@k (rounded to 5 decimals), the per-query values its all_scores.
Installed in a venv of its own (pip install mteb), so the test skips here without it."""
import copy
from .common import load_cases, run_variant, save

FULL_DEPTH = 1000


def _qrels_as_mteb_reads_them(qrels):
    from datasets import Dataset, Features, Value
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    table = Dataset.from_dict({"query-id": [r[0] for r in rows], "corpus-id": [r[1] for r in rows],
                               "score": [r[2] for r in rows]})
    table = table.cast(Features({"query-id": Value("string"), "corpus-id": Value("string"), "score": Value("int32")}))
    read = {}
    for q, d, g in zip(table["query-id"], table["corpus-id"], table["score"]):
        read.setdefault(q, {})[d] = g
    return read


def evaluate(ignore_identical_ids):
    def fn(case):
        from mteb._evaluators.retrieval_evaluator import RetrievalEvaluator
        k = case["k"] or FULL_DEPTH
        qrels = _qrels_as_mteb_reads_them(case["qrels"])
        run = {q: docs for q, docs in copy.deepcopy(case["run"]).items() if q in qrels}
        result = RetrievalEvaluator.evaluate(None, qrels, run, [k], ignore_identical_ids=ignore_identical_ids)
        return {q: scores[f"ndcg_cut_{k}"] for q, scores in result.all_scores.items()}, result.ndcg[f"NDCG@{k}"]
    return fn


variants = {"evaluate": evaluate(False), "evaluate_ignore_identical_ids": evaluate(True)}
if __name__ == "__main__":   # python -m tests.conventions_support.run_mteb, in a venv with mteb
    import logging
    from importlib.metadata import version
    logging.disable(logging.WARNING)
    meta = {"version": version("mteb"), "pytrec_eval": version("pytrec_eval-terrier"), "datasets": version("datasets"),
            "notes": "qrels cast to int32 as MTEB's loader does; run restricted to judged queries; mean rounded by MTEB"}
    for more in (False, True):
        save("mteb", meta, {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases(more)},
             more=more)
