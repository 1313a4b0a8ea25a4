"""Time ndcg_nb against its peers on the same synthetic data, in one run, and report ratios.

Usage: python tools/benchmark.py [--queries N] [--docs D] [--repeats R]

Two workloads:
  lists: NDCG@10 of N ranked lists of D graded documents (ndcg_nb.ndcg on a 2-D array vs
         scikit-learn's ndcg_score, which takes the same matrix);
  runs:  ndcg and ndcg_cut.10 of a run with N queries x D documents against qrels, from
         in-memory dicts (ndcg_nb.evaluate vs pytrec_eval and ranx), and from TREC files
         (ndcg_nb's reader vs ranx's).
Each timing is the best of R repeats after one warm-up (which also compiles ranx's numba code).
Values are compared too, so a fast wrong answer cannot pass unnoticed.
"""
import argparse
import tempfile
import time
from pathlib import Path

import numpy as np


def best_time(function, repeats):
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def collection(n_queries, n_docs, seed=0):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"D{q}-{i}" for i in range(n_docs)]
        grades = rng.integers(0, 4, n_docs)
        qrels[f"Q{q}"] = {d: int(g) for d, g in zip(docs, grades) if rng.random() < 0.7}
        scores = rng.permutation(n_docs) / 8.0  # distinct and float32-exact
        run[f"Q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import pytrec_eval
    import ranx
    from sklearn.metrics import ndcg_score

    from ndcg_nb import ndcg
    from ndcg_nb.evaluate import evaluate

    rows = []
    rng = np.random.default_rng(1)
    grades = rng.integers(0, 4, (args.queries, args.docs)).astype(float)
    scores = np.broadcast_to(np.arange(args.docs, 0, -1, dtype=float), grades.shape).copy()
    ours = best_time(lambda: ndcg(grades, 10), args.repeats)
    theirs = best_time(lambda: ndcg_score(grades, scores, k=10), args.repeats)
    assert abs(float(np.mean(ndcg(grades, 10))) - ndcg_score(grades, scores, k=10)) < 1e-12
    rows.append(("lists: NDCG@10, 2-D array", "scikit-learn ndcg_score", ours, theirs))

    qrels, run = collection(args.queries, args.docs)
    measures = ["ndcg", "ndcg_cut.10"]
    ours_eval = lambda: evaluate(qrels, run, measures, preset="trec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.10"})
    pytrec = lambda: evaluator.evaluate(run)
    ours_result, pytrec_result = ours_eval(), pytrec()
    assert all(abs(ours_result.value("ndcg_cut.10", q) - v["ndcg_cut_10"]) < 1e-12 for q, v in pytrec_result.items())
    rows.append(("runs: ndcg + ndcg_cut.10 from dicts", "pytrec_eval (evaluator built once)",
                 best_time(ours_eval, args.repeats), best_time(pytrec, args.repeats)))

    ranx_qrels, ranx_run = ranx.Qrels(qrels), ranx.Run(run)
    ranx_eval = lambda: ranx.evaluate(ranx_qrels, ranx_run, ["ndcg", "ndcg@10"], make_comparable=True)
    ours_ranx = lambda: evaluate(qrels, run, measures, preset="ranx")
    assert abs(ours_ranx().value("ndcg_cut.10") - ranx_eval()["ndcg@10"]) < 1e-12
    rows.append(("runs: ndcg + ndcg@10 from dicts", "ranx (Qrels/Run built once)",
                 best_time(ours_ranx, args.repeats), best_time(ranx_eval, args.repeats)))

    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = Path(tmp) / "qrels", Path(tmp) / "run"
        qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
        run_path.write_text("".join(f"{q} Q0 {d} 0 {s} bench\n" for q, docs in run.items() for d, s in docs.items()))
        ours_files = lambda: evaluate(qrels_path, run_path, measures, preset="ranx")
        ranx_files = lambda: ranx.evaluate(ranx.Qrels.from_file(str(qrels_path), kind="trec"),
                                           ranx.Run.from_file(str(run_path), kind="trec"), ["ndcg", "ndcg@10"],
                                           make_comparable=True)
        rows.append(("runs: read TREC files + evaluate", "ranx (from_file + evaluate)",
                     best_time(ours_files, args.repeats), best_time(ranx_files, args.repeats)))

    print(f"{args.queries} queries x {args.docs} documents, best of {args.repeats}\n")
    print(f"{'workload':<40}{'peer':<38}{'ndcg_nb':>10}{'peer':>10}{'peer / ndcg_nb':>16}")
    for workload, peer, ours_s, peer_s in rows:
        print(f"{workload:<40}{peer:<38}{ours_s * 1000:>8.1f}ms{peer_s * 1000:>8.1f}ms{peer_s / ours_s:>15.2f}x")


if __name__ == "__main__":
    main()
