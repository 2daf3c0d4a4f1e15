"""The SQLite org store: open, write, import and inspect org databases.

Importing this package is cheap; the generator (:mod:`crmtui.org.build`) and the importer are
loaded only when used.
"""

from crmtui.org.store import ObjectInfo, Org, OrgInfo, open_org, write_org

__all__ = ["ObjectInfo", "Org", "OrgInfo", "open_org", "write_org"]
