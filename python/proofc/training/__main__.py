"""`python -m proofc.training ...`: the command line of `proofc train` (cli.py)."""
import sys

from proofc.training.cli import main

sys.exit(main())
