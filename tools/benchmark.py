"""Time ndcg_nb against its peers on the same synthetic data, in one run, and report ratios.

Usage, workloads and method: `python tools/benchmark.py --help`, or the docstring of
tools/ndcg_bench/__init__.py. This file is only the entry point; the code is the package
tools/ndcg_bench/ (one job per module, listed in that docstring).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))   # tools/, where ndcg_bench lives

from ndcg_bench.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
