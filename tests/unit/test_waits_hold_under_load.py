"""The suite passes on a busy machine: no wall-time bound, short hang guard or fixed pause
that a loaded machine (two other test suites on the same two cores) breaks.

Three rules, over every test file (the sibling test_waits_are_deadlines.py forbids counted
pause loops):

* An assert never bounds a wall-clock duration (``time.monotonic()``, ``perf_counter()``,
  ``time.time()`` differences) by a bare number: "at once, not after the timeout" is bounded
  by ``tests.waiting.promptly`` (scaled with the load, kept below the wait it stands
  against); a cost by CPU seconds (``time.process_time()``); a speed target is a benchmark's.
* A wait for a thread, a child process, a server or a browser (``join``, ``wait``,
  ``communicate``, ``urlopen``, ``asyncio.timeout`` ...) is not given a timeout under
  :data:`SHORTEST_GUARD_S`: it only guards a hang, so it is generous (the patience).
* A fixed pause of :data:`LONGEST_PAUSE_S` or more is not a wait for a state (wait with
  ``tests.waiting.until``/``poll`` instead), except where :data:`PAUSES` says why it is not
  one.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

#: Clock reads whose differences are wall time (process_time is CPU time: allowed).
CLOCKS = {"monotonic", "perf_counter", "time"}
#: Attributes that hold a wall-clock duration a call measured and returned (a build's
#: ``result.seconds``): asserting them against a bare number is a speed target too.
DURATIONS = {"seconds", "elapsed", "elapsed_s", "wall_s", "duration_s"}
#: Calls that wait for another party and take a hang guard, by name.
WAITS = {
    "join", "wait", "communicate", "urlopen", "open", "create_connection", "HTTPConnection",
    "HTTPSConnection", "timeout", "wait_for", "wait_for_selector", "run", "get", "wait_until",
}  # fmt: skip
SHORTEST_GUARD_S = 10.0
LONGEST_PAUSE_S = 0.1

#: Fixed pauses that are not waits for a state, by (file, function): why.
PAUSES = {
    ("tests/ui/test_dialogue_agent.py", "test_the_model_library_loads_while_the_list_is_read"):
        "checks that nothing loads: a late machine can only make it pass",
    ("tests/ui/test_study_dialogue.py",
     "test_a_participant_in_the_user_role_talks_to_the_studys_model_agent"):
        "checks that nothing opens: a late machine can only make them pass",
    ("tests/ui/test_watch.py", "test_pause_after_current_step_then_resume_and_stop"):
        "checks that no further call starts while paused",
    ("tests/ui/test_replay.py", "test_space_plays_until_paused"):
        "checks that a paused playback stays where it is",
    ("tests/ui/test_parity_screens.py", "test_the_picker_labels_tell_no_confidentiality_type"):
        "the screen is searched for what must not be on it; the labels are read from widgets",
    ("tests/ui/test_play_flow.py", "test_a_hangup_saves_the_typing_and_keeps_the_attempt"):
        "lets the signal land; leaving the app saves the same way if it has not",
    ("tests/ui/test_study_play.py", "submit_gold"):
        "a snapshot's last frame; the snapshot waits for the screen to settle",
    ("tests/ui/test_study_play.py",
     "test_a_study_reopens_an_unfinished_instance_before_any_picker"):
        "the draft is saved on exit whether or not its debounce ran",
    ("tests/ui/test_hostile_input.py", "test_hostile_console_queries_and_search_keep_the_session"):
        "then waits for the workers; the check is that the app is alive",
    ("tests/ui/test_hostile_input.py", "test_a_crash_outside_workers_leaves_the_session_resumable"):
        "the app crashes; leaving run_test raises it whenever it comes",
    ("tests/ui/test_key_order.py", "on_mount"):
        "the slow screen under test (app code), not a wait",
    ("tests/serve/test_revocation.py", "test_a_rotated_token_ends_the_open_session_within_seconds"):
        "after a focus key; keys take effect in the order typed (crmtui/ui/key_order.py)",
    ("tests/unit/rest/test_server_starvation.py",
     "test_slow_and_idle_connections_do_not_starve_normal_clients"):
        "lets the hostile connections start; the check does not depend on it",
    ("tests/unit/rest/test_server_hostile.py",
     "test_clients_that_leave_before_their_answer_write_nothing"):
        "lets the reset connections' threads end; the check is that nothing is logged",
    ("tests/unit/rest/test_server_hostile.py",
     "test_keep_alive_requests_each_get_the_whole_timeout"):
        "the pauses are the behaviour under test (each under the 1 s timeout)",
    ("tests/unit/batch/test_run_interrupt.py",
     "test_ctrl_c_ends_a_real_run_at_once_with_consistent_files"):
        "lets the hung calls settle before Ctrl+C; the bound is on what follows",
    ("tests/unit/batch/test_real_model.py", "local_model_url"):
        "a poll interval in a 120 s deadline loop for a server to come up (slow-marked)",
}  # fmt: skip

#: Short hang guards that are not: (file, function): why.
GUARDS = {
    ("tests/unit/batch/test_real_model.py", "local_model_url"):
        "one try of a poll for a server to come up, inside a 120 s deadline (slow-marked)",
    ("tests/unit/rest/test_server_starvation.py", "trickle"):
        "a pacing interval (a byte every 0.2 s until stopped), not a guard",
    ("tests/serve/test_standby.py",
     "test_copies_take_turns_to_start_and_a_dead_copy_frees_its_turn"):
        "checks that a third start waits: a late machine can only make it pass",
}  # fmt: skip


def _number(node: ast.AST) -> float | None:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _reads_clock(node: ast.AST, timed: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and _name(sub) in CLOCKS:
            owner = getattr(sub.func, "value", None)
            if _name(sub) != "time" or getattr(owner, "id", "") == "time":
                return True
        if isinstance(sub, ast.Name) and sub.id in timed:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in DURATIONS:
            return True
    return False


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    yield "<module>", tree
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope`` outside the functions nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


@functools.cache
def _scopes(tree: ast.Module) -> tuple[tuple[str, tuple[ast.AST, ...]], ...]:
    """(function name, its own nodes) for the module and every function in it."""
    return tuple((name, tuple(_own_nodes(scope))) for name, scope in _functions(tree))


def wall_time_asserts(tree: ast.Module) -> list[int]:
    """Lines of asserts that bound a wall-clock duration by a bare number."""
    found = []
    for _, nodes in _scopes(tree):
        timed: set[str] = set()
        for node in nodes:  # names holding a clock reading or a duration
            if isinstance(node, ast.Assign) and _reads_clock(node.value, set()):
                timed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            appends = isinstance(node, ast.Call) and _name(node) == "append" and node.args
            if appends and _reads_clock(node.args[0], set()):  # type: ignore[union-attr]
                timed.add(getattr(node.func.value, "id", ""))  # type: ignore[union-attr]
        for node in nodes:
            if not isinstance(node, ast.Assert):
                continue
            for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
                sides = [compare.left, *compare.comparators]
                for op, low, high in zip(compare.ops, sides[:-1], sides[1:], strict=True):
                    if isinstance(op, ast.Gt | ast.GtE):
                        low, high = high, low
                    elif not isinstance(op, ast.Lt | ast.LtE):
                        continue
                    if _reads_clock(low, timed) and _number(high) is not None:
                        found.append(node.lineno)
    return sorted(set(found))


def short_guards(tree: ast.Module) -> list[tuple[str, int]]:
    """(function, line) of waits for another party given a timeout under the shortest."""
    found = []
    for function, nodes in _scopes(tree):
        for node in nodes:
            if not (isinstance(node, ast.Call) and _name(node) in WAITS):
                continue
            values = [k.value for k in node.keywords if k.arg == "timeout"]
            if _name(node) in {"join", "wait", "timeout"} and node.args:
                values.append(node.args[0])
            if any((n := _number(v)) is not None and n < SHORTEST_GUARD_S for v in values):
                found.append((function, node.lineno))
    return sorted(found, key=lambda hit: hit[1])


def fixed_pauses(tree: ast.Module) -> list[tuple[str, int]]:
    """(function, line) of pauses and sleeps of a fixed LONGEST_PAUSE_S or more."""
    found = []
    for function, nodes in _scopes(tree):
        for node in nodes:
            if isinstance(node, ast.Call) and _name(node) in {"pause", "sleep"} and node.args:
                seconds = _number(node.args[0])
                if seconds is not None and seconds >= LONGEST_PAUSE_S:
                    found.append((function, node.lineno))
    return sorted(found, key=lambda hit: hit[1])


@functools.cache
def _trees() -> tuple[tuple[str, ast.Module], ...]:
    """Every test file but this one, parsed once for all the checks."""
    return tuple(
        (path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name
    )


def test_no_assert_bounds_wall_time_by_a_bare_number() -> None:
    offenders = [f"{name}:{line}" for name, tree in _trees() for line in wall_time_asserts(tree)]
    assert not offenders, (
        "bound 'at once' with tests.waiting.promptly, a cost with time.process_time(), and move "
        "speed targets to benchmarks/: " + ", ".join(offenders)
    )


def test_no_wait_for_another_party_has_a_short_hang_guard() -> None:
    offenders = [
        f"{name}:{line} ({function})"
        for name, tree in _trees()
        for function, line in short_guards(tree)
        if (name, function) not in GUARDS
    ]
    assert not offenders, "give it tests.waiting.PATIENCE_S: " + ", ".join(offenders)


def test_no_fixed_pause_stands_in_for_a_state() -> None:
    offenders = [
        f"{name}:{line} ({function})"
        for name, tree in _trees()
        for function, line in fixed_pauses(tree)
        if (name, function) not in PAUSES
    ]
    assert not offenders, (
        "wait for the state (tests.waiting.until / poll), or say in PAUSES why it is not a "
        "wait: " + ", ".join(offenders)
    )


def test_the_allow_lists_name_pauses_and_guards_that_exist() -> None:
    """An entry outlives its pause when the code changes: it must go with it."""
    pauses = {(name, f) for name, tree in _trees() for f, _ in fixed_pauses(tree)}
    guards = {(name, f) for name, tree in _trees() for f, _ in short_guards(tree)}
    assert set(PAUSES) <= pauses, sorted(set(PAUSES) - pauses)
    assert set(GUARDS) <= guards, sorted(set(GUARDS) - guards)


def test_the_checks_find_what_they_forbid() -> None:
    code = ast.parse(
        "import time\n"
        "def t(proc, thread):\n"
        "    began = time.monotonic()\n"
        "    took = time.monotonic() - began\n"
        "    assert took < 3.0\n"  # 5
        "    assert time.perf_counter() - began < 2\n"  # 6
        "    assert 5 > took\n"  # 7
        "    assert 0.5 < took < promptly(3.0, instead=30)\n"  # allowed
        "    cpu = time.process_time()\n"
        "    assert time.process_time() - cpu < 2\n"  # CPU seconds: allowed
        "    proc.wait(timeout=5)\n"  # 11
        "    thread.join(2)\n"  # 12
        "    proc.communicate(timeout=PATIENCE_S)\n"
        "    time.sleep(0.3)\n"  # 14
        "    time.sleep(0.02)\n"
        "    assert build(proc).seconds < 3.0\n"  # 16: a duration the call measured
    )
    assert wall_time_asserts(code) == [5, 6, 7, 16]
    assert short_guards(code) == [("t", 11), ("t", 12)]
    assert fixed_pauses(code) == [("t", 14)]
