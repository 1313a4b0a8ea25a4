"""A plugin that takes its time to import (as one loading a model would), for the thread tests: its gain is grade**2."""
import os
import time

import numpy as np

from ndcg_nb import hookimpl

if os.environ.get("NDCG_NB_TEST_IMPORT_LOG"):       # lets a test see whether (and how often) it was imported
    with open(os.environ["NDCG_NB_TEST_IMPORT_LOG"], "a") as log:
        log.write("imported\n")
time.sleep(float(os.environ.get("NDCG_NB_TEST_SLOW_IMPORT", "0.5")))


@hookimpl
def register_gains(register):
    register("p_slow", lambda grades: np.asarray(grades, dtype=float) ** 2, "grade squared, from a slow plugin")
