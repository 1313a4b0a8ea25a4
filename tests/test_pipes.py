"""A path that names a pipe (`mkfifo`, or the `/dev/fd/63` of a shell's `<(zcat run.gz)`) is opened once and read as
a stream: a second open would wait forever for a writer that has gone. Everything runs in subprocesses with a
deadline, so that a reader stuck in `open` fails its test instead of hanging pytest."""
import gzip
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

TEST = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"
QRELS, RUN = TEST / "qrels.test", TEST / "results.test"   # the run is 90 KB: more than a pipe holds (64 KB)


def python(code: str, tmp_path: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    "Run `code` in a fresh interpreter (in `tmp_path`, so that the checkout's modules are the ones on sys.path)."
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=timeout)


def ndcg_nb_cli(*args, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ndcg_nb", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def expected_output() -> str:
    done = ndcg_nb_cli("eval", QRELS, RUN, "-m", "ndcg", "-q")
    assert done.returncode == 0, done.stderr
    return done.stdout


WRITE_AND_READ = """
    import os, sys, threading, signal
    from pathlib import Path
    from ndcg_nb.engine.runs import read_run
    signal.alarm(20)                                   # a reader stuck in open() dies here, and the test fails
    data = Path({run!r}).read_bytes()
    fifo = Path("fifo")
    for attempt in range({tries}):
        if fifo.exists():
            fifo.unlink()
        os.mkfifo(fifo)
        def write():                                   # as `cat run > fifo &` does: open, write all, close
            with open(fifo, "wb") as pipe:
                pipe.write(data)
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        run = read_run(fifo)
        writer.join()
        assert len(run) == 1500, len(run)
    print("read", {tries}, "times")
"""


def test_named_pipe_is_read_every_time(tmp_path):
    "A writer that writes the whole run and closes the pipe, as `cat` does, is read each time, never waited for."
    done = python(WRITE_AND_READ.format(run=str(RUN), tries=60), tmp_path)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert "read 60 times" in done.stdout


COUNT_OPENS = """
    import builtins, io, os, subprocess, sys
    from pathlib import Path
    from ndcg_nb.engine import runs
    fifo = Path("fifo")
    os.mkfifo(fifo)
    opened = []
    def counting(real):
        def open_counted(file, *args, **kwargs):
            if str(file) == str(fifo):
                opened.append(real.__name__)
            return real(file, *args, **kwargs)
        return open_counted
    builtins.open, io.open, os.open = counting(builtins.open), counting(io.open), counting(os.open)
    feeder = subprocess.Popen([sys.executable, "-c", "import sys; open(sys.argv[1], 'wb').write(open(sys.argv[2], 'rb').read())",
                               str(fifo), {run!r}])           # another process: its open is not counted
    table, lines, tag = runs.split_file(fifo, "run")
    feeder.wait(timeout=20)
    print(len(opened), table.num_rows, tag)
"""


def test_named_pipe_is_opened_once(tmp_path):
    "However it is read, the pipe's path is opened exactly once."
    done = python(COUNT_OPENS.format(run=str(RUN)), tmp_path, timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "1500", "STANDARD"]


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_dev_fd_path_of_a_pipe(tmp_path, compress):
    "`ndcg-nb eval qrels <(zcat run.gz)`: the shell gives /dev/fd/N, the read end of a pipe; read as a stream."
    data = RUN.read_bytes()
    reading, writing = os.pipe()
    feeder = subprocess.Popen([sys.executable, "-c", "import os, sys; os.write(1, sys.stdin.buffer.read())"],
                              stdin=subprocess.PIPE, stdout=writing)
    os.close(writing)
    feeder.stdin.write(gzip.compress(data) if compress else data)
    feeder.stdin.close()
    try:
        done = subprocess.run([sys.executable, "-m", "ndcg_nb", "eval", str(QRELS), f"/dev/fd/{reading}", "-m", "ndcg",
                               "-q"], capture_output=True, text=True, timeout=60, pass_fds=(reading,))
    finally:
        os.close(reading)
        feeder.wait(timeout=20)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected_output()


def test_command_line_reads_a_named_pipe(tmp_path):
    "`cat run > fifo & ndcg-nb eval qrels fifo`, a few times: the same values as from the file, never a hang."
    expected = expected_output()
    for attempt in range(4):
        fifo = tmp_path / f"fifo{attempt}"
        os.mkfifo(fifo)
        feeder = subprocess.Popen(["sh", "-c", 'cat "$1" > "$2"', "sh", str(RUN), str(fifo)])
        try:
            done = ndcg_nb_cli("eval", QRELS, fifo, "-m", "ndcg", "-q", timeout=30)
        finally:
            feeder.kill()
            feeder.wait()
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected


def test_bad_run_through_a_pipe_is_named_not_waited_for(tmp_path):
    "A run read from a pipe that turns out wrong (a document twice) gets its error; it is not read a second time."
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code = f"""
        import os, signal, threading
        from ndcg_nb import evaluate
        signal.alarm(20)
        def write():
            with open({str(fifo)!r}, "wb") as pipe:
                pipe.write(b"301 Q0 d1 1 0.5 t\\n301 Q0 d1 2 0.4 t\\n")
        threading.Thread(target=write, daemon=True).start()
        try:
            evaluate({str(QRELS)!r}, {str(fifo)!r}, ["ndcg"], progress=False)
        except Exception as exc:
            print(type(exc).__name__, exc)
    """
    done = python(code, tmp_path, timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "document 'd1' appears 2 times for query '301'" in done.stdout
