"""The README's set-up commands: exactly two, the first installing only what the main job needs and running it,
the second installing the dev extra and running the tests, as CI does; the README is generated from
nbs/index.ipynb, its links resolve from the repository root (where a code host shows it), and its Python blocks
run as written, the LightGBM example among them."""
import importlib.util
import os
import re
import subprocess
import sys
import urllib.parse
from configparser import ConfigParser
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAIN_JOB_INSTALL = "pip install -e . && "
TEST_COMMAND = 'pip install -e ".[dev]" && python -m pytest tests'


def setup_section() -> str:
    return (ROOT / "README.md").read_text().split("## Set up", 1)[1].split("\n## ", 1)[0]


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one():
    setup = setup_section()
    commands = re.findall(r"```sh\n(.*?)\n```", setup, flags=re.S)
    assert len(commands) == 2, commands
    assert commands[0].startswith(MAIN_JOB_INSTALL + "ndcg-nb "), "the first command installs no extra, then runs the main job"
    assert commands[1] == TEST_COMMAND
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert TEST_COMMAND in ci, "CI runs the README's test command as written"
    before = "\n".join(ci[:ci.index(TEST_COMMAND)])
    assert "--no-deps recommenders==" in before and "chromium" in before   # what the command alone does not bring


def test_readme_names_what_the_plain_install_brings():
    "The prose after the first command names every runtime requirement of settings.ini, and no other package."
    settings = ConfigParser(delimiters=["="])
    settings.read(ROOT / "settings.ini", encoding="utf-8")
    names = [re.split(r"[<>=\[]", r)[0].lower() for r in settings["DEFAULT"]["requirements"].split()]
    prose = setup_section().split("```", 4)[2].split("```")[0]
    brought = re.search(r"what it needs to run \(([^)]*)\)", prose).group(1).lower()
    assert sorted(set(re.findall(r"[a-z]+", brought)) - {"and"}) == sorted(names), (brought, names)


def test_readme_main_job_runs():
    main_job = re.findall(r"```sh\n(.*?)\n```", (ROOT / "README.md").read_text(), flags=re.S)[0]
    command = main_job.replace("\\\n", " ").split("&&", 1)[1].strip().split()   # a continued line, as a shell joins it
    assert command[0] == "ndcg-nb"
    done = subprocess.run([sys.executable, "-m", "ndcg_nb", *command[1:]], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1].split("\t")
    assert last[0].strip() == "ndcg_cut_10" and last[1] == "all" and 0 < float(last[2]) < 1, done.stdout   # trec_eval's order


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


def _make_readme():
    spec = importlib.util.spec_from_file_location("make_readme", ROOT / "tools" / "make_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_readme_roots_only_relative_links():
    from_root = _make_readme().from_root
    text = "[a](core.html#ndcg) [b](https://x.org/y) [c](#here) [d](/abs) ![e](tutorials/x.png) [f](mailto:a@b)"
    assert from_root(text, "docs") == ("[a](docs/core.html#ndcg) [b](https://x.org/y) [c](#here) [d](/abs) "
                                       "![e](docs/tutorials/x.png) [f](mailto:a@b)")


@cache
def _anchors(page: Path) -> set[str]:
    return set(re.findall(r'\b(?:id|name)="([^"]+)"', page.read_text(encoding="utf-8")))


def relative_links(markdown: str) -> list[str]:
    "The targets of the Markdown links and images outside code blocks that have no scheme and are not bare anchors."
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    targets = re.findall(r"\]\(([^)\s]+)\)", prose)
    return [t for t in targets if not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|#", t)]


def test_every_relative_link_of_the_readme_resolves_from_the_root():
    "Each relative link names a file of the repository, read from its root, and an anchor that page has."
    links = relative_links((ROOT / "README.md").read_text())
    assert len(links) > 30 and all(link.startswith("docs/") for link in links), links
    broken = []
    for link in links:
        url = urllib.parse.urlsplit(link)
        target = ROOT / urllib.parse.unquote(url.path)
        if not target.is_file():
            broken.append(f"{link}: no such file")
        elif url.fragment and target.suffix == ".html" and url.fragment not in _anchors(target):
            broken.append(f"{link}: no anchor #{url.fragment}")
    assert not broken, "\n".join(broken)


def test_link_check_finds_a_broken_link():
    "The check above on a made-up README: a missing page, a missing anchor, and links it must leave alone."
    links = relative_links("[a](docs/core.html#no-such-anchor) [b](docs/nope.html) [c](https://x) [d](#top)\n"
                           "```\n[e](docs/in-code.html)\n```")
    assert links == ["docs/core.html#no-such-anchor", "docs/nope.html"]
    assert not (ROOT / "docs/nope.html").is_file() and "no-such-anchor" not in _anchors(ROOT / "docs/core.html")
