"""torchmetrics 1.9.0 (torch 2.15 CPU): functional retrieval_normalized_dcg(preds, target, top_k) per run query
(retrieved docs, unjudged target 0, float32 inside) and the class RetrievalNormalizedDCG(top_k, empty_target_action,
aggregation) over all run queries with indexes. Judged queries missing from the run cannot be represented.
The *_ignore_index variants (cases_more.json) give the class ignore_index=IGNORED as the target of every unjudged
document; a query all of whose targets are ignored never reaches it, so it has no per-query value."""
import torch, torchmetrics
from torchmetrics.functional.retrieval import retrieval_normalized_dcg
from torchmetrics.retrieval import RetrievalNormalizedDCG
from .common import load_cases, run_variant, mean, save

IGNORED = -100


def rows(case, ignore=False):
    for q, docs in case["run"].items():
        yield q, [case["qrels"].get(q, {}).get(d, IGNORED if ignore else 0) for d in docs], list(docs.values())

def functional(case):
    pq = {}
    for q, g, s in rows(case):
        pq[q] = float(retrieval_normalized_dcg(torch.tensor(s, dtype=torch.float64), torch.tensor(g, dtype=torch.float64), top_k=case["k"]))
    return pq, mean(pq.values())

def klass(empty="neg", aggregation="mean", ignore=False):
    ignore_index = IGNORED if ignore else None
    def fn(case):
        pq, idx, P, T = {}, [], [], []
        for i, (q, g, s) in enumerate(rows(case, ignore)):
            if not ignore or any(t != IGNORED for t in g):   # an all-ignored query alone is refused (no rows left)
                m = RetrievalNormalizedDCG(top_k=case["k"], empty_target_action=empty, ignore_index=ignore_index)
                m.update(torch.tensor(s, dtype=torch.float64), torch.tensor(g, dtype=torch.float64), indexes=torch.zeros(len(s), dtype=torch.long))
                pq[q] = float(m.compute())
            idx += [i] * len(s); P += s; T += g
        m = RetrievalNormalizedDCG(top_k=case["k"], empty_target_action=empty, aggregation=aggregation,
                                   ignore_index=ignore_index)
        m.update(torch.tensor(P, dtype=torch.float64), torch.tensor(T, dtype=torch.float64), indexes=torch.tensor(idx, dtype=torch.long))
        return pq, float(m.compute())
    return fn

variants = {"functional": functional, "class_neg_mean": klass(), "class_skip_mean": klass("skip"),
            "class_pos_mean": klass("pos"), "class_neg_median": klass("neg", "median")}
more_variants = {**variants, "class_neg_mean_ignore_index": klass(ignore=True),
                 "class_skip_mean_ignore_index": klass("skip", ignore=True),
                 "class_pos_mean_ignore_index": klass("pos", ignore=True)}
if __name__ == "__main__":   # the census run (--more: the run on cases_more.json); tests import the variants only
    import sys
    more = "--more" in sys.argv
    chosen = more_variants if more else variants
    results = {c["name"]: {v: run_variant(f, c) for v, f in chosen.items()} for c in load_cases(more)}
    save("torchmetrics", {"version": torchmetrics.__version__, "torch": torch.__version__}, results, more=more)
