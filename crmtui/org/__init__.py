"""Orgs: the SQLite store, the raw-layout importer, and the generated sample org.

* :mod:`.digest` (content digest, table introspection) < :mod:`.layout` (reading upstream's
  raw layout) < :mod:`.store` (open read-only, write atomically) < :mod:`.importer`;
* :mod:`.generator` (the synthetic org), :mod:`.solvers` (reference solvers) and the task
  builder (:mod:`.tasks`, :mod:`.task_samplers`, :mod:`.task_facts`, :mod:`.task_texts`)
  come together in :mod:`.build`; so do their CRMArena-Pro counterparts
  (:mod:`.generator.pro`, :mod:`.solvers.pro`, :mod:`.pro_tasks`) for ``--org-type``;
* :mod:`.sample` finds or builds the sample org and its tasks, above the store and the
  builder: the store never builds anything.

Importing this package is cheap: its names load the store on first use (PEP 562), and the
generator and the importer only when used. :mod:`.files` reads an org file's stored schema
without building it (``crmtui query``'s stored plans).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmtui.org.store import ObjectInfo, Org, OrgInfo, open_org, write_org


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'crmtui.org' has no attribute {name!r}")
    from crmtui.org import store

    value = getattr(store, name)
    globals()[name] = value
    return value


__all__ = ["ObjectInfo", "Org", "OrgInfo", "open_org", "write_org"]
