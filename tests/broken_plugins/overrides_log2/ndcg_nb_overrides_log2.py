"""A well-behaved plugin that replaces the built-in `log2` discount on purpose (override=True)."""
import numpy as np

from ndcg_nb import hookimpl


@hookimpl
def register_discounts(register):
    register("log2", lambda ranks: 1.0 / np.asarray(ranks, dtype=float), "1 / rank, replacing log2",
             override=True)
