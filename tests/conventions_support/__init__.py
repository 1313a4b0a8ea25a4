"""Helpers for tests/test_conventions.py: the census scripts of issue 19 (tests/data/conventions/run_*.py), copied
so that importing one defines its `variants` ({variant name: function(case) -> (per_query, mean)}) without running."""
