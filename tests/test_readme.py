"""The README's set-up commands: exactly two, and the README is generated from nbs/index.ipynb; its Python
blocks run as written, the LightGBM example among them."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", setup, flags=re.S)
    assert len(commands) == 2, commands
    assert commands[0].startswith('pip install -e ".[dev]"')
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def test_readme_main_job_runs():
    main_job = re.findall(r"```sh\n(.*?)\n```", (ROOT / "README.md").read_text(), flags=re.S)[0]
    command = main_job.split("&&", 1)[1].strip().split()
    assert command[0] == "ndcg-nb"
    done = subprocess.run([sys.executable, "-m", "ndcg_nb", *command[1:]], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1].split("\t")
    assert last[0].strip() == "ndcg" and last[1] == "all" and 0 < float(last[2]) < 1, done.stdout


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)\n```", text, flags=re.S)


def test_readme_python_runs_as_written():
    "Every Python block of the README, in order, in a fresh interpreter, as a reader pastes them."
    readme = (ROOT / "README.md").read_text()
    blocks = python_blocks(readme)
    lightgbm = [b for b in blocks if "lgb.train(" in b and "lightgbm_ndcg" in b]
    assert len(lightgbm) == 1, "the README's LightGBM example is gone or no longer a Python block"
    assert "params" in lightgbm[0].split("lgb.train(")[0], "the LightGBM example uses params it does not define"
    script = "\n\n".join(blocks) + "\n\nprint(round(booster.best_score['valid_0']['ndcg_nb@10'], 4))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT / "nbs", env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    shown = re.match(r"\n```\n\n```\n(.*?)\n```", readme.split(lightgbm[0], 1)[1], flags=re.S).group(1)  # its output
    assert done.stdout.strip().splitlines()[-1] == shown, (done.stdout[-500:], shown)
