"""A Textual driver for tests: it takes the app's frames without a terminal and, at the first frame
that shows a given text, writes the process's module names to a file and ends the process.

Used by ``TEXTUAL_DRIVER=first_frame_driver:FirstFrameDriver`` (with this folder on PYTHONPATH),
``FIRST_FRAME_MARK`` (the text) and ``FIRST_FRAME_OUT`` (the file): what the launch imported up to
the first frame is then known exactly, not after the work that follows it.
"""

from __future__ import annotations

import json
import os
import sys

from textual.drivers.headless_driver import HeadlessDriver


class FirstFrameDriver(HeadlessDriver):
    """A headless driver that is sent the frames (the app writes to a driver that is not headless)."""

    @property
    def is_headless(self) -> bool:
        """Not headless to the app, so that it renders and writes every frame here."""
        return False

    def write(self, data: str) -> None:
        """At the first frame showing the mark: the module names to the file, then exit at once."""
        if os.environ["FIRST_FRAME_MARK"] in data:
            with open(os.environ["FIRST_FRAME_OUT"], "w", encoding="utf-8") as out:
                json.dump(sorted(sys.modules), out)
            os._exit(0)  # the first frame is what is measured: nothing after it may run
