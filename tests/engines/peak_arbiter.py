"""Run ``dipole-arbiter`` with the given arguments, then print its peak memory to stderr as
``PEAK <kilobytes>`` (the process's own maximum resident set, from ``getrusage``).

For memory tests and ``benchmarks/hostile_bench.py``:
``python tests/engines/peak_arbiter.py REPO_ROOT match ...``.
"""

import resource
import sys

sys.path.insert(0, sys.argv[1])

from arbiter.cli import main  # noqa: E402  (the repository given first, put first above)

sys.argv = ["dipole-arbiter", *sys.argv[2:]]
try:
    main()
finally:
    print("PEAK", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
