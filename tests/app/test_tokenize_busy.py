"""Typing into the tokenize pane while a run or a long jump holds the trainer: the text is
shown once the trainer lets go, and nothing breaks (it raised ``Busy`` out of the key's
handler, a traceback that ended the app)."""

from __future__ import annotations

import threading

from helpers import app_on, settle_until

from tui.app.widgets.tokenize_pane import TokenInput

SIZE = (100, 30)


async def test_text_typed_while_the_trainer_is_held_shows_when_it_is_let_go():
    app = app_on("workshop.txt", vocab_size=300, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.workbench is not None, "loaded")
        output = app.query_one("#tokenize-output")
        workbench = app.workbench
        held, release = threading.Event(), threading.Event()

        def hold() -> None:  # as a training worker does: the lock, for longer than a read waits
            with workbench.lock:
                workbench.training = True
                held.set()
                release.wait(30)
                workbench.training = False

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(10)
        try:
            await pilot.press("e")
            assert isinstance(app.focused, TokenInput)
            await pilot.press(*"cat")
            await pilot.pause()
            assert app.is_running and app.focused.value == "cat"
            assert "cat" not in str(output.render())  # not shown yet: the trainer is held
        finally:
            release.set()
            holder.join()
        await settle_until(pilot, lambda: "tokens" in str(output.render()), "the tokens shown")
        assert app.is_running and app.return_code is None
