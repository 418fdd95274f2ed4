"""Drive hybridgo's kernel from the classic Jupyter Notebook in a browser.

Run by kernel's TestNotebookWebUI (webui_test.go), which starts the
Notebook server and prepares the notebook; see that file. This script
opens the notebook in headless Chromium (Selenium and chromedriver, from
Debian's python3-selenium and chromium-driver), works it as a person
would (menus, toolbar buttons, keyboard) and checks what the page shows.
It prints one line per check, "PASS name" or "FAIL name: what was
expected on screen", and "SHOT path" for each screenshot, and exits 1
when a check failed.

The notebook it expects: any cells, then a cell that shows a graph with
display.EchartsHost set to the server's copy of echarts (drawn only
with --echarts; else its static picture stays), a progress cell (a
display.NewProgress bar), an error cell, a cell that loops forever and a
last cell that prints 1+1 and uses a variable of the first cells.
"""

import argparse
import os
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WIDTH, HEIGHT = 1280, 900

failed = []


def check(name, ok, expected):
    """Record a check: expected says what the page should have shown."""
    if ok:
        print("PASS", name, flush=True)
    else:
        print("FAIL %s: %s" % (name, expected), flush=True)
        failed.append(name)
    return ok


# The state of the page as a person reads it: each code cell's prompt and
# the text and kinds of its outputs, the kernel indicator and the
# notification area.
PAGE_STATE = r"""
var cells = [];
document.querySelectorAll('#notebook-container .cell.code_cell').forEach(function (c) {
  var outs = [];
  c.querySelectorAll('.output_area').forEach(function (o) {
    var sub = o.querySelector('.output_subarea');
    outs.push({
      cls: sub ? sub.className : '',
      text: o.innerText,
      tables: o.querySelectorAll('table').length,
      svgs: Array.prototype.filter.call(o.querySelectorAll('svg'), function (s) {
        return s.getBoundingClientRect().width > 0; }).length,
      svgText: Array.prototype.map.call(o.querySelectorAll('svg text'), function (t) {
        return t.textContent; }).join(' '),
      progress: o.querySelectorAll('.hybridgo-progress').length,
      canvases: Array.prototype.filter.call(o.querySelectorAll('.hybridgo-chart canvas'), function (c) {
        return c.getBoundingClientRect().width > 0 && c.getBoundingClientRect().height > 0; }).length,
      // The most lines any table caption is broken into.
      captionLines: Array.prototype.reduce.call(o.querySelectorAll('caption'), function (m, c) {
        var r = document.createRange(); r.selectNodeContents(c);
        return Math.max(m, r.getClientRects().length); }, 0),
    });
  });
  cells.push({prompt: (c.querySelector('.input_prompt') || {}).innerText || '',
              source: c.querySelector('.CodeMirror') ? c.querySelector('.CodeMirror').CodeMirror.getValue() : '',
              outputs: outs});
});
var icon = document.getElementById('kernel_indicator_icon');
return {cells: cells,
        idle: !!icon && icon.classList.contains('kernel_idle_icon'),
        busy: !!icon && icon.classList.contains('kernel_busy_icon'),
        notification: (document.getElementById('notification_kernel') || {}).innerText || '',
        requirejs: typeof window.define === 'function' && !!window.define.amd,
        kernel: (window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel) ? Jupyter.notebook.kernel.id : ''};
"""


# Records, on every change of the page, the progress cell's bars and
# their text, and its number of outputs: what a person watching it saw.
WATCH_PROGRESS = r"""
var i = arguments[0], seen = window.__progressSeen = {texts: [], bars: 0, outputs: 0};
new MutationObserver(function () {
  var cell = document.querySelectorAll('#notebook-container .cell.code_cell')[i];
  var bars = cell.querySelectorAll('.output_area .hybridgo-progress');
  seen.bars = Math.max(seen.bars, bars.length);
  seen.outputs = Math.max(seen.outputs, cell.querySelectorAll('.output_area').length);
  if (bars.length) {
    var t = bars[0].innerText;
    if (seen.texts[seen.texts.length - 1] !== t) seen.texts.push(t);
  }
}).observe(document.getElementById('notebook-container'), {childList: true, subtree: true, characterData: true});
"""


def state(driver):
    return driver.execute_script(PAGE_STATE)


def running(st):
    return any("*" in c["prompt"] for c in st["cells"])


def wait(driver, what, cond, timeout):
    """Wait until cond(driver) is true; fail with what was expected."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(cond)
    except TimeoutException:
        raise TimeoutException("waited %ds for %s" % (timeout, what))


shots = 0


def screenshot(driver, outdir, name):
    """Save the whole notebook, not just the window, as a PNG."""
    global shots
    shots += 1
    path = os.path.join(outdir, "%02d-%s.png" % (shots, name))
    # The notebook scrolls inside #site: make the window as tall as its
    # content for the picture, then put it back.
    h = driver.execute_script(
        "var s = document.getElementById('site');"
        "return document.getElementById('header').offsetHeight + s.scrollHeight;")
    driver.set_window_size(WIDTH, min(max(h + 40, HEIGHT), 16000))
    time.sleep(0.2)  # let the resize handler lay the page out
    driver.save_screenshot(path)
    driver.set_window_size(WIDTH, HEIGHT)
    print("SHOT", path, flush=True)


def menu(driver, top, *items):
    """Click a menu bar item, then the entries of its submenus."""
    ActionChains(driver).click(driver.find_element(
        By.XPATH, "//ul[contains(@class,'navbar-nav')]/li/a[normalize-space()='%s']" % top)).perform()
    for i, item in enumerate(items):
        el = wait(driver, "menu entry %r" % item, lambda d: next(
            (e for e in d.find_elements(By.ID, item) if e.is_displayed()), None), 5)
        if i < len(items) - 1:
            ActionChains(driver).move_to_element(el).perform()
        else:
            el.find_element(By.TAG_NAME, "a").click()


def toolbar(driver, action):
    driver.find_element(By.CSS_SELECTOR, "button[data-jupyter-action='jupyter-notebook:%s']" % action).click()


def select_cell(driver, index):
    """Click a code cell's prompt area, which selects it in command mode."""
    cells = driver.find_elements(By.CSS_SELECTOR, "#notebook-container .cell.code_cell")
    cell = cells[index]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
    cell.find_element(By.CSS_SELECTOR, ".input_prompt").click()
    wait(driver, "cell %d selected" % index,
         lambda d: "selected" in cells[index].get_attribute("class"), 5)


def outputs_text(cell):
    return "\n".join(o["text"] for o in cell["outputs"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True, help="the notebook's URL, with its token")
    ap.add_argument("--screenshots", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--echarts", action="store_true", help="the server has echarts: check the chart draws")
    args = ap.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)

    opts = webdriver.ChromeOptions()
    opts.binary_location = args.chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=%d,%d" % (WIDTH, HEIGHT),
              # Offline, as a notebook without internet is: the
              # interactive graph cannot load echarts and its static SVG
              # must stay.
              "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=opts)
    driver.set_script_timeout(10)
    try:
        run(driver, args)
    except (TimeoutException, WebDriverException) as e:
        check("ui", False, str(e).strip())
        try:
            screenshot(driver, args.screenshots, "failure")
        except WebDriverException:
            pass
    finally:
        for entry in driver.get_log("browser"):
            print("CONSOLE", entry.get("level"), entry.get("message"), flush=True)
        driver.quit()
    sys.exit(1 if failed else 0)


def run(driver, args):
    out = args.screenshots
    driver.get(args.url)
    wait(driver, "the notebook to open with its kernel idle (kernel indicator)",
         lambda d: state(d)["idle"] and state(d)["kernel"], 60)
    screenshot(driver, out, "opened")
    kernel = state(driver)["kernel"]

    # Cell > All Output > Clear.
    menu(driver, "Cell", "all_outputs", "clear_all_output")
    st = wait(driver, "no outputs after Cell > All Output > Clear",
              lambda d: (lambda s: s if not any(c["outputs"] for c in s["cells"]) else None)(state(d)), 10)
    check("clear outputs", True, "")
    n = len(st["cells"])
    chart_i, progress_i, error_i, loop_i, after_i = n - 5, n - 4, n - 3, n - 2, n - 1
    screenshot(driver, out, "cleared")

    # Cell > Run All, watching the progress bar while the cells run.
    driver.execute_script(WATCH_PROGRESS, progress_i)
    menu(driver, "Cell", "run_all_cells")
    deadline = time.time() + args.timeout
    shot_progress = False
    while True:
        st = state(driver)
        cell = st["cells"][progress_i]
        if not shot_progress and "*" in cell["prompt"] and any(o["progress"] for o in cell["outputs"]):
            screenshot(driver, out, "progress")
            shot_progress = True
        # Done when no cell waits and the first one has its number (the
        # menu's click may return only once the cells have run).
        if not running(st) and st["idle"] and any(ch.isdigit() for ch in st["cells"][0]["prompt"]):
            break
        if time.time() > deadline:
            raise TimeoutException("Run All: not finished after %ds: cells %s show In [*], kernel %s" % (
                args.timeout, [i + 1 for i, c in enumerate(st["cells"]) if "*" in c["prompt"]],
                "idle" if st["idle"] else "busy" if st["busy"] else "neither idle nor busy"))
        time.sleep(0.05)
    if args.echarts:
        # echarts loads and draws after its cell has finished: on a busy
        # machine, give it time before reading the chart's output.
        try:
            wait(driver, "the interactive graph", lambda d: any(
                o["canvases"] and not o["svgs"] for o in state(d)["cells"][chart_i]["outputs"]), 30)
        except TimeoutException:
            pass  # the check below says what was seen
        st = state(driver)
    screenshot(driver, out, "run-all")
    cells = st["cells"]

    for i, c in enumerate(cells[:chart_i]):
        errs = [o["text"] for o in c["outputs"] if "output_error" in o["cls"]]
        check("tutorial cell %d" % (i + 1), not errs,
              "no error output, got %r" % errs)
    first = cells[0]
    check("NDArray table", any(o["tables"] and "NDArray 2x3" in o["text"] for o in first["outputs"]),
          "the first cell's NDArray shown as a table captioned 'NDArray 2x3 …', got %r" % outputs_text(first))
    graphs = [o for c in cells[:progress_i] for o in c["outputs"] if o["svgs"]]
    check("graph SVG", any("s" in o["svgText"].split() and "broadcast_add" in o["svgText"] for o in graphs),
          "a visible SVG drawing of the graph with node labels ('s', 'broadcast_add'), got %d SVGs: %r"
          % (len(graphs), [o["svgText"][:200] for o in graphs]))

    chart = cells[chart_i]["outputs"]
    if args.echarts:
        check("interactive graph", any(o["canvases"] and not o["svgs"] for o in chart),
              "the graph drawn by echarts (a canvas) in place of its static SVG, got %r" % [
                  (o["canvases"], o["svgs"], o["text"][:200]) for o in chart])
    else:
        check("static graph", any(o["svgs"] for o in chart),
              "the graph's static SVG while echarts cannot load, got %r" % [o["text"][:200] for o in chart])
    check("require.js intact", st["requirejs"],
          "the notebook's define (require.js) restored after the charts loaded echarts")

    wrapped = ["cell %d (%d lines)" % (i + 1, o["captionLines"])
               for i, c in enumerate(cells[:progress_i]) for o in c["outputs"] if o["captionLines"] > 1]
    check("captions on one line", not wrapped,
          "each NDArray table's caption on one line, broken in %s" % ", ".join(wrapped))

    seen = driver.execute_script("return window.__progressSeen;")
    texts, most_bars, most_outputs = seen["texts"], seen["bars"], seen["outputs"]
    pc = cells[progress_i]
    check("progress in place", most_bars == 1 and len(texts) >= 5,
          "one progress bar whose text changes at least 5 times while the cell runs; saw at most %d bars and %d texts: %r"
          % (most_bars, len(texts), texts[:8]))
    final = next((o["text"] for o in pc["outputs"] if o["progress"]), "")
    check("progress done", "[" + "=" * 30 + "]" in final and "20/20" in final,
          "the bar full at 20/20 when the cell ends, got %r" % final)
    check("progress outputs", len(pc["outputs"]) <= 2 and most_outputs <= 2,
          "the bar and its loss chart only, got up to %d outputs: %r" % (most_outputs, outputs_text(pc)))

    ec = cells[error_i]
    etext = outputs_text(ec)
    check("error shown", any("output_error" in o["cls"] for o in ec["outputs"]) and
          "undefined: undefinedName" in etext and "CompileError" in etext,
          "the error cell shows 'CompileError' and 'undefined: undefinedName', got %r" % etext)
    after = [(c["prompt"], outputs_text(c)) for c in cells[error_i + 1:]]
    check("run all stops at the error", all(not t and not any(ch.isdigit() for ch in p) for p, t in after),
          "the cells after the error not run: prompts 'In [ ]' and no outputs, got %r" % after)

    # Run the endless cell from the toolbar, then interrupt it.
    select_cell(driver, loop_i)
    toolbar(driver, "run-cell-and-select-next")
    wait(driver, "the loop cell running (In [*]) and the kernel busy",
         lambda d: (lambda s: "*" in s["cells"][loop_i]["prompt"] and s["busy"])(state(d)), 10)
    time.sleep(0.3)
    check("loop runs", "*" in state(driver)["cells"][loop_i]["prompt"],
          "the loop cell still running after 0.3s")
    screenshot(driver, out, "loop-running")
    toolbar(driver, "interrupt-kernel")
    st = wait(driver, "the interrupted cell to show its error and the kernel to go idle",
              lambda d: (lambda s: s if s["idle"] and "*" not in s["cells"][loop_i]["prompt"] else None)(state(d)), 15)
    lt = outputs_text(st["cells"][loop_i])
    check("interrupt shown", "Interrupted" in lt,
          "the loop cell shows 'Interrupted', got %r" % lt)
    screenshot(driver, out, "interrupted")

    # The kernel is the same one, with its variables.
    select_cell(driver, after_i)
    toolbar(driver, "run-cell-and-select-next")
    st = wait(driver, "the last cell to run",
              lambda d: (lambda s: s if s["idle"] and s["cells"][after_i]["outputs"] and
                         "*" not in s["cells"][after_i]["prompt"] else None)(state(d)), 15)
    at = outputs_text(st["cells"][after_i])
    check("kernel alive", at.split("\n")[0].strip() == "2" and "2x3" in at,
          "the cell after the interrupt prints 2 and the shape 2x3 of a variable from the first cell, got %r" % at)
    check("same kernel", st["kernel"] == kernel and "restart" not in st["notification"].lower()
          and "dead" not in st["notification"].lower(),
          "no kernel restart: kernel %s, now %s, notification %r" % (kernel, st["kernel"], st["notification"]))
    screenshot(driver, out, "after-interrupt")


if __name__ == "__main__":
    main()
