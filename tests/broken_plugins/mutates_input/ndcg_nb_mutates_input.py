"""A plugin whose gain doubles its input array in place."""
from ndcg_nb import hookimpl


def doubled(grades):
    grades *= 2
    return grades


@hookimpl
def register_gains(register):
    register("p_mutate", doubled, "2 * grade, written into the caller's array")
