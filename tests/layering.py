"""The layer contract of pyproject's ``[tool.importlinter]``, checked on the package as a
wheel lays it out.

pyproject's ``package-dir`` maps ``s4tf`` to ``frontend/`` and ``s4tf.dialects`` to
``dialects/`` (and so on), so the source folders are not one package tree that
import-linter's graph builder (grimp) could walk. ``wheel_tree`` builds that tree (as
setuptools lays out a wheel), ``contract_config`` writes the contract with its ``frontend``
layer spelled out as the modules present in that package, and ``lint`` runs
``lint-imports`` on the tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pyproject(root: Path = ROOT) -> dict:
    with open(root / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


def wheel_tree(dest: Path, root: Path = ROOT) -> Path:
    """The modules that pyproject installs, laid out under ``dest`` by setuptools' own
    ``build_py`` (what a wheel holds); ``dest``."""
    with tempfile.TemporaryDirectory() as egg_base:
        command = ["-c", "import setuptools; setuptools.setup()", "-q", "egg_info", "--egg-base", egg_base]
        subprocess.run(
            [sys.executable, *command, "build_py", "--build-lib", str(dest)],
            cwd=root, check=True, capture_output=True, text=True,
        )
    return dest


def _children(package: Path) -> list[str]:
    """The modules and subpackages directly inside ``package``."""
    names = [path.stem for path in package.glob("*.py") if path.stem != "__init__"]
    names += [path.name for path in package.iterdir() if (path / "__init__.py").exists()]
    return sorted(names)


def contract_config(tree: Path, root: Path = ROOT) -> str:
    """pyproject's ``[tool.importlinter]`` as an INI file for ``tree``, where a layer named
    after the root package's folder (``frontend``) becomes every module of that package
    that no other layer (nor ``exhaustive_ignores``) names."""
    project = pyproject(root)
    options = project["tool"]["importlinter"]
    root_package = options["root_package"]
    root_folder = project["tool"]["setuptools"]["package-dir"][root_package]
    lines = ["[importlinter]", f"root_package = {root_package}"]
    for number, contract in enumerate(options["contracts"]):
        lines.append(f"[importlinter:contract:{number}]")
        placed = {name.strip() for layer in contract["layers"] for name in layer.split(":")}
        placed |= set(contract.get("exhaustive_ignores", []))
        for key, value in contract.items():
            if key == "layers":
                rest = [name for name in _children(tree / root_package) if name not in placed]
                value = [" : ".join(rest) if layer == root_folder else layer for layer in value]
            if isinstance(value, list):
                value = "".join(f"\n    {item}" for item in value)
            elif isinstance(value, bool):
                value = str(value).lower()
            lines.append(f"{key} = {value}")
    return "\n".join(lines) + "\n"


def lint(tree: Path, root: Path = ROOT) -> subprocess.CompletedProcess:
    """Run ``lint-imports`` on ``tree`` (which ``s4tf`` it imports: the tree's, not the
    editable install's) with the contracts of ``root``'s pyproject."""
    config = tree / "importlinter.ini"
    config.write_text(contract_config(tree, root))
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"]
    return subprocess.run(
        [*command, "--config", str(config), "--no-cache", "--no-logo"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
