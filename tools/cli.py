"""What the command-line tools share: user errors become one line on stderr and exit code 1.

```python
def run(argv=None) -> int:
    options = argument_parser().parse_args(argv)
    return report_errors("s4tf-run", lambda: work(options))
```
"""

from __future__ import annotations

import sys
from typing import Callable

from s4tf.errors import S4tfError


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
