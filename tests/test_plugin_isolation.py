"""One broken plugin must not break everyone.

Entry-point plugins come from the small packages of tests/broken_plugins, copied with their
hand-written dist-info into a scratch directory that a fresh interpreter finds on PYTHONPATH.
Run-time plugins are registered in this process and always unregistered in a `finally`.
"""
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from ndcg_nb import PluginError, PolicyConflictError, explain, hookimpl, list_plugins, ndcg, ndcg_dataset
from ndcg_nb import register_plugin, unregister_plugin
from ndcg_nb.plugins import PluginWarning, check_output, plugin_manager, resolve_policy

FIXTURES = Path(__file__).resolve().parent / "broken_plugins"
BROKEN = ["import_error", "hook_raises", "claims_a", "claims_b", "misspelt_hook", "extra_argument",
          "registers_twice"]
DEFAULT = 0.9608081943360617  # ndcg([3, 2, 3, 0, 1, 2]) with the built-in defaults


def site_with(tmp_path, *fixtures):
    "A scratch site-packages holding the named fixture packages, as pip would have left them."
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    for fixture in fixtures:
        shutil.copytree(FIXTURES / fixture, site, dirs_exist_ok=True)
    return site


def run(code, site, **env_vars):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "PYTHONWARNINGS": "default"}
    env.pop("NDCG_NB_LOAD_PLUGINS", None)
    env.update(env_vars)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


REPORT = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from ndcg_nb import ndcg, list_plugins
    from ndcg_nb.plugins import PluginWarning, resolve_policy
    value = ndcg([3, 2, 3, 0, 1, 2])
    rows = list_plugins()
    value_again = ndcg([3, 2, 3, 0, 1, 2])
def attempt(kind, name):
    try:
        return {"label": resolve_policy(kind, name).label}
    except Exception as exc:
        return {"error": type(exc).__name__ + ": " + str(exc)}
print(json.dumps({"value": value, "value_again": value_again, "plugins": rows,
                  "warnings": [str(w.message) for w in caught if issubclass(w.category, PluginWarning)],
                  "shared": attempt("gain", "shared"), "only_a": attempt("gain", "only_a"),
                  "only_b": attempt("discount", "only_b"), "log2": attempt("discount", "log2"),
                  "half_registered": attempt("gain", "half_registered"), "twice": attempt("discount", "twice")}))
"""


@pytest.fixture(scope="module")
def broken_report(tmp_path_factory):
    site = site_with(tmp_path_factory.mktemp("broken"), *BROKEN)
    done = run(REPORT, site)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    report["rows"] = {row["plugin"]: row for row in report["plugins"]}
    return report


# -- 1. fault-isolated loading ---------------------------------------------------------------

def test_broken_plugins_do_not_break_the_defaults(broken_report):
    assert broken_report["value"] == broken_report["value_again"] == DEFAULT


@pytest.mark.parametrize("plugin, distribution, error", [
    ("import_error", "ndcg-nb-import-error 0.1.0", "ModuleNotFoundError: No module named 'ndcg_nb_dependency_that_is_not_installed'"),
    ("hook_raises", "ndcg-nb-hook-raises 0.2.0", "failed while registering discount policies: RuntimeError: cannot reach the weights server"),
    ("registers_twice", "ndcg-nb-registers-twice 0.5.0", "registered discount policy 'twice' twice"),
])
def test_each_broken_plugin_is_skipped_with_one_warning_and_listed(broken_report, plugin, distribution, error):
    warned = [w for w in broken_report["warnings"] if f"plugin {plugin!r}" in w]
    assert len(warned) == 1, broken_report["warnings"]
    assert distribution in warned[0] and error in warned[0], warned[0]
    row = broken_report["rows"][plugin]
    assert row["status"] == "failed" and error in row["error"], row
    assert row["distribution"] == distribution.split()[0] and row["version"] == distribution.split()[1]
    assert row["gains"] == row["discounts"] == [], row


def test_a_plugin_that_fails_half_way_leaves_nothing_behind(broken_report):
    assert "unknown gain policy 'half_registered'" in broken_report["half_registered"]["error"]
    assert "unknown discount policy 'twice'" in broken_report["twice"]["error"]


def test_builtins_are_listed_as_ok(broken_report):
    builtins = broken_report["rows"]["ndcg_nb.builtins"]
    assert builtins["status"] == "ok" and builtins["error"] is None
    assert builtins["discounts"] == ["inverse_rank", "jk", "ln", "log", "log2", "none"]


def test_cli_plugins_lists_the_broken_ones_and_exits_0(tmp_path):
    site = site_with(tmp_path, *BROKEN)
    done = run("from ndcg_nb.__main__ import main; raise SystemExit(main(['plugins']))", site)
    assert done.returncode == 0, done.stderr
    for plugin in ("import_error", "hook_raises", "misspelt_hook", "extra_argument", "registers_twice"):
        line = next(line for line in done.stdout.splitlines() if line.strip().startswith(plugin))
        assert "failed" in line, done.stdout
    assert "cannot reach the weights server" in done.stdout
    assert "ndcg-nb-import-error 0.1.0" in done.stdout
    done = run("from ndcg_nb.__main__ import main; raise SystemExit(main(['plugins', '--format', 'json']))", site)
    assert done.returncode == 0, done.stderr
    rows = {row["plugin"]: row for row in json.loads(done.stdout)}
    assert rows["import_error"]["status"] == "failed" and "No module named" in rows["import_error"]["error"]
    done = run("from ndcg_nb.__main__ import main; raise SystemExit(main(['score', '3', '2', '3', '0', '1', '2']))", site)
    assert done.returncode == 0 and f"NDCG = {DEFAULT:.6f}" in done.stdout, done.stderr


class SameNameTwice:
    @hookimpl
    def register_gains(self, register):
        register("dup_in_one", lambda grades: grades)
        register("dup_in_one", lambda grades: grades + 1)


def test_runtime_plugin_registering_a_name_twice_is_refused():
    with pytest.raises(PluginError, match="plugin 'same-twice' registered gain policy 'dup_in_one' twice"):
        register_plugin(SameNameTwice(), name="same-twice")
    assert not plugin_manager().has_plugin("same-twice")


# -- 2. conflicts only when used -------------------------------------------------------------

def test_conflict_between_two_plugins_is_an_error_only_when_the_name_is_used(broken_report):
    error = broken_report["shared"]["error"]
    assert error.startswith("PolicyConflictError: gain policy 'shared' is registered by both plugin 'claims_a'"), error
    assert "'claims_b'" in error and "ndcg-nb-claims-a 1.0.0" in error and "ndcg-nb-claims-b 2.0.0" in error
    assert "NDCG_NB_LOAD_PLUGINS" in error
    assert broken_report["only_a"] == {"label": "only_a [plugin claims_a]"}
    assert broken_report["only_b"] == {"label": "only_b [plugin claims_b]"}
    for plugin, other in (("claims_a", "claims_b"), ("claims_b", "claims_a")):
        row = broken_report["rows"][plugin]
        assert row["status"] == "conflict", row
        assert any("'shared'" in note and other in note for note in row["notes"]), row
    assert broken_report["rows"]["claims_a"]["gains"] == ["only_a"]
    assert not [w for w in broken_report["warnings"] if "claims_" in w]  # not an error until used


# -- 3. choosing what loads ------------------------------------------------------------------

CHOSEN = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from ndcg_nb import ndcg, list_plugins
    from ndcg_nb.plugins import PluginWarning, resolve_policy
    value = ndcg([3, 2, 3, 0, 1, 2], gain=GAIN)
    rows = {row["plugin"]: row["status"] for row in list_plugins()}
print(json.dumps({"value": value, "status": rows,
                  "warnings": [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]}))
"""


@pytest.mark.parametrize("setting, gain, loaded", [
    ("", "'linear'", []),
    ("claims_a", "'shared'", ["claims_a"]),
    (" claims_b , ndcg-nb-claims-a ", "'only_a'", ["claims_a", "claims_b"]),
])
def test_environment_variable_chooses_the_plugins(tmp_path, setting, gain, loaded):
    site = site_with(tmp_path, *BROKEN)
    done = run(CHOSEN.replace("GAIN", gain), site, NDCG_NB_LOAD_PLUGINS=setting)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["warnings"] == []                        # the broken ones were never imported
    ok = sorted(p for p, status in out["status"].items() if status in ("ok", "conflict") and not p.startswith("ndcg_nb."))
    assert ok == loaded
    assert out["status"]["import_error"] == "not loaded"


def test_environment_variable_warns_about_unknown_names(tmp_path):
    site = site_with(tmp_path, "claims_a")
    done = run(CHOSEN.replace("GAIN", "'only_a'"), site, NDCG_NB_LOAD_PLUGINS="claims_a,no_such_plugin")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert len(out["warnings"]) == 1 and "'no_such_plugin'" in out["warnings"][0], out
    assert "claims_a" in out["warnings"][0]               # the names that could be given


def test_load_plugins_rebuilds_the_manager(tmp_path):
    site = site_with(tmp_path, "claims_a", "claims_b")
    code = """
import json
from ndcg_nb import ndcg, list_plugins, register_plugin, hookimpl
from ndcg_nb.plugins import load_plugins, resolve_policy
class Mine:
    @hookimpl
    def register_gains(self, register):
        register("mine", lambda grades: grades)
register_plugin(Mine(), name="mine")
out = {}
out["none"] = load_plugins(none=True)
out["none_listed"] = sorted(r["plugin"] for r in list_plugins() if r["status"] == "ok")
out["only"] = load_plugins(only=["claims_b"])
out["shared"] = resolve_policy("gain", "shared").label
out["mine"] = resolve_policy("gain", "mine").label
out["all"] = load_plugins()
print(json.dumps(out))
"""
    done = run(code, site)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["none"] == ["ndcg_nb.builtins", "ndcg_nb.presets", "mine"]
    assert out["none_listed"] == ["mine", "ndcg_nb.builtins", "ndcg_nb.presets"]
    assert out["only"] == ["ndcg_nb.builtins", "ndcg_nb.presets", "claims_b", "mine"]
    assert out["shared"] == "shared [plugin claims_b]" and out["mine"] == "mine [plugin mine]"
    ours = ("ndcg_nb.builtins", "ndcg_nb.presets", "claims_a", "claims_b", "mine")   # not the plugins a user has
    assert [name for name in out["all"] if name in ours] == list(ours)


# -- 4. hooks that cannot work are caught at load ----------------------------------------------

def test_misspelt_hook_and_extra_argument_are_caught_at_load(broken_report):
    row = broken_report["rows"]["misspelt_hook"]
    assert row["status"] == "failed" and "unknown hook 'register_gain'" in row["error"], row
    assert "did you mean 'register_gains'" in row["error"]
    row = broken_report["rows"]["extra_argument"]
    assert row["status"] == "failed" and "'options'" in row["error"] and "register_gains" in row["error"], row
    for plugin, dist in (("misspelt_hook", "ndcg-nb-misspelt-hook 0.3.0"), ("extra_argument", "ndcg-nb-extra-argument 0.4.0")):
        warned = [w for w in broken_report["warnings"] if f"plugin {plugin!r}" in w]
        assert len(warned) == 1 and dist in warned[0], broken_report["warnings"]


class Misspelt:
    @hookimpl
    def register_gain(self, register):
        register("never", lambda grades: grades)

    @hookimpl
    def register_discounts(self, register):
        register("never_either", lambda ranks: 1.0 / ranks)


class ExtraArgument:
    @hookimpl
    def register_gains(self, register):
        register("fine", lambda grades: grades)

    @hookimpl
    def register_discounts(self, register, options):
        register("not_fine", lambda ranks: 1.0 / ranks)


@pytest.mark.parametrize("plugin, name, message", [
    (Misspelt, "misspelt", "plugin 'misspelt' implements unknown hook 'register_gain' (did you mean 'register_gains'?)"),
    (ExtraArgument, "extra-argument", "plugin 'extra-argument' implements hook 'register_discounts' with argument(s) 'options' that the hook "
                     "does not have"),
])
def test_runtime_registration_of_an_unusable_hook_is_refused_whole(plugin, name, message):
    with pytest.raises(PluginError) as raised:
        register_plugin(plugin(), name=name)
    assert message in str(raised.value)
    assert not plugin_manager().has_plugin(name)
    assert name not in {row["plugin"] for row in list_plugins()}
    hooked = {impl.plugin_name for hook in ("register_gains", "register_discounts")
              for impl in getattr(plugin_manager().hook, hook).get_hookimpls()}
    assert name not in hooked
    with pytest.raises(LookupError):
        resolve_policy("gain", "fine")


# -- 5. overrides are visible ----------------------------------------------------------------

class RankDiscount:
    @hookimpl
    def register_discounts(self, register):
        register("log2", lambda ranks: 1.0 / np.asarray(ranks, dtype=float), "1 / rank", override=True)


def test_override_shows_in_labels_and_listing():
    assert resolve_policy("discount", "log2").label == "log2"
    with pytest.warns(PluginWarning, match="plugin 'rank-discount' overrides ndcg_nb's built-in discount 'log2'"):
        name = register_plugin(RankDiscount(), name="rank-discount")
    try:
        bound = resolve_policy("discount", "log2")
        assert bound.label == "log2 [plugin rank-discount]"
        assert resolve_policy("discount", bound.label).policy is bound.policy   # labels can be given back
        assert ndcg_dataset([[3, 2, 3, 0, 1, 2]]).policies["discount"] == "log2 [plugin rank-discount]"
        assert ndcg([1, 0, 1]) == pytest.approx((1 + 1 / 3) / 1.5, abs=1e-15)
        rows = {row["plugin"]: row for row in list_plugins()}
        assert any("discount 'log2'" in note and "rank-discount" in note for note in rows["ndcg_nb.builtins"]["notes"])
        assert any("overrides" in note and "discount 'log2'" in note for note in rows["rank-discount"]["notes"])
        builtin = resolve_policy("discount", "log2 [plugin ndcg_nb.builtins]")   # the built-in stays reachable
        assert builtin.policy.plugin == "ndcg_nb.builtins" and builtin.label == "log2 [plugin ndcg_nb.builtins]"
        with pytest.raises(PluginError, match="comes from plugin 'rank-discount', not 'other'"):
            resolve_policy("discount", "log2 [plugin other]")
    finally:
        unregister_plugin(name)
    assert resolve_policy("discount", "log2").label == "log2"
    assert resolve_policy("discount", "log:base=10").label == "log:base=10"
    assert ndcg_dataset([[3, 2, 3, 0, 1, 2]]).policies["discount"] == "log2"
    assert list_plugins()[0]["notes"] == []


def test_entry_point_override_is_labelled(tmp_path):
    site = site_with(tmp_path, "overrides_log2")
    code = """
import json
from ndcg_nb import ndcg, list_plugins
from ndcg_nb.plugins import resolve_policy
rows = {row["plugin"]: row for row in list_plugins()}
print(json.dumps({"label": resolve_policy("discount", "log2").label, "value": ndcg([1, 0, 1]),
                  "builtins": rows["ndcg_nb.builtins"]["notes"], "plugin": rows["overrides_log2"]}))
"""
    done = run(code, site)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["label"] == "log2 [plugin overrides_log2]"
    assert out["value"] == pytest.approx((1 + 1 / 3) / 1.5, abs=1e-15)
    assert out["plugin"]["status"] == "ok" and out["plugin"]["discounts"] == ["log2"]
    assert any("overrides_log2" in note for note in out["builtins"])


# -- 6. policy outputs are checked -----------------------------------------------------------

class BadOutputs:
    @hookimpl
    def register_gains(self, register):
        register("stringly", lambda grades: np.array([str(g) for g in grades]))
        register("stringly_objects", lambda grades: [str(g) for g in grades])

    @hookimpl
    def register_discounts(self, register):
        register("negative", lambda ranks: -1.0 / ranks)
        register("growing", lambda ranks: np.log2(ranks + 1.0))


def test_policy_outputs_are_checked_naming_the_plugin():
    name = register_plugin(BadOutputs(), name="bad-outputs")
    try:
        for gain in ("stringly", "stringly_objects"):
            with pytest.raises(PluginError, match=f"gain policy '{gain}' from plugin 'bad-outputs' returned "
                                                  "strings"):
                ndcg([3, 2, 1], gain=gain)
        ranks = np.arange(1, 4)
        negative = resolve_policy("discount", "negative")
        with pytest.raises(PluginError, match="discount policy 'negative' from plugin 'bad-outputs' returned a "
                                              r"negative weight \(-1 at rank 1\)"):
            check_output(negative, negative(ranks), ranks)
        growing = resolve_policy("discount", "growing")
        with pytest.warns(PluginWarning, match="discount policy 'growing' from plugin 'bad-outputs' gives rank 2 "
                                               "more weight than rank 1"):
            check_output(growing, growing(ranks), ranks)
    finally:
        unregister_plugin(name)
    log2 = resolve_policy("discount", "log2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for spec in ("log2", "ln", "none", "log:base=10"):
            policy = resolve_policy("discount", spec)
            check_output(policy, policy(np.arange(1, 100)), np.arange(1, 100))   # the built-ins pass
        explain([3, 2, 3, 0, 1, 2], discount="none")
    assert np.array_equal(check_output(log2, [1.0, 0.5], [1, 2]), [1.0, 0.5])


def test_metrics_check_discount_weights():
    name = register_plugin(BadOutputs(), name="bad-outputs-core")
    try:
        with pytest.raises(PluginError, match="negative weight"):
            ndcg([3, 2, 1], discount="negative")
        with pytest.warns(PluginWarning, match="gives rank 2 more weight than rank 1"):
            ndcg([3, 2, 1], discount="growing")
    finally:
        unregister_plugin(name)


def test_existing_conflict_rules_for_runtime_plugins_still_hold():
    class Clash:
        @hookimpl
        def register_gains(self, register):
            register("exponential", lambda grades: grades)
    with pytest.raises(PolicyConflictError, match="'ndcg_nb.builtins' and plugin 'clash-again'"):
        register_plugin(Clash(), name="clash-again")
    assert not plugin_manager().has_plugin("clash-again")


# -- 7. failures of any kind, unmatched hooks, overrides, flags, inputs -----------------

# A plugin that calls sys.exit() or raises KeyboardInterrupt at import, or a policy that calls sys.exit(), stops
# the program as any code does: tests/test_interrupts.py.


def test_hooks_pluggy_never_calls_are_warned_about(tmp_path):
    site = site_with(tmp_path, "quiet_hooks")
    done = run(REPORT, site)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    warned = [w for w in out["warnings"] if "plugin 'quiet_hooks' (ndcg-nb-quiet-hooks 1.2.0)" in w]
    assert any("implements hook 'register_discount', which matches no hook" in w
               and "did you mean 'register_discounts'?" in w for w in warned), out["warnings"]
    assert any("hook 'register_discounts', which is not marked with ndcg_nb's @hookimpl" in w for w in warned), out["warnings"]
    row = {r["plugin"]: r for r in out["plugins"]}["quiet_hooks"]
    assert row["status"] == "ok" and row["gains"] == ["kept"] and row["discounts"] == [], row


OVERRIDDEN = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from ndcg_nb.evaluation import evaluate
    from ndcg_nb.plugins import PluginWarning
    qrels = {"q1": {"a": 2, "b": 1, "c": 0, "d": 1}, "q2": {"x": 1, "y": 3}}
    run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.1, "d": 0.3}, "q2": {"x": 0.4, "y": 0.2, "z": 0.9}}
    preset = evaluate(qrels, run, ["ndcg", "ndcg_cut_2"], preset="trec_eval")
    asked = evaluate(qrels, run, ["ndcg"], preset="trec_eval", discount="log2")
print(json.dumps({"preset": preset.per_query["value"].tolist(), "preset_discount": preset.convention.discount,
                  "asked": asked.per_query["value"].tolist(), "asked_discount": asked.convention.discount,
                  "warnings": [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]}))
"""


def test_presets_keep_the_builtin_a_plugin_overrides(tmp_path):
    (tmp_path / "plain_site").mkdir(); (tmp_path / "overridden_site").mkdir()
    plain = run(OVERRIDDEN, site_with(tmp_path / "plain_site"))
    overridden = run(OVERRIDDEN, site_with(tmp_path / "overridden_site", "overrides_log2"))
    assert plain.returncode == 0 and overridden.returncode == 0, (plain.stderr, overridden.stderr)
    plain, overridden = json.loads(plain.stdout), json.loads(overridden.stdout)
    assert overridden["preset"] == plain["preset"]                      # the trec_eval numbers stay, bit for bit
    assert plain["preset_discount"] == "log2" and plain["warnings"] == []
    assert overridden["preset_discount"] == "log2 [plugin ndcg_nb.builtins]"
    assert overridden["asked_discount"] == "log2 [plugin overrides_log2]"   # named by the user: the plugin's, shown
    assert overridden["asked"] != plain["asked"][:2]
    assert overridden["asked"] == pytest.approx([(1 + 2 / 2 + 1 / 3) / (2 + 1 / 2 + 1 / 3), (1 / 2 + 3 / 3) / (3 + 1 / 2)], abs=1e-15)  # 1/rank, by hand
    assert len(overridden["warnings"]) == 1, overridden["warnings"]
    assert ("plugin 'overrides_log2' (ndcg-nb-overrides-log2 1.1.0) overrides ndcg_nb's built-in discount 'log2'"
            in overridden["warnings"][0])


def test_trec_eval_cli_output_is_unchanged_by_an_override(tmp_path):
    (tmp_path / "plain_site").mkdir(); (tmp_path / "overridden_site").mkdir()
    data = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"
    qrels, runs = data / "qrels.test", data / "results.test"
    if not qrels.exists() or not runs.exists():
        pytest.skip("trec_eval's test files are not there")
    code = f"from ndcg_nb.__main__ import main; raise SystemExit(main(['eval', {str(qrels)!r}, {str(runs)!r}, '--preset', 'trec_eval']))"
    plain = run(code, site_with(tmp_path / "plain_site"))
    overridden = run(code, site_with(tmp_path / "overridden_site", "overrides_log2"))
    assert plain.returncode == overridden.returncode == 0, (plain.stderr, overridden.stderr)
    assert plain.stdout == overridden.stdout and plain.stdout.strip()


@pytest.mark.parametrize("spec, missing_queries, unjudged", [
    ("trec_eval:complete=false", "skip", "zero"), ("trec_eval:complete=False;judged_only=no", "skip", "zero"),
    ("trec_eval:complete=TRUE", "zero", "zero"), ("trec_eval:judged_only=yes", "skip", "drop"),
    ("trec_eval:complete=1;judged_only=0", "zero", "zero"), ("trec_eval", "skip", "zero"),
])
def test_preset_flags_read_as_written(spec, missing_queries, unjudged):
    from ndcg_nb.engine.plan import resolve_convention
    convention = resolve_convention(spec)
    assert (convention.missing_queries, convention.unjudged) == (missing_queries, unjudged)


@pytest.mark.parametrize("spec, bad", [("trec_eval:complete=maybe", "'maybe'"), ("trec_eval:judged_only=2", "2"),
                                       ("trec_eval:complete=", "''")])
def test_preset_flags_refuse_other_spellings(spec, bad):
    from ndcg_nb.errors import UsageError
    from ndcg_nb.engine.plan import resolve_convention
    with pytest.raises(UsageError, match="of preset policy 'trec_eval' is true or false "
                                         r"\(true/false, yes/no or 1/0, in any case\), not " + bad):
        resolve_convention(spec)


def test_a_gain_writing_into_its_input_is_refused_and_the_array_kept(tmp_path):
    site = site_with(tmp_path, "mutates_input")
    done = run("""
import json
import numpy as np
from ndcg_nb import ndcg, PluginError
from ndcg_nb.testing import check_plugin
grades = np.array([3., 2., 1.])
try:
    ndcg(grades, gain="p_mutate")
    error = None
except PluginError as exc:
    error = str(exc)
print(json.dumps({"error": error, "grades": grades.tolist(),
                  "kit": [str(f) for f in check_plugin("mutates_input", raise_on_findings=False)]}))
""", site)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["error"].startswith("gain policy 'p_mutate' from plugin 'mutates_input' wrote into its input array")
    assert out["grades"] == [3.0, 2.0, 1.0]
    assert len(out["kit"]) == 1 and "wrote into its input array" in out["kit"][0], out["kit"]
