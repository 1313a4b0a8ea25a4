"""The census scripts of issue 19, one per tool: importing one defines its `variants` ({variant name: function(case) ->
(per_query, mean)}) for tests/test_conventions.py; running one as a module (`python -m tests.conventions_support.run_sklearn`)
writes its results_<tool>.json beside tests/data/conventions/cases.json."""
