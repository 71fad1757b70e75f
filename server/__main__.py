"""`python -m stepsmith.server [--tcp HOST:PORT]` — what editors launch."""

import sys

from stepsmith.server.main import main

sys.exit(main(sys.argv[1:]))
