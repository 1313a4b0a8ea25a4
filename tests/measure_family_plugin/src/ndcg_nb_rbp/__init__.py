"""Rank-biased precision as an ndcg_nb measure family: `rbp@10`, `rbp(p=0.9)@10`."""
import re

from ndcg_nb import hookimpl
from ndcg_nb.errors import UsageError
from ndcg_nb.families.base import Measure, MeasureFamily, Parameter, read_depth
from ndcg_nb.metrics.segments import positions_in_lists, segment_sum

__version__ = "0.1.0"


class RankBiasedPrecision(MeasureFamily):
    "Rank-biased precision: (1 - p) times the sum of p ** (rank - 1) over the relevant documents of the first k."
    name = "rbp"
    description = "rank-biased precision (Moffat and Zobel, 2008)"
    parameters = (Parameter("k", None, "the depth (None: the whole ranking)"),
                  Parameter("p", 0.8, "persistence: the chance a user goes on to the next document"))

    def read(self, text, name):
        match = re.fullmatch(r"rbp(?:\(p=([0-9.]+)\))?(?:@(\S+))?", text)
        if match is None:
            return None
        p = 0.8 if match.group(1) is None else float(match.group(1))
        if not 0 < p < 1:
            raise UsageError(f"measure {name!r}: p is between 0 and 1, not {p}")
        k = None if match.group(2) is None else read_depth(match.group(2), name)
        label = "rbp" + ("" if match.group(1) is None else f"(p={p:g})") + ("" if k is None else f"@{k}")
        return [Measure(label, k, family=self.name, params=(("p", p),))]

    def written(self):
        return "rbp@K, rbp(p=0.9)@K"

    def per_query(self, ranked, measure):
        p, offsets = measure.param("p", 0.8), ranked.grades.offsets
        rank = positions_in_lists(offsets)                     # 0 for each list's first document
        relevant = (ranked.grades.grades > 0) & (rank < (measure.k or len(rank) + 1))
        return segment_sum((1 - p) * p ** rank * relevant, offsets)


@hookimpl
def register_measure_families(register):
    register(RankBiasedPrecision())
