"""Run ``dipole-arbiter`` with the given arguments, then print its peak memory to stderr as
``PEAK <kilobytes>`` (the process's own maximum resident set: ``VmHWM`` of /proc/self/status).

Not ``getrusage``: on Linux its ``ru_maxrss`` survives ``execve``, so a process forked from a
big parent (pytest late in a run) reports the parent's size, not its own.

For memory tests and ``benchmarks/hostile_bench.py``:
``python tests/engines/peak_arbiter.py REPO_ROOT match ...``.
"""

import sys

sys.path.insert(0, sys.argv[1])

from arbiter.cli import main  # the repository given first, put first above

sys.argv = ["dipole-arbiter", *sys.argv[2:]]
try:
    main()
finally:
    with open("/proc/self/status") as status:
        peak_kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    print("PEAK", peak_kb, file=sys.stderr)
