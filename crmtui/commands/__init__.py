"""The CLI's subcommands, one module each, imported by :mod:`crmtui.cli` only when invoked.

Each command is a few lines over a library call; the top layer with :mod:`crmtui.cli`.
"""
