import sys

from stepsmith.runner.cli import main

sys.exit(main())
