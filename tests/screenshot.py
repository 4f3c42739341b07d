"""Regenerate the README screenshot: ``python tests/screenshot.py`` (writes assets/screenshot.svg)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import TrainConfig  # noqa: E402
from tui.app.shell import BpeApp  # noqa: E402
from tui.model.workbench import LoadedCorpus, Workbench  # noqa: E402


async def main() -> None:
    config = TrainConfig(vocab_size=1000)
    app = BpeApp(workbench=Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), config))
    async with app.run_test(size=(100, 30)) as pilot:
        app.go(60)
        app.query_one("#tokenize-input").value = "Der Tokenizer zerlegt Wörter 🚀"
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        app.save_screenshot(str(ROOT / "assets" / "screenshot.svg"))


if __name__ == "__main__":
    asyncio.run(main())
