"""Shared helpers of the runners of the training-time metrics (TorchRec, Keras-RS, PyTorch-Ignite, metrax): each takes
a query's retrieved documents as one list (the run's scores, the qrels' grades, 0 for an unjudged document), as a
training batch holds them; a judged query missing from the run has no list and cannot be given to these tools.
Their own cases (query weights, IDCG 0, single-document lists) are in tests/data/conventions/cases_training.json."""
import json
import sys
from .common import CASES_PATH, load_cases, run_variant, save

TRAINING_CASES_PATH = CASES_PATH.parent / "cases_training.json"


def load_training_cases():
    return json.loads(TRAINING_CASES_PATH.read_text())


def rows(case):
    "(query, grades, scores, weight) of each run query: the lists a training batch holds."
    weights = case.get("query_weights", {})
    for q, docs in case["run"].items():
        yield q, [case["qrels"].get(q, {}).get(d, 0) for d in docs], list(docs.values()), weights.get(q, 1.0)


def depth(case, grades):
    "The case's k, or the list's length when it has none."
    return case["k"] if case["k"] is not None else len(grades)


def run_all(variants, cases=None):
    "{case: {variant: entry}} over the shared and the training cases."
    cases = cases if cases is not None else load_cases() + load_training_cases()
    return {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in cases}


def main(tool, meta, variants):
    "Write results_<tool>.json, or with --json PATH write the results there (what the live tests ask for)."
    results = run_all(variants)
    if "--json" in sys.argv:
        path = sys.argv[sys.argv.index("--json") + 1]
        with open(path, "w") as f:
            json.dump({"tool": tool, **meta, "cases": results}, f)
    else:
        save(tool, meta, results)
