"""pyNTCIREVAL 0.0.3: MSnDCG and nDCG (Järvelin-Kekäläinen, logb=2) per query. The run is turned into a ranked
list by score descending, ties in input order (NTCIREVAL takes an already ranked list). Levels = integer grades;
gain per level = the level itself (grades=[1..max]). Negative or float grades cannot be levels (recorded errors).
Mean over the run queries that have qrels (NTCIREVAL is per-topic; averaging is the user's)."""
from pyNTCIREVAL import Labeler
from pyNTCIREVAL.metrics import MSnDCG, nDCG
from .common import load_cases, run_variant, mean, save

def make(kind, b=2):
    def fn(case):
        pq = {}
        for q, docs in case["run"].items():
            if q not in case["qrels"]:
                continue
            qrels = case["qrels"][q]
            if any((not float(g).is_integer()) or g < 0 for g in qrels.values()):
                raise ValueError("NTCIREVAL relevance levels are non-negative integers")
            qrels = {d: int(g) for d, g in qrels.items()}
            maxg = max(qrels.values())
            grades = list(range(1, maxg + 1)) or [1]
            ranked = [d for d, _ in sorted(docs.items(), key=lambda x: -x[1])]
            labeled = Labeler(qrels).label(ranked)
            xrelnum = Labeler(qrels).compute_per_level_doc_num(len(grades) + 1)
            m = MSnDCG(xrelnum, grades, cutoff=case["k"]) if kind == "MSnDCG" else nDCG(xrelnum, grades, b, cutoff=case["k"])
            pq[q] = m.compute(labeled)
        return pq, mean(pq.values())
    return fn

variants = {"MSnDCG": make("MSnDCG"), "nDCG_b2": make("nDCG", 2), "nDCG_b3": make("nDCG", 3)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("pyntcireval", {"version": "0.0.3"}, results)
