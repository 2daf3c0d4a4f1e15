"""Serving a study to annotators' web browsers (``crmtui serve``): the options and checks.

Public API: :class:`ServeOptions`, :func:`check_options`, :func:`is_loopback`,
:func:`ssl_context`, :func:`listen_error`; the sign-in and
full pages are :mod:`crmtui.serve.pages`; the bounds on what a browser may send (terminal
sizes, websocket messages, unparsable requests) are :mod:`crmtui.serve.wire`; the
pre-started app processes are :mod:`crmtui.serve.pool`. The server itself, built on
textual-serve, is :mod:`crmtui.ui.web` (:class:`~crmtui.ui.web.StudyServer`,
:func:`~crmtui.ui.web.serve_study`). No textual import here: the apps run in child
processes (forked from :mod:`crmtui.ui.standby`, or ``crmtui play --study``).
"""

from crmtui.serve.run import ServeOptions, check_options, is_loopback, listen_error, ssl_context

__all__ = ["ServeOptions", "check_options", "is_loopback", "listen_error", "ssl_context"]
