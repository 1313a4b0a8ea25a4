"""NdcgTorchMetric (ndcg_nb.integrations.torchmetrics_metric) and NdcgAccumulator with torch tensors: under preset
"torchmetrics" equal to torchmetrics' RetrievalNormalizedDCG (ties, queries without a relevant document, top_k);
two DDP processes (gloo, CPU) each computing the single-process value; `update` leaving CUDA tensors on their device."""
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
import torch.distributed as dist
import torch.multiprocessing as mp
from torchmetrics.retrieval import RetrievalNormalizedDCG

from ndcg_nb import NdcgAccumulator, ndcg
from ndcg_nb.integrations.torchmetrics_metric import NdcgTorchMetric


def batches(seed, n=6_000, queries=400, count=40, empty=40):
    "Tensors of `count` batches, queries spread over them, scores with ties, the first `empty` queries all 0."
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, queries, n)
    target = np.clip(np.round(rng.normal(1, 1.2, n)), 0, 4).astype(np.int64)
    target[qid < empty] = 0
    preds = rng.random(n).round(2).astype(np.float32)
    parts = np.array_split(np.arange(n), count)
    return [(torch.from_numpy(preds[b]), torch.from_numpy(target[b]), torch.from_numpy(qid[b])) for b in parts]


@pytest.mark.parametrize("top_k", [1, 3, 10, None])
@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
def test_equals_torchmetrics_retrieval_ndcg(top_k, action):
    theirs = RetrievalNormalizedDCG(top_k=top_k, empty_target_action=action)
    ours = NdcgTorchMetric(top_k, preset=f"torchmetrics:empty_target_action={action}")
    plain = NdcgAccumulator(top_k, preset=f"torchmetrics:empty_target_action={action}")
    for batch in batches(1):
        for metric in (theirs, ours, plain):
            metric.update(*batch)
    want = theirs.compute().item()
    assert ours.compute().item() == pytest.approx(want, abs=2e-6)         # torchmetrics computes in float32
    assert plain.compute() == pytest.approx(want, abs=2e-6)


@pytest.mark.parametrize("aggregation", ["median", "min", "max"])
def test_equals_torchmetrics_aggregations(aggregation):
    theirs = RetrievalNormalizedDCG(top_k=5, aggregation=aggregation)
    ours = NdcgTorchMetric(5, preset=f"torchmetrics:aggregation={aggregation}")
    for batch in batches(2, n=1_500, queries=101, empty=5):
        theirs.update(*batch)
        ours.update(*batch)
    assert ours.compute().item() == pytest.approx(theirs.compute().item(), abs=2e-6)


def test_tensors_equal_ndcg_on_the_whole_data():
    parts = batches(3, count=50)
    preds, target, qid = (torch.cat(column).numpy() for column in zip(*parts))
    ours, plain = NdcgTorchMetric([5, None]), NdcgAccumulator([5, None])
    for batch in parts:
        ours.update(*batch)
        plain.update(*batch)
    got, other = ours.compute(), plain.compute()
    for name, k in (("ndcg_nb@5", 5), ("ndcg_nb", None)):
        want = ndcg(target, k, scores=preds, qid=qid).mean()
        assert got[name].item() == pytest.approx(want, abs=1e-12)
        assert other[name] == pytest.approx(want, abs=1e-12)


def _ddp_worker(rank, world, init_file, out_dir, depths):
    "One DDP process: half the batches, then the metric's compute() (synced) and the accumulators merged."
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        metric, acc = NdcgTorchMetric(depths), NdcgAccumulator(depths)
        for batch in batches(4)[rank::world]:
            metric.update(*batch)
            acc.update(*batch)
        synced = {k: v.item() for k, v in metric.compute().items()}
        gathered = [None] * world
        dist.all_gather_object(gathered, acc)
        merged = gathered[0]
        for other in gathered[1:]:
            merged.merge(other)
        with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
            json.dump({"synced": synced, "merged": merged.compute()}, f)
    finally:
        dist.destroy_process_group()


def test_two_ddp_processes_each_compute_the_single_process_value(tmp_path):
    depths = [5, None]
    single = NdcgTorchMetric(depths)
    for batch in batches(4):
        single.update(*batch)
    want = {k: v.item() for k, v in single.compute().items()}
    mp.spawn(_ddp_worker, args=(2, str(tmp_path / "init"), str(tmp_path), depths), nprocs=2, join=True)
    for rank in range(2):
        got = json.loads((tmp_path / f"rank{rank}.json").read_text())
        for name, value in want.items():
            assert got["synced"][name] == pytest.approx(value, abs=1e-12)
            assert got["merged"][name] == pytest.approx(value, abs=1e-12)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_update_leaves_cuda_tensors_on_their_device():
    metric, acc = NdcgTorchMetric(5).cuda(), NdcgAccumulator(5)
    preds, target, qid = (t.cuda() for t in batches(5, count=1)[0])
    metric.update(preds, target, qid)
    acc.update(preds, target, qid)
    for kept in (*metric.preds, *metric.target, *metric.indexes, *acc.scores, *acc.labels, *acc.ids):
        assert kept.device.type == "cuda"
    assert metric.compute().item() == pytest.approx(acc.compute(), abs=1e-12)


def test_update_keeps_cpu_tensors_without_copying():
    preds, target, qid = batches(6, count=1)[0]
    acc = NdcgAccumulator(5).update(preds, target, qid)
    assert acc.scores[0].data_ptr() == preds.data_ptr()      # a view of the caller's tensor, not a copy
