"""The server's HTML: sign-in, "server full", and the page that hosts the terminal.

The terminal page is textual-serve's own (MIT), trimmed: no web-font request to a third
party (annotators' browsers talk to this server only) and a sign-out button (a form that
posts: a link could be followed by a prefetch).
"""

from __future__ import annotations

import html
import json

_STYLE = """
body { background: #0c181f; color: rgba(255,255,255,0.92); margin: 0;
       font-family: "Roboto Mono", Menlo, Consolas, monospace; }
main { max-width: 34rem; margin: 12vh auto; padding: 2rem; background: #12232d; }
h1 { font-size: 1.3rem; margin-top: 0; }
input { width: 100%; box-sizing: border-box; padding: .6rem; margin: .8rem 0;
        font: inherit; background: #0c181f; color: inherit; border: 1px solid #5e0ba7; }
button { padding: .6rem 1.6rem; background: #5e0ba7; color: white; border: none;
         font: inherit; cursor: pointer; }
button:hover { background: #ac5af4; }
.problem { color: #ff8f8f; }
.muted { color: rgba(255,255,255,0.6); font-size: .9rem; }
"""


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )


def sign_in_page(study: str, problem: str | None = None) -> str:
    """The sign-in form (with a problem line after a failed attempt)."""
    note = f"<p class='problem' id='problem'>{html.escape(problem)}</p>" if problem else ""
    return _page(
        f"Sign in · {study}",
        f"<h1>crmtui study <span id='study'>{html.escape(study)}</span></h1>"
        f"{note}"
        "<form method='post' action='/signin'>"
        "<label for='token'>Your access token</label>"
        "<input id='token' name='token' type='password' autocomplete='off' autofocus required>"
        "<button type='submit' id='sign-in'>Sign in</button></form>"
        "<p class='muted'>The researcher running the study gave you a token or a link "
        "containing it.</p>",
    )


def full_page(study: str, limit: int) -> str:
    """Shown when every session slot is taken."""
    return _page(
        f"Server full · {study}",
        "<h1 id='server-full'>The server is full</h1>"
        f"<p>All {limit} annotation sessions of study {html.escape(study)} are in use. "
        "Please try again in a few minutes; your work so far is saved.</p>"
        "<p><a href='/' style='color:#ac5af4'>Try again</a></p>",
    )


def sign_out_page(study: str) -> str:
    """``GET /signout``: a button that signs out (the GET itself changes nothing)."""
    return _page(
        f"Sign out · {study}",
        f"<h1>Sign out of study {html.escape(study)}?</h1>"
        "<p>Your open instance is saved and can be resumed when you sign in again.</p>"
        "<form method='post' action='/signout'>"
        "<button type='submit' id='sign-out'>Sign out</button></form>"
        "<p><a href='/' style='color:#ac5af4'>Back to the study</a></p>",
    )


def signed_out_page(study: str, problem: str | None = None) -> str:
    """After signing out (or the reason it could not be recorded)."""
    if problem:
        return _page(
            f"Sign-out failed · {study}",
            "<h1>Sign-out not recorded</h1>"
            f"<p class='problem' id='problem'>{html.escape(problem)}</p>"
            "<p>Tell the researcher running the study.</p>",
        )
    return _page(
        f"Signed out · {study}",
        "<h1 id='signed-out'>Signed out</h1><p>Your work is saved. To go on where you "
        "were, open your link again, or <a href='/' style='color:#ac5af4'>sign in "
        "with your token</a>.</p>",
    )


#: Close code the server ends a session with when its sign-in stopped counting
#: (:data:`crmtui.ui.web.SIGNED_OUT_CLOSE`).
SIGNED_OUT_CLOSE = 4001

#: Why the server ends a session (the close message; :meth:`StudyServer.revoked`).
TOKEN_ROTATED = "token rotated"
TOKEN_REVOKED = "token revoked"
SIGNED_OUT = "signed out"
REMOVED = "annotator no longer in the study"

_LINK_STILL_WORKS = (
    "Your work is saved: sign in again with your link to go on where you were.",
    "Sign in again",
)
_LINK_ENDED = (
    "Your work is saved, but your link no longer works: ask the researcher running the "
    "study for a new one, and open it to go on where you were.",
    "Sign in with a new link",
)
#: What the page of an ended session says to do next, by reason: true for each (after a
#: rotation or revocation the old link answers 401; after a sign-out it signs in again).
NEXT_STEP: dict[str, tuple[str, str]] = {
    SIGNED_OUT: _LINK_STILL_WORKS,
    TOKEN_ROTATED: _LINK_ENDED,
    TOKEN_REVOKED: _LINK_ENDED,
    REMOVED: (
        "Your work is saved. You are no longer an annotator of this study: ask the "
        "researcher running it if that is a mistake.",
        "Back to sign-in",
    ),
}


def ended_text(reason: str) -> tuple[str, str]:
    """The ended page's message and button for a session ended for ``reason``."""
    text, button = NEXT_STEP.get(reason, _LINK_ENDED)
    return f"Your sign-in has ended ({reason}). {text}", button


# Watches the terminal's websocket (textual.js opens it) for the server's "your sign-in has
# ended" close code, to say so (and what to do next) instead of the generic "Session ended".
_SIGNED_OUT_SCRIPT = """
(() => {
  const Native = window.WebSocket;
  const NEXT = STEPS;
  function Watched(url, protocols) {
    const socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket.addEventListener("close", (event) => {
      if (event.code !== CODE) return;
      const [text, button] = NEXT[event.reason] || NEXT[""];
      document.getElementById("closed-text").textContent =
        "Your sign-in has ended (" + event.reason + "). " + text;
      document.getElementById("open-again").textContent = button;
    });
    return socket;
  }
  Watched.prototype = Native.prototype;
  for (const key of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Watched[key] = Native[key];
  window.WebSocket = Watched;
})();
""".replace("CODE", str(SIGNED_OUT_CLOSE)).replace(
    "STEPS", json.dumps({**NEXT_STEP, "": _LINK_ENDED}).replace("</", "<\\/")
)


def app_page(
    *,
    title: str,
    static_url: str,
    websocket_url: str,
    font_size: int,
    script_url: str | None = None,
    stylesheet: str | None = None,
) -> str:
    """The page running the terminal: textual.js connects to ``websocket_url``.

    ``script_url`` is the script's (versioned) address, ``stylesheet`` xterm's CSS to inline
    (None: both loaded from ``static_url``, as textual-serve lays them out).
    """
    esc = html.escape
    script = script_url or f"{static_url}js/textual.js"
    if stylesheet is None:
        style = f'<link rel="stylesheet" href="{esc(static_url)}css/xterm.css">'
    else:  # "</" cannot end the style element early ("\/" is "/" in CSS)
        style = "<style>" + stylesheet.replace("</", "<\\/") + "</style>"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{esc(title)}</title>
{style}
<script>{_SIGNED_OUT_SCRIPT}</script>
<script defer src="{esc(script)}"></script>
<style>
  body {{ background: #0c181f; margin: 0; }}
  .textual-terminal {{ width: 100vw; height: calc(100vh - 1.4rem); opacity: 0;
                       transition: opacity 0.3s ease-out; }}
  body.-first-byte .textual-terminal {{ opacity: 1; }}
  #bar {{ height: 1.4rem; font: 0.8rem monospace; color: rgba(255,255,255,0.6);
          display: flex; justify-content: space-between; padding: 0 .6rem;
          align-items: center; }}
  #bar a, #bar button {{ color: #ac5af4; }}
  #bar form {{ margin: 0; }}
  #bar button {{ background: none; border: none; padding: 0; font: inherit;
                 text-decoration: underline; cursor: pointer; }}
  .closed {{ display: none; position: absolute; inset: 0; background: #0c181fe0;
             color: white; font: 1rem monospace; align-items: center;
             justify-content: center; flex-direction: column; z-index: 10; }}
  body.-closed .closed {{ display: flex; }}
  .closed button {{ margin-top: 1rem; padding: .6rem 1.6rem; background: #5e0ba7;
                    color: white; border: none; font: inherit; cursor: pointer; }}
</style>
</head>
<body>
  <div id="bar"><span>{esc(title)}</span>
    <form method="post" action="/signout"><button type="submit" id="sign-out">Sign out</button>
    </form></div>
  <div class="closed"><div id="closed-text">Session ended. Your work is saved.</div>
    <button type="button" id="open-again" onclick="window.location.href='/'">Open again</button>
  </div>
  <div id="terminal" class="textual-terminal"
       data-session-websocket-url="{esc(websocket_url)}"
       data-font-size="{int(font_size)}"></div>
</body>
</html>
"""
