"""The Model box as a picker of the Hugging Face cache, the Models dialog and its download, and the
precision and device map chosen in the window (issue 26): a hub cache built by the test, no network."""

from __future__ import annotations

import json

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.adapters.hf_tiny import gpt2, save_folder
from tests.adapters.hub_cache import add_to_cache
from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press

hub = pytest.importorskip("huggingface_hub")
pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def hub_folder(tmp_path_factory):
    """A cache with org/tiny-model (a 2-layer GPT-2) and org/pickled (a pickle checkpoint only)."""
    root = tmp_path_factory.mktemp("hub")
    tiny = save_folder(gpt2(), root / "tiny")
    cache = root / "cache"
    add_to_cache(cache, "org/tiny-model", tiny)
    pickled = root / "pickled"
    pickled.mkdir()
    (pickled / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    (pickled / "pytorch_model.bin").write_bytes(b"never opened")
    add_to_cache(cache, "org/pickled", pickled)
    return cache


@pytest.fixture
def cache(hub_folder, monkeypatch):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(hub_folder.parent / "home"))  # HF_HOME/hub is the cache …
    (hub_folder.parent / "home").mkdir(exist_ok=True)
    link = hub_folder.parent / "home" / "hub"
    if not link.exists():
        link.symlink_to(hub_folder)
    monkeypatch.setattr(hub.constants, "HF_HUB_OFFLINE", True)  # … and nothing may reach the network
    return hub_folder


def _box_entries(window) -> dict[str, tuple[str, bool]]:
    box = window.input_bar.model
    return {box.itemText(i): (box.itemData(i, Qt.ToolTipRole) or "", box.model().item(i).isEnabled())
            for i in range(box.count())}


def _open_models_dialog(window, qtbot):
    qtbot.mouseClick(window.input_bar.models_button, Qt.LeftButton)
    dialog = window.tools.models.dialog
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_the_model_box_lists_the_cache_and_a_cached_model_runs_in_bfloat16(cache, make_window, qtbot):
    from tfdebug.ui.render.stage_text import fmt_bytes

    window = make_window()
    qtbot.waitUntil(lambda: "hf:org/tiny-model" in _box_entries(window), timeout=30000)
    entries = _box_entries(window)
    # Checked against huggingface_hub's own scan of the same cache.
    scanned = {repo.repo_id: repo for repo in hub.scan_cache_dir(cache).repos if repo.revisions}
    assert {s for s in entries if s.startswith("hf:")} == {"hf:" + r for r in scanned}
    tip, enabled = entries["hf:org/tiny-model"]
    assert tip == f"GPT2LMHeadModel · {fmt_bytes(scanned['org/tiny-model'].size_on_disk)} · tfdebug opens it"
    assert enabled
    assert not entries["hf:org/pickled"][1] and "pickle" in entries["hf:org/pickled"][0]
    assert "demo" in entries or "random" in entries  # the bundled models stay first
    assert list(entries).index("random") < list(entries).index("hf:org/tiny-model")

    # The Models dialog: every model with architecture, size and support; Use puts it in the Model box.
    dialog = _open_models_dialog(window, qtbot)
    table = dialog.table
    rows = {table.item(i, 0).text(): [table.item(i, c).text() for c in range(4)] for i in range(table.rowCount())}
    assert rows["hf:org/tiny-model"][1:] == ["GPT2LMHeadModel", fmt_bytes(scanned["org/tiny-model"].size_on_disk),
                                             "yes"]
    assert rows["hf:org/pickled"][3].startswith("no: ")
    assert str(cache.parent / "home" / "hub") in dialog.where.text()
    assert f"{len(scanned)} models in the Hugging Face cache" in dialog.where.text()
    assert dialog.select("hf:org/pickled") and not dialog.use_button.isEnabled()  # refused: Use is off
    assert dialog.select("hf:org/tiny-model") and dialog.use_button.isEnabled()
    qtbot.mouseClick(dialog.use_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert window.input_bar.model.currentText() == "hf:org/tiny-model"

    # Precision in the input bar, then Run: the CLI's loading path with --dtype bfloat16.
    bar = window.input_bar
    bar.dtype.setCurrentIndex(bar.dtype.findText("bfloat16"))
    assert window.ctl.inputs.dtype == "bfloat16" and window.ctl.inputs.device_map is None
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
    assert window.ctl.adapter.dtype == torch.bfloat16
    assert window.ctl.current.dtype == torch.bfloat16 and window.ctl.current.tensor.dtype == torch.bfloat16
    window.update_status()
    assert window.status_device.text() == "cpu · bfloat16"
    window.ctl.close()


def test_a_download_without_network_says_so_in_the_window(cache, make_window, qtbot):
    window = make_window()
    dialog = _open_models_dialog(window, qtbot)
    qtbot.keyClicks(dialog.hub_id, "org/absent")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.download_button.isEnabled() and "Could not" in dialog.status.text(),
                    timeout=30000)
    assert dialog.status.text() == ("Could not download hf:org/absent: the Hugging Face hub cannot be reached from "
                                    "here (no network, or HF_HUB_OFFLINE is set).")
    assert not dialog.progress.isVisible() and not dialog.cancel_button.isVisible()
    dialog.hub_id.setText("not a hub id")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    assert dialog.status.text() == "not a hub id is not a Hugging Face model id (write it as org/name)."


def test_precision_and_device_map_are_remembered_and_a_damaged_setting_is_reset(make_window, settings, qtbot):
    from tfdebug.ui.shell.window_layout import LOADING_KEY

    window = make_window()
    bar = window.input_bar
    offered = [bar.device_map.itemData(i) for i in range(bar.device_map.count())]
    assert offered[0] == "" and bar.device_map.itemText(0) == "none"
    assert "balanced" not in offered or torch.cuda.device_count() > 1  # only what makes sense here
    assert all(not m.startswith("cuda") for m in offered) or torch.cuda.is_available()
    bar.dtype.setCurrentIndex(bar.dtype.findText("float16"))
    if "cpu" in offered:  # accelerate is installed (the hf extra)
        bar.device_map.setCurrentIndex(offered.index("cpu"))
    window.close()  # saves the settings
    again = make_window()
    assert again.last_loading() == ("float16", "cpu" if "cpu" in offered else None)

    settings.setValue(LOADING_KEY, json.dumps({"dtype": "float8", "device_map": 3}))
    third = make_window()
    assert third.last_loading() == (None, None)  # the defaults of this machine (core.devices.initial_dtype)
    assert LOADING_KEY in third.message_bar.text() and settings.value(LOADING_KEY) is None


def test_gui_dtype_and_device_map_preselect_the_input_bar(monkeypatch):
    """`tfdebug gui --dtype bfloat16 --device-map auto` hands both to the window; a wrong map is one sentence."""
    from tfdebug import cli
    from tfdebug.ui import app

    seen = {}
    monkeypatch.setattr(app, "run_app", lambda **kwargs: seen.update(kwargs) or 0)
    assert cli.main(["gui", "--model", "random", "--dtype", "bfloat16", "--device-map", "cpu"]) == 0
    assert (seen["dtype"], seen["device_map"]) == ("bfloat16", "cpu")
    assert cli.main(["gui", "--model", "random"]) == 0
    assert (seen["dtype"], seen["device_map"]) == (None, None)  # the window's remembered choice
    assert cli.main(["gui", "--model", "random", "--device-map", "everywhere"]) == 2


@pytest.fixture
def served(cache, monkeypatch, tmp_path):
    """A hub on loopback (tests/adapters/fake_hub.py) serving org/remote (the tiny GPT-2's files) and
    org/huge (a 50 MB file sent slowly); huggingface_hub is pointed at it and may go online."""
    from tests.adapters.fake_hub import fake_hub

    tiny = {p.name: p.read_bytes() for p in (cache / "models--org--tiny-model" / "snapshots").glob("*/*")}
    with fake_hub({"org/remote": tiny, "org/huge": {"config.json": tiny["config.json"]}},
                  slow={"model.safetensors": 50_000_000}) as url:
        monkeypatch.setattr(hub.constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(hub.constants, "ENDPOINT", url)
        monkeypatch.setattr(hub.constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}")
        yield url


def test_a_download_shows_its_progress_and_the_model_joins_the_list(served, cache, make_window, qtbot):
    window = make_window()
    dialog = _open_models_dialog(window, qtbot)
    qtbot.waitUntil(lambda: window.tools.models.hub_models.scanned_once, timeout=30000)
    seen = []
    window.tools.models.hub_models.download_progress.connect(lambda done, total: seen.append((done, total)))
    qtbot.keyClicks(dialog.hub_id, "org/remote")
    qtbot.keyClick(dialog.hub_id, Qt.Key_Return)
    assert dialog.progress.isVisible() and dialog.cancel_button.isVisible()
    qtbot.waitUntil(lambda: "org/remote is in the Hugging Face cache" in dialog.status.text(), timeout=60000)
    # in the list, and supported: a rescan while the download's last file was still being written may list it
    # first as not loadable (seen once under CI's load), the rescan after the download says what it is
    qtbot.waitUntil(lambda: _box_entries(window).get("hf:org/remote", ("", False))[1], timeout=30000)
    # The bytes of the weights, to the last (progress crosses from the download's thread: it may land after
    # the status line).
    qtbot.waitUntil(lambda: seen and seen[-1][0] == seen[-1][1] > 10_000)
    qtbot.waitUntil(lambda: dialog.selected_spec() == "hf:org/remote")
    # What huggingface_hub itself now finds in the cache, without the network.
    assert hub.snapshot_download("org/remote", cache_dir=str(cache), local_files_only=True)
    assert not dialog.progress.isVisible()


def test_cancel_stops_a_download_and_leaves_nothing_half_written(served, cache, make_window, qtbot):
    window = make_window()
    dialog = _open_models_dialog(window, qtbot)
    models = window.tools.models.hub_models
    qtbot.keyClicks(dialog.hub_id, "org/huge")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    # The small files come first (config.json: "816 B / 816 B"); then the weights, in KB or MB.
    qtbot.waitUntil(lambda: dialog.progress.maximum() == 1000 and dialog.progress.value() > 0
                    and ("MB" in dialog.progress.format() or "KB" in dialog.progress.format()), timeout=30000)
    qtbot.mouseClick(dialog.cancel_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.status.text() == "The download was cancelled.", timeout=30000)
    assert not models.downloading and dialog.download_button.isEnabled()
    with pytest.raises(hub.errors.LocalEntryNotFoundError):  # no snapshot of a half-fetched model
        hub.snapshot_download("org/huge", cache_dir=str(cache), local_files_only=True)
    # The weights are at most a partial file huggingface_hub resumes later (".incomplete"), never a blob.
    partial = [b for b in (cache / "models--org--huge" / "blobs").glob("*") if b.stat().st_size > 10_000]
    assert all(b.name.endswith(".incomplete") and b.stat().st_size < 50_000_000 for b in partial)


def test_a_model_folder_shows_by_its_name_with_the_path_on_hover_and_runs_from_that_path(hub_folder, make_window,
                                                                                      qtbot):
    """#40: the Model box names a folder by its last part (the box stays narrow), its tooltip holds the whole
    path, and Run loads that path."""
    folder = hub_folder.parent / "tiny"  # the 2-layer GPT-2 folder the cache was made from
    spec = f"hf:{folder}"
    window = make_window()
    bar = window.input_bar
    bar.choose_model(spec)
    box = bar.model
    assert box.currentText() == "tiny" and bar.model_spec() == spec == window.ctl.inputs.model
    assert box.itemData(box.currentIndex(), Qt.ToolTipRole) == spec
    assert box.width() < box.fontMetrics().horizontalAdvance(spec)  # not widened to the path
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
    assert window.ctl.adapter.folder == folder and box.currentText() == "tiny"
    bar.choose_model("random")  # a spec that is not a path shows as written
    assert box.currentText() == "random" and bar.model_spec() == "random"
