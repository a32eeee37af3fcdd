"""The fenced blocks of the README and docs/, and running them as a reader would.

Every block names its language. ``python``, ``sh`` and ``console`` blocks run, page by page
and in order, in one folder per page that starts as a copy of docs/examples/; Python blocks
of a page share one namespace. A ``console`` block is commands (``$ ``, continued by a
trailing backslash) each followed by its expected output (stdout and stderr), compared
line by line; a ``...`` line stands for any lines. Other languages (``text``, ``mlir``,
``c``, ...) are shown, not run.

An HTML comment on the lines just before a fence says more about the block:

- ``<!-- docs: not run: REASON -->``: the block is never run;
- ``<!-- docs: slow: REASON -->``: the block runs only in the test marked ``slow``, with
  the rest of its page;
- ``<!-- docs: approximate: REASON -->``: a ``console`` block whose numbers may differ
  from run to run (times, losses): numbers are compared as "some number";
- ``<!-- docs: file: NAME.py -->``: a Python block that the page calls by a file name: it
  runs from that file (its locations name it);
- ``<!-- docs: needs: qemu-aarch64 -->``: a block that runs arm64 code under qemu (the test
  provides the aarch64 runtime, or skips where qemu is missing).

Output names files relative to the page's folder, as a reader's would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DOCS = REPOSITORY / "docs"
EXAMPLES = DOCS / "examples"
PAGES = [REPOSITORY / "README.md", *sorted(DOCS.glob("*.md"))]

RUNNABLE = ("python", "sh", "console")
MARKERS = ("not run", "slow", "approximate", "file", "needs")
NEEDS = ("qemu-aarch64",)

_FENCE = re.compile(r"^(`{3,})([^`\s]*)\s*$")
_MARKER = re.compile(r"^<!-- docs: ([a-z ]+?)(?:: (.*?))? -->$")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence
    language: str
    text: str
    markers: dict[str, str] = field(default_factory=dict)  # marker -> reason

    @property
    def where(self) -> str:
        page = self.page.relative_to(REPOSITORY) if self.page.is_relative_to(REPOSITORY) else self.page.name
        return f"{page}:{self.line}"

    def runs(self, slow: bool) -> bool:
        return self.language in RUNNABLE and "not run" not in self.markers and (slow or "slow" not in self.markers)


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, with the ``docs:`` markers on the lines before each."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, index = [], 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        ticks, language = match.groups()
        end = index + 1
        while end < len(lines) and not (lines[end].startswith(ticks) and not lines[end].strip("`")):
            end += 1
        markers, before = {}, index - 1
        while before >= 0 and lines[before].startswith("<!--"):
            marker = _MARKER.match(lines[before])
            if marker:
                markers[marker.group(1)] = marker.group(2) or ""
            before -= 1
        found.append(Block(page, index + 1, language, "\n".join(lines[index + 1 : end]) + "\n", markers))
        index = end + 1
    return found


def problems(block: Block) -> list[str]:
    """What is wrong with a block's labels: no language, unknown markers, no reasons."""
    found = []
    if not block.language:
        found.append(f"{block.where}: the block names no language (python, sh, console, text, mlir, ...)")
    for marker, reason in block.markers.items():
        if marker not in MARKERS:
            found.append(f"{block.where}: unknown marker 'docs: {marker}' (known: {', '.join(MARKERS)})")
        elif not reason.strip():
            found.append(f"{block.where}: 'docs: {marker}' needs a reason: <!-- docs: {marker}: why -->")
    if "approximate" in block.markers and block.language != "console":
        found.append(f"{block.where}: 'docs: approximate' is for console blocks")
    if block.markers.get("needs", NEEDS[0]) not in NEEDS:
        found.append(f"{block.where}: 'docs: needs' knows only {', '.join(NEEDS)}")
    if "file" in block.markers and block.language != "python":
        found.append(f"{block.where}: 'docs: file' is for Python blocks")
    return found


def environment() -> dict[str, str]:
    """This environment, with this interpreter's scripts (s4tf-run, python) first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def prepare(folder: Path) -> None:
    """The folder a page's blocks run in: a copy of docs/examples/."""
    shutil.copytree(EXAMPLES, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))


def run_python(block: Block, namespace: dict, folder: Path) -> None:
    """Run a Python block in the page's namespace, from a file of its own (so that
    ``inspect`` finds the source, as for control flow on tensors)."""
    source = folder / block.markers.get("file", f"{block.page.stem.replace('-', '_')}_{block.line}.py")
    source.write_text(block.text, encoding="utf-8")
    exec(compile(block.text, str(source), "exec"), namespace)  # noqa: S102  (the docs' own code)


def run_shell(block: Block, folder: Path, timeout_s: float = 600) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.text], cwd=folder, env=environment(),
        capture_output=True, text=True, timeout=timeout_s,
    )
    if done.returncode != 0:
        raise AssertionError(f"{block.where}: exit code {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


def console_steps(block: Block) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` of a console block."""
    steps, lines = [], block.text.splitlines()
    index = 0
    while index < len(lines):
        if not lines[index].startswith("$ "):
            raise AssertionError(f"{block.where}: console blocks start each command with '$ ': {lines[index]!r}")
        command = lines[index][2:]
        while command.endswith("\\") and index + 1 < len(lines):
            index += 1
            command = command[:-1] + "\n" + lines[index]
        index += 1
        output = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        steps.append((command, output))
    return steps


def output_matches(expected: list[str], actual: list[str], approximate: bool) -> bool:
    """Whether ``actual`` is ``expected``, where a ``...`` line stands for any lines and,
    when ``approximate``, any number for any number."""

    def same(want: str, got: str) -> bool:
        if approximate:
            want, got = _NUMBER.sub("0", want), _NUMBER.sub("0", got)
        return want.rstrip() == got.rstrip()

    def match(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        if expected[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and same(expected[i], actual[j]) and match(i + 1, j + 1)

    return match(0, 0)


def run_console(block: Block, folder: Path, timeout_s: float = 600) -> None:
    for command, expected in console_steps(block):
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command], cwd=folder, env=environment(),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout_s,
        )
        actual = done.stdout.replace(f"{folder}{os.sep}", "").splitlines()
        if not output_matches(expected, actual, "approximate" in block.markers):
            raise AssertionError(
                f"{block.where}: `{command}` printed\n" + "\n".join(actual) + "\n\nbut the page says\n" + "\n".join(expected)
            )


def run_page(page: Path, folder: Path, slow: bool) -> int:
    """Run the blocks of ``page`` that run (with the slow ones when ``slow``) in ``folder``,
    the current directory meanwhile; returns how many ran."""
    prepare(folder)
    namespace = {"__name__": "__main__"}
    environ = dict(os.environ)
    here = os.getcwd()
    ran = 0
    try:
        os.chdir(folder)
        for block in blocks(page):
            if not block.runs(slow):
                continue
            {"python": lambda b: run_python(b, namespace, folder), "sh": lambda b: run_shell(b, folder),
             "console": lambda b: run_console(b, folder)}[block.language](block)
            ran += 1
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(environ)
    return ran
