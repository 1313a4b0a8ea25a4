"""Ctrl-C and SystemExit are never a plugin's failure.

A `KeyboardInterrupt` (a Ctrl-C, or a plugin raising it) or a `SystemExit` (`sys.exit()`, or a signal handler ending
the process) while plugins are imported, while their hooks register policies, or while a policy computes goes on to
the caller: the program stops, as Python programs do, instead of reporting a failed plugin and going on. The command
line then exits 130 with its one line for Ctrl-C, and with the status `sys.exit()` gave.

Entry-point plugins come from the fixture packages of tests/broken_plugins (see tests/test_plugin_isolation.py),
found by a fresh interpreter on PYTHONPATH; run-time plugins are registered here and unregistered in a `finally`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import ndcg_nb
from ndcg_nb import hookimpl, list_plugins, register_plugin, unregister_plugin
from ndcg_nb import plugin_loading
from ndcg_nb.plugins import plugin_manager, resolve_policy

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]     # the checkout these tests import
FIXTURES = Path(__file__).resolve().parent / "broken_plugins"


def site_with(tmp_path, *fixtures) -> Path:
    "A scratch site-packages holding the named fixture packages, as pip would have left them."
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    for fixture in fixtures:
        shutil.copytree(FIXTURES / fixture, site, dirs_exist_ok=True)
    return site


def run(code: str, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    env.pop("NDCG_NB_LOAD_PLUGINS", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


CLI = "from ndcg_nb.__main__ import main; raise SystemExit(main({argv!r}))"


# -- entry-point plugins ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["plugins"], ["score", "3", "2", "1"]])
def test_ctrl_c_while_a_plugin_is_imported_ends_the_command_as_ctrl_c_does(tmp_path, argv):
    done = run(CLI.format(argv=argv), site_with(tmp_path, "interrupts_at_import"))
    assert done.returncode == 130, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    assert done.stderr.strip().splitlines()[-1] == "ndcg-nb: interrupted", done.stderr
    assert "could not be loaded" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_ctrl_c_while_a_plugin_is_imported_reaches_python_code(tmp_path):
    done = run("""
import ndcg_nb
try:
    ndcg_nb.ndcg([3, 2, 1])
except KeyboardInterrupt:
    print("interrupted")
else:
    print("went on")
""", site_with(tmp_path, "interrupts_at_import"))
    assert done.stdout.strip() == "interrupted", (done.stdout, done.stderr)


def test_sys_exit_while_a_plugin_is_imported_ends_the_command_with_its_status(tmp_path):
    done = run(CLI.format(argv=["plugins", "--format", "json"]), site_with(tmp_path, "exits_at_import"))
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "" and "could not be loaded" not in done.stderr, done.stderr


def test_a_plugin_that_fails_at_import_is_still_reported_and_skipped(tmp_path):
    "Errors (Exception) are the plugin's failure: listed, warned about, and the others work."
    done = run(CLI.format(argv=["plugins", "--format", "json"]), site_with(tmp_path, "import_error"))
    assert done.returncode == 0, done.stderr
    rows = {row["plugin"]: row for row in json.loads(done.stdout)}
    assert rows["import_error"]["status"] == "failed" and "ModuleNotFoundError" in rows["import_error"]["error"]


def test_sys_exit_inside_a_policy_ends_the_program(tmp_path):
    site = site_with(tmp_path, "exits_in_gain")
    done = run("""
from ndcg_nb import ndcg
try:
    ndcg([3, 2, 1], gain="p_exit")
except SystemExit as exc:
    print("SystemExit", exc.code)
""", site)
    assert done.stdout.strip() == "SystemExit 0", (done.stdout, done.stderr)
    done = run(CLI.format(argv=["score", "--gain", "p_exit", "3", "2", "1"]), site)
    assert (done.returncode, done.stdout) == (0, ""), (done.stdout, done.stderr)   # the status sys.exit(0) gave
    assert "PluginError" not in done.stderr and "error" not in done.stderr, done.stderr


# -- run-time plugins and the loading itself ------------------------------------------------------------------------

class InterruptedWhileRegistering:
    @hookimpl
    def register_gains(self, register):
        register("half_registered_gain", lambda grades: grades)
        raise KeyboardInterrupt


def test_ctrl_c_in_a_hook_of_a_plugin_registered_at_run_time_goes_on_and_leaves_nothing():
    name = "interrupted-at-registration"
    try:
        with pytest.raises(KeyboardInterrupt):
            register_plugin(InterruptedWhileRegistering(), name=name)
        assert not plugin_manager().has_plugin(name)
        assert name not in {row["plugin"] for row in list_plugins()}
        assert resolve_policy("gain", "linear")(np.array([1.0, 2.0])).tolist() == [1.0, 2.0]   # the rest works
    finally:
        if plugin_manager().has_plugin(name):
            unregister_plugin(name)


class Interrupting:
    @hookimpl
    def register_gains(self, register):
        register("p_interrupt", self.gain)

    @staticmethod
    def gain(grades):
        raise KeyboardInterrupt


def test_ctrl_c_inside_a_policy_goes_on():
    name = register_plugin(Interrupting(), name="interrupting")
    try:
        with pytest.raises(KeyboardInterrupt):
            ndcg_nb.ndcg([3, 2, 1], gain="p_interrupt")
    finally:
        unregister_plugin(name)


def test_an_interrupted_reload_leaves_the_plugins_as_they_were(monkeypatch):
    before = list_plugins()
    point = SimpleNamespace(name="stops_loading", value="stops_loading", dist=None,
                            load=lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
    monkeypatch.setattr(plugin_loading, "group_declared", lambda group, paths=None: True)
    monkeypatch.setattr(plugin_loading, "_declared_entry_points", lambda: [point])
    try:
        with pytest.raises(KeyboardInterrupt):
            plugin_loading.load_plugins()
        assert list_plugins() == before
    finally:
        monkeypatch.undo()
        plugin_loading.load_plugins()              # as the environment says again
    assert list_plugins() == before
