"""A plugin whose gain calls sys.exit(0)."""
import sys

from ndcg_nb import hookimpl


@hookimpl
def register_gains(register):
    register("p_exit", lambda grades: sys.exit(0), "ends the program")
