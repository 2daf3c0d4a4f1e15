"""Recording sessions: event types, the append-only hash-chained recorder, and verify.

One JSONL file per session: a header line, then one event per line, each sealed with a
sha256 hash and chained to the line before. See :mod:`crmtui.record.format`.

Also here: :mod:`.sessions` (finding unfinished sessions to resume), :mod:`.debounce` and
:mod:`.equivalent` (the SOQL/SOSL a browse action is equivalent to). Reading recordings back
(replay, compare, report, export) is :mod:`crmtui.review`'s job.
"""

from crmtui.record.debounce import Debouncer
from crmtui.record.errors import PayloadError, QueryBuildError, RecordingError, RecordingInUse
from crmtui.record.events import BROWSE_TYPES, EVENT_TYPES, Event, validate_payload
from crmtui.record.format import FORMAT_NAME, FORMAT_VERSION, canonical_json
from crmtui.record.recorder import Recorder, close_unfinished, resume
from crmtui.record.sessions import find_unfinished
from crmtui.record.verify import Recording, VerifyReport, load, scan, verify

__all__ = [
    "BROWSE_TYPES",
    "EVENT_TYPES",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Debouncer",
    "Event",
    "PayloadError",
    "QueryBuildError",
    "Recorder",
    "Recording",
    "RecordingError",
    "RecordingInUse",
    "VerifyReport",
    "canonical_json",
    "close_unfinished",
    "find_unfinished",
    "load",
    "resume",
    "scan",
    "validate_payload",
    "verify",
]
