"""The ``analogist`` command line: click groups, one module per group, only public library
calls; every command prints a table or, with ``--json``, machine-readable output."""
