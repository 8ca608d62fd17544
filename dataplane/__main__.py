"""``python -m dataplane``: the ``dataplane`` command under any interpreter (``pypy3 -m dataplane``)."""
from dataplane.cli import entry

entry()
