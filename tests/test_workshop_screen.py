"""Issue 13, a screen a workshop can use: labels, fits and follows, driven by Pilot at 80×24."""

from __future__ import annotations

from textual.widgets import Input, Label

from engine import TrainConfig
from tui.app import BpeApp
from tui.workbench import LoadedCorpus, Workbench


def make_app(sample: str = "workshop.txt", **config) -> BpeApp:
    cfg = TrainConfig(**config)
    app = BpeApp(workbench=Workbench(LoadedCorpus.open(f"sample:{sample}", cfg.base), cfg))
    app.animation_level = "none"
    return app


async def test_the_heldout_setting_is_labelled():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await pilot.press("3")
        await pilot.pause()
        screen = app.screen
        label = screen.query_one("#heldout-label", Label)
        box = screen.query_one("#heldout-setting", Input)
        assert str(label.render()) == "held out:"
        assert box.value == "10%"
        # the label sits left of the field, on its line, both inside the screen
        assert label.region.y == box.region.y and label.region.right <= box.region.x
        assert box.region.right <= 80
