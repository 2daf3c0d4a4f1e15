"""Serving a study to annotators' web browsers (``crmtui serve``), through textual-serve.

Public API: :class:`ServeOptions`, :func:`serve_study`, :func:`check_options`; the aiohttp
server itself is :class:`crmtui.serve.server.StudyServer`. No textual import here: the app
runs in child processes (``crmtui play --study``).
"""

from crmtui.serve.run import ServeOptions, check_options, is_loopback, serve_study

__all__ = ["ServeOptions", "check_options", "is_loopback", "serve_study"]
