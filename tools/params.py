"""``s4tf-params``: write, read and list IREE parameter archives (``.irpa``), the weights a
module compiled with weights apart from its code reads.

```
s4tf-params show predict.irpa                       # name, dtype, shape, bytes of each array
s4tf-params pack new.irpa w=@w.npy b=@b.npy         # keys as the module reads them
s4tf-params pack new.irpa weights.npz               # one key per member of the .npz
s4tf-params unpack predict.irpa -o weights.npz      # back to NumPy
```

Keys are what ``s4tf-run model.vmfb --list`` shows the module reads: the name of each
weight argument (``w``), ``model.0``, ``model.1``, ... for the arrays of a pytree argument.
``pack`` writes the archive's checksum beside it (``new.irpa.sha256``). Errors are one line
on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
import numpy as np

from s4tf.deploy import load_parameters, save_parameters
from s4tf.dialects.types import canonical_dtype, to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.runtime.parameters import archive_contents
from s4tf.tools.cli import add_version, report_errors, table


class UsageError(S4tfError, ValueError):
    """Command-line input that cannot be used."""


def read_arrays(specs: list[str]) -> dict[str, np.ndarray]:
    """``KEY=@file.npy`` and ``file.npz`` arguments as one ``key -> array`` dict."""
    arrays = {}
    for spec in specs:
        key, equals, source = spec.partition("=")
        if equals and source.startswith("@"):
            found = {key: _load(source[1:])}
        elif not equals and spec.endswith(".npz"):
            found = _load(spec)
        else:
            raise UsageError(f"bad array '{spec}': write KEY=@file.npy or give a .npz file")
        repeated = sorted(set(found) & set(arrays))
        if repeated:
            raise UsageError(f"key '{repeated[0]}' is given twice")
        arrays.update(found)
    return arrays


def _load(path: str):
    """The array of a ``.npy``, or the members of a ``.npz`` by name."""
    try:
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.ndarray):
            return loaded
        with loaded:
            return {name: loaded[name] for name in loaded.files}
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None


def show(path: str) -> str:
    rows = [("name", "dtype", "shape", "bytes")]
    for key, (shape, dtype, size) in archive_contents(path).items():
        kind = canonical_dtype(np.dtype(dtype)) if dtype is not None else "?"
        rows.append((key, kind, str(list(shape)) if shape is not None else "?", str(size)))
    return "\n".join(table(rows))


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s4tf-params",
        description="Write, read and list IREE parameter archives (.irpa): a module's weights apart from its code.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  s4tf-params show predict.irpa\n  s4tf-params pack new.irpa w=@w.npy b=@b.npy\n"
        "  s4tf-params unpack predict.irpa -o weights.npz",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    listing = commands.add_parser("show", help="list the arrays of an archive: name, dtype, shape, bytes")
    listing.add_argument("archive", help="the .irpa file")
    pack = commands.add_parser("pack", help="write arrays (.npy, .npz) into an archive")
    pack.add_argument("archive", help="the .irpa file to write")
    pack.add_argument("arrays", nargs="+", metavar="KEY=@file.npy|file.npz", help="the arrays and their keys")
    unpack = commands.add_parser("unpack", help="write the arrays of an archive to a .npz")
    unpack.add_argument("archive", help="the .irpa file")
    unpack.add_argument("-o", dest="output", required=True, metavar="FILE.npz", help="the .npz to write")
    return add_version(parser)


def run(argv: list[str] | None = None) -> int:
    """The whole tool; returns the exit code."""
    options = argument_parser().parse_args(argv)

    def work() -> None:
        if options.command == "show":
            print(show(options.archive))
        elif options.command == "pack":
            path = save_parameters(options.archive, read_arrays(options.arrays))
            print(f"wrote {path} ({path.stat().st_size} bytes) and {path.name}.sha256", file=sys.stderr)
        else:
            arrays = load_parameters(options.archive)
            for key, array in arrays.items():
                if array.dtype == to_numpy_dtype("bf16"):
                    raise UsageError(f"parameter '{key}' is bfloat16, which .npz files cannot hold; "
                                     "read it with s4tf.load_parameters")
            np.savez(options.output, **arrays)
            print(f"wrote {options.output}", file=sys.stderr)

    return report_errors("s4tf-params", work)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
