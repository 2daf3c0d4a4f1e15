"""Option types shared by the commands: numbers checked at the door.

``type=float`` accepts ``nan``, ``inf`` and negative values, which then hang a run (a
time limit of ``nan`` is never reached) or fail deep inside; these types refuse them with
click's usage error (exit status 2) naming the option.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click


class Seconds(click.ParamType):
    """A finite number of seconds, above zero (or zero too with ``allow_zero``)."""

    name = "seconds"

    def __init__(self, *, allow_zero: bool = False) -> None:
        self.allow_zero = allow_zero

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        if number < 0 or (number == 0 and not self.allow_zero):
            bound = "zero or more" if self.allow_zero else "more than zero"
            self.fail(f"{value!r} must be {bound} seconds", param, ctx)
        return number


#: Seconds that must be positive (timeouts, limits).
POSITIVE_SECONDS = Seconds()
#: Seconds that may be zero (delays).
NON_NEGATIVE_SECONDS = Seconds(allow_zero=True)


class Fraction(click.ParamType):
    """A finite number from 0 to 1 (a share)."""

    name = "fraction"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = float(value) if isinstance(value, int | float) else float(str(value))
        except ValueError:
            self.fail(f"{value!r} is not a number", param, ctx)
        if not (math.isfinite(number) and 0 <= number <= 1):
            self.fail(f"{value!r} must be a number from 0 to 1", param, ctx)
        return number


#: A share from 0 to 1.
UNIT_FRACTION = Fraction()


#: ``--out FILE`` of the report commands (``report``, ``study report``).
report_out_option = click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report to this file instead of standard output.",
)
#: ``--figures DIR`` of the report commands: each HTML figure as SVG and PNG too.
figures_option = click.option(
    "--figures",
    "figures_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --format html: also write each figure as NAME.svg and NAME.png into this "
    "folder (for a paper).",
)
