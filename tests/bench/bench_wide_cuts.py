"""What tui/app/wide_cuts.py costs a full render of the screen (run by hand).

    python tests/bench/bench_wide_cuts.py

The Chinese sample in Chinese at 100x30, with no toast, one, and five toasts of wide characters
over the pane borders: the best time of 10 rounds of 50 full renders, Textual's own compositor
and the patched one taking turns.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent), str(HERE.parent / "app")]  # the repo, tests/, tests/app/

from textual.widgets._toast import Toast  # noqa: E402

from tui.app import wide_cuts  # noqa: E402

from test_wide_cuts import chinese_app, show_toasts  # noqa: E402


async def main() -> None:
    app = chinese_app()
    async with app.run_test(size=(100, 30), notifications=True) as pilot:

        async def no_toast() -> None:
            app.clear_notifications()
            await pilot.pause()

        async def one_toast() -> None:
            app.clear_notifications()
            app.notify("训练已结束：没有出现 2 次的词对", timeout=600)
            while len(app.screen.query(Toast)) != 1:
                await pilot.pause()

        async def five_toasts() -> None:
            await show_toasts(app, pilot, "x")

        for label, setup in (("no toast", no_toast), ("1 toast", one_toast), ("5 toasts", five_toasts)):
            await setup()
            best: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(10):
                for on in (False, True):
                    (wide_cuts.install if on else wide_cuts.uninstall)()
                    start = time.perf_counter()
                    for _ in range(50):
                        app.screen._compositor.render_update(full=True)
                    best[on].append((time.perf_counter() - start) / 50 * 1e3)
            print(f"{label:9s} full render at 100x30: textual {min(best[False]):.2f} ms, patched {min(best[True]):.2f} ms")
        wide_cuts.install()


if __name__ == "__main__":
    asyncio.run(main())
