"""Run every tutorial notebook as a reader would: in a fresh virtual environment that has only the
package and its `tutorials` extra, installed from this clone (not editable, so the notebooks use the
installed package, not the checkout).

Usage: python tools/run_tutorials.py [--keep] [--jobs N] [--python PYTHON]

Steps: `PYTHON -m venv` in a temporary folder; `pip install "<copy>[tutorials]"`, where the copy
holds the clone's files that git does not ignore (what a plain clone has: no build/ or *.egg-info
left by an earlier install); then each notebook of nbs/tutorials/ executed top to bottom by
nbclient (which the extra's Jupyter brings), `--jobs` at a time (default 2), with its kernel in
that environment and its working folder nbs/tutorials/ of the clone. The environment variables
that would let the checkout or another installation in (PYTHONPATH, PYTHONHOME, PYTHONSTARTUP,
VIRTUAL_ENV, PYTHONUSERBASE) are left out, and so is CI's MPLBACKEND (a notebook plots inline).
A cell that fails stops its notebook; the script reports every notebook with its time and exits
1 if any failed (with the error), 2 if the environment could not be made. `--keep` keeps the
temporary folder. .ci/run calls this as its own step; setting up the environment takes most of
the time (about 3 minutes on two cores, less with pip's cache warm), the notebooks about 2.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "nbs" / "tutorials"
LEFT_OUT = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONUSERBASE", "MPLBACKEND")

# Runs in the fresh environment: executes one notebook, prints the failing cell and error if it fails.
EXECUTE = r"""
import sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
path, folder = sys.argv[1], sys.argv[2]
nb = nbformat.read(path, as_version=4)
try:
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": folder}}).execute()
except CellExecutionError as error:
    sys.exit(str(error)[-6000:])
"""

# Runs in the fresh environment: where ndcg_nb was imported from (it must not be the clone).
WHERE = "import ndcg_nb, pathlib; print(pathlib.Path(ndcg_nb.__file__).resolve().parent)"


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in LEFT_OUT}


def _run(command: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], env=_env(), text=True, capture_output=True, **kwargs)


def copy_of_clone(folder: Path) -> Path:
    "The clone's files that git does not ignore, copied into `folder`/clone (all of them without git)."
    copy = folder / "clone"
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT)
    if listed.returncode:
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__"))
        return copy
    for name in filter(None, listed.stdout.split("\0")):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    return copy


CPU_TORCH = "torch==2.13.0"


def make_environment(folder: Path, python: str) -> Path:
    "A new virtual environment in `folder` with `<clone>[tutorials]` installed; returns its Python."
    made = _run([python, "-m", "venv", folder / "venv"])
    if made.returncode:
        raise SystemExit(f"run_tutorials: could not make a virtual environment:\n{made.stderr}")
    venv_python = folder / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    source = copy_of_clone(folder)
    # torch first, pinned to the CPU build this machine keeps on disk: the extra's range alone would let pip take a
    # CUDA build of several GB
    torch = _run([venv_python, "-m", "pip", "install", "--quiet", CPU_TORCH], cwd=folder)
    if torch.returncode:
        raise SystemExit(f"run_tutorials: pip install {CPU_TORCH} failed:\n{torch.stderr[-6000:]}")
    install = _run([venv_python, "-m", "pip", "install", "--quiet", f"{source}[tutorials]"], cwd=folder)
    if install.returncode:
        raise SystemExit(f"run_tutorials: pip install \"{source}[tutorials]\" failed:\n{install.stderr[-6000:]}")
    where = _run([venv_python, "-c", WHERE], cwd=folder)
    if where.returncode or folder.resolve() not in Path(where.stdout.strip()).parents:
        raise SystemExit(f"run_tutorials: the environment does not import its own ndcg_nb: {where.stdout}{where.stderr}")
    return venv_python


def run_notebooks(venv_python: Path, notebooks: list[Path], jobs: int) -> dict[str, str | None]:
    "Execute each notebook with the environment's kernel, `jobs` at a time; each one's error, or None."
    def one(notebook: Path) -> str | None:
        start = time.time()
        done = _run([venv_python, "-c", EXECUTE, notebook, TUTORIALS], cwd=TUTORIALS)
        print(f"  {'ok    ' if done.returncode == 0 else 'FAILED'} {notebook.name} ({time.time() - start:.0f} s)",
              flush=True)
        return None if done.returncode == 0 else (done.stderr or done.stdout).strip()
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        return dict(zip((n.name for n in notebooks), pool.map(one, notebooks)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks run at once (default: 2)")
    parser.add_argument("--python", default=sys.executable, help="the Python that makes the environment")
    args = parser.parse_args(argv)
    notebooks = sorted(p for p in TUTORIALS.glob("*.ipynb") if not p.name.startswith(("_", ".")))
    if not notebooks:
        print(f"run_tutorials: no notebook in {TUTORIALS}", file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="ndcg_nb-tutorials-"))
    try:
        start = time.time()
        try:
            venv_python = make_environment(folder, args.python)
        except SystemExit as failed:
            print(failed, file=sys.stderr)
            return 2
        print(f"run_tutorials: fresh environment with ndcg_nb[tutorials] in {time.time() - start:.0f} s", flush=True)
        results = run_notebooks(venv_python, notebooks, args.jobs)
    finally:
        if args.keep:
            print(f"run_tutorials: kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    failed = {name: error for name, error in results.items() if error}
    for name, error in failed.items():
        print(f"\n== {name} failed:\n{error}", file=sys.stderr)
    print(f"run_tutorials: {len(results) - len(failed)} of {len(results)} tutorials ran "
          f"({time.time() - start:.0f} s in all)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
