"""lark without the third-party ``regex`` module: an import hook installed by the package.

lark imports ``regex`` when it is installed (it is, for litellm's tokenizers), though it
uses it only for grammars with Unicode categories (``\\p{...}``) or ``Lark(regex=True)``;
ours have neither. Importing it was a noticeable part of every ``crmtui query``
(docs/performance.md). So while lark itself
is being imported (whenever that is: the package is imported lazily), ``regex`` is hidden; a
later ``import regex`` (litellm) works as ever.
"""

from __future__ import annotations

import importlib.machinery
import sys
from typing import Any


class HideRegexFromLark:
    """A ``sys.meta_path`` finder that runs lark's ``__init__`` with ``regex`` hidden."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "lark":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            hide = "regex" not in sys.modules
            if hide:
                sys.modules["regex"] = None  # type: ignore[assignment]  # `import regex` fails
            try:
                load(module)
            finally:
                if hide and sys.modules.get("regex", 0) is None:
                    del sys.modules["regex"]

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Put the hook first on ``sys.meta_path`` (once; nothing if lark is loaded already)."""
    if "lark" in sys.modules or any(isinstance(f, HideRegexFromLark) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, HideRegexFromLark())


install()
