"""App responsiveness with Pilot (run by hand).

    python tests/bench/bench_app.py [--presses 20] [--only tang_all]

For 1 MB and 5 MB corpora (standard library source; tang_all.txt too when present), after
training to step 2000: the time from a key press to the first screen update showing its result
("shown"), and to the last screen update it caused ("settled": the footer's key hints after a
dialog closes, scroll bars), timed from the compositor; for step (n), undo (u) and goto (g 1000
Enter, g 2000 Enter: the first ones walk, later ones restore the checkpoints the first kept),
then across the whole run (g 0, g 2000). Then, while training runs at full speed (space), the
time from pressing a key to its action running (i toggles the ids view). Medians and maxima;
targets: step/undo/goto <= 50 ms median (moonshot 16 ms) at 5 MB, a key handled while
training <= 100 ms (moonshot 33 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

from common import ROOT, record, shared_corpus, stdlib_corpus

sys.path.insert(0, str(ROOT))

from engine import TrainConfig  # noqa: E402
from tui.app.shell import BpeApp  # noqa: E402
from tui.model.workbench import LoadedCorpus, Workbench  # noqa: E402

PAINTS: list[tuple[float, set[str]]] = []
#: Panes that show the step: a paint that includes one of them shows the key's result.
RESULT_PANES = {"CorpusView", "MergeLog", "StatusLine"}


def record_paints() -> None:
    """Timestamp every screen update the compositor makes (the moment the screen changes),
    with the kinds of widget it repainted."""
    from textual.screen import Screen

    original = Screen._compositor_refresh

    def painted(self) -> None:
        dirty = {type(widget).__name__ for widget in self._dirty_widgets}
        original(self)
        PAINTS.append((time.perf_counter(), dirty))

    Screen._compositor_refresh = painted


async def press_latency(app, pilot, keys: list[str]) -> tuple[float, float]:
    """From the last key's press to (the first screen update showing its result, the last
    screen update it caused: the footer's key hints, scroll bars).

    Pilot's own waiting (it sleeps until the process looks idle) is not counted: the paint
    timestamps come from the compositor.
    """
    if len(keys) > 1:
        await pilot.press(*keys[:-1])
    done = len(PAINTS)
    started = time.perf_counter()
    await pilot.press(keys[-1])
    await app.workers.wait_for_complete()  # a long jump runs in a worker: wait for it to end
    await pilot.pause()
    after = [(t, dirty) for t, dirty in PAINTS[done:] if t >= started]
    if not after:
        now = time.perf_counter() - started
        return now, now
    shown = next((t for t, dirty in after if dirty & RESULT_PANES), after[-1][0])
    return shown - started, after[-1][0] - started


def summary(name: str, times: list[tuple[float, float]]) -> str:
    shown = [s for s, _ in times]
    settled = [t for _, t in times]
    return (
        f"  {name:<18} shown median {statistics.median(shown) * 1000:6.1f} ms, max {max(shown) * 1000:6.1f}"
        f" | settled median {statistics.median(settled) * 1000:6.1f} ms"
    )


async def measure(path, presses: int) -> None:
    corpus = LoadedCorpus.open(str(path), "bytes")
    started = time.perf_counter()
    workbench = Workbench(corpus, TrainConfig(vocab_size=32000))
    workbench.goto(2000)
    print(f"\n== {path.name} ({corpus.size / 1e6:.1f} MB): trainer ready at step 2000 in {time.perf_counter() - started:.1f} s")
    app = BpeApp(workbench=workbench)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        results: dict[str, list[tuple[float, float]]] = {"step (n)": [], "undo (u)": [], "goto (g N enter)": []}
        for i in range(presses):
            results["step (n)"].append(await press_latency(app, pilot, ["n"]))
            results["undo (u)"].append(await press_latency(app, pilot, ["u"]))
            target = "1000" if i % 2 == 0 else "2000"
            results["goto (g N enter)"].append(await press_latency(app, pilot, ["g", *target, "enter"]))
        for name, times in results.items():
            print(summary(name, times))
            record(f"app {path.stem} {name.split()[0]}", statistics.median(t for t, _ in times))
            if name.startswith("goto"):
                first = ", ".join(f"{t * 1000:.0f}" for t, _ in times[:3])
                print(f"  {'':<18} the first three shown in: {first} ms (later ones restore the checkpoints those kept)")
        far = [await press_latency(app, pilot, ["g", *target, "enter"]) for target in ("0", "2000", "0", "2000")]
        print(summary("goto 0 / 2000", far))
        record(f"app {path.stem} far", statistics.median(t for t, _ in far))
        handled: list[float] = []
        original = app.main_screen.action_toggle_ids

        def recording():
            handled.append(time.perf_counter())
            original()

        app.main_screen.action_toggle_ids = recording
        await pilot.press("space")
        await pilot.pause(0.5)
        lags = []
        for _ in range(presses):
            before = len(handled)
            pressed = time.perf_counter()
            await pilot.press("i")
            waited = 0
            while len(handled) == before and waited < 5000:
                await asyncio.sleep(0.001)
                waited += 1
            if len(handled) == before:
                raise RuntimeError(f"key not handled: focus {app.focused}, screen {app.screen}, running {app.running}")
            lags.append(handled[-1] - pressed)
            await asyncio.sleep(0.05)
        steps_before = workbench.steps
        await pilot.press("space")
        await app.workers.wait_for_complete()
        record(f"app {path.stem} key", statistics.median(lags))
        print(f"  key while training  median {statistics.median(lags) * 1000:6.1f} ms   max {max(lags) * 1000:6.1f} ms   (trained to step {steps_before}, {workbench.rate:,.0f} merges/s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--only", help="only the corpora whose file name contains this (e.g. tang_all)")
    args = parser.parse_args()
    corpora = [stdlib_corpus(1_000_000), stdlib_corpus(5_000_000)]
    tang = shared_corpus("tang_all.txt")
    if tang is not None:
        corpora.append(tang)
    if args.only:
        corpora = [path for path in corpora if args.only in path.name]
    record_paints()
    for path in corpora:
        asyncio.run(measure(path, args.presses))


if __name__ == "__main__":
    main()
