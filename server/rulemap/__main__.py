import sys

from rulemap.cli.main import main

sys.exit(main())
