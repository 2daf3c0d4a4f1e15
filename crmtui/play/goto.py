"""Go to a record by its Id: the Id's key prefix names the object.

:func:`parse_record_id` turns what the user typed (or pasted, with quotes or spaces around
it) into ``(object, 18-character Id)``, or raises :class:`GotoError` with a message that
says what is wrong: not an Id at all, or a key prefix no object of the org has (listing the
prefixes that exist). Whether the record exists is for the browser to find out.
"""

from __future__ import annotations

import re

from crmtui.data.schema import Schema
from crmtui.errors import CrmtuiError

_ID = re.compile(r"[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?")


class GotoError(CrmtuiError):
    """The text is not the Id of a record of this org's objects."""


def looks_like_id(text: str) -> bool:
    """Whether ``text`` has the shape of a Salesforce Id (15 or 18 letters and digits)."""
    return _ID.fullmatch(text.strip().strip("'\"")) is not None


def restore_case(record_id: str) -> str:
    """An 18-character Id with its letters' case restored from the case-safe suffix.

    The last three characters say which of the first fifteen are upper case, so an Id typed
    or copied in the wrong case still names one record. Returned unchanged when the suffix
    does not decode.
    """
    from crmtui.org.generator.ids import SUFFIX_ALPHABET

    suffix = record_id[15:].upper()
    if len(record_id) != 18 or any(c not in SUFFIX_ALPHABET for c in suffix):
        return record_id
    chars = list(record_id[:15])
    for chunk, code in enumerate(suffix):
        bits = SUFFIX_ALPHABET.index(code)
        for offset in range(5):
            position = chunk * 5 + offset
            upper = bool(bits & (1 << offset))
            if chars[position].isalpha():
                chars[position] = chars[position].upper() if upper else chars[position].lower()
    return "".join(chars) + suffix


def parse_record_id(schema: Schema, text: str) -> tuple[str, str]:
    """The object and 18-character Id that ``text`` names.

    Raises:
        GotoError: ``text`` is not an Id, or no object has its key prefix.
    """
    record_id = text.strip().strip("'\"").strip()
    if not record_id:
        raise GotoError("Type a record Id, e.g. 500Ws000006ua8JIAQ (a Case)")
    if not _ID.fullmatch(record_id):
        raise GotoError(
            f"'{record_id}' is not a record Id: Ids are 15 or 18 letters and digits, "
            "e.g. 500Ws000006ua8JIAQ"
        )
    if len(record_id) == 15:
        from crmtui.org.generator.ids import to18

        record_id = to18(record_id)
    else:
        record_id = restore_case(record_id)
    obj = schema.object_for_id(record_id)
    if obj is None:
        known = ", ".join(f"{o.key_prefix} {o.name}" for o in schema if o.key_prefix)
        raise GotoError(
            f"No object of this org has the key prefix '{record_id[:3]}' "
            f"(the first three characters of an Id). Known prefixes: {known}"
        )
    return obj.name, record_id
