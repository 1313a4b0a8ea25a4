"""ir_measures 0.4.3: nDCG through its default pipeline (pytrec_eval provider), with judged_only, with gains=,
and nDCG(dcg='exp-log2')@k through the gdeval provider (gdeval.pl, needs a cutoff: k or 1000).
Per-query values from ir_measures.iter_calc (which fills DEFAULT 0 for qrels queries missing from the run);
the mean from calc_aggregate."""
import ir_measures
from ir_measures import nDCG
from .common import load_cases, run_variant, save

def make(measure_fn, provider=None):
    def fn(case):
        m = measure_fn(case["k"])
        prov = provider or ir_measures
        pq = {}
        for metric in prov.iter_calc([m], case["qrels"], case["run"]):
            pq[metric.query_id] = metric.value
        agg = prov.calc_aggregate([m], case["qrels"], case["run"])[m]
        return pq, agg
    return fn

def cut(m, k):
    return m @ k if k is not None else m

variants = {
    "nDCG": make(lambda k: cut(nDCG, k)),
    "nDCG_judged_only": make(lambda k: cut(nDCG(judged_only=True), k)),
    "nDCG_gains_0-1-3-7": make(lambda k: cut(nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7}), k)),
    "gdeval_nDCG_exp-log2": make(lambda k: nDCG(dcg="exp-log2") @ (k if k is not None else 1000), ir_measures.gdeval),
}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("ir_measures", {"version": ir_measures.__version__,
         "notes": "gdeval variant uses @1000 when the case has no k; gdeval prints 5 decimals."}, results)
