"""The other plugin that registers the gain name `shared`, and a discount of its own."""
import numpy as np

from ndcg_nb import hookimpl


@hookimpl
def register_gains(register):
    register("shared", lambda grades: grades * 5, "claims_b's idea of 'shared'")


@hookimpl
def register_discounts(register):
    register("only_b", lambda ranks: 1.0 / np.asarray(ranks, dtype=float), "1 / rank")
