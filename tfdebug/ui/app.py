"""Starting the GUI: the QApplication, the main window, and the screenshot mode."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QTimer
from PySide6.QtWidgets import QApplication

from tfdebug.core.errors import ExportError, TfdebugError
from tfdebug.core.safe_text import terminal_safe
from tfdebug.io.atomic import atomic_path, check_output

SCREENSHOT_TIMEOUT_MS = 120_000


def _application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("tfdebug")
        app.setOrganizationName("tfdebug")
    return app


def run_app(model: str | None = None, texts: dict[str, str] | None = None, device: str | None = None,
            goto: str | None = None, screenshot: str | None = None, open_path: str | None = None,
            generation=None, lang: str | None = None, max_capture_mb: float | None = None,
            connect: tuple[str, str, str | None] | None = None, dtype: str | None = None,
            device_map: str | None = None, chat: bool = False, fresh: bool = False) -> int:
    """Open the debugger window; with `screenshot`, render it at `goto`, save a PNG and exit.

    Without arguments the window opens on the last inputs, saying so in the status bar (or, the first
    time and with `fresh`, on the default model and its first preset, on the first GPU when there is
    one), paused at the first stage. `texts` are input texts by key (`src`,
    `prompt` …); fields not given take the model's first preset. `open_path` opens a
    snapshot (through the window's snapshot actions). `generation` (DecodingSettings) makes Run
    generate token by token. `lang` ("en", "zh") overrides the language chosen last time
    in View ▸ Language (which itself defaults to the system locale's).
    `max_capture_mb` sets the capture budget for this run (not stored). `connect` (address, token,
    server key) attaches to `tfdebug serve` instead of running a model here. `dtype` and `device_map`
    (the CLI's --dtype/--device-map) preselect the input bar's Precision and Device map; without them the
    window uses those chosen last time. `chat` (--chat) turns the input bar's Chat toggle on; without it
    the toggle is as it was last time.
    """
    from tfdebug.ui.i18n import language as i18n
    from tfdebug.ui.state.session_start import starting_inputs
    from tfdebug.ui.shell.window import MainWindow, default_settings

    app = _application()
    i18n.apply_cjk_font(app)
    i18n.set_language(i18n.initial_language(default_settings(), lang))
    window = MainWindow(persist=screenshot is None, devices=["cpu"])  # the GPUs once torch is imported
    if window.persist and window.settings.value("window/geometry") is None:
        window.fit_screen()  # the first launch: within the screen, its title bar and status bar on it
    if fresh:
        window.forget_session_options()  # the scale and the rest a session carries: the defaults again
    window.ctl.run.set_generation(generation)
    if generation is not None:  # --generate: Generate in the window goes on with the same settings
        window.ctl.run.set_decoding(generation)
    if max_capture_mb is not None:
        window.ctl.capture_budget = f"{max_capture_mb:g}"
    if screenshot is not None:  # the same picture on every machine: the CPU in float32 unless given
        device, dtype = device or "cpu", dtype or "float32"
    remember = screenshot is None and not fresh
    window.show()
    result = {"code": 0}

    def begin(devices: list[str]) -> None:  # torch is imported: the devices are known
        inputs, restored = starting_inputs(model, texts, device, dtype, device_map,
                                           remembered=window.last_inputs() if remember else None,
                                           saved=window.last_loading() if remember else (None, None), devices=devices)
        inputs = replace(inputs, chat=chat or (window.last_chat() if remember else False))
        if connect is not None:
            window.tools.remote.connect_to(*connect)
        elif open_path is not None:
            window.input_bar.set_values(inputs.model, inputs.device, inputs.texts, (inputs.dtype, inputs.device_map))
            window.open_snapshot(open_path)
        elif restored:
            _start_restored(window, inputs, devices)
        else:
            window.start(inputs)

    start_behind(window, begin)

    if screenshot is not None:
        _arrange_screenshot(app, window, goto, screenshot, result, open_path)
    elif goto is not None:
        _when_ready(window, lambda: window.ctl.steps.run_to(goto))
    code = app.exec()
    # Screenshot mode quits with the window open and its pass paused: stop the pass and close
    # the window here. Closing the last window posts a Quit event; left queued, it would end
    # the application's event loops for good when a later processEvents delivers it (tests
    # that open a window after this one then never see a timer or a queued signal).
    if window.isVisible():
        window.close()  # its closeEvent stops the pass (ctl.shutdown)
    QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
    from tfdebug.ui.workers.jobs import wait_for_all

    code = result["code"] or code
    if not wait_for_all():  # a model still loading is abandoned and joined: no thread inside torch at exit
        # A job still inside native code after the wait (an import or a load on a very busy machine):
        # finalising the interpreter around it aborts in C++ ("terminate called without an active
        # exception"). The window saved its settings when it closed; nothing else is left to write.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def start_behind(window, then: Callable[[list[str]], None]) -> None:
    """Import torch off the GUI thread behind the shown `window` (its status bar says "loading torch…", then
    "loading the model…" until a pass is shown), list this machine's devices in its input bar, then call `then`
    with them on the GUI thread. A failed import is said in the message bar, as a failed model load is."""
    from tfdebug.ui.i18n.language import said

    def devices(job) -> list[str]:
        from tfdebug.core.devices import available_devices  # imports torch: 1–2 s on a quiet machine

        return available_devices()

    def loaded(found: list[str]) -> None:
        window.input_bar.set_devices(found)
        then(found)

    window.show_starting("torch")
    window.ctl.loader.load_in_background(devices, loaded, lambda exc: said(lambda: QCoreApplication.translate(
        "MainWindow", "torch could not be imported; check the installation (pip install tfdebug).")))


def save_picture(pixmap, path: str | os.PathLike, inputs: tuple = ()) -> None:
    """Write `pixmap` as a PNG with the export rules: atomically (a temp file renamed into place, so a
    full disk leaves any earlier file whole), never over a file being read, a link, a pipe or a device."""
    check_output(path, ExportError, inputs)
    with atomic_path(path, ExportError) as tmp:
        if not pixmap.save(os.fspath(tmp), "PNG"):
            raise ExportError("The picture {name} could not be written.", id="export.picture_failed",
                              name=os.path.basename(os.fspath(path)))


def _when_ready(window, then) -> None:
    """Call `then` once, the first time the window shows a stage."""
    ctl = window.ctl

    def once() -> None:
        ctl.shown.model.stage_changed.disconnect(once)
        QTimer.singleShot(0, then)
    if ctl.current is not None:
        QTimer.singleShot(0, then)
    else:
        ctl.shown.model.stage_changed.connect(once)


def _start_restored(window, inputs, devices: list[str]) -> None:
    """Start the last session's `inputs`, saying so once its pass is shown; when its model no longer loads
    (deleted since, or saved by an earlier version that saved a failed choice), open the demo and say why."""
    from tfdebug.ui.i18n.language import shown_text
    from tfdebug.ui.state.session_start import default_inputs

    model = inputs.model
    notice = _say_when_shown(window, "info", lambda: QCoreApplication.translate(
        "MainWindow", "Restored your last session: {model} — File ▸ New Session for the demo").format(model=model))

    def failed(sentence) -> None:  # a Message content: said again in another language
        window.ctl.session_changed.disconnect(notice)
        _say_when_shown(window, "warning", lambda: QCoreApplication.translate(
            "MainWindow", "Your last session's model {model} could not be started, so the demo opened instead: "
                          "{why}").format(model=model, why=shown_text(sentence)))
        window.start(default_inputs(devices))

    window.start(inputs, failed)


def _say_when_shown(window, level: str, text: Callable[[], str]):
    """Once the next pass is shown (showing it clears the message bar), say `text()` (in the language of the moment)
    under the topic "restored" (File ▸ New Session clears it). Returns the slot, connected to session_changed."""
    from tfdebug.ui.i18n.language import said
    from tfdebug.ui.state.messages import Message

    def say() -> None:
        window.ctl.session_changed.disconnect(say)
        window.show_message(Message(level, said(text), topic="restored"))

    window.ctl.session_changed.connect(say)
    return say


SLICE_WAIT_MS = 15000  # the longest a screenshot waits for the shown stage's slice that may have come before


def _arrange_screenshot(app, window, goto: str | None, path: str, result: dict, open_path: str | None) -> None:
    ctl = window.ctl
    done = {"saved": False}

    def fail(message: str) -> None:
        if done["saved"]:
            return
        done["saved"] = True
        print(f"tfdebug: {message}", file=sys.stderr)
        result["code"] = 2
        QTimer.singleShot(0, app.quit)  # not from inside the slot reporting the error

    def save() -> None:
        if done["saved"]:
            return
        done["saved"] = True
        window.repaint()
        app.processEvents()
        try:
            save_picture(window.grab(), path, inputs=(open_path,))
        except TfdebugError as exc:
            print(f"tfdebug: {terminal_safe(exc.message)}", file=sys.stderr)
            result["code"] = 2
        else:
            print(f"saved {terminal_safe(os.fspath(path))}")
        app.quit()

    def drawn() -> None:
        # Let docks and plots lay out at their final size before grabbing.
        QTimer.singleShot(400, save)

    def check() -> None:
        current = ctl.current
        if current is not None and (goto is None or current.name == goto):
            ctl.shown.model.stage_changed.disconnect(check)
            # The heatmap's slice of this stage is cut on the display worker (an attention plane of a long
            # pass is computed then): grab once it has arrived, or after SLICE_WAIT_MS if it came first.
            ctl.shown.model.slice_changed.connect(drawn)
            QTimer.singleShot(SLICE_WAIT_MS, drawn)
        elif current is not None and ctl.stepper is not None and not ctl.stepper.alive and ctl.stepper.is_live:
            # Planned but never run (a generation's steps after <eos>): no point waiting for it.
            fail(f"The pass ended at {current.name} before reaching {goto}.")

    ctl.shown.model.stage_changed.connect(check)
    # In screenshot mode any error is fatal: say it and exit 2. Errors of every origin (a
    # failed load, a bad --goto, a stepper error) reach the message bar as error Messages.
    ctl.message.connect(lambda message: message.level == "error" and fail(message.text))
    if goto is not None:
        _when_ready(window, lambda: ctl.steps.run_to(goto))
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, lambda: fail("timed out waiting for the stage to show."))
