"""Which sections `tfdebug bench` runs, at which sizes, and when it stops.

A run has a profile (tiny for the tests, quick, default, full) that sizes every section,
and a time budget: a section whose estimate no longer fits is skipped and named as
skipped, so the default run ends within 5 minutes on 2 cores and `--quick` within one.
Timings mean nothing on a machine busy with other work: a run refuses to start when the
load average is over its limit, and stops at the next section when the load climbs
over it (the report says which sections were left out and why). A section whose A/A ratio
is outside 0.95–1.05 runs once more; rows still out of range then say "machine too busy",
and the run's `aa_held` is false: the docs' tables are regenerated only from a run whose
A/A held (tfdebug.bench.tables and docs/gen_tables.py refuse the others).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

from tfdebug.bench.noise import noisy_rows
from tfdebug.core.errors import ConfigError

BUSY_ROW = "machine too busy"  # a row's status when its A/A stayed out of range after the retry


@dataclass(frozen=True)
class Profile:
    """Sizes and repeats of every section, and the seconds a run of this profile may take."""

    name: str
    capture_configs: tuple[str, ...]  # names in tfdebug.bench.capture (demo: the bundled model's shape)
    repeats: int
    tuned: bool  # also time the capture and session rows in a child process that opted in to the allocator tuning
    latency_sizes: tuple[int, ...]
    latency_repeats: int
    snapshot_bytes: int
    snapshot_runs: int
    sdpa: str  # "tiny", "quick" or "full"
    hf: str  # a GPT-2 shape in tfdebug.bench.hf
    generation: str  # "tiny", "quick" or "full"
    generation_repeats: int
    budget_s: float
    # rough seconds per section on a quiet 2-core machine, to skip what no longer fits
    estimates: dict[str, float] = field(default_factory=dict)


PROFILES: dict[str, Profile] = {
    "tiny": Profile("tiny", ("tiny",), 3, True, (64, 128), 4, 1 << 20, 2, "tiny", "tiny", "tiny", 2, 600.0),
    "quick": Profile("quick", ("6x512",), 3, False, (256, 1024), 6, 64 << 20, 2, "quick", "quick", "quick", 1,
                     45.0, {"capture": 8, "session": 6, "hf": 6, "latency": 8, "memory": 2, "snapshots": 5,
                            "syncs": 1, "sdpa": 4, "levers": 8, "generation": 5}),
    # 20 steps a latency source: ten to each kind of stage, five pairs of each for the A/A (ten read 0.84 to 1.24)
    "default": Profile("default", ("demo", "6x512"), 7, True, (256, 1024, 4096), 20, 256 << 20, 2, "full", "wide",
                       "quick", 2, 280.0, {"capture": 50, "session": 45, "hf": 45, "latency": 17, "memory": 2,
                                           "snapshots": 20, "syncs": 1, "sdpa": 25, "levers": 55,
                                           "generation": 15}),
    "full": Profile("full", ("demo", "6x512", "12x768"), 15, True, (256, 1024, 4096), 30, 1 << 30, 3, "full",
                    "wide", "full", 5, 3600.0),
}

DEFAULT_SECTIONS = ("capture", "session", "hf", "latency", "memory", "snapshots", "syncs", "sdpa", "levers",
                    "generation", "cuda")
# only when asked for: peers and scale take minutes and want the peers' venv; remote needs pyzmq (tfdebug[remote]);
# startup starts the window in fresh processes; why builds a 135M-wide model and sweeps it; backward times the
# GPT-2 shape's backward at 1k tokens and measures each variant's peak in a child process
EXTRA_SECTIONS = ("peers", "scale", "remote", "startup", "why", "backward")
SECTIONS = DEFAULT_SECTIONS + EXTRA_SECTIONS


def load_limit(cpus: int | None = None) -> float:
    """The 1-minute load average over which timings are not taken: 1.5 per CPU."""
    return 1.5 * (cpus or os.cpu_count() or 1)


def load_average() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # no load average on this platform: nothing to judge by
        return 0.0


def check_quiet(limit: float | None) -> None:
    """ConfigError when the machine is too busy for timings to be taken (limit None: never)."""
    load = load_average()
    if limit is not None and load > limit:
        raise ConfigError(f"The machine is too busy for timings to mean anything: its load average is {load:g} "
                          f"on {os.cpu_count()} CPUs (the limit is {limit:g}). Rerun when it is quieter, or pass "
                          "--max-load with a higher limit to measure anyway.")


def choose_sections(asked: list[str] | None) -> tuple[str, ...]:
    """The sections to run, in report order; ConfigError names an unknown one."""
    if not asked:
        return DEFAULT_SECTIONS
    unknown = [s for s in asked if s not in SECTIONS]
    if unknown:
        raise ConfigError(f"There is no bench section '{unknown[0]}'; the sections are: {', '.join(SECTIONS)}.")
    return tuple(s for s in SECTIONS if s in asked)


@dataclass
class Run:
    """One bench run's bookkeeping: what ran, how long each section took, and what was skipped and why."""

    profile: Profile
    limit: float | None
    started: float = field(default_factory=time.perf_counter)
    seconds: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    loads: dict[str, float] = field(default_factory=dict)
    #: sections run twice because their first A/A was out of range; sections still out of range after that
    retried: list[str] = field(default_factory=list)
    too_busy: list[str] = field(default_factory=list)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def section(self, name: str, fn: Callable[[], object], threads: int = 1):
        """fn() unless the budget or the load says stop; None (and a note in `skipped`) when skipped."""
        if self.skipped.get("*"):
            self.skipped[name] = self.skipped["*"]
            return None
        estimate = self.profile.estimates.get(name, 0.0)
        if self.elapsed() + estimate > self.profile.budget_s:
            self.skipped[name] = (f"time budget: {self.elapsed():.0f} s spent, about {estimate:.0f} s more "
                                  f"would pass the {self.profile.budget_s:.0f} s of a {self.profile.name} run")
            return None
        load = load_average()
        # The bench's own threads count towards the load it reads.
        if self.limit is not None and load > self.limit + threads:
            self.skipped["*"] = f"machine too busy: load average {load:g} over the limit {self.limit:g}"
            self.skipped[name] = self.skipped["*"]
            return None
        start = time.perf_counter()
        result = fn()
        took = time.perf_counter() - start
        if noisy_rows(result) and self.elapsed() + took <= self.profile.budget_s:
            self.retried.append(name)  # once: a machine busy twice in a row is busy, and the row says so
            result = fn()
        noisy = noisy_rows(result)
        for row in noisy:
            row["status"] = BUSY_ROW
        if noisy:
            self.too_busy.append(name)
        self.seconds[name] = round(time.perf_counter() - start, 1)
        self.loads[name] = load_average()
        return result

    def summary(self) -> dict:
        skipped = {k: v for k, v in self.skipped.items() if k != "*"}
        return {"profile": self.profile.name, "budget_s": self.profile.budget_s, "elapsed_s": round(self.elapsed(), 1),
                "section_s": dict(self.seconds), "load_after_section": dict(self.loads), "skipped": skipped,
                "load_limit": self.limit, "retried": list(self.retried), "too_busy": list(self.too_busy),
                "aa_held": not self.too_busy}
