"""The store: SQLite tables of spec §12 plus episodes, llm_calls and benchmark results.

:class:`Store` is the only way in; :mod:`migrations` holds the versioned schema, :mod:`db` the
connection and transaction helpers, :mod:`episodes` and :mod:`vocab` the row code.
"""

from analogist.store.store import AddReport, Derived, Store

__all__ = ["AddReport", "Derived", "Store"]
