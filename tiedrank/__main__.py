"""``python -m tiedrank ...`` is the ``tiedrank`` command."""
import sys

from .cli import main

sys.exit(main())
