"""Every key of the app, defined once: the footer, the command palette, the help screen and the
README's key table all come from :data:`KEYS` (tests/app/test_keys.py compares the README with it).

A key whose action starts with ``app.`` works on every screen (stepping follows training on the
analysis screen too); the others act on the main screen's panes. :class:`tui.app.BpeApp` binds
the first kind, :class:`tui.app.screens.main.MainScreen` binds all of them in this order, which is
the order the footer shows.
"""

from __future__ import annotations

from textual.binding import Binding

from tui.i18n import N_, _
from tui.model.tabs import TABS

KEYS: list[Binding] = [
    Binding("space", "app.toggle_run", N_("Run/Pause"),
            tooltip=N_("run / pause training (in a worker thread; pausing stops within one batch)")),
    Binding("n", "app.step", N_("Step"), tooltip=N_("step: make one merge")),
    Binding("right", "app.step('arrow')", N_("Step"), show=False, priority=True, tooltip=N_("step: make one merge")),
    Binding("u", "app.undo", N_("Undo"), tooltip=N_("undo the last merge")),
    Binding("left", "app.undo('arrow')", N_("Undo"), show=False, priority=True, tooltip=N_("undo the last merge")),
    Binding("r", "app.redo", N_("Redo"), tooltip=N_("redo an undone merge")),
    Binding("shift+right", "app.redo('arrow')", N_("Redo"), show=False, priority=True, tooltip=N_("redo an undone merge")),
    Binding("right_square_bracket", "app.jump(10)", N_("+10"), show=False, tooltip=N_("10 steps forward")),
    Binding("left_square_bracket", "app.jump(-10)", N_("-10"), show=False, tooltip=N_("10 steps back")),
    Binding("right_curly_bracket", "app.jump(100)", N_("+100"), show=False, tooltip=N_("100 steps forward")),
    Binding("left_curly_bracket", "app.jump(-100)", N_("-100"), show=False, tooltip=N_("100 steps back")),
    Binding("G", "app.run_to", N_("Run to"), show=False, tooltip=N_("run to a step at the run speed, stopping there")),
    Binding("plus", "app.faster", N_("Faster"), show=False, tooltip=N_("run faster: 1, 2, 5, 20 merges/s, full speed")),
    Binding("minus", "app.slower", N_("Slower"), show=False, tooltip=N_("run slower, so a class can watch each merge")),
    Binding("g", "app.goto", N_("Go to"),
            tooltip=N_("go to a step (the start, the end or a place you were: at once, from a copy; "
                    "others walk in the worker)")),
    Binding("slash", "find", N_("Find"), tooltip=N_("find a token by text, [e4 b8] bytes or #id")),
    Binding("c", "copy", N_("Copy"), show=False,
            tooltip=N_("copy the selected token (its id and bytes; in the tokenize input ctrl+y copies the ids): "
                    "the system clipboard, else the terminal's (OSC 52)")),
    Binding("s", "app.save", N_("Save"), tooltip=N_("save the tokenizer (native JSON)")),
    Binding("R", "app.resume_found", N_("Resume"),
            tooltip=N_("resume the earlier session on this corpus (offered when one exists at launch or open)")),
    Binding("o", "app.open", N_("Open"), tooltip=N_("open a corpus file or a bundled sample")),
    Binding("a", "app.analysis", N_("Analysis"), show=False,
            tooltip=N_("the analysis screen: curve, vocabulary, held-out, baselines, compare text, tie rules")),
    Binding("comma", "app.settings", N_("Settings"), show=False,
            tooltip=N_("settings: base, pre-tokenizer, tie rule, stop rules (restarts training); run speed")),
    Binding("i", "toggle_ids", N_("Ids"), show=False, tooltip=N_("corpus: show token ids instead of text")),
    Binding("w", "toggle_wrap", N_("Wrap"), show=False,
            tooltip=N_("corpus: wrap lines at the pane's width (the default), or one row per line, scrolled sideways")),
    Binding("f", "toggle_follow", N_("Follow"), show=False,
            tooltip=N_("corpus: keep the last merged token in view as training runs (on or off)")),
    Binding("t", "toggle_trace", N_("Trace"), show=False,
            tooltip=N_("tokenize: the rule-by-rule trace (Tokenization: how machines read, §11.4)")),
    Binding("v", "toggle_code", N_("Code"), show=False,
            tooltip=N_("the code beside the merge: the reference trainer's code in place of the panes, the line that "
                    "decides this step marked, with its values; stepping, undo and jumps move it (`v` again: the panes)")),
    Binding("e", "focus_input", N_("Type"), show=False,
            tooltip=N_("type in the tokenize input (escape leaves; ctrl+y copies its ids; ctrl+q quits)")),
    Binding("escape", "focus_log", N_("Log"), show=False, tooltip=N_("back to the merge log")),
    Binding("p", "app.quiz", N_("Quiz"), show=False,
            tooltip=N_("predict the next merge: a quiz, from the shuffled candidates or typed; score kept (`p` or escape leaves)")),
    Binding("exclamation_mark", "mark_surprise", N_("Surprise"), show=False,
            tooltip=N_("mark the tokenized text as a surprise: the lab lesson's hand-in lists it")),
    Binding("m", "manual_merge", N_("Manual"), show=False,
            tooltip=N_("manual merge: pick the pair that merges next instead of the rule's choice (after an undo this "
                    "starts a what-if branch and keeps the old future)")),
    Binding("b", "branches", N_("Branches"), show=False,
            tooltip=N_("what-if branches: list them, switch (enter), compare two side by side (c)")),
    Binding("X", "app.screenshot", N_("Screenshot"), show=False,
            tooltip=N_("save the screen as an SVG in the working folder (or $BPE_LAB_SCREENSHOTS); the message names the file")),
    Binding("l", "app.lessons", N_("Lessons"),
            tooltip=N_("lessons: pick a guided walkthrough (with a lesson open: hide or show its pane)")),
    # `>` and `<` move an open lesson even while an input has focus (priority); without a lesson
    # they are not bound at all (check_action) and type into the input.
    # Named "next step" and "previous step" everywhere (the analysis screen's escape is "Back").
    Binding("greater_than_sign", "app.lesson_next", N_("Next step"), priority=True,
            tooltip=N_("lesson: the next step (after exploring: back to the lesson's state first)")),
    Binding("less_than_sign", "app.lesson_back", N_("Previous step"), priority=True,
            tooltip=N_("lesson: the previous step, with its training state")),
    Binding("L", "app.lesson_restart", N_("Restart"), show=False, tooltip=N_("lesson: start it again")),
    Binding("E", "app.lesson_end", N_("End lesson"), show=False,
            tooltip=N_("lesson: end it (training stays where the lesson left it; your sessions are saved again)")),
    # J and K scroll the lesson's text from any pane and screen (page down and page up belong to
    # the focused pane: the merge log, a tab); an input keeps them as letters.
    Binding("J", "app.lesson_scroll(1)", N_("Lesson down"), show=False, tooltip=N_("lesson: scroll its text down a page")),
    Binding("K", "app.lesson_scroll(-1)", N_("Lesson up"), show=False, tooltip=N_("lesson: scroll its text up a page")),
    Binding("question_mark", "app.help", N_("Help"), tooltip=N_("help: every key and pane")),
    Binding("q", "app.quit", N_("Quit"), tooltip=N_("quit (asks when there is unsaved work)")),
    Binding("ctrl+q", "app.quit", N_("Quit"), show=False, priority=True, tooltip=N_("quit (asks when there is unsaved work)")),
]

#: The shown keys (``show=True`` above) by how much the footer needs them, most important first.
#: The footer shows as many as fit in one line beside ``^p palette`` (at 80 cells: up to Lessons;
#: at 100: up to Find; a lesson's next and previous step show only while one is open, and come
#: first then: a lesson is walked with them; ``R Resume step N`` only while an earlier session
#: is offered, and then before the rest) and drops the rest,
#: which stay in the palette and the help. Keys bound by the focused widget or a screen (the
#: analysis screen's Back) come before all of these.
FOOTER_PRIORITY = ["app.lesson_next", "app.lesson_back", "app.resume_found", "app.toggle_run", "app.step", "app.undo",
                   "app.help", "app.quit", "app.lessons", "app.goto", "find", "app.redo", "app.open", "app.save"]

#: Keys bound elsewhere (by a screen, a pane or Textual), listed in the help and the README.
OTHER_KEYS: list[tuple[str, str]] = [
    ("`1` … `6`",
     N_("on the analysis screen: switch tab (`l` log scale, `b` retrain baselines, `p` next sentence, "
        "`d` diff two tokenizers; escape or `a` goes back)")),
    ("`x`", N_("on the analysis screen: export the curve, composition, held-out numbers and merge log as CSV and JSON, "
            "and the curve and composition as SVG figures (into ./bpe-lab-exports/, or $BPE_LAB_EXPORTS)")),
    ("tab", N_("move focus: merge log, inspector, tokenize input, corpus (shift+tab: back)")),
    ("enter", N_("in the merge log: jump to that step")),
    ("ctrl+p", N_("the command palette: every action by name")),
]

#: The palette's title for an action with a parameter (one entry per action, not per key).
PALETTE_TITLES = {
    "app.toggle_run": N_("Run / pause"),
    "app.jump(10)": N_("Forward 10"),
    "app.jump(-10)": N_("Back 10"),
    "app.jump(100)": N_("Forward 100"),
    "app.jump(-100)": N_("Back 100"),
    "app.goto": N_("Go to step"),
    "app.run_to": N_("Run to step"),
    "app.faster": N_("Run faster"),
    "app.slower": N_("Run slower"),
    "find": N_("Find token"),
    "app.save": N_("Save tokenizer"),
    "app.open": N_("Open corpus"),
    "app.resume_found": N_("Resume earlier session"),
    "toggle_ids": N_("Show ids"),
    "toggle_code": N_("Code beside the merge"),
    "focus_log": N_("Merge log"),
    "focus_input": N_("Tokenize input"),
    "app.lessons": N_("Lessons"),
    "app.lesson_next": N_("Lesson: next step"),
    "app.lesson_back": N_("Lesson: previous step"),
    "app.lesson_restart": N_("Lesson: restart"),
    "app.lesson_end": N_("Lesson: end"),
    "app.quiz": N_("Predict the next merge"),
    "manual_merge": N_("Manual merge"),
    "mark_surprise": N_("Mark as a surprise"),
    "branches": N_("What-if branches"),
}

#: The analysis screen's tabs, each also a palette entry ("a" then the tab's number).
ANALYSIS_COMMANDS = [
    ("a" if n == 1 else f"a {n}", f"app.analysis('{tab.id}')", tab.command, tab.help) for n, tab in enumerate(TABS, 1)
]

#: How the help and the README spell a key (the footer uses Textual's own display).
_SPELLING = {
    "right": "→", "left": "←", "shift+right": "shift+→", "right_square_bracket": "]", "left_square_bracket": "[",
    "right_curly_bracket": "}", "left_curly_bracket": "{", "slash": "/", "comma": ",", "question_mark": "?",
    "plus": "+", "minus": "-", "greater_than_sign": ">", "less_than_sign": "<", "exclamation_mark": "!",
}
#: Keys spelled as words, not code (as the README always wrote them).
_WORDS = {"space", "escape", "ctrl+q", "right", "left", "shift+right"}


def spell(key: str) -> str:
    """A key as the help and the README show it: `n`, `]`, →, space, ctrl+q."""
    shown = _SPELLING.get(key, key)
    return shown if key in _WORDS else f"`{shown}`"


#: Named keys that type a character into a focused input (single-character keys do too).
_PRINTABLE_NAMES = {
    "space", "slash", "comma", "question_mark", "right_square_bracket", "left_square_bracket",
    "right_curly_bracket", "left_curly_bracket", "greater_than_sign", "less_than_sign", "exclamation_mark",
}


def types_a_character(key: str) -> bool:
    """Whether a key types a character into a focused input (``n``, ``/``, space; not →, ctrl+q)."""
    return len(key) == 1 or key in _PRINTABLE_NAMES


def typed_actions() -> frozenset[str]:
    """Actions (without their ``app.`` namespace) that a key typing a character triggers: while
    an input has focus that key types, so the action cannot be reached and the footer hides it
    (the input's own keys, e.g. ctrl+y and escape, show instead)."""
    return frozenset(key.action.split("(")[0].removeprefix("app.") for key in KEYS if types_a_character(key.key))


def app_bindings() -> list[Binding]:
    """The keys that work on every screen: bound by the app."""
    return [key for key in KEYS if key.action.startswith("app.")]


def same_action(action: str) -> str:
    """The action a key shares with others: an arrow's ``app.step('arrow')`` is ``app.step`` (the
    parameter only lets the corpus pane keep its arrows for scrolling sideways)."""
    return action.replace("('arrow')", "")


def key_rows() -> list[tuple[str, str]]:
    """One row per action, its keys joined with "or", then the keys bound elsewhere: the help
    screen's table and the README's, in this order."""
    rows: dict[str, tuple[list[str], str]] = {}
    for key in KEYS:
        keys, _what = rows.setdefault(same_action(key.action), ([], key.tooltip))
        keys.append(spell(key.key))
    # TRANSLATORS: between two keys of one action in the help: "`n` or →".
    joined = [(_(" or ").join(keys), _(what)) for keys, what in rows.values()]
    return joined + [(keys, _(what)) for keys, what in OTHER_KEYS]


def palette_entries() -> list[tuple[str, str, str]]:
    """(title, help, action) for the command palette: one entry per action, titled with its
    first key, then the analysis tabs."""
    entries: dict[str, tuple[str, str, str]] = {}
    for key in KEYS:
        action = same_action(key.action)
        if action not in entries:
            title = _(PALETTE_TITLES.get(action, key.description))
            entries[action] = (f"{title} ({_SPELLING.get(key.key, key.key)})", _unticked(_(key.tooltip)), action)
    entries.pop("app.analysis")  # listed with its tabs below
    return [*entries.values(),
            *((f"{_(title)} ({key})", _unticked(_(what)), action) for key, action, title, what in ANALYSIS_COMMANDS)]


def _unticked(text: str) -> str:
    """The palette's help is plain text: `p` reads p (as in the help screen)."""
    from tui.app.screens.dialogs import unticked

    return unticked(text)


def markdown_table() -> str:
    """The README's key table (``python -m tui.app.keys`` prints it; tests/app/test_keys.py checks it)."""
    lines = ["| key | action |", "|---|---|"]
    lines += [f"| {keys} | {what.replace('|', chr(92) + '|')} |" for keys, what in key_rows()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
