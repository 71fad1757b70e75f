"""`python -m stepsmith.server [--tcp HOST:PORT]` — what editors launch."""

import sys

# first, before any other import: nothing may come from the folder the server was started in
from stepsmith.server.safepath import drop_start_folder

drop_start_folder()

from stepsmith.server.main import main

sys.exit(main(sys.argv[1:]))
