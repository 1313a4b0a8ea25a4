"""PyTorch-Ignite 0.5.5 `ignite.metrics.NDCG(top_k=[k], ignore_zero_hits, relevance_threshold, gain_function)`
(`ignite/metrics/rec_sys/ndcg.py`), run in the shared environment (torch 2.13 CPU): each list an update of its own
(a batch of one row, float64 tensors as given), its per-query value the metric over that list alone (None when
ignore_zero_hits leaves it out), the mean the metric over every list of the case (NaN when it leaves out all)."""
import math
import torch
from ignite.exceptions import NotComputableError
from ignite.metrics import NDCG
from .training_common import rows, depth, main


def _value(metric):
    try:
        return metric.compute()[0]
    except NotComputableError:
        return None


def variant(**options):
    def fn(case):
        pq, every = {}, None
        k = max(depth(case, grades) for _, grades, _, _ in rows(case))   # one top_k: each list reads min(k, its length)
        for q, grades, scores, _ in rows(case):
            batch = (torch.tensor([scores], dtype=torch.float64), torch.tensor([grades], dtype=torch.float64))
            alone = NDCG(top_k=[k], **options)
            alone.update(batch)
            pq[q] = _value(alone)
            every = every or NDCG(top_k=[k], **options)
            every.update(batch)
        value = _value(every)
        return pq, math.nan if value is None else value
    return fn


variants = {"NDCG": variant(), "NDCG_linear": variant(gain_function="linear_rank"),
            "NDCG_zero_hits_counted": variant(ignore_zero_hits=False),
            "NDCG_threshold_0.5": variant(relevance_threshold=0.5)}
if __name__ == "__main__":
    import ignite
    main("ignite", {"version": ignite.__version__, "torch": torch.__version__}, variants)
