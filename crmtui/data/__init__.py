"""Instances, task types, the org schema and task loaders (the only importer of ``datasets``).

The bottom layer above ``crmtui.errors`` and ``crmtui.paths``: it imports no other crmtui
package. The sample org's tasks come in through the loaders' ``sample_tasks`` argument.
"""
