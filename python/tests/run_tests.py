"""Runs the pytest files named on the command line (default: all of
python/tests) for ctest: exit 77, which ctest reports as skipped, with one
line saying what is missing when this interpreter has no pytest or numpy
(apt-get install python3-pytest python3-numpy; the torch tests also skip
themselves without python3-torch)."""
import importlib.util
import os
import sys

missing = [m for m in ("pytest", "numpy") if importlib.util.find_spec(m) is None]
if missing:
    print(f"SKIPPED: {sys.executable} has no {' or '.join(missing)}: the Python tests "
          f"need them (apt-get install python3-pytest python3-numpy)")
    sys.exit(77)

import pytest  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
files = sys.argv[1:] or [here]
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs",
                      *[os.path.join(here, f) if not os.path.isabs(f) else f for f in files]]))
