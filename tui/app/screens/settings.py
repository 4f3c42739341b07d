"""Training settings: base, pre-tokenizer, tie rule, stop rules and the end-of-word suffix
(applying restarts training)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from engine import PRETOKENIZERS, TIE_RULES, TrainConfig
from engine.text import compile_pattern
from tui.i18n import N_, _
from tui.model.pacing import SPEEDS, speed_label


def _number(text: str, name: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(_("{name} must be a whole number, not {text!r}").format(name=name, text=text)) from None


class SettingsScreen(ModalScreen[TrainConfig | None]):
    """Edit a TrainConfig; returns the new config (validated) or None."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel")), Binding("ctrl+s", "apply", N_("Apply"))]
    #: Focus comes after the first frame (on_mount): focusing restyles the form, which put ~20 ms
    #: between the key and the dialog on the screen (docs/benchmarks.md).
    AUTO_FOCUS = ""

    def __init__(self, config: TrainConfig, speed: float | None = None, on_speed=None) -> None:
        """``speed``: the run speed shown; ``on_speed(speed)`` is called on Apply (a speed alone
        changes without restarting training). Without ``on_speed`` the field is not shown."""
        super().__init__()
        self.config = config
        self.speed = speed
        self.on_speed = on_speed

    def compose(self) -> ComposeResult:
        c = self.config
        pre = c.pretokenizer if c.pretokenizer != "custom" else "custom"
        # The fields scroll; the error line and the buttons are docked below them, so Apply and
        # Cancel stay on screen at 80x24 however many fields there are.
        with Vertical(classes="dialog settings"):
            yield Label(_("Training settings (applying restarts training)"), classes="dialog-title")
            with VerticalScroll(id="settings-fields"):
                with Grid(id="settings-grid"):
                    yield Label(_("base"))
                    yield Select([(b, b) for b in ("bytes", "chars")], value=c.base, allow_blank=False, id="base")
                    yield Label(_("pre-tokenizer"))
                    yield Select([(p, p) for p in (*PRETOKENIZERS, "custom")], value=pre, allow_blank=False, id="pretokenizer")
                    yield Label(_("custom pattern"))
                    yield Input(value=c.pattern or "", placeholder=_("regex (custom pre-tokenizer)"), id="pattern")
                    yield Label(_("tie rule"))
                    yield Select([(t, t) for t in TIE_RULES], value=c.tie_rule, allow_blank=False, id="tie_rule")
                    yield Label(_("vocabulary size"))
                    yield Input(value="" if c.vocab_size is None else str(c.vocab_size), placeholder=_("none"), id="vocab_size")
                    yield Label(_("merges"))
                    yield Input(value="" if c.max_merges is None else str(c.max_merges), placeholder=_("none"), id="merges")
                    yield Label(_("min frequency"))
                    yield Input(value=str(c.min_frequency), id="min_frequency")
                    yield Label(_("specials"))
                    yield Input(value=" ".join(c.specials), placeholder=_("space-separated"), id="specials")
                    if self.on_speed is not None:
                        yield Label(_("run speed"))
                        yield Select([(speed_label(s), s or 0) for s in SPEEDS], value=self.speed or 0,
                                     allow_blank=False, id="speed")
                    yield Label(_("end of word"))
                    yield Input(value=c.end_of_word or "", placeholder=_("none (CLIP, subword-nmt: </w>)"), id="end_of_word")
                yield Checkbox(_("split digits"), value=c.split_digits, id="split_digits")
                yield Checkbox(_("no merge across newline"), value=c.no_merge_newline, id="no_merge_newline")
            with Vertical(id="settings-footer"):
                yield Label("", id="settings-error", classes="dialog-error")
                with Horizontal(classes="dialog-buttons"):
                    yield Button(_("Apply (ctrl+s)"), variant="primary", id="apply")
                    yield Button(_("Cancel (esc)"), id="cancel")

    def on_mount(self) -> None:
        self.call_after_refresh(lambda: self.query_one("#base", Select).focus())

    def read(self) -> TrainConfig:
        """The config the form describes; ValueError (one line) when a field is wrong."""
        value = lambda name: self.query_one(f"#{name}", Input).value  # noqa: E731
        pre = self.query_one("#pretokenizer", Select).value
        pattern = value("pattern").strip() or None
        if pre == "custom" and not pattern:
            raise ValueError(_("the custom pre-tokenizer needs a pattern"))
        if pre == "custom":
            compile_pattern(pattern)  # a bad regex is reported here, not after a restart
        vocab = _number(value("vocab_size"), _("vocabulary size"))
        merges = _number(value("merges"), _("merges"))
        floor = _number(value("min_frequency"), _("min frequency"))
        if vocab is not None and merges is not None:
            raise ValueError(_("set a vocabulary size or a merge count, not both"))
        return TrainConfig(
            base=str(self.query_one("#base", Select).value),
            pretokenizer=str(pre),
            pattern=pattern if pre == "custom" else None,
            split_digits=self.query_one("#split_digits", Checkbox).value,
            tie_rule=str(self.query_one("#tie_rule", Select).value),
            vocab_size=vocab,
            max_merges=merges,
            min_frequency=2 if floor is None else floor,  # empty: the default; 0 is refused, as by the CLI
            no_merge_newline=self.query_one("#no_merge_newline", Checkbox).value,
            specials=tuple(value("specials").split()),
            end_of_word=value("end_of_word").strip() or None,
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.dismiss(None)

    def action_apply(self) -> None:
        try:
            config = self.read()
        except ValueError as exc:
            self.query_one("#settings-error", Label).update(Text(str(exc)))
            return
        if self.on_speed is not None:
            self.on_speed(self.query_one("#speed", Select).value or None)  # 0 stands for full speed
        self.dismiss(config)

    def action_cancel(self) -> None:
        self.dismiss(None)
