"""The layers hold: tools > frontend > runtime > passes > dialects > shared core, a module
never importing a layer above its own (pyproject's ``[tool.importlinter]``, docs/design.md)."""

import shutil
from pathlib import Path

import pytest
from layering import ROOT, contract_config, lint, pyproject, wheel_tree


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return wheel_tree(tmp_path_factory.mktemp("wheel"))


@pytest.fixture
def tree(built, tmp_path):
    return Path(shutil.copytree(built, tmp_path / "tree"))


def test_the_package_keeps_its_layers(tree):
    result = lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_tree_is_laid_out_as_installed(tree):
    for installed, source in [
        ("staging/function.py", "frontend/staging/function.py"),
        ("nn/__init__.py", "frontend/nn/__init__.py"),
        ("dialects/op_def.py", "dialects/op_def.py"),
        ("passes/autodiff/__init__.py", "passes/autodiff/__init__.py"),
        ("tools/opt.py", "tools/opt.py"),
    ]:
        assert (tree / "s4tf" / installed).read_bytes() == (ROOT / source).read_bytes()
    assert not list(tree.rglob("bench_mlp.py"))  # tools/bench/ is not installed


def test_every_source_module_is_installed(built):
    """pyproject lists its packages one by one: a package left out of the list is missing
    from a wheel (``import s4tf`` failed on ``s4tf.scipy.stats``) though an editable install
    finds it."""
    for package, folder in pyproject()["tool"]["setuptools"]["package-dir"].items():
        for module in (ROOT / folder).rglob("*.py"):
            relative = module.relative_to(ROOT / folder)
            if relative.parts[0] == "bench":  # tools/bench/ is not installed
                continue
            assert (built / Path(*package.split(".")) / relative).exists(), f"{folder}/{relative} is not installed"


def test_every_frontend_module_is_in_the_frontend_layer(tree):
    (tree / "s4tf" / "new_module.py").write_text("")
    frontend = contract_config(tree).split("layers =")[1].splitlines()[2]
    assert "staging" in frontend.split(" : ") and "new_module" in frontend.split(" : ")
    assert not {"core", "errors", "locations", "runtime"} & set(frontend.split(" : "))


@pytest.mark.parametrize(
    "module, source, broken",
    [
        ("dialects/bad.py", "from s4tf.passes import registry\n", "s4tf.dialects is not allowed to import s4tf.passes"),
        ("passes/bad.py", "import s4tf.runtime.cache\n", "s4tf.passes is not allowed to import s4tf.runtime"),
        ("runtime/bad.py", "from s4tf.staging import function\n", "s4tf.runtime is not allowed to import s4tf.staging"),
        ("new_module.py", "from s4tf.tools import cli\n", "s4tf.new_module is not allowed to import s4tf.tools"),
        ("core/errors.py", "from s4tf.dialects import types\n", "s4tf.core is not allowed to import s4tf.dialects"),
        ("core/locations.py", "from s4tf.staging import tracing\n", "s4tf.core is not allowed to import s4tf.staging"),
    ],
)
def test_an_import_from_a_higher_layer_breaks_the_contract(tree, module, source, broken):
    (tree / "s4tf" / module).write_text(source)
    result = lint(tree)
    assert result.returncode == 1 and broken in result.stdout, result.stdout + result.stderr
