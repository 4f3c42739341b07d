"""bpe-lab serve answers only its own page (issue 40, item 2), against a real server: a websocket
from another page gets 403 and neither an app nor a --max-clients place, the page's own gets an
app; and in headless Chromium, a page of another origin cannot open the app, nor can a page on a
name that resolves to the server (DNS rebinding, made with Chromium's resolver rules).

Real servers on 127.0.0.1 (tests/app/test_serve.py's ``running_server``); every wait is a bounded
loop on state. The check itself, case by case: tests/cli/test_serve_origin.py.
"""

from __future__ import annotations

import time

import pytest
from extras import skip_without

skip_without("serve")
aiohttp = pytest.importorskip("aiohttp")
psutil = pytest.importorskip("psutil")

from test_serve import PATIENCE, Tab, chromium, free_port, own_page, running_server  # noqa: E402
from test_serve_hostile import app_processes, server_pid, until  # noqa: E402

pytestmark = pytest.mark.slow


async def test_a_foreign_origin_gets_403_and_no_place_the_own_page_an_app(tmp_path):
    with running_server(tmp_path, "c.txt", "--max-clients", "1") as (port, _root, _state):
        pid = server_pid(port)
        url = f"ws://127.0.0.1:{port}/ws"
        foreign = [{"origin": "http://evil.com"}, {"origin": f"http://127.0.0.1:{port + 1}"},
                   {"origin": f"https://127.0.0.1:{port}"}, {"origin": "null"}, {},
                   {"origin": f"http://evil.com:{port}", "headers": {"Host": f"evil.com:{port}"}}]

        async def refused_all(http) -> None:
            for options in foreign:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(url, **options)
                assert refused.value.status == 403, options  # refused as foreign, not as full

        async with aiohttp.ClientSession() as http:
            for _ in range(3):  # more than --max-clients of them
                await refused_all(http)
            assert app_processes(pid) == []
            async with http.get(f"http://127.0.0.1:{port}/", headers={"Host": f"evil.com:{port}"}) as page:
                assert page.status == 403 and page.content_type == "text/plain"
                assert (await page.text()).startswith("bpe-lab serve: refused: a request for another host")
            async with http.get(f"http://127.0.0.1:{port}/") as page:
                assert page.status == 200  # the one place is free
            async with http.ws_connect(url, origin=own_page(port)) as ws:  # the page's own origin: an app
                tab = Tab(ws)
                await tab.until(lambda text: "step 0" in text)
                await tab.keys("n")
                await tab.until(lambda text: "step 1" in text)
                await refused_all(http)  # still refused as foreign while the class is full
                with pytest.raises(aiohttp.WSServerHandshakeError) as full:
                    await http.ws_connect(url, origin=own_page(port))
                assert full.value.status == 503
                assert len(app_processes(pid)) == 1
        log = tmp_path / "serve.log"
        await until(lambda: "Origin 'http://evil.com')" in log.read_text(encoding="utf-8"), "the refusal named")
        said = log.read_text(encoding="utf-8")
        assert said.count("bpe-lab: refused a request from another page (Origin 'http://evil.com')") == 1
        assert "bpe-lab: refused a websocket without an Origin header" in said and "Traceback" not in said


#: A page of another origin that opens the app's websocket, as a site in another tab would, and
#: says what came of it.
KNOCK = """<!DOCTYPE html><title>another page</title><script>
const socket = new WebSocket("ws://127.0.0.1:PORT/ws");
socket.binaryType = "arraybuffer";
socket.onmessage = () => { document.title = "drawn"; };
socket.onerror = () => { document.title = "refused"; };
</script>"""


def test_in_chromium_another_page_and_a_rebinding_name_get_no_app(tmp_path):
    executable = chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    import http.server
    import threading

    with running_server(tmp_path, "c.txt") as (port, _root, _state), sync_api.sync_playwright() as playwright:
        page_html = KNOCK.replace("PORT", str(port)).encode()

        class Other(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(page_html)

            def log_message(self, *args):
                pass

        other = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Other)
        threading.Thread(target=other.serve_forever, daemon=True).start()
        # evil.test resolves to this machine: a rebinding page's name, once its DNS answered 127.0.0.1
        browser = playwright.chromium.launch(executable_path=executable,
                                             args=["--no-sandbox", "--host-resolver-rules=MAP evil.test 127.0.0.1"])
        try:
            page = browser.new_page()
            page.goto(f"http://localhost:{other.server_address[1]}/", timeout=PATIENCE * 1000)
            page.wait_for_function("document.title !== 'another page'", timeout=PATIENCE * 1000)
            assert page.title() == "refused"  # the browser sent its page's origin; no frame came
            answer = page.goto(f"http://evil.test:{port}/", timeout=PATIENCE * 1000)
            assert answer.status == 403
            assert "a request for another host (Host 'evil.test:" in page.inner_text("body")
            assert app_processes(server_pid(port)) == []
            own = browser.new_page()
            own.goto(f"http://localhost:{port}/", timeout=PATIENCE * 1000)
            own.wait_for_selector("body.-first-byte", timeout=PATIENCE * 1000)  # the server's own page: its app
        finally:
            browser.close()
            other.shutdown()
            other.server_close()
        named = f"Origin 'http://localhost:{other.server_address[1]}'"  # the refusal in the serving terminal
        deadline = time.monotonic() + PATIENCE
        while named not in (tmp_path / "serve.log").read_text(encoding="utf-8"):
            assert time.monotonic() < deadline, "the refusal never named"
            time.sleep(0.05)
