"""The honest clock as properties, over generated event timings.

A real :class:`PlaySession` (recorder, debouncers, timer) is driven by a generated sequence
of waits, inputs (recorded or not), terminal focus changes, pauses, suspends (a closed tab:
the app lets go) and hard kills (nothing written), each followed by a reopen. Times are
multiples of 1/8 s (waits of quarters, sampled halfway), so floats and milliseconds agree
exactly. The properties:

* the live clock equals the fold of the recording at every moment (the fold sees the
  recording of the process that was running then; a killed process's last stretch, after
  its last event or in a gap it never closed, is not in its recording, and is left out);
* active time never decreases: on the live clock from moment to moment and across a
  suspend and reopen; on the fold of the final recording from ``ms`` to ``ms``; across a
  hard kill the reopened clock starts at or above the recorded time of the killed process;
* the final fold equals the final live clock, and every reader of the recording gives that
  same number: report and export (the summary), replay (its last frame) and study status
  (its quick read).
"""

from __future__ import annotations

import datetime as dt
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.play.session import PlaySession
from crmtui.record import events as ev
from crmtui.record.timing import Timeline, session_times
from crmtui.record.verify import load, verify
from crmtui.review.replay import replay
from crmtui.review.summary import summarize
from crmtui.study.status import read_facts
from tests.unit.play.sessions import ORG, Clock, instance

INSTANCE = instance(3, "handle_time", "Who is fastest?", "005A")
BASE = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
QUARTERS = st.integers(min_value=0, max_value=80).map(lambda n: n / 4)  # 0 .. 20 s

ACTIONS = st.one_of(
    st.tuples(st.just("wait"), QUARTERS),
    st.tuples(st.just("wait"), QUARTERS),  # waits twice as often: gaps pass the threshold
    st.tuples(st.sampled_from(["input", "browse", "blur", "focus", "pause", "resume"])),
    st.tuples(st.sampled_from(["suspend", "kill"]), QUARTERS),
)


@dataclass(frozen=True)
class Sample:
    """The live clock at one moment, and where the recording stood."""

    active_ms: float
    ms: int
    segment: int
    #: A gap under way had passed the threshold (the live clock held).
    holding: bool


class Run:
    """One generated session: the session, its clock, and the samples taken."""

    def __init__(self, folder: Path, threshold: float) -> None:
        self.clock = Clock()
        self.threshold = threshold
        self.session = PlaySession.begin(
            INSTANCE,
            ORG,
            actor={"kind": "human", "id": "ann"},
            tasks_source="sample",
            recordings=folder,
            clock=self.clock,
            wall=self.wall,
            fsync=False,
            idle_threshold=threshold,
        )
        self.samples: list[Sample] = []
        self.segment = 0
        #: Per segment: did it end with a hard kill?
        self.killed: list[bool] = []
        #: The recorded active time when each kill happened, and the clock after reopening.
        self.kill_checks: list[tuple[int, float]] = []
        self.suspend_checks: list[tuple[float, float]] = []

    def wall(self) -> dt.datetime:
        return BASE + dt.timedelta(seconds=self.clock.now)

    def ms_now(self) -> int:
        recorder = self.session.recorder
        return recorder._ms_base + round((self.clock.now - recorder.started_monotonic) * 1000)

    def sample(self) -> None:
        session = self.session
        self.samples.append(
            Sample(
                session.active_seconds * 1000,
                self.ms_now(),
                self.segment,
                session.timer.pending_idle() > 0,
            )
        )

    def reopen(self, gap: float) -> None:
        path = self.session.path
        self.clock.now += gap
        self.session = PlaySession.resume_from(
            path, INSTANCE, ORG, clock=self.clock, wall=self.wall, fsync=False,
            idle_threshold=self.threshold,
        )  # fmt: skip
        self.segment += 1

    def step(self, action: tuple) -> None:
        kind = action[0]
        session = self.session
        if kind == "wait":
            # Two samples inside the wait, so gaps are watched as they pass the threshold.
            for _ in range(2):
                self.clock.now += action[1] / 2
                self.sample()
            return
        if kind == "input":
            session.note_input()
        elif kind == "browse":
            session.note_input()
            session.record_browse("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
        elif kind in ("blur", "focus"):
            session.record_focus(kind == "focus")
        elif kind == "pause":
            session.note_input()  # F7 is a key
            session.pause()
        elif kind == "resume":
            session.resume()
        elif kind == "suspend":
            before = session.active_seconds
            session.suspend("disconnect")
            self.killed.append(False)
            self.reopen(action[1])
            self.suspend_checks.append((before, self.session.active_seconds))
        elif kind == "kill":
            recorded = session_times(load(session.path).events).active_ms
            session.recorder.suspend()  # SIGKILL: the file is let go, nothing written
            self.killed.append(True)
            self.reopen(action[1])
            self.kill_checks.append((recorded, self.session.active_seconds * 1000))
        self.sample()

    def finish(self) -> None:
        self.clock.now += 1
        self.session.note_input()
        self.session.submit("005A")
        self.sample()
        self.session.close("next")
        self.killed.append(False)


@settings(max_examples=100, deadline=None)
@given(
    threshold=st.sampled_from([2.0, 5.0, 12.5]),
    actions=st.lists(ACTIONS, max_size=30),
)
def test_the_live_clock_is_the_fold_of_the_recording_and_never_decreases(
    threshold: float, actions: list[tuple]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run = Run(Path(folder), threshold)
        run.sample()
        for action in actions:
            run.step(action)
        run.finish()
        path = run.session.path
        assert verify(path).ok
        recording = load(path)
        events = recording.events
        readers = (
            summarize(recording).active_ms,
            replay(recording).frames[-1].active_ms,
            read_facts(path).active_ms,  # type: ignore[union-attr]
        )

    # Segment boundaries: each reopening starts a new segment at its ``resume`` event.
    starts = [n for n, e in enumerate(events) if e.type == ev.RESUME and e.payload.get("reopened")]
    ends = [*starts, len(events)]
    for sample in run.samples:
        end = ends[sample.segment]
        last_ms = events[end - 1].ms if end else 0  # the header is at ms 0
        if run.killed[sample.segment] and (sample.ms > last_ms or sample.holding):
            # The killed process's last stretch is not in its recording: time after its
            # last event, or a gap it never closed.
            continue
        # The fold knows the recording of this process up to its end: it looks ahead only
        # to the idle event that closes a gap under way, as the live clock does.
        timeline = Timeline(events[: ends[sample.segment]])
        assert timeline.at(sample.ms).active_ms == sample.active_ms, sample

    final = session_times(events)
    assert final.active_ms == run.samples[-1].active_ms
    assert readers == (final.active_ms,) * 3

    live = [s.active_ms for s in run.samples]
    if not any(run.killed):
        assert live == sorted(live), "the live clock went back"
    for before, after in run.suspend_checks:
        assert after == before
    for recorded, reopened in run.kill_checks:
        assert reopened >= recorded

    whole = Timeline(events)
    last = events[-1].ms
    folded = [whole.at(ms).active_ms for ms in range(0, last + 250, 125)]
    assert folded == sorted(folded), "the fold went back"
