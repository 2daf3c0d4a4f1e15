"""Looking back at sessions: replay, compare, report and export recordings.

Everything here reads finished (or interrupted) recordings; nothing records. It sits above
:mod:`crmtui.record` (events, verify), :mod:`crmtui.play` (the browser views a replay
rebuilds), :mod:`crmtui.query` (re-running recorded queries) and :mod:`crmtui.org` (the
recorded org); only the UI, the factory and the commands import it:

* replay: :mod:`.replay` folds a recording into frames (pure); :mod:`.replay_org` finds the
  recorded org, checks its digest and prepares a replay (:func:`~.replay_org.prepare_replay`);
* trajectories: :mod:`.trajectory` turns events into steps, :mod:`.rerun` re-runs their
  queries for the Ids they returned, :mod:`.align` aligns several trajectories;
* summaries: :mod:`.summary` (one session's numbers), :mod:`.compare` (attempts at one
  instance, with evidence verdicts) and :mod:`.compare_format` (its Markdown);
* reports: :mod:`.report` (a folder of recordings, per actor and task type) and
  :mod:`.report_format` (text, CSV, JSON, Markdown); :mod:`.render` holds what both
  formatters share;
* :mod:`.export`: sessions as a Hugging Face dataset, JSONL or CSV.
"""
