"""``python -m classroom``: ``make serve`` (see ``classroom.deploy``)."""

import sys

from classroom.deploy import main

sys.exit(main())
