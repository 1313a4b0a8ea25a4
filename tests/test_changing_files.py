"""A file that another program rewrites while ndcg_nb reads it gives the old file's value, the new one's, or an
error that says the file changed while it was read; never a signal (`SIGBUS`, once the reader mapped files) and
never a value that is neither. And a file that is not text is refused from its first chunk, before it fills memory.

The races run in subprocesses, so that a signal shows as a failed test rather than killing pytest. The writer is
another process rewriting the file as fast as it can (`open(path, "wb")`, which truncates it, then one write), so
each reader's try overlaps a rewrite or falls between two."""
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ndcg_nb.engine import read_trec, trec_bytes as runs   # the byte reader, and the reader of fields

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="truncating a file another process has open is POSIX")


def run_text(lines: int, seed: int) -> bytes:
    "A regular run of `lines` lines, 1,000 documents per query, its scores drawn from `seed`."
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random(lines) * 100, 4)
    rows = [f"{i // 1000} Q0 doc-{seed}-{i} {i % 1000 + 1} {s} tag{seed}\n" for i, s in enumerate(scores.tolist())]
    return "".join(rows).encode()


WRITER = """
import sys, time
path, names = sys.argv[1], sys.argv[2:]
texts = [open(name, "rb").read() for name in names]
stop = time.monotonic() + 60
while time.monotonic() < stop:
    for text in texts:
        with open(path, "wb") as out:      # truncated, then written whole
            out.write(text)
        time.sleep(0.002)
"""

READER = """
import json, signal, subprocess, sys
from pathlib import Path
from ndcg_nb.engine.runs import split_file
signal.alarm(120)

def signature(table):
    return [table.num_rows, round(float(sum(table["score"].to_pylist())), 3), table["doc"][0].as_py()]

known = {name: signature(split_file(name, "run")[0]) for name in ("old.run", "new.run")}
Path("run").write_bytes(Path("old.run").read_bytes())
writer = subprocess.Popen([sys.executable, "-c", WRITER, "run", "new.run", "old.run"])
outcomes = []
try:
    for attempt in range(TRIES):
        try:
            outcomes.append(signature(split_file("run", "run")[0]))
        except Exception as exc:
            outcomes.append([type(exc).__name__, str(exc)])
finally:
    writer.kill()
print(json.dumps({"known": known, "outcomes": outcomes}))
"""


def race(tmp_path: Path, lines: int, tries: int) -> dict:
    (tmp_path / "old.run").write_bytes(run_text(lines, 1))
    (tmp_path / "new.run").write_bytes(run_text(lines * 3 // 4, 2))
    code = f"WRITER = {WRITER!r}\nTRIES = {tries}\n" + READER
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, (f"the reader ended with {done.returncode} (a negative number is the signal that "
                                  f"killed it: -7 is SIGBUS): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def check_outcomes(result: dict):
    "Each outcome is the old file's value, the new one's, the file as it stood between truncation and write, or the error."
    known, outcomes = result["known"], result["outcomes"]
    for outcome in outcomes:
        if outcome in (known["old.run"], known["new.run"]):
            continue
        name, message = outcome
        if name == "FileChangedError":
            assert message.startswith("run: the file changed while it was read ("), message
            assert "another program is writing it" in message
        else:   # read whole between the writer's truncation and its write: an empty file, as it was then
            assert (name, message) == ("TrecFormatError", "run: no run lines"), outcome


@pytest.mark.parametrize("lines", [500_000, 250_000], ids=["17 MB", "8 MB"])
def test_split_file_while_rewritten(tmp_path, lines):
    "Files of 17 MB (which the previous release mapped) and of 8 MB (which it read as bytes)."
    check_outcomes(race(tmp_path, lines, tries=12))


CLI = """
import json, signal, subprocess, sys, time
from pathlib import Path
signal.alarm(150)
def evaluate(run):
    done = subprocess.run([sys.executable, "-m", "ndcg_nb", "eval", "qrels", run, "-m", "ndcg"], capture_output=True,
                          text=True, timeout=60)
    return [done.returncode, done.stdout, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""]
known = {name: evaluate(name) for name in ("old.run", "new.run")}
Path("run").write_bytes(Path("old.run").read_bytes())
writer = subprocess.Popen([sys.executable, "-c", WRITER, "run", "new.run", "old.run"])
try:
    outcomes = [evaluate("run") for attempt in range(TRIES)]
finally:
    writer.kill()
print(json.dumps({"known": known, "outcomes": outcomes}))
"""


def test_command_line_while_rewritten(tmp_path):
    "`ndcg-nb eval qrels run` while a ranker rewrites the run: the old value, the new one, or the error; no signal."
    (tmp_path / "old.run").write_bytes(run_text(500_000, 1))
    (tmp_path / "new.run").write_bytes(run_text(375_000, 2))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 doc-1-{q * 1000 + d} {d % 3}\n" for q in range(500) for d in range(0, 1000, 50)))
    code = f"WRITER = {WRITER!r}\nTRIES = 5\n" + CLI
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    known = result["known"]
    assert known["old.run"][0] == 0 and known["new.run"][0] == 0 and known["old.run"][1] != known["new.run"][1]
    for status, output, last in result["outcomes"]:
        assert status >= 0, f"killed by signal {-status}: {last}"
        if status == 0:
            assert output in (known["old.run"][1], known["new.run"][1]), output
        else:
            assert "the file changed while it was read" in last or last.endswith("run: no run lines"), last


# --- one change at a time, deterministic: a file object that changes the file as the reader's first chunk lands ---

class ChangedAfterFirstChunk(io.FileIO):
    "A file open to read, which `change`s the file once a first chunk of it (more than the two bytes of a peek) was read."
    def __init__(self, path, change):
        super().__init__(path, "rb")
        self.path, self.change = path, change

    def changed(self, got: int) -> None:
        change = self.change if got > 2 else None
        if change is not None:
            self.change = None
            change(self.path)

    def readinto(self, buffer):
        got = super().readinto(buffer)
        self.changed(got)
        return got

    def read(self, size=-1):
        data = super().read(size)
        self.changed(len(data))
        return data


def cut_short(path):
    os.truncate(path, 100)


def appended(path):
    with open(path, "ab") as more:
        more.write(b"9 Q0 late 1 0.1 tag\n")


def written_in_place(path):
    "Bytes overwritten without a change of size (`dd conv=notrunc`): seen in the modification time."
    with open(path, "r+b") as same:
        same.seek(10)
        same.write(b"X")
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))   # as a clock tick later would show it


def rewritten_same_size(path):
    "The whole file rewritten with as many bytes (another run of the same shape)."
    data = Path(path).read_bytes()
    with open(path, "wb") as out:
        out.write(data.replace(b"tag1", b"tag2"))
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


@pytest.mark.parametrize("change, what", [(cut_short, "its size went from"), (appended, "its size went from"),
                                          (written_in_place, "it was written to"),
                                          (rewritten_same_size, "it was written to")],
                         ids=["cut short", "appended", "written in place", "rewritten, same size"])
def test_change_during_read_is_refused(tmp_path, change, what):
    path = tmp_path / "ranker.run"
    path.write_bytes(run_text(100_000, 1))
    with ChangedAfterFirstChunk(path, change) as handle, pytest.raises(runs.FileChangedError) as raised:
        runs._read_regular(handle, str(path))
    assert str(raised.value).startswith(f"{path}: the file changed while it was read ({what}")
    assert isinstance(raised.value, runs.TrecFormatError)


def test_gzip_file_cut_short_during_read(tmp_path):
    "A gzip file cut short while it is inflated would be a damaged gzip file: said to have changed instead."
    import gzip
    path = tmp_path / "ranker.run.gz"
    path.write_bytes(gzip.compress(run_text(100_000, 1), compresslevel=1))
    with ChangedAfterFirstChunk(path, cut_short) as handle, pytest.raises(runs.FileChangedError, match="its size went"):
        runs._read_regular(handle, str(path))


@pytest.mark.parametrize("written", [b"1 Q0 d1 1 0.5 tag\n", b"1 Q0 d1 1"], ids=["whole lines", "cut mid-line"])
def test_writer_that_paused_through_the_read(tmp_path, monkeypatch, written):
    """A writer that paused (for want of a core) for the whole read leaves size and time still: the reader reads half
    a file, whole lines or not. The writer goes on while the text is parsed, and the second look sees it."""
    path = tmp_path / "ranker.run"
    path.write_bytes(b"1 Q0 d0 1 0.9 tag\n" + written)
    parse = read_trec.split_lines

    def writer_resumes(text, kind, source):
        with open(path, "ab") as more:
            more.write(b" 0.5 tag\n1 Q0 d2 2 0.4 tag\n")
        return parse(text, kind, source)

    monkeypatch.setattr(read_trec, "split_lines", writer_resumes)
    with pytest.raises(runs.FileChangedError, match="ranker.run: the file changed while it was read"):
        read_trec.split_file(path, "run")


def test_unchanged_file_reads_as_it_is(tmp_path):
    path = tmp_path / "ranker.run"
    path.write_bytes(run_text(100_000, 1))
    with ChangedAfterFirstChunk(path, lambda path: None) as handle:
        assert runs._read_regular(handle, str(path))[:] == path.read_bytes()


def test_file_replaced_by_rename_is_read_as_it_was(tmp_path):
    """A writer that saves to a new file and renames it over the old one: the open file stays whole, the old value
    (its status-change time moves, its size and modification time do not)."""
    path, fresh = tmp_path / "ranker.run", tmp_path / "ranker.run.new"
    old = run_text(100_000, 1)
    path.write_bytes(old)
    fresh.write_bytes(run_text(50_000, 2))
    with ChangedAfterFirstChunk(path, lambda p: os.replace(fresh, p)) as handle:
        assert runs._read_regular(handle, str(path))[:] == old


# --- a file that is not text is refused from its first chunk, before it fills memory ---

PEAK = """
import sys
from ndcg_nb.engine.runs import read_run
try:
    read_run(sys.argv[1])
except Exception as exc:
    print(type(exc).__name__, exc)
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0].split()[1]
print(int(peak) // 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from Linux's /proc")
@pytest.mark.parametrize("head", [b"", b"1 Q0 d1 1 0.5 t\n" * 70_000], ids=["zeros", "a megabyte of text, then zeros"])
def test_sparse_file_of_zeros_refused_in_bounded_memory(tmp_path, head):
    "A 2 GB sparse file of zeros (no disk space used) is refused at its first NUL byte; the process stays small."
    path = tmp_path / "zeros.run"
    with open(path, "wb") as sparse:
        sparse.write(head)
        sparse.truncate(2 << 30)
    done = subprocess.run([sys.executable, "-c", PEAK, str(path)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    message, peak = done.stdout.strip().splitlines()
    line = head.count(b"\n") + 1
    assert message.startswith(f"TrecFormatError {path}, line {line}: a NUL byte"), message
    assert int(peak) < 400, f"peak {peak} MB while refusing a 2 GB file"
