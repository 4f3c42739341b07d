"""Issue 13 point 8: a message said again while its toast still shows becomes one toast with a
count, for the whole app; why training stopped is in the status line, not only in a toast."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on, settled
from textual.widgets._toast import Toast

from engine import TrainConfig
from tui.app import BpeApp
from tui.app.widgets.status_line import StatusLine
from tui.model.workbench import LoadedCorpus

SIZE = (80, 24)


#: The workshop sample; copies go nowhere (never to the machine's clipboard).
make_app = partial(app_on, "workshop.txt", clipboard=lambda _text: None, autosave=False)


def toasts(app: BpeApp) -> list[str]:
    return app.toasts.texts()


def test_canary_textuals_private_toast_state_is_still_there():
    """tui/app/toasts.py counts repeated toasts through Textual's private notification state
    (toasts.PRIVATE). When a Textual upgrade renames or drops one of them, this names which."""
    import textual
    from textual.app import App
    from textual.notifications import Notification, Notifications

    from tui.app.toasts import PRIVATE

    owners = {"App": App, "Notification": Notification, "Notifications": Notifications}
    app = App()
    missing = []
    for owner, name in PRIVATE:
        holder = app if owner == "App" else owners[owner]
        if owner == "Notification":
            holder = Notification("x", "", "information", 1)
        if not hasattr(holder, name):
            missing.append(f"{owner}.{name}")
    assert not missing, f"Textual {textual.__version__} no longer has {', '.join(missing)}: update tui/app/toasts.py"
    notifications = app._notifications
    assert isinstance(notifications, Notifications)
    toast = Notification("x", "", "information", 5)
    notifications.add(toast)
    assert toast in notifications and not toast.has_expired  # what Toasts.notify reads back


@pytest.mark.slow
async def test_repeated_messages_at_the_end_of_training_are_one_toast_each_with_a_count():
    app = make_app(vocab_size=300)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("space")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert toasts(app) == ["training is done: vocabulary size reached"]
        app.clear_notifications()
        await pilot.press(*"nnnnnn", "c", "c")
        await pilot.pause()
        token = app.workbench.trainer.last.new_id
        said = toasts(app)
        assert len(said) == 2 and said[0] == "nothing to step: vocabulary size reached (×6)"
        assert said[1].startswith(f"copied token {token} (") and said[1].endswith(") (×2)")
        await settled(pilot)
        assert len(app.screen.query(Toast)) == 2  # drawn: two toasts, not eight
        line = str(app.query_one(StatusLine).render())
        assert line.startswith("done: vocabulary size reached │ step 44/44")


async def test_a_count_restarts_once_the_toast_is_gone_and_different_messages_stay_apart():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.say("hello")
        app.say("hello", severity="warning")  # another severity: another toast
        app.say("hello", title="greeting")  # another title: another toast
        app.say("hello")
        await settled(pilot)
        assert sorted(toasts(app)) == ["hello", "hello", "hello (×2)"]
        app.clear_notifications()
        app.say("hello")
        assert toasts(app) == ["hello"]  # the earlier toast is gone: counting starts again
        app.query_one(StatusLine).notify("from a widget")
        app.query_one(StatusLine).notify("from a widget")
        await settled(pilot)
        assert "from a widget (×2)" in toasts(app)


async def test_a_replay_that_ran_out_says_so_in_the_status_line():
    from engine import Tokenizer, Trainer

    source = Trainer("the cat sat on the mat with the hat " * 30, TrainConfig(max_merges=12))
    source.train()
    tok: Tokenizer = source.tokenizer()
    app = app_on(LoadedCorpus.open("sample:workshop.txt", tok.base), script=tok, autosave=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("right_curly_bracket")
        assert app.workbench.steps == 12 and app.workbench.done
        assert str(app.query_one(StatusLine).render()).startswith("done: replayed every merge │ step 12")
        await pilot.press("u")
        assert not app.workbench.done
        assert str(app.query_one(StatusLine).render()).startswith("paused │ step 11")
