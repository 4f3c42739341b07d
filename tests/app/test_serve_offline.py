"""The served page asks no host but the server for anything (issue 22, point 16): in an offline
classroom every tab waited on textual-serve's web-font link before it fell back silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras import skip_without

skip_without("serve")
textual_serve = pytest.importorskip("textual_serve")

from tui.cli.serve_page import (  # noqa: E402
    FALLBACKS,
    TEMPLATE,
    offline_page,
    offline_templates,
    ranges_of,
    remote_hosts,
    roboto_range,
)

INSTALLED = Path(textual_serve.__file__).resolve().parent / "templates" / TEMPLATE


def test_the_installed_template_is_made_offline():
    original = INSTALLED.read_text(encoding="utf-8")
    page = offline_page(original)
    assert remote_hosts(page) == []
    assert "{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf" in page
    fonts = INSTALLED.parent.parent / "static" / "fonts"
    assert (fonts / "RobotoMono-VariableFont_wght.ttf").is_file()  # what the page names is shipped
    assert (fonts / "RobotoMono-Italic-VariableFont_wght.ttf").is_file()
    # nothing else of the page changed: textual-serve's variables and its terminal are all there
    for needed in ('id="terminal"', "{{ app_websocket_url }}", "{{ config.static.url }}js/textual.js"):
        assert needed in page and needed in original


def test_the_page_names_cjk_and_emoji_fonts_of_the_machine_for_what_roboto_lacks():
    """Chinese and emoji are drawn by a named stack of fonts the participant may have (local()
    only: nothing fetched), joined to the terminal's "Roboto Mono" for their ranges alone."""
    page = offline_page(INSTALLED.read_text(encoding="utf-8"))
    assert remote_hosts(page) == [] and "url(" not in page.split("fonts/RobotoMono-Italic", 1)[1].split("</style>")[0]
    for needed in ('local("Noto Sans CJK SC")', 'local("PingFang SC")', 'local("Microsoft YaHei")',
                   'local("Noto Color Emoji")', 'local("Apple Color Emoji")', 'local("Segoe UI Emoji")'):
        assert needed in page
    assert page.count('font-family: "Roboto Mono";') == 2 + len(FALLBACKS)
    roboto = ranges_of(roboto_range())
    for char in "中，あ한🙂":  # the fallbacks' own, and only theirs
        assert not any(low <= ord(char) <= high for low, high in roboto), char
        assert any(low <= ord(char) <= high for ranges, _ in FALLBACKS for low, high in ranges_of(ranges)), char
    for char in "a·↵✓✗█│é":  # what the app draws in Roboto Mono stays there
        assert any(low <= ord(char) <= high for low, high in roboto), char


def test_remote_hosts_sees_each_kind_of_link():
    assert remote_hosts('<link href="https://fonts.example/css" />') == ["https://fonts.example/css"]
    assert remote_hosts('<img src="//cdn.example/x.png">') == ["//cdn.example/x.png"]
    assert remote_hosts('<svg xmlns="http://www.w3.org/2000/svg">') == []
    assert offline_page('<head>\n<link rel="stylesheet" href="//cdn.example/a.css">\n</head>').count("cdn.example") == 0


def test_the_offline_folder_holds_the_page():
    folder = offline_templates()
    assert folder.is_absolute() and remote_hosts((folder / TEMPLATE).read_text(encoding="utf-8")) == []


@pytest.mark.slow
def test_the_page_in_chromium_requests_nothing_elsewhere(tmp_path):
    """The real server's page in headless Chromium with every request off this server refused:
    none is made, the font loads from the server, and the app draws."""
    from test_serve import CANVAS, PATIENCE, chromium, running_server

    executable = chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    with running_server(tmp_path, "c.txt") as (port, _root, _state), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 700})
            own, elsewhere, failed = f"http://localhost:{port}/", [], []

            def route(request_route) -> None:
                url = request_route.request.url
                if url.startswith((own, f"ws://localhost:{port}/")):
                    request_route.continue_()
                else:
                    elsewhere.append(url)
                    request_route.abort()

            page.route("**/*", route)
            page.on("requestfailed", lambda request: failed.append(request.url))
            fonts = []
            page.on("response", lambda response: fonts.append(response) if "/fonts/" in response.url else None)
            page.goto(own, timeout=PATIENCE * 1000)
            page.wait_for_selector("body.-first-byte", timeout=PATIENCE * 1000)
            page.wait_for_function(f"(() => {{ const c = ({CANVAS})(); return c && c.inked > 2000; }})",
                                   timeout=PATIENCE * 1000)
            page.evaluate("document.fonts.ready")
            assert elsewhere == [] and failed == []
            assert page.evaluate("document.fonts.check('16px \"Roboto Mono\"')")
            # every face was asked for (the canvas asks none): the CJK and emoji ones are
            # loaded, or failed where this machine has none of their fonts; none is left waiting
            assert page.evaluate("[...document.fonts].every(face => face.status !== 'unloaded')")
        finally:
            browser.close()
