import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

# the example plugin's own tests run in a subprocess where it is installed (tests/test_plugins.py)
collect_ignore = ["example_plugin", "context_plugin"]


def pytest_terminal_summary(terminalreporter):
    "Say at the end of the run, not only in the skip reasons, when the browser checks of the docs did not run."
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if "test_docs.py" in report.nodeid and "chromium" in str(report.longrepr).lower()]
    if skipped:
        terminalreporter.write_sep("-", "documentation site: browser checks not run")
        terminalreporter.write_line(f"{len(skipped)} browser test(s) of the docs site were skipped because Chromium "
                                    "is not installed; install Debian's chromium and chromium-driver to run them "
                                    "(CI installs them and fails instead of skipping).")
