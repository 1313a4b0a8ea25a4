"""ranx 0.3.21: evaluate(Qrels.from_dict, Run.from_dict, 'ndcg@k' / 'ndcg_burges@k', make_comparable=True),
return_mean=False for per query. Without make_comparable ranx asserts the query sets match (recorded too)."""
import ranx, numpy as np
from ranx import Qrels, Run, evaluate
from .common import load_cases, run_variant, save

def make(metric, comparable=True):
    def fn(case):
        qrels = Qrels.from_dict({q: dict(d) for q, d in case["qrels"].items()})
        run = Run.from_dict({q: dict(d) for q, d in case["run"].items()})
        name = metric if case["k"] is None else f"{metric}@{case['k']}"
        scores = evaluate(qrels, run, name, return_mean=False, make_comparable=comparable)
        qids = list(run.keys()) if not comparable else list(run.make_comparable(qrels).keys()) if False else None
        r2 = Run.from_dict({q: dict(d) for q, d in case["run"].items()})
        if comparable:
            r2 = r2.make_comparable(Qrels.from_dict({q: dict(d) for q, d in case["qrels"].items()}))
        pq = dict(zip(r2.keys(), [float(x) for x in np.atleast_1d(scores)]))
        m = evaluate(Qrels.from_dict({q: dict(d) for q, d in case["qrels"].items()}),
                     Run.from_dict({q: dict(d) for q, d in case["run"].items()}), name, make_comparable=comparable)
        return pq, m
    return fn

variants = {"ndcg": make("ndcg"), "ndcg_burges": make("ndcg_burges"), "ndcg_not_comparable": make("ndcg", False)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("ranx", {"version": "0.3.21"}, results)
