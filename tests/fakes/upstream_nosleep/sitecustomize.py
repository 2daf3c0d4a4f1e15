"""Test-only start-up hook for upstream's harness: skip its politeness sleeps.

Upstream's ToolCallAgent sleeps 3 s before every model call and run_tasks.py 1 s after every
task (rate-limit courtesy to real providers). Against a scripted local server they only cost
test time, so ``time.sleep`` returns at once when called from upstream's own files; nothing
else changes. crmtui's hook (``crmtui/upstream/hook_site.py``) runs this file after itself.
"""

import sys
import time

_real_sleep = time.sleep


def _sleep(seconds: float) -> None:
    caller = sys._getframe(1).f_code.co_filename
    if "crm_sandbox" in caller or caller.endswith("run_tasks.py"):
        return
    _real_sleep(seconds)


time.sleep = _sleep
