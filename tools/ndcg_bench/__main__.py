"""`python -m ndcg_bench [options]` from tools/: the same as `python tools/benchmark.py [options]`."""
from .cli import main

main()
