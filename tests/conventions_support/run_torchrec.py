"""TorchRec 1.9.2 `torchrec.metrics.ndcg.NDCGMetric` (`torchrec/metrics/ndcg.py`) with torch 2.13 CPU and
fbgemm-gpu-cpu 1.8.0 (the CUDA fbgemm-gpu that pip picks, and fbgemm-gpu-cpu 1.9.0, fail to load with torch 2.13),
run in its own venv: `/tmp/venvs/torchrec/bin/python -m tests.conventions_support.run_torchrec` from the project root.
A query is a session (`required_inputs={"session_id": ...}`), its documents the session's examples (float64 tensors);
each session alone gives its per-query value, and the mean is one update of every session of the case (the
metric's lifetime value: the sum over sessions of NDCG times the session's largest weight, over the number of
sessions). `report_ndcg_as_decreasing_curve` is False except in the `_default` variant, which reports 1 - NDCG."""
import torch
from torchrec.metrics.metrics_config import RecTaskInfo
from torchrec.metrics.ndcg import NDCGMetric, SESSION_KEY
from .training_common import rows, main

TASK = RecTaskInfo(name="t", label_name="label", prediction_name="prediction", weight_name="weight")


def _ndcg(lists, k, **options):
    "The lifetime NDCG of one update holding `lists` (query, grades, scores, weight), each a session of its own."
    session = [i for i, (_, grades, _, _) in enumerate(lists) for _ in grades]
    flat = lambda column: torch.tensor([x for one in lists for x in column(one)], dtype=torch.float64)
    metric = NDCGMetric(world_size=1, my_rank=0, batch_size=len(session), tasks=[TASK], k=-1 if k is None else k,
                        **options)
    metric.update(predictions={"t": flat(lambda one: one[2])}, labels={"t": flat(lambda one: one[1])},
                  weights={"t": flat(lambda one: [one[3]] * len(one[1]))},
                  required_inputs={SESSION_KEY: torch.tensor(session)})
    return float(metric.compute()["ndcg-t|lifetime_ndcg"])


def variant(weighted=False, **options):
    options.setdefault("report_ndcg_as_decreasing_curve", False)

    def fn(case):
        lists = [(q, g, s, w if weighted else 1.0) for q, g, s, w in rows(case)]
        pq = {one[0]: _ndcg([one], case["k"], **options) for one in lists}
        return pq, _ndcg(lists, case["k"], **options)
    return fn


variants = {"NDCG": variant(), "NDCG_exponential": variant(exponential_gain=True),
            "NDCG_default": variant(report_ndcg_as_decreasing_curve=True), "NDCG_weighted": variant(weighted=True),
            "NDCG_remove_single": variant(remove_single_length_sessions=True)}
if __name__ == "__main__":
    import importlib.metadata
    main("torchrec", {"version": importlib.metadata.version("torchrec"), "torch": torch.__version__,
                      "fbgemm_gpu_cpu": importlib.metadata.version("fbgemm-gpu-cpu")}, variants)
