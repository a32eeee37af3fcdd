"""What the command-line tools share: user errors become one line on stderr and exit code 1,
``--version``, and LLVM's single-dash spelling of long options.

```python
def run(argv=None) -> int:
    options = argument_parser().parse_args(argv)
    return report_errors("s4tf-run", lambda: work(options))
```
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from typing import Callable

from s4tf.core.errors import S4tfError
from s4tf.core.version import __version__


def report_errors(tool: str, work: Callable[[], None]) -> int:
    """Run ``work``; an :class:`S4tfError` or a file that cannot be written is printed as
    ``tool: error: ...`` and gives exit code 1, success gives 0."""
    try:
        work()
    except S4tfError as error:
        print(f"{tool}: error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{tool}: error: cannot write {error.filename}: {error.strerror}", file=sys.stderr)
        return 1
    return 0


def table(rows: list[tuple[str, ...]]) -> list[str]:
    """``rows`` (the first is the header) as lines of left-aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def version_text(tool: str) -> str:
    """``s4tf-opt 0.1.0 (iree-base-compiler 3.13.0, iree-base-runtime 3.13.0)``."""
    versions = []
    for package in ("iree-base-compiler", "iree-base-runtime"):
        try:
            versions.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{package} not installed")
    return f"{tool} {__version__} ({', '.join(versions)})"


def add_version(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give ``parser`` a ``--version`` that prints :func:`version_text` and exits."""
    parser.add_argument("--version", action="version", version=version_text(parser.prog),
                        help="print the versions of s4tf and IREE and exit")
    return parser


class LlvmStyleParser(argparse.ArgumentParser):
    """An argument parser that also takes long options with one dash, as LLVM tools do
    (``-split-input-file``, ``-pass-pipeline=...``). A word is read as a long option only
    when its name, up to any ``=``, is one; ``-pcse`` stays ``-p cse``."""

    def parse_known_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(self._with_two_dashes(args), namespace)

    def _with_two_dashes(self, args: list[str]) -> list[str]:
        long_options = {s for s in self._option_string_actions if s.startswith("--")}
        rewritten = []
        for index, word in enumerate(args):
            if word == "--":
                return rewritten + args[index:]
            if word.startswith("-") and not word.startswith("--") and "-" + word.split("=", 1)[0] in long_options:
                word = "-" + word
            rewritten.append(word)
        return rewritten
