"""Files ndcg_nb writes are written whole or not at all: the report page (`report`, `ndcg-nb report -o`), the plots
(`ndcg-nb compare --plot`) and the plugin template (`ndcg-nb new-plugin`).

- a write that fails midway (a full disk: `OSError(ENOSPC)` after half the bytes) leaves the file that was there,
  unchanged, and nothing beside it;
- a process killed (SIGKILL) while it writes leaves the old file or the new one, never a cut one;
- a file replaced keeps its permission bits; a new one gets those `open` gives (0o666 less the umask).

The full disk is a stand-in `open` (builtins and io, which pathlib calls) whose files take half of what they are given
and then fail; the kill comes while a stand-in `open` writes slowly, once the child says it has begun.
"""
from __future__ import annotations

import builtins
import errno
import io
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ndcg_nb
from ndcg_nb.__main__ import main
from ndcg_nb.analysis.comparison import SAMPLE_RUN_B
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]     # the checkout these tests import
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": "", "MPLBACKEND": "Agg"}
POSIX = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or not Path("/proc/self/fd").is_dir(),
                           reason="SIGKILL and /proc")
REAL_OPEN = builtins.open


class FullDisk:
    "A file that takes half of the first write it is given, then fails as a full disk does."
    def __init__(self, handle):
        self.handle = handle

    def write(self, data):
        if not data:                            # matplotlib's probe of text or bytes
            return self.handle.write(data)
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def __getattr__(self, name):
        return getattr(self.handle, name)


def _in(folder: Path, file) -> bool:
    "Whether `file` is in `folder`; a file descriptor opened for writing here is a temporary file beside the target."
    if isinstance(file, int):
        return True
    return folder.resolve() in Path(os.path.abspath(file)).resolve().parents


@pytest.fixture
def full_disk(monkeypatch):
    "A disk that fills up halfway through any file opened for writing in the folder given to the returned function."
    def fill(folder: Path):
        def opened(file, mode="r", *args, **kwargs):
            handle = REAL_OPEN(file, mode, *args, **kwargs)
            return FullDisk(handle) if ("w" in mode or "x" in mode) and _in(folder, file) else handle
        monkeypatch.setattr(builtins, "open", opened)
        monkeypatch.setattr(io, "open", opened)
    return fill


def visible(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def everything(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- a write that fails midway ------------------------------------------------------------------------------------

def test_report_on_a_full_disk_keeps_the_old_page(tmp_path, full_disk, capsys):
    page = tmp_path / "report.html"
    page.write_text("<html>the report from before</html>\n")
    full_disk(tmp_path)
    code = main(["report", str(SAMPLE_QRELS), str(SAMPLE_RUN), str(SAMPLE_RUN_B), "-o", str(page), "--test", "t"])
    err = capsys.readouterr().err
    assert code == 1 and "No space left on device" in err, err
    assert page.read_text() == "<html>the report from before</html>\n"
    assert everything(tmp_path) == ["report.html"]


def test_plot_on_a_full_disk_keeps_the_old_picture(tmp_path, full_disk, capsys):
    picture = tmp_path / "differences.png"
    assert main(["compare", str(SAMPLE_QRELS), str(SAMPLE_RUN), str(SAMPLE_RUN_B), "--test", "t",
                 "--plot", str(picture)]) == 0
    drawn = picture.read_bytes()
    full_disk(tmp_path)
    capsys.readouterr()
    code = main(["compare", str(SAMPLE_QRELS), str(SAMPLE_RUN), str(SAMPLE_RUN_B), "--test", "t", "-m", "ndcg",
                 "--plot", str(picture)])
    assert code == 1 and "No space left on device" in capsys.readouterr().err
    assert picture.read_bytes() == drawn
    assert everything(tmp_path) == ["differences.png"]


def test_plugin_template_on_a_full_disk_leaves_no_package(tmp_path, full_disk, capsys):
    full_disk(tmp_path)
    assert main(["new-plugin", "halfway", "--dir", str(tmp_path)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert everything(tmp_path) == []            # no half-written package to be taken for a whole one
    builtins.open = io.open = REAL_OPEN           # the disk has room again (the fixture puts it back too)
    assert main(["new-plugin", "halfway", "--dir", str(tmp_path)]) == 0
    assert sorted(str(p.relative_to(tmp_path / "ndcg-nb-halfway")) for p in (tmp_path / "ndcg-nb-halfway").rglob("*")
                  if p.is_file()) == ["README.md", "pyproject.toml", "src/ndcg_nb_halfway/__init__.py",
                                      "tests/test_halfway.py"]


# -- a process killed while it writes -------------------------------------------------------------------------------

SLOW_WRITER = textwrap.dedent("""
    import builtins, io, os, sys, time
    from pathlib import Path
    folder = Path(sys.argv[1]).resolve()
    real_open = builtins.open

    class Slow:
        "A file written a little at a time; it says so on standard output once it has begun."
        def __init__(self, handle):
            self.handle, self.told = handle, False
        def write(self, data):
            if not data:                        # matplotlib's probe of text or bytes
                return self.handle.write(data)
            for start in range(0, len(data), 512):
                self.handle.write(data[start:start + 512])
                self.handle.flush()
                if not self.told:
                    print("writing", flush=True)
                    self.told = True
                time.sleep(0.02)
            return len(data)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            self.handle.close()
        def __getattr__(self, name):
            return getattr(self.handle, name)

    def inside(file):
        if isinstance(file, int):
            file = os.readlink(f"/proc/self/fd/{file}")
        return folder in Path(os.path.abspath(file)).resolve().parents

    def opened(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        return Slow(handle) if ("w" in mode or "x" in mode) and inside(file) else handle

    builtins.open = io.open = opened
    from ndcg_nb.__main__ import main
    sys.exit(main(sys.argv[2:]))
""")


def killed_while_writing(folder: Path, *argv) -> None:
    "Run `ndcg-nb ARGV` with files in `folder` written slowly, and kill it (SIGKILL) once it has begun writing one."
    child = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(folder), *map(str, argv)], env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = child.stdout.readline()
        assert said == "writing\n", (said, child.stderr.read() if said == "" else "")
        child.kill()
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL


@POSIX
def test_report_killed_while_writing_leaves_the_old_page(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    page = folder / "report.html"
    page.write_text("<html>the report from before</html>\n")
    killed_while_writing(folder, "report", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_RUN_B, "-o", page, "--test", "t")
    text = page.read_text()
    assert text == "<html>the report from before</html>\n" or text.rstrip().endswith("</html>"), text[-200:]
    assert visible(folder) == ["report.html"]      # a killed writer may leave its hidden temporary file, no more


@POSIX
def test_plot_killed_while_writing_leaves_the_old_picture(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    picture = folder / "differences.svg"
    picture.write_text("<svg>the plot from before</svg>\n")
    killed_while_writing(folder, "compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_RUN_B, "--test", "t", "--plot", picture)
    text = picture.read_text()
    assert text == "<svg>the plot from before</svg>\n" or text.rstrip().endswith("</svg>"), text[-200:]
    assert visible(folder) == ["differences.svg"]


# -- what the new file is -------------------------------------------------------------------------------------------

def test_a_page_written_again_keeps_its_permission_bits(tmp_path):
    from ndcg_nb.analysis.report_page import report
    page = tmp_path / "report.html"
    page.write_text("old")
    os.chmod(page, 0o640)
    report(SAMPLE_QRELS, [SAMPLE_RUN], "ndcg", path=page, tests="t")
    assert stat.S_IMODE(page.stat().st_mode) == 0o640
    assert page.read_text().rstrip().endswith("</html>")


def test_a_new_page_gets_the_mode_open_gives(tmp_path):
    from ndcg_nb.analysis.report_page import report
    umask = os.umask(0o027)
    try:
        page = report(SAMPLE_QRELS, [SAMPLE_RUN], "ndcg", path=tmp_path / "report.html", tests="t")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(page.stat().st_mode) == 0o640           # 0o666 less the umask 0o027


def test_a_page_written_through_a_link_keeps_the_link(tmp_path):
    from ndcg_nb.analysis.report_page import report
    (tmp_path / "pages").mkdir()
    real = tmp_path / "pages" / "latest.html"
    real.write_text("old")
    link = tmp_path / "report.html"
    link.symlink_to(real)
    report(SAMPLE_QRELS, [SAMPLE_RUN], "ndcg", path=link, tests="t")
    assert link.is_symlink() and real.read_text().rstrip().endswith("</html>")


def test_a_page_to_standard_output_is_written_in_place(tmp_path):
    "`-o /dev/stdout` names no regular file: nothing can be renamed over it, so it is written as it is."
    done = subprocess.run([sys.executable, "-m", "ndcg_nb", "report", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-o",
                           "/dev/stdout", "--test", "t"], env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<!DOCTYPE html>") and "</html>" in done.stdout
