"""``python -m harness.subjects.example``: the example subject's child process."""

import sys

from . import main

sys.exit(main(sys.argv[1:]))
