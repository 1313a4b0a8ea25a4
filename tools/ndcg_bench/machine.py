"""This machine and this process: CPU, RAM, package versions, git commit, load average, and a process's
own peak resident set size (read in the children, and by Dask on each worker). The modules only the
machine description needs are imported where it is made, so that a child reading its peak RSS carries
no more than os, resource and sys."""
import os
import resource
import sys
from pathlib import Path

from . import ROOT

PACKAGES = ["ndcg_nb", "numpy", "pandas", "pyarrow", "scikit-learn", "pytrec-eval-terrier", "ranx", "numba",
            "ir_measures"]


def peak_rss_kb() -> int:
    "This process's own high-water resident set size, in KiB."
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def package_version(package):
    "The installed version of `package`, or None."
    import importlib.metadata
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def byte_compile_ndcg_nb() -> str | None:
    """Write the bytecode of ndcg_nb's modules, as installing a wheel does, so that no child compiles them
    again: an edited checkout under PYTHONDONTWRITEBYTECODE (set on this machine) otherwise pays that in
    every fresh process. Returns a note for the report, or None when ndcg_nb is not found."""
    import compileall
    import importlib.util
    spec = importlib.util.find_spec("ndcg_nb")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = list(spec.submodule_search_locations)[0]
    compileall.compile_dir(folder, quiet=1, workers=1)
    return "ndcg_nb's modules were byte-compiled before timing, as an installed wheel has them"


def load_average():
    "The 1, 5 and 15 minute load averages, or None where the system has none."
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def _cpu_name() -> str:
    import platform
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def _ram_gb():
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 ** 2, 1)
    except OSError:
        pass
    return ram_gb


def _git_commit():
    "The checkout's short commit, marked when nbs/ or ndcg_nb/ have uncommitted changes."
    import subprocess
    commit = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "nbs", "ndcg_nb"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        if commit and dirty:
            commit += " (with uncommitted changes to nbs/ or ndcg_nb/)"
    except (OSError, subprocess.SubprocessError):
        pass
    return commit


def describe_machine() -> dict:
    "The machine description printed at the top of the report and written to the JSON file."
    import datetime as _dt
    import platform
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "cpu": _cpu_name(),
        "cores": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {p: package_version(p) for p in PACKAGES},
        "git_commit": _git_commit(),
        "load_average_at_start": load_average(),
    }
