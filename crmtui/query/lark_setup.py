"""Import lark without the third-party ``regex`` module (imported first by the package).

lark imports ``regex`` when it is installed (it is, for litellm's tokenizers), though it
uses it only for grammars with Unicode categories (``\\p{...}``) or ``Lark(regex=True)``;
ours have neither. Importing it costs ~20 ms of every ``crmtui query``. So lark is imported
here with ``regex`` hidden for that moment; a later ``import regex`` (litellm) works as ever.
"""

from __future__ import annotations

import sys


def import_lark() -> None:
    """Import lark, hiding ``regex`` from it unless something has loaded it already."""
    if "lark" in sys.modules or "regex" in sys.modules:
        import lark  # noqa: F401 - loaded already, or regex is there anyway

        return
    sys.modules["regex"] = None  # type: ignore[assignment]  # `import regex` fails fast
    try:
        import lark  # noqa: F401
    finally:
        if sys.modules.get("regex", 0) is None:
            del sys.modules["regex"]


import_lark()
