"""Hand-derived values for tools that cannot run here. Each function is a TRANSCRIPTION of the cited source's
formula (see FINDINGS.md for the citations); rankings are the run sorted by score descending with ties in input
order unless the tool has its own rule (noted). Writes results_<tool>_derived.json."""
import math, struct
import numpy as np
from .common import load_cases, save, run_variant, mean

def order(docs, tie="input"):
    items = list(docs.items())
    if tie == "input":
        return [d for d, _ in sorted(items, key=lambda x: -x[1])]
    if tie == "docno_desc_f32":   # trec_eval: float32 sims, ties by strcmp docno descending
        f32 = lambda s: struct.unpack("f", struct.pack("f", s))[0]
        return [d for d, _ in sorted(items, key=lambda x: (-f32(x[1]), [-b for b in x[0].encode()] + [1]))]
    raise ValueError(tie)

def per_run_query(case, fn, need_qrels=True):
    pq = {}
    for q, docs in case["run"].items():
        if need_qrels and q not in case["qrels"]:
            continue
        pq[q] = fn(case["qrels"].get(q, {}), docs, case["k"])
    return pq

# --- TF-Ranking: tensorflow_ranking/python/metrics_impl.py NDCGMetric._compute_impl (+ _prepare_and_validate_params)
def tfr_ndcg(qrels, docs, k, mask_given=False):
    labels = np.array([float(qrels.get(d, 0)) for d in order(docs)])   # ties: random in TF-Ranking; input order here
    valid = np.ones(len(labels), bool) if mask_given else labels >= 0   # is_label_valid when no mask
    labels = np.where(valid, labels, 0.0)
    ranked = np.concatenate([labels[valid], labels[~valid]])            # invalid entries pushed last
    n = len(ranked) if k is None else min(k, len(ranked))
    gain = lambda l: np.float32(2.0) ** l.astype(np.float32) - np.float32(1)
    disc = (np.float32(np.log(2.0)) / np.log1p(np.arange(1, n + 1, dtype=np.float32))).astype(np.float32)
    dcg = np.float32((gain(ranked[:n]) * disc).sum())
    ideal = np.sort(gain(labels))[::-1][:n]
    idcg = np.float32((ideal * disc).sum())
    return float(dcg / idcg) if idcg != 0 else 0.0

# --- Spark MLlib RankingMetrics.ndcgAt (graded path: rel array given; ideal uses lab in GIVEN order)
def spark_ndcg(qrels, docs, k, graded):
    pred = order(docs)
    lab = [d for d, g in qrels.items() if (graded or g > 0)]           # binary: ground truth = relevant set
    rel = {d: float(qrels[d]) for d in lab}
    if not lab:
        return 0.0
    kk = k if k is not None else 10 ** 9
    n = min(max(len(pred), len(set(lab))), kk)
    dcg = mx = 0.0
    for i in range(n):
        g = 1.0 / math.log(i + 2)
        if graded:
            if i < len(pred):
                dcg += (2.0 ** rel.get(pred[i], 0.0) - 1) * g
            if i < len(set(lab)):
                mx += (2.0 ** rel[lab[i]] - 1) * g
        else:
            if i < len(pred) and pred[i] in rel:
                dcg += g
            if i < len(set(lab)):
                mx += g
    return 0.0 if mx == 0.0 else dcg / mx

def spark_case(case, graded):
    pq = {}
    for q in list(dict.fromkeys(list(case["run"]) + list(case["qrels"]))):
        pq[q] = spark_ndcg(case["qrels"].get(q, {}), case["run"].get(q, {}), case["k"], graded)
    return pq, mean(pq.values())

# --- RecBole recbole/evaluator/metrics.py NDCG.metric_info (binary; positives = test items, here grade >= 1). A user
# without a positive: idcg_len 0, so `idcg[row, 0:] = idcg[row, -1]` fills the row with the whole ideal sum, over a DCG
# of 0: scored 0, and TopkMetric.topk_result (recbole/evaluator/base_metric.py) averages every row, that one too
def recbole_ndcg(qrels, docs, k):
    pos = {d for d, g in qrels.items() if g >= 1}
    if not pos:
        return 0.0
    topk = order(docs)[: (k if k is not None else len(docs))]
    kk = k if k is not None else len(docs)
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(topk) if d in pos)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(pos), kk)))
    return dcg / idcg

# --- Elliot elliot/evaluation/metrics/accuracy/ndcg/ndcg.py + relevance.py DiscountedRelevance
def elliot_ndcg(qrels, docs, k, threshold=0):
    gains = {d: 2 ** (g - threshold + 1) - 1 for d, g in qrels.items() if g >= threshold}
    if not gains:
        return None                                                     # user skipped
    recs = order(docs)
    cutoff = k if k is not None else len(recs)
    dcg = sum(gains.get(d, 0) * (math.log(2) / math.log(r + 2)) for r, d in enumerate(recs[:cutoff]))
    g = sorted(gains.values())
    idcg = sum(g[len(g) - r - 1] * (math.log(2) / math.log(r + 2)) for r in range(min(len(g), cutoff)))
    return dcg / idcg if dcg > 0 else 0

def elliot_case(case, threshold):
    pq = {}
    for q, docs in case["run"].items():
        v = elliot_ndcg(case["qrels"].get(q, {}), docs, case["k"], threshold)
        if v is not None:
            pq[q] = v
    return pq, mean(pq.values())

# --- pyvespa vespa/evaluation/_base.py VespaEvaluator._compute_metrics (graded dict qrels must be within [0, 1])
def vespa_case(case, graded):
    k = case["k"] if case["k"] is not None else 10   # ndcg_at_k default [10]
    pq = {}
    for q, rel in case["qrels"].items():
        if graded and any(not 0 <= g <= 1 for g in rel.values()):
            raise ValueError("Relevance scores must be between 0 and 1")
        if not graded:
            rel = {d for d, g in rel.items() if g >= 1}
        if len(rel) == 0:
            continue
        hits = order(case["run"].get(q, {}))[:k]
        dcgk = lambda rels: sum(r / (math.log2(i + 1) if i > 1 else 1.0) for i, r in enumerate(rels[:k], start=1))
        if graded:
            pred = [rel.get(d, 0.0) for d in hits]
            ideal = sorted(rel.values(), reverse=True)[:k]
        else:
            pred = [1 if d in rel else 0 for d in hits]
            ideal = [1] * min(k, len(rel))
        t = dcgk(ideal)
        pq[q] = dcgk(pred) / t if t > 0 else 0.0
    return pq, mean(pq.values()) if pq else 0.0

# --- Elasticsearch DiscountedCumulativeGain.evaluate (normalize=true); k = window, default 10
def es_ndcg(qrels, docs, k, unknown=None):
    kk = k if k is not None else 10
    hits = order(docs)[:kk]
    if any(not float(g).is_integer() for g in qrels.values()):
        raise ValueError("rating must be an int")
    ratings = [int(qrels[d]) if d in qrels else unknown for d in hits]
    dcg_ = lambda rs: sum((2 ** r - 1) / (math.log(i + 2) / math.log(2)) for i, r in enumerate(rs) if r is not None)
    dcg = dcg_(ratings)
    allr = sorted((int(g) for g in qrels.values()), reverse=True)
    idcg = dcg_(allr[: min(len(ratings), len(allr))])
    return dcg / idcg if idcg != 0 else 0.0

# --- RankLib NDCGScorer.score / DCGScorer (gain (1<<i)-1 in Java int, label (int) cast; optional -qrel ideal)
def java_gain(i):
    if i < 0:
        raise IndexError("ArrayIndexOutOfBoundsException (negative label)")
    v = (1 << (i % 32)) - 1                                             # Java int shift uses i mod 32
    v = (v + 2 ** 31) % 2 ** 32 - 2 ** 31                               # 32-bit wrap
    return float(v)

def ranklib_ndcg(qrels, docs, k, external_qrels=False):
    rel = [int(float(qrels.get(d, 0))) for d in order(docs)]            # (int) label, stable merge sort by score
    size = len(rel) if (k is None or k > len(rel) or k <= 0) else k
    disc = lambda i: 1.0 / (math.log(i + 2) / math.log(2))
    dcg = sum(java_gain(rel[i]) * disc(i) for i in range(size))
    if external_qrels:
        labels = sorted((int(round(float(g))) if abs(float(g) % 1) != 0.5 else int(np.rint(float(g))) for g in qrels.values()), reverse=True)
        isize = len(labels) if (k is None or k > len(labels)) else k
    else:
        labels, isize = sorted(rel, reverse=True), size
    ideal = sum(java_gain(labels[i]) * disc(i) for i in range(isize))
    return 0.0 if ideal <= 0 else dcg / ideal

# --- trec_eval m_ndcg_p.c (not compiled into trec_eval): JK discount b=2, gains = levels, ties docno desc, float32
def trec_ndcg_p(qrels, docs, k):
    ranked = order(docs, "docno_desc_f32")
    lv = lambda g: int(g) if int(g) >= 0 else None                     # negative -> unjudged (gain 0), atol-like
    gains = [float(lv(qrels[d])) if d in qrels and lv(qrels[d]) is not None else 0.0 for d in ranked]
    s = sum(g / math.log2(i + 1) if i > 0 else g for i, g in enumerate(gains) if g != 0)
    levels = sorted((lv(g) for g in qrels.values() if lv(g) is not None and lv(g) > 0), reverse=True)
    ideal = sum(g if i == 0 else g / math.log2(i + 1) for i, g in enumerate(levels))
    num_rel_ret = sum(1 for d in ranked if d in qrels and lv(qrels[d]) and lv(qrels[d]) >= 1)
    return s / ideal if num_rel_ret > 0 else 0.0

def plain(fn, need_qrels=True, **kw):
    def f(case):
        pq = per_run_query(case, lambda q, d, k: fn(q, d, k, **kw), need_qrels)
        return pq, mean(pq.values())
    return f

CITE = {
 "tf_ranking": "tensorflow/ranking@5b1d1338 tensorflow_ranking/python/metrics_impl.py NDCGMetric; utils.py sort_by_scores (ties shuffled: input order used here)",
 "spark_mllib": "apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala ndcgAt (lab passed in qrels order)",
 "recbole": "RUCAIBox/RecBole@7b02be5e recbole/evaluator/metrics.py NDCG.metric_info (positives = grade >= 1; a user without one scores 0 and counts; 4-decimal rounding not applied)",
 "elliot": "sisinflab/elliot@fc27efed elliot/evaluation/metrics/accuracy/ndcg/ndcg.py, evaluation/relevance/relevance.py",
 "vespa": "vespa-engine/pyvespa@42b584a5 vespa/evaluation/_base.py VespaEvaluator._compute_metrics/_dcg_at_k (k default 10)",
 "elasticsearch": "elastic/elasticsearch modules/rank-eval/.../DiscountedCumulativeGain.java evaluate/computeDCG (k default 10)",
 "ranklib": "codelibs/ranklib@e43f605f metric/NDCGScorer.java, DCGScorer.java, utilities/MergeSorter.java (with -qrel, a ranked list the file does not judge takes its ideal from its own labels, NDCGScorer.score: 0 for a run query without qrels)",
 "trec_eval_ndcg_p": "usnistgov/trec_eval@f4253652 m_ndcg_p.c te_calc_ndcg_p (source only, not built)",
}
tools = {
 "tf_ranking": {"NDCGMetric_default_no_mask": plain(tfr_ndcg, False), "NDCGMetric_mask_given": plain(tfr_ndcg, False, mask_given=True)},
 "spark_mllib": {"ndcgAt_binary": lambda c: spark_case(c, False), "ndcgAt_graded": lambda c: spark_case(c, True)},
 "recbole": {"NDCG": plain(recbole_ndcg)},
 "elliot": {"nDCG_threshold0_default": lambda c: elliot_case(c, 0), "nDCG_threshold1": lambda c: elliot_case(c, 1)},
 "vespa": {"VespaEvaluator_graded": lambda c: vespa_case(c, True), "VespaEvaluator_binary_sets": lambda c: vespa_case(c, False)},
 "elasticsearch": {"dcg_normalize": plain(es_ndcg, False), "dcg_normalize_unknown0": plain(es_ndcg, False, unknown=0)},
 "ranklib": {"NDCG": plain(ranklib_ndcg, False), "NDCG_with_qrel_file": plain(ranklib_ndcg, False, external_qrels=True)},
 "trec_eval_ndcg_p": {"ndcg_p": plain(trec_ndcg_p)},
}
if __name__ == "__main__":
    cases = load_cases()
    for tool, variants in tools.items():
        results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in cases}
        save(tool, {"source": CITE[tool], "notes": "transcription of the cited source; see FINDINGS.md"}, results, derived=True)
