"""A package written by `ndcg_nb.integrations.plugin_template.new_plugin` installs through its entry point and passes its own tests."""
import json
import os
import subprocess
import sys
from pathlib import Path

from ndcg_nb.integrations.plugin_template import new_plugin


def test_new_plugin_installs_and_passes_its_own_tests(tmp_path):
    root = new_plugin("tmpl", tmp_path)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(root)], check=True, capture_output=True, text=True, cwd=tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(root / "tests")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed" in done.stdout
    listing = subprocess.run([sys.executable, "-c", "from ndcg_nb.__main__ import main; raise SystemExit(main(['plugins']))"],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert listing.returncode == 0, listing.stderr
    assert all(name in listing.stdout for name in ("tmpl_rbp", "tmpl_trec", "tmpl_range", "tmpl_capped"))


def test_new_plugin_writes_the_kept_package_byte_for_byte(tmp_path):
    # tests/data/plugin_template/README.md says where my_policies.json comes from
    kept = json.loads((Path(__file__).parent / "data" / "plugin_template" / "my_policies.json").read_text(encoding="utf-8"))
    root = new_plugin("my_policies", tmp_path)
    assert root.name == kept["folder"]
    written = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert written == sorted(kept["files"])
    for relative, text in kept["files"].items():
        assert (root / relative).read_bytes() == text.encode("utf-8"), relative
