"""What one app process (one browser tab under ``bpe-lab serve``) holds in memory (run by hand).

    python tests/bench/bench_tab_memory.py [--corpus PATH ...] [--budget MB] [--analysis]

For each corpus (default: the bundled workshop sample, tang_2000.txt and tang_all.txt from
../shared/corpora), a fresh process runs the app headless (Pilot, 100x30) on it as a launch opens
it (a mostly-CJK corpus at the character level), then: loaded; run to the end at full speed
(space, until training stops); ``g 0``; ``g`` half-way; ``u``; back to the end. After each, the
process's resident memory now (VmRSS) and at its peak so far (VmHWM), from /proc/self/status.
``--budget MB`` gives the app serve mode's budget for copies and caches
(:data:`tui.model.budget.TAB_BUDGET` unless a number is given; ``--budget 0`` is the terminal's
defaults); ``--analysis`` then opens the analysis screen and each of its tabs in turn.
Nothing here asserts a figure: docs/classroom.md has them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, shared_corpus

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def memory() -> dict[str, int]:
    """VmRSS and VmHWM of this process, in MB."""
    out = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line[:5]] = int(line.split()[1]) >> 10
    return out


async def one(corpus: str, budget: int | None, analysis: bool) -> list[tuple[str, dict]]:
    from textual.widgets import Input

    from engine import TrainConfig
    from tui.app import BpeApp
    from tui.app.options import LaunchOptions
    from tui.model.cjk import character_level
    from tui.model.workbench import LoadedCorpus

    stages: list[tuple[str, dict]] = []
    loaded = LoadedCorpus.open(corpus, "bytes")
    loaded, config, note = character_level(loaded, TrainConfig())
    app = BpeApp(loaded, config, options=LaunchOptions(autosave=False, open_note=note, memory=budget))
    async with app.run_test(size=(100, 30)) as pilot:
        while app.lab.workbench is None:
            await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        await pilot.pause()
        workbench = app.lab.workbench
        stages.append(("loaded", memory()))
        started = time.perf_counter()
        await pilot.press("space")
        while workbench.trainer.stop_reason is None or app.lab.running:
            await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        end = workbench.trainer.steps
        stages.append((f"ran to the end, step {end:,} ({time.perf_counter() - started:.1f} s)", memory()))

        async def move(keys: list[str], what: str) -> None:
            started = time.perf_counter()
            await pilot.press(*keys)
            while app.lab.running:
                await pilot.pause(0.05)
            await app.workers.wait_for_complete()
            await pilot.pause()
            stages.append((f"{what} ({(time.perf_counter() - started) * 1000:.0f} ms)", memory()))

        await move(["g", "0", "enter"], "g 0")
        await move(["g", *str(end // 2), "enter"], f"g {end // 2:,}")
        await move(["u"], "u")
        await move(["g", *str(end), "enter"], f"g {end:,}")
        if analysis:
            await move(["a"], "analysis (curve)")
            for number, name in enumerate(("vocabulary", "held-out", "baselines", "compare", "tie rules"), 2):
                if isinstance(app.focused, Input):  # the compare tab's text: escape leaves it first
                    await pilot.press("escape")
                await move([str(number)], name)
                idle = 0  # a tab's worker may start a few messages after the key: idle for a second
                while idle < 5:
                    await pilot.pause(0.2)
                    idle = idle + 1 if all(worker.is_finished for worker in app.workers) else 0
                stages[-1] = (stages[-1][0] + ", its workers done", memory())
            if isinstance(app.focused, Input):
                await pilot.press("escape")
            await move(["escape"], "back to the main screen")
            assert app.screen is app.main_screen
    return stages


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", action="append", help="a corpus (repeatable; default: workshop, tang_2000, tang_all)")
    parser.add_argument("--budget", type=float, nargs="?", const=-1, default=None,
                        help="serve mode's budget (MB; no number: serve's default; 0: the terminal's defaults)")
    parser.add_argument("--analysis", action="store_true", help="also open the analysis screen and each tab")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.budget is None or args.budget == 0:
        budget = None
    elif args.budget < 0:
        from tui.model.budget import TAB_BUDGET

        budget = TAB_BUDGET
    else:
        budget = int(args.budget * (1 << 20))
    if args.one:
        print(json.dumps(asyncio.run(one(args.one, budget, args.analysis))))
        return
    corpora = args.corpus or ["sample:workshop.txt", *(str(p) for p in (shared_corpus("tang_2000.txt"),
                                                                      shared_corpus("tang_all.txt")) if p)]
    print(f"budget for copies and caches: {'terminal defaults' if budget is None else f'{budget >> 20} MB'}")
    for corpus in corpora:
        command = [sys.executable, __file__, "--one", corpus]
        if budget is not None:
            command += ["--budget", str(budget / (1 << 20))]
        if args.analysis:
            command.append("--analysis")
        done = subprocess.run(command, capture_output=True, text=True, cwd=Path(__file__).parent)
        if done.returncode != 0:
            print(f"\n== {corpus}: failed\n{done.stderr[-2000:]}")
            continue
        print(f"\n== {Path(corpus).name}")
        for what, figures in json.loads(done.stdout.strip().splitlines()[-1]):
            print(f"  {what:<48} RSS {figures['VmRSS']:5d} MB   peak {figures['VmHWM']:5d} MB")


if __name__ == "__main__":
    main()
