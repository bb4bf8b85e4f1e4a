#!/usr/bin/env python3
"""Drives the review page in real Chromium (Playwright) through a list of steps and prints one
JSON object: what the page exported, where it stood, screenshots of each comparison mode with
the rectangles of their panes, and how long the first screen took.

    review_page_driver.py INDEX_HTML STEPS_JSON OUT_DIR

STEPS_JSON is a list of steps, each an object with one of:
  {"press": ["j", "Shift+A", ...]}   keyboard presses on the page
  {"type": "text"}                   typed text (after "/" focuses the path filter)
  {"click": "css selector"}          a mouse click
  {"select": ["css selector", "v"]}  chooses the option of value v in a <select>
  {"export": "name"}                 clicks "Download accepted paths"; the downloaded file's text
  {"state": "name"}                  the current card (panes, zoom, notes, its variant group's
                                     heading and what it compares with), counts, the variant
                                     groups of the header, cards in the document, the focused element, the live region's text,
                                     whether single-key shortcuts are on, the commands shown and
                                     the first screen's line on whether the changes are written,
                                     the header's summary and problems, the card's notes and meta
  {"cards": "name"}                  every card in the document: outcome, panes, decidable
  {"drag": [dx, dy]}                 drags the current card's first pane (pans)
  {"bench": "j", "count": 100}       milliseconds per handled key, dispatched in the page
  {"screenshot": "name"}             a screenshot once the current card's images loaded
  {"reload": true}                   reloads the page (decisions must survive)
  {"modes": "name"}                  a screenshot per comparison mode (1 to 6) of the current
                                     card, with its panes' rectangles; flicker twice
Every screenshot is a PNG in OUT_DIR; the JSON names them. Exits 0 unless Chromium or a step
fails; the caller asserts on the JSON.
"""
import json
import os
import sys
import time

from playwright.sync_api import sync_playwright

MODES = ["side", "swipe", "onion", "flicker", "overlay", "boxes"]


def wait_ready(page):
    page.wait_for_selector("html[data-ready=true]", timeout=60000)


def wait_images(page):
    """Until every image in the current card has loaded (or failed)."""
    page.wait_for_function(
        """() => { const card = document.querySelector('.card.current');
                   return card && [...card.querySelectorAll('img')].every(i => i.complete); }""",
        timeout=30000)


def current_state(page):
    return page.evaluate(
        """() => { const card = document.querySelector('.card.current');
          return { path: card ? card.dataset.path : null,
                   status: card ? card.querySelector('.state').textContent : null,
                   groupNote: card && card.querySelector('.group-note')
                     ? card.querySelector('.group-note').textContent : null,
                   acceptedCount: document.getElementById('accepted-count').textContent,
                   visibleCount: document.getElementById('visible-count').textContent,
                   cardsInDocument: document.querySelectorAll('.card').length,
                   imagesInDocument: document.querySelectorAll('img').length,
                   imagesShown: card ? [...card.querySelectorAll('img')]
                     .filter(i => i.complete && i.naturalWidth > 0).length : 0,
                   helpShown: !document.getElementById('help').hidden,
                   focus: document.activeElement
                     ? document.activeElement.id || document.activeElement.tagName.toLowerCase() : null,
                   focusInHelp: document.getElementById('help').contains(document.activeElement),
                   announcement: document.getElementById('announcer').textContent.trim(),
                   announcerLive: document.getElementById('announcer').getAttribute('aria-live'),
                   shortcuts: document.getElementById('shortcuts-toggle').checked,
                   variantHeading: card && card.querySelector('.variant-heading')
                     ? card.querySelector('.variant-heading').textContent : null,
                   comparedWith: card && card.querySelector('.compared-with')
                     ? card.querySelector('.compared-with').textContent : null,
                   variantGroups: document.getElementById('variant-groups').hidden ? []
                     : [...document.querySelectorAll('#variant-groups button')].map(b => b.textContent),
                   sizeNote: card && card.querySelector('.size-note')
                     ? card.querySelector('.size-note').textContent : null,
                   paneLabels: card ? [...card.querySelectorAll('.pane-label')].map(l => l.textContent) : [],
                   stageTransforms: card ? [...card.querySelectorAll('.stage')].map(s => s.style.transform) : [],
                   gridShown: card ? [...card.querySelectorAll('.grid')].map(g => g.style.backgroundImage !== 'none') : [],
                   zoomLevel: document.getElementById('zoom-level').textContent,
                   command: document.getElementById('command').textContent,
                   removeCommand: document.getElementById('remove-command').textContent,
                   changesState: document.getElementById('changes-state').textContent,
                   summary: document.getElementById('summary').textContent,
                   problems: [...document.querySelectorAll('#problems li')].map(l => l.textContent),
                   cardNote: card && card.querySelector('.note')
                     ? card.querySelector('.note').textContent : null,
                   cardMeta: card ? [...card.querySelectorAll('.meta li')].map(l => l.textContent) : [],
                   downloadLabel: document.getElementById('download').textContent,
                   kindLabels: card ? [...card.querySelectorAll('.kind-label')].map(t => t.textContent) : [],
                   kindBoxes: card ? [...card.querySelectorAll('rect[data-kind]')].map(r => r.dataset.kind) : [],
                   kindsNote: card && card.querySelector('.kinds-note')
                     ? card.querySelector('.kinds-note').textContent : null,
                   changeGroupNote: card && card.querySelector('.change-group-note')
                     ? card.querySelector('.change-group-note').textContent : null,
                   kindOptions: [...document.querySelectorAll('#kind-filter option')]
                     .map(o => o.textContent + (o.disabled ? ' (disabled)' : '')) }; }""")


def cards_in_document(page):
    return page.evaluate(
        """() => [...document.querySelectorAll('.card')].map(card => ({
              path: card.dataset.path, outcome: card.dataset.outcome,
              decidable: !!card.querySelector('.decide'),
              paneLabels: [...card.querySelectorAll('.pane-label')].map(l => l.textContent),
              note: card.querySelector('.note') ? card.querySelector('.note').textContent : null }))""")


def drag(page, dx, dy):
    """Drags the current card's first pane from its centre by (dx, dy)."""
    box = page.locator(".card.current .viewport").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=5)
    page.mouse.up()


def screenshot_modes(page, name, out):
    shots = []
    for index, mode in enumerate(MODES):
        page.keyboard.press(str(index + 1))
        wait_images(page)
        page.wait_for_timeout(150)
        panes = page.evaluate(
            """() => [...document.querySelectorAll('.card.current .viewport')].map(v => {
                 const r = v.getBoundingClientRect();
                 return { label: v.parentElement.querySelector('.pane-label').textContent,
                          x: Math.round(r.left), y: Math.round(r.top),
                          width: Math.round(r.width), height: Math.round(r.height) }; })""")
        files = []
        for turn in range(2 if mode == "flicker" else 1):
            if turn:
                page.wait_for_timeout(650)  # one flicker period: the other image
            path = os.path.join(out, f"{name}-{index + 1}-{mode}{'-' + str(turn) if turn else ''}.png")
            page.screenshot(path=path)
            files.append(path)
        shots.append({"mode": mode, "key": str(index + 1), "screenshots": files, "panes": panes})
    return shots


def main():
    index, steps_file, out = sys.argv[1:4]
    with open(steps_file, encoding="utf-8") as handle:
        steps = json.load(handle)
    os.makedirs(out, exist_ok=True)
    result = {"exports": {}, "states": {}, "modes": {}, "cardsSeen": {}, "keyMilliseconds": {},
              "screenshots": {},
              "errors": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 900},
                                      device_scale_factor=1, accept_downloads=True)
        page = context.new_page()
        page.on("pageerror", lambda error: result["errors"].append(str(error)))
        page.on("console", lambda message: result["errors"].append(message.text)
                if message.type == "error" else None)

        started = time.monotonic()
        page.goto("file://" + os.path.abspath(index))
        wait_ready(page)
        result["readyWallSeconds"] = round(time.monotonic() - started, 3)
        result["firstScreenMilliseconds"] = page.evaluate(
            "performance.getEntriesByName('review-first-screen')[0].startTime")
        wait_images(page)
        result["imagesWallSeconds"] = round(time.monotonic() - started, 3)
        result["cards"] = page.evaluate("window.REFERENCE_REVIEW.cards.length")

        for step in steps:
            if "press" in step:
                for key in step["press"]:
                    page.keyboard.press(key)
            elif "type" in step:
                page.keyboard.type(step["type"])
            elif "click" in step:
                page.click(step["click"])
            elif "select" in step:
                page.select_option(step["select"][0], step["select"][1])
            elif "export" in step:
                with page.expect_download() as download:
                    page.click("#download")
                with open(download.value.path(), encoding="utf-8") as handle:
                    result["exports"][step["export"]] = {
                        "file": download.value.suggested_filename, "text": handle.read()}
            elif "state" in step:
                result["states"][step["state"]] = current_state(page)
            elif "cards" in step:
                result["cardsSeen"][step["cards"]] = cards_in_document(page)
            elif "drag" in step:
                drag(page, *step["drag"])
            elif "bench" in step:
                # Milliseconds per key handled, dispatched in the page (no protocol round trip),
                # with a forced layout after each so the work of showing the card counts.
                result["keyMilliseconds"][step["bench"]] = page.evaluate(
                    """([key, count]) => { const start = performance.now();
                         for (let i = 0; i < count; i += 1) {
                           document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
                           document.body.getBoundingClientRect(); }
                         return (performance.now() - start) / count; }""",
                    [step["bench"], step.get("count", 100)])
            elif "screenshot" in step:
                wait_images(page)
                path = os.path.join(out, step["screenshot"] + ".png")
                page.screenshot(path=path)
                result["screenshots"][step["screenshot"]] = path
            elif "reload" in step:
                page.reload()
                wait_ready(page)
            elif "modes" in step:
                result["modes"][step["modes"]] = screenshot_modes(page, step["modes"], out)
            else:
                raise SystemExit(f"unknown step {step!r} in {steps_file}")
        browser.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
