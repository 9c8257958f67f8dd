"""``python -m tiedrank ...`` is the ``tiedrank`` command."""
from .cli import run

run()
