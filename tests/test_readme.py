"""The README's set-up commands: exactly two, and the README is generated from nbs/index.ipynb."""
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
    done = subprocess.run([sys.executable, "-m", "ndcg_nb.cli", *command[1:]], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1].split("\t")
    assert last[0].strip() == "ndcg" and last[1] == "all" and 0 < float(last[2]) < 1, done.stdout
