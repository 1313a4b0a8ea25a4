"""pyndeval 0.0.8 alpha-nDCG@k (k = case k or 20; ndeval's maximum depth is 20), alpha 0.5 and 0.0, with ONE
subtopic per query (subtopic '1', relevance = grade, binarised by pyndeval at relevance_level 1). With one subtopic
and alpha=0 this is binary nDCG; alpha=0.5 halves each further relevant document's gain."""
import pyndeval
from .common import load_cases, save, run_variant, mean

def make(alpha):
    def fn(case):
        k = min(case["k"] or 20, 20)
        qrels = [(q, "1", d, int(g)) for q, docs in case["qrels"].items() for d, g in docs.items()]
        run = [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items()]
        res = pyndeval.ndeval(qrels, run, measures=[f"alpha-nDCG@{k}"], alpha=alpha)
        pq = {q: v[f"alpha-nDCG@{k}"] for q, v in res.items()}
        return pq, mean(pq.values())
    return fn

variants = {"alpha-nDCG_alpha0.5": make(0.5), "alpha-nDCG_alpha0": make(0.0)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("pyndeval", {"version": "0.0.8"}, results)
