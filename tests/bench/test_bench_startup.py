"""The start-up probe starts the real window in a fresh process and reports when its first stage painted."""

from tfdebug.bench.report import format_report
from tfdebug.bench.startup import PHASES, first_paint_run, startup_section


def test_the_first_paint_comes_after_every_import_and_the_window():
    run = first_paint_run("demo")
    times = [run[phase] for phase in PHASES]
    assert times == sorted(times) and times[0] > 0  # each phase after the one before it
    assert run["torch_at_show"] is False  # torch is imported behind the shown window


def test_the_section_reports_the_first_run_apart_from_the_rest(monkeypatch):
    runs = iter([{p: float(i + 1) for i, p in enumerate(PHASES)}, {p: float(i) + 0.5 for i, p in enumerate(PHASES)}])
    monkeypatch.setattr("tfdebug.bench.startup.first_paint_run", lambda model: next(runs))
    section = startup_section("demo", runs=2)
    assert section["first"]["painted"] == float(len(PHASES))
    assert section["median_after_first"]["painted"] == len(PHASES) - 0.5
    text = format_report({"machine": {"torch": "x", "torch_threads": 1, "cpu_count": 2, "load_average": [0.5]},
                          "startup": section, "verdicts": []})
    assert f"painted: first {len(PHASES):.2f} s, median of the rest {len(PHASES) - 0.5:.2f} s" in text


def test_the_window_is_judged_against_its_targets_with_the_runs_a_a(monkeypatch):
    from tfdebug.bench.report import verdicts

    painted = iter([9.0, 2.0, 2.1, 2.0, 2.1])  # the first run (cold) apart; the rest's two halves alike
    monkeypatch.setattr("tfdebug.bench.startup.first_paint_run",
                        lambda model: {**{p: 0.5 for p in PHASES}, "painted": next(painted), "torch_at_show": False})
    section = startup_section("demo", runs=5)
    assert section["aa_ratio"] == 1.0 and section["torch_at_show"] is False
    judged = {v["what"]: v for v in verdicts({"startup": section})}
    assert judged["window shown ≤ 1 s after launch"]["verdict"] == "pass"
    assert judged["first stage painted ≤ 2.5 s after launch"]["value"] == section["median_after_first"]["painted"]


def test_the_commands_that_read_files_are_timed_in_fresh_processes_without_torch_or_qt():
    from tfdebug.bench.report import verdicts
    from tfdebug.bench.startup import COMMANDS, commands_startup

    commands = commands_startup(runs=1)
    assert set(commands) == set(COMMANDS)
    for row in commands.values():
        assert row["imported"] == [] and 0 < row["median_s"] <= row["max_s"] and row["snapshot_bytes"] > 0
    judged = {v["what"]: v for v in verdicts({"startup": {"commands": commands}})}
    assert "tfdebug info ≤ 0.3 s" in judged and "a missing model refused ≤ 0.5 s" in judged
    assert judged["tfdebug info {snapshot} imports neither torch nor Qt"]["verdict"] == "pass"
    text = format_report({"machine": {"torch": "x", "torch_threads": 1, "cpu_count": 2, "load_average": [0.5]},
                          "startup": {"model": "demo", "runs": [], "load_after_each": [],
                                      "first": {p: 1.0 for p in PHASES},
                                      "median_after_first": {p: 1.0 for p in PHASES}, "commands": commands},
                          "verdicts": []})
    assert "tfdebug info --json {snapshot}: median" in text and "neither torch nor Qt" in text
