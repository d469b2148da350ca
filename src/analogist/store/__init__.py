"""The store: memory, the analogy log, the model-call log and benchmark results.

:class:`StoreInterface` (:mod:`interface`) names every operation the rest of the code needs;
:class:`Store` is its SQLite backend (:mod:`store` plus the row mixins :mod:`runs`,
:mod:`bench`, :mod:`schemas`, :mod:`index_reads`); :mod:`migrations` holds the versioned
schema, :mod:`db` the connection and transaction helpers, :mod:`episodes`, :mod:`vocab` and
:mod:`calls` the row code. Nothing outside this package sees a connection or SQL.
"""

from analogist.store.bench import BenchResultRow, ResultKey
from analogist.store.calls import CallLog, CallRecord
from analogist.store.db import BACKEND_ERRORS
from analogist.store.interface import StoreInterface
from analogist.store.runs import LedgerRow, TransferOutcome
from analogist.store.schemas import SchemaRow
from analogist.store.store import AddReport, Derived, Store

__all__ = [
    "BACKEND_ERRORS",
    "AddReport",
    "BenchResultRow",
    "CallLog",
    "CallRecord",
    "Derived",
    "LedgerRow",
    "ResultKey",
    "SchemaRow",
    "Store",
    "StoreInterface",
    "TransferOutcome",
]
