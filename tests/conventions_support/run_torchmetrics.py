"""torchmetrics 1.9.0 (torch 2.15 CPU): functional retrieval_normalized_dcg(preds, target, top_k) per run query
(retrieved docs, unjudged target 0, float32 inside) and the class RetrievalNormalizedDCG(top_k, empty_target_action,
aggregation) over all run queries with indexes. Judged queries missing from the run cannot be represented."""
import torch, torchmetrics
from torchmetrics.functional.retrieval import retrieval_normalized_dcg
from torchmetrics.retrieval import RetrievalNormalizedDCG
from .common import load_cases, run_variant, mean, save

def rows(case):
    for q, docs in case["run"].items():
        yield q, [case["qrels"].get(q, {}).get(d, 0) for d in docs], list(docs.values())

def functional(case):
    pq = {}
    for q, g, s in rows(case):
        pq[q] = float(retrieval_normalized_dcg(torch.tensor(s, dtype=torch.float64), torch.tensor(g, dtype=torch.float64), top_k=case["k"]))
    return pq, mean(pq.values())

def klass(empty="neg", aggregation="mean"):
    def fn(case):
        pq, idx, P, T = {}, [], [], []
        for i, (q, g, s) in enumerate(rows(case)):
            m = RetrievalNormalizedDCG(top_k=case["k"], empty_target_action=empty)
            m.update(torch.tensor(s, dtype=torch.float64), torch.tensor(g, dtype=torch.float64), indexes=torch.zeros(len(s), dtype=torch.long))
            pq[q] = float(m.compute())
            idx += [i] * len(s); P += s; T += g
        m = RetrievalNormalizedDCG(top_k=case["k"], empty_target_action=empty, aggregation=aggregation)
        m.update(torch.tensor(P, dtype=torch.float64), torch.tensor(T, dtype=torch.float64), indexes=torch.tensor(idx, dtype=torch.long))
        return pq, float(m.compute())
    return fn

variants = {"functional": functional, "class_neg_mean": klass(), "class_skip_mean": klass("skip"),
            "class_pos_mean": klass("pos"), "class_neg_median": klass("neg", "median")}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("torchmetrics", {"version": torchmetrics.__version__, "torch": torch.__version__}, results)
