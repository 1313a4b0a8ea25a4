"""trectools 0.0.50: TrecEval(run, qrels).get_ndcg(depth, per_query=True / False, trec_eval=True|False,
removeUnjudged=...). Run and qrels are read from files with TrecRun/TrecQrel (read_run sorts by query asc,
score desc, docid asc). depth = k, or 1000 when the case has none (trectools' default)."""
import os, tempfile
import pandas as pd
from trectools import TrecRun, TrecQrel, TrecEval
from .common import load_cases, run_variant, write_trec_files, save

def make(trec_eval=True, remove_unjudged=False):
    def fn(case):
        d = tempfile.mkdtemp()
        qp, rp = os.path.join(d, "qrels"), os.path.join(d, "run")
        write_trec_files(case, qp, rp)
        run, qrels = TrecRun(rp), TrecQrel(qp)
        ev = TrecEval(run, qrels)
        depth = case["k"] if case["k"] is not None else 1000
        pq_df = ev.get_ndcg(depth=depth, per_query=True, trec_eval=trec_eval, removeUnjudged=remove_unjudged)
        pq = {str(q): float(v) for q, v in pq_df.iloc[:, 0].items()}
        m = ev.get_ndcg(depth=depth, per_query=False, trec_eval=trec_eval, removeUnjudged=remove_unjudged)
        return pq, m
    return fn

variants = {"ndcg_trec_eval_True": make(True), "ndcg_trec_eval_False_exp": make(False),
            "ndcg_removeUnjudged": make(True, True)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("trectools", {"version": "0.0.50"}, results)
