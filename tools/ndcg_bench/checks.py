"""Comparing values between tools: the tolerances, per-query and whole-array comparisons, and reading
the values a child saved. Each comparison returns an outcome {"ok", "max_abs_diff", "compared",
"tolerance", "detail"}; "detail" is the text printed in the report."""
import numpy as np

TOLERANCE = 1e-12
# trec_eval (so pytrec_eval, and ir_measures through it) keeps run scores as C floats (float32): scores
# that differ in float64 can tie there, and the tie is broken by document id. Our data keeps scores below
# 90 with 4 decimals, where that cannot happen, but the tolerance for those peers allows for it.
FLOAT32_TOLERANCE = 1e-9
PEER_TOLERANCE = {"pytrec_eval": FLOAT32_TOLERANCE, "ir_measures": FLOAT32_TOLERANCE}
COMPARED_MEASURES = ["ndcg", "ndcg_cut_10"]


def load_values(path) -> dict:
    "A child's .npz as {measure: (queries, values)} sorted by query, and {name: array} for the rest."
    with np.load(path) as data:
        raw = {k: data[k] for k in data.files}
    out = {}
    for key, value in raw.items():
        if key.startswith("q|"):
            name = key[2:]
            order = np.argsort(value, kind="stable")
            out[name] = (value[order], raw["v|" + name][order])
        elif not key.startswith("v|"):
            out[key] = value
    return out


def compare_queries(ours: dict, theirs: dict, measures, only=None, tolerance=TOLERANCE) -> dict:
    "Per-query agreement on `measures`; `only` restricts the comparison to those queries."
    worst, compared = 0.0, 0
    for name in measures:
        if name not in ours or name not in theirs:
            return {"ok": False, "detail": f"{name} missing"}
        (q1, v1), (q2, v2) = ours[name], theirs[name]
        if only is not None:
            keep1, keep2 = np.isin(q1, only), np.isin(q2, only)
            q1, v1, q2, v2 = q1[keep1], v1[keep1], q2[keep2], v2[keep2]
        if len(q1) != len(q2) or not np.array_equal(q1, q2):
            return {"ok": False, "detail": f"{name}: different queries ({len(q1)} vs {len(q2)})"}
        if len(v1):
            worst = max(worst, float(np.max(np.abs(v1 - v2))))
        compared += len(q1)
    ok = worst <= tolerance
    return {"ok": ok, "max_abs_diff": worst, "compared": compared, "tolerance": tolerance,
            "detail": f"max |diff| {worst:.1e} over {compared:,} query values" + ("" if ok else f" > {tolerance:g}")}


def compare_with_peer(ours: dict, theirs: dict, peer: str, tie_free_path) -> dict:
    """ndcg_nb's per-query values against a file or dict peer's: ranx orders tied scores its own (unstable)
    way, so it is compared on the tie-free queries; pytrec_eval and ir_measures to FLOAT32_TOLERANCE."""
    if peer == "ranx":
        only = np.load(tie_free_path)
        outcome = compare_queries(ours, theirs, COMPARED_MEASURES, only=only)
        outcome["detail"] += f" (the {len(only):,} queries without tied scores)"
        return outcome
    return compare_queries(ours, theirs, COMPARED_MEASURES, tolerance=PEER_TOLERANCE.get(peer, TOLERANCE))


def compare_numbers(a, b, what) -> dict:
    "Element-wise agreement of two arrays of the same shape, to TOLERANCE."
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return {"ok": False, "detail": f"{what}: shapes {a.shape} vs {b.shape}"}
    worst = float(np.max(np.abs(a - b))) if a.size else 0.0
    ok = worst <= TOLERANCE
    return {"ok": ok, "max_abs_diff": worst, "compared": int(a.size), "tolerance": TOLERANCE,
            "detail": f"{what}: max |diff| {worst:.1e} over {a.size:,} values" + ("" if ok else f" > {TOLERANCE:g}")}


def compare_copies(folder, single: dict, copies: int) -> dict:
    "The per-query values the workers wrote for the copied run, each copy against the in-memory values of the original."
    import pandas as pd
    table = pd.read_parquet(folder, columns=["query", "measure", "value"])
    copy, query = np.char.partition(table["query"].to_numpy(str), "-")[:, ::2].T
    measures, values = table["measure"].astype(str).to_numpy(), table["value"].to_numpy()
    worst, compared = 0.0, 0
    for number in range(copies):
        ours = {}
        for name in single:
            mine = (measures == name) & (copy == f"c{number}")
            order = np.argsort(query[mine], kind="stable")
            ours[name] = (query[mine][order], values[mine][order])
        outcome = compare_queries(ours, single, list(single))
        if not outcome["ok"]:
            return {**outcome, "detail": f"copy {number}: {outcome['detail']}"}
        worst, compared = max(worst, outcome["max_abs_diff"]), compared + outcome["compared"]
    if compared != len(table):
        return {"ok": False, "detail": f"{len(table) - compared:,} written rows belong to no copy of an original query"}
    return {"ok": True, "max_abs_diff": worst, "compared": compared,
            "detail": f"max |diff| {worst:.1e} over {compared:,} query values ({copies} copies x the original's)"}
