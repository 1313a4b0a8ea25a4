"""pytrec_eval (trec_eval 9.x inside pytrec-eval-terrier): ndcg, ndcg_cut_k, ndcg_rel, Rndcg, with and without
judged_docs_only_flag (-J). Per query values are what RelevanceEvaluator.evaluate returns; the mean is over the
queries it returns (trec_eval's default without -c). Grades must be ints for pytrec_eval (floats raise)."""
import pytrec_eval
from .common import load_cases, run_variant, mean, save

CUTS = "5,10,15,20,25,30,100,200,500,1000,2,3,4"

def make(measure, judged_only=False, cast_int=False):
    def fn(case):
        k = case["k"]
        qrels = case["qrels"]
        if cast_int:
            qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
        if measure == "ndcg" and k is not None:
            name, key = f"ndcg_cut.{k}", f"ndcg_cut_{k}"
        else:
            name = key = measure
        ev = pytrec_eval.RelevanceEvaluator(qrels, {name}, judged_docs_only_flag=1 if judged_only else 0)
        res = ev.evaluate(case["run"])
        pq = {q: v[key] for q, v in res.items()}
        return pq, mean(pq.values())
    return fn

variants = {
    "ndcg": make("ndcg"),
    "ndcg_int_grades": make("ndcg", cast_int=True),
    "ndcg_judged_only": make("ndcg", judged_only=True),
    "ndcg_rel_int_grades": make("ndcg_rel", cast_int=True),
    "Rndcg_int_grades": make("Rndcg", cast_int=True),
}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("pytrec_eval", {"version": pytrec_eval.__version__ if hasattr(pytrec_eval, "__version__") else "?",
         "notes": "ndcg uses ndcg_cut.k when the case has k (k applies to ndcg only; ndcg_rel and Rndcg are full depth). *_int_grades: grades cast with int() first because pytrec_eval refuses floats."}, results)
