"""An example ndcg_nb plugin: a binary gain and a reciprocal-rank discount."""
import numpy as np

from ndcg_nb import hookimpl

__version__ = "0.1.0"


def binary_gain(grades, threshold=1.0):
    "1 where the grade is at least `threshold`, else 0."
    return (np.asarray(grades) >= float(threshold)).astype(float)


def reciprocal_discount(ranks):
    "Weight 1/rank."
    return 1.0 / np.asarray(ranks, dtype=float)


@hookimpl
def register_gains(register):
    register("binary", binary_gain, "1 if grade >= threshold (default 1), else 0")


@hookimpl
def register_discounts(register):
    register("reciprocal", reciprocal_discount, "1 / rank")
