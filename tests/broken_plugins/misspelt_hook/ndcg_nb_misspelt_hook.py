"""A plugin whose hook name is misspelt (`register_gain` for `register_gains`): pluggy never calls it."""
from ndcg_nb import hookimpl


@hookimpl
def register_gain(register):
    register("never_seen", lambda grades: grades, "never registered")
