"""Every colour the panes draw with, derived from the active Textual theme.

The panes used fixed dark hex values; now :func:`palette_for` blends each from the theme's own
variables (background, foreground, primary, accent, warning, success, error), then lightens or
darkens text until it reads against what it is drawn on (WCAG contrast), so every built-in theme,
light ones for a projector included, keeps neighbouring tokens apart and partial UTF-8 marked.

The app calls :func:`activate` when it starts and whenever the theme changes (``ctrl+p`` →
theme, or ``--theme``); widgets read :func:`current` when they draw. ANSI themes name terminal
colours whose values only the terminal knows: they get the textual-dark or textual-light palette.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rich.style import Style
from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme

#: Contrast (WCAG 2) that text keeps against what it is drawn on; 4.5 is WCAG AA for body text.
TEXT_CONTRAST = 4.5
#: Contrast of marks (tie stars, accents, partial bytes, bars) against the pane's background.
MARK_CONTRAST = 3.0
#: Contrast of inline code's background against the pane's: a block that stands out, as the
#: token backgrounds do (Textual's own, warning at 10 %, was about 1.1 in textual-dark).
CODE_CONTRAST = 1.4
#: Token backgrounds: the theme's colours, blended into its background by this much.
TINT_DARK, TINT_LIGHT = 0.38, 0.30
#: The theme variables the token backgrounds take their hue from, in order.
TOKEN_HUES = ("primary", "warning", "success", "accent", "secondary")


def luminance(color: Color) -> float:
    """WCAG relative luminance, 0 (black) to 1 (white)."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio, 1 (same) to 21 (black on white). Example: ``contrast(white, black) -> 21.0``"""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable(color: Color, background: Color, ratio: float) -> Color:
    """``color``, moved toward black or white (whichever stands out from ``background``) just far
    enough to reach ``ratio`` against it."""
    if contrast(color, background) >= ratio:
        return color
    target = Color(0, 0, 0) if luminance(background) > 0.18 else Color(255, 255, 255)
    for step in range(1, 21):
        moved = color.blend(target, step / 20)
        if contrast(moved, background) >= ratio:
            return moved
    return target


def apart(color: Color, background: Color, ratio: float) -> Color:
    """``color`` (a background for something on ``background``), moved away from
    ``background``'s lightness (lighter on a dark one, darker on a light one) until the two
    differ by ``ratio``."""
    if contrast(color, background) >= ratio:
        return color
    target = Color(255, 255, 255) if luminance(background) < 0.18 else Color(0, 0, 0)
    for step in range(1, 21):
        moved = color.blend(target, step / 20)
        if contrast(moved, background) >= ratio:
            return moved
    return target


def text_on(background: Color, preferred: Color) -> Color:
    """The text colour for ``background``: ``preferred`` when it reads there, else black or white."""
    if contrast(preferred, background) >= TEXT_CONTRAST:
        return preferred
    black, white = Color(0, 0, 0), Color(255, 255, 255)
    return black if contrast(black, background) >= contrast(white, background) else white


@dataclass(frozen=True)
class Palette:
    """The colours of one theme, as hex strings (``background`` and ``text`` are the pane's)."""

    name: str
    dark: bool
    background: str
    surface: str
    text: str
    token_backgrounds: tuple[str, ...]
    token_text: tuple[str, ...]  # the text colour on each token background
    highlight_bg: str  # the last merged token
    highlight_text: str
    accent: str  # marks: the next merge, tie sets, the current step, running
    bar: str  # count bars, plot lines
    muted: str  # undone merges, the plot after the current step, uncovered text
    partial: str  # partial UTF-8 (bytes of cut characters)
    error: str  # unknowns, errors
    segment: str  # a held-out segmentation's pieces
    unknown_bg: str  # an unknown token in the compare pane
    header_bg: str  # the merge log's header row
    header_text: str
    cursor_bg: str  # the merge log's cursor
    cursor_text: str
    odd_bg: str  # the merge log's odd rows
    code_bg: str  # inline code in the lesson's prose
    code_text: str
    ok: str  # complete UTF-8, ASCII bytes
    lead: str  # a UTF-8 lead byte
    continuation: str  # a UTF-8 continuation byte

    # -- styles the panes use directly ---------------------------------------------------------

    @property
    def token_styles(self) -> tuple[Style, ...]:
        return _token_styles(self)

    @property
    def newline_styles(self) -> tuple[Style, ...]:
        return _newline_styles(self)

    @property
    def highlight(self) -> Style:
        return Style(color=self.highlight_text, bgcolor=self.highlight_bg, bold=True)

    @property
    def log_styles(self) -> tuple[Style, Style, Style, Style]:
        """The merge log's header, cursor, odd-row and tie styles."""
        return _log_styles(self)

    @property
    def uncovered(self) -> Style:
        return Style(color=self.muted, italic=True)

    def role(self, role: str) -> str:
        """The colour of a byte's UTF-8 role in the inspector (``lead of 3``, ``continuation``, …)."""
        if role.startswith("lead"):
            return self.lead
        return {"ASCII": self.ok, "continuation": self.continuation, "invalid": self.error}.get(role, "")

    def on_token(self, index: int) -> str:
        """A Rich style string for a token drawn at ``index`` (alternating backgrounds)."""
        k = index % len(self.token_backgrounds)
        return f"{self.token_text[k]} on {self.token_backgrounds[k]}"


@lru_cache(maxsize=64)
def _token_styles(p: Palette) -> tuple[Style, ...]:
    return tuple(Style(color=fg, bgcolor=bg) for fg, bg in zip(p.token_text, p.token_backgrounds))


@lru_cache(maxsize=64)
def _log_styles(p: Palette) -> tuple[Style, Style, Style, Style]:
    return (Style(bold=True, color=p.header_text, bgcolor=p.header_bg), Style(bold=True, color=p.cursor_text, bgcolor=p.cursor_bg),
            Style(color=p.text, bgcolor=p.odd_bg), Style(color=p.accent))


@lru_cache(maxsize=64)
def _newline_styles(p: Palette) -> tuple[Style, ...]:
    # ↵ stands apart from the token's text but still reads on its background
    out = []
    for fg, bg in zip(p.token_text, p.token_backgrounds):
        back = Color.parse(bg)
        out.append(Style(color=readable(Color.parse(fg).blend(back, 0.35), back, MARK_CONTRAST).hex, bgcolor=bg))
    return tuple(out)


def _variables(theme: Theme) -> dict[str, str]:
    return theme.to_color_system().generate()


def _is_rgb(value: str | None) -> bool:
    try:
        return value is not None and Color.parse(value).ansi is None
    except Exception:  # "auto 87%", "transparent", an ANSI name: not a colour we can measure
        return False


_palettes: dict[tuple[str, int], Palette] = {}


def palette_for(theme: Theme) -> Palette:
    """The palette of ``theme`` (any Textual theme; ANSI ones borrow textual-dark/-light's)."""
    key = (theme.name, id(theme))
    if key not in _palettes:
        _palettes[key] = _palette(theme)
    return _palettes[key]


def _palette(theme: Theme) -> Palette:
    variables = _variables(theme)
    if not all(_is_rgb(variables.get(k)) for k in ("background", "foreground", "primary", "warning")):
        fallback = BUILTIN_THEMES["textual-dark" if theme.dark else "textual-light"]
        return _replace_name(palette_for(fallback), theme.name)
    get = lambda key, default="primary": Color.parse(variables[key] if _is_rgb(variables.get(key)) else variables[default])  # noqa: E731
    background, foreground = get("background"), get("foreground")
    surface = get("surface", "background")
    dark = luminance(background) < 0.18
    tint = TINT_DARK if dark else TINT_LIGHT
    token_bgs = _distinct([background.blend(get(hue), tint) for hue in TOKEN_HUES], background, tint)
    accent = get("warning") if dark else get("accent")
    highlight_bg = get("accent")
    mark = lambda c: readable(c, background, MARK_CONTRAST).hex  # noqa: E731
    header_bg = background.blend(foreground, 0.15)
    cursor_bg = get("primary")
    code_bg = apart(background.blend(get("warning"), 0.15), background, CODE_CONTRAST)
    return Palette(
        name=theme.name,
        dark=dark,
        background=background.hex,
        surface=surface.hex,
        text=foreground.hex,
        token_backgrounds=tuple(c.hex for c in token_bgs),
        token_text=tuple(text_on(c, foreground).hex for c in token_bgs),
        highlight_bg=highlight_bg.hex,
        highlight_text=text_on(highlight_bg, background).hex,
        accent=readable(accent, background, TEXT_CONTRAST).hex,
        bar=mark(get("primary")),
        muted=readable(background.blend(foreground, 0.45), background, MARK_CONTRAST).hex,
        partial=readable(get("error"), background, TEXT_CONTRAST).hex,
        error=readable(get("error"), background, TEXT_CONTRAST).hex,
        segment=readable(get("secondary"), background, TEXT_CONTRAST).hex,
        unknown_bg=background.blend(get("error"), 0.45).hex,
        header_bg=header_bg.hex,
        header_text=text_on(header_bg, foreground).hex,
        cursor_bg=cursor_bg.hex,
        cursor_text=text_on(cursor_bg, Color(255, 255, 255) if dark else background).hex,
        odd_bg=background.blend(foreground, 0.06).hex,
        code_bg=code_bg.hex,
        code_text=readable(get("warning") if dark else get("error"), code_bg, TEXT_CONTRAST).hex,
        ok=readable(get("success"), background, TEXT_CONTRAST).hex,
        lead=readable(get("primary"), background, TEXT_CONTRAST).hex,
        continuation=readable(get("secondary") if distance(get("secondary"), get("primary")) > 60 else get("accent"),
                              background, TEXT_CONTRAST).hex,
    )


#: Smallest distance (0-441, RGB) between two neighbouring token backgrounds.
MIN_TOKEN_DISTANCE = 24.0


def distance(a: Color, b: Color) -> float:
    return ((a.r - b.r) ** 2 + (a.g - b.g) ** 2 + (a.b - b.b) ** 2) ** 0.5


def _distinct(colors: list[Color], background: Color, tint: float) -> list[Color]:
    """Drop a tint that is too close to the one before it (themes whose primary and secondary are
    near), then vary lightness so that any two neighbours, the last and the first too, differ."""
    out: list[Color] = []
    for color in colors:
        if not out or distance(color, out[-1]) >= MIN_TOKEN_DISTANCE:
            out.append(color)
    while len(out) > 2 and distance(out[-1], out[0]) < MIN_TOKEN_DISTANCE:  # the cycle's wrap
        out.pop()
    if len(out) < 2:  # a monochrome theme: alternate the background's lightness instead
        base = out[0] if out else background
        other = base.lighten(0.12) if luminance(base) < 0.18 else base.darken(0.12)
        out = [base, other]
    return out


def _replace_name(p: Palette, name: str) -> Palette:
    from dataclasses import replace

    return replace(p, name=name)


_current: Palette | None = None


def current() -> Palette:
    """The palette of the running app's theme (textual-dark's before any app starts)."""
    global _current
    if _current is None:
        _current = palette_for(BUILTIN_THEMES["textual-dark"])
    return _current


def activate(theme: Theme) -> Palette:
    """Make ``theme``'s palette the one :func:`current` returns."""
    global _current
    _current = palette_for(theme)
    return _current
