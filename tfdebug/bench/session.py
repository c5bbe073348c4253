"""What the user waits for in a session, against the plain forward, on a Hugging Face GPT-2 shape.

A session's capture is everything between asking for a pass and having every stage:
`DebugSession(...)` and `capture_all()`. `tfdebug stages` lets the pass plan itself
(planning "lazy": one forward in all); the window plans first (on the meta device where
that is cheaper than a real forward), then runs the pass: both are timed. The check against the
unmodified model runs after it in the background (in the window's path the pass carries no check of its own:
`sessions.peak.check_mode`'s "after"); it is timed on its own (it is not
waited for) and the next variant starts only once it is done, so it never overlaps a
timing. Variants, interleaved: the model's plain eager forward, the two session captures,
a session planned with a real forward and verified before returning (what a session
cost before), and the plain forward again (A/A). The window's path is timed three times: the first
Run of the model (planned), a Run again or of another input of that length, which reuses the plan
(tfdebug.core.plan.plan_key), and the first Run of a length after Runs of two others, whose plan is grown
from theirs (tfdebug.core.plan_growth; the two are planned before the timer starts).

The rows are timed twice: in the bench's process, which never tunes the allocator, and in
a fresh child process that opts in as the `tfdebug` application does at start-up
(`keep_freed_memory`): the window and the CLI run their sessions in such a process.
"""

from __future__ import annotations

import time

from tfdebug.bench.timing import in_opted_in_process, median, table
from tfdebug.core.memory import allocator_tuned


def session_rows(shape: str, repeats: int) -> list[dict]:
    """One row: median ms of each variant, the ratios to plain eager, the verification's own cost."""
    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.adapters.hf.load import transformers_available
    from tfdebug.core import plan as plan_module
    from tfdebug.sessions.peak import check_mode, check_room_now
    from tfdebug.sessions.session import _VERDICTS, DebugSession
    from tfdebug.bench.hf import GPT2_SHAPES, build_gpt2

    if not transformers_available():
        return []
    config = GPT2_SHAPES[shape]
    model, ids = build_gpt2(config)
    adapter = wrap(model, tokenizer=None, name="bench")
    prepared = Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})
    eager = model.config

    def plain():
        before = eager._attn_implementation_internal
        eager._attn_implementation_internal = "eager"
        try:
            with torch.no_grad():
                return model(**prepared.kwargs).logits
        finally:
            eager._attn_implementation_internal = before

    verify_ms: list[float] = []
    plans: set[str] = set()

    def session_capture(planning: str, reuse: str = "never"):
        def run():
            _VERDICTS.pop(adapter.module, None)  # each pass checks anew: the check's cost is timed every time
            if reuse == "never":  # the first Run of the model: nothing planned before
                plan_module.forget_plans(adapter.module)
            elif reuse == "grown":  # the first Run of this length, two others planned before (`anchor`)
                plan_module._plans.pop(adapter.module, None)
            session = DebugSession(adapter, prepared=prepared, planning=planning)
            if planning == "auto":  # the window's path: checked as the window checks its pass (`Loader.check_in_pass`)
                fits = check_room_now(session) is None
                session.in_pass = check_mode("auto", fits, adapter.checks_in_pass, waited=False)
            captures, _ = session.capture_all()
            plans.add(f"{planning}: {session.plan.method}" + (f" ({session.plan.note})" if session.plan.note else ""))
            return session, captures
        return run

    def anchor():
        """Plans of two shorter inputs (what a Run of a new length grows its plan from: `core.plan_growth`)."""
        plan_module.forget_plans(adapter.module)
        for cut in (1, 2):
            shorter = Prepared(texts={}, kwargs={**prepared.kwargs, "input_ids": ids[:, :-cut]})
            _ = DebugSession(adapter, prepared=shorter, planning="auto").plan

    def before_issue():
        _VERDICTS.pop(adapter.module, None)
        plan_module.forget_plans(adapter.module)
        session = DebugSession(adapter, prepared=prepared, planning="real")
        return session.capture_all(verify="now")

    # session_capture: `tfdebug stages` (the pass plans itself); planned_session_capture: the window's path
    # (the plan first, on meta where cheaper, then the pass).
    variants = {"plain": plain, "session_capture": session_capture("lazy"),
                "planned_session_capture": session_capture("auto"),
                "replanned_session_capture": session_capture("auto", reuse="exact"),
                "grown_session_capture": session_capture("auto", reuse="grown"),
                "planned_real_verified_inline": before_issue,
                "plain_again": plain}
    times: dict[str, list[float]] = {name: [] for name in variants}
    # This thread's CPU time too: the forward runs here (one torch thread), so other people's load barely moves it.
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    setups = {"grown_session_capture": anchor}  # run before the variant, untimed
    for round_ in range(repeats + 1):  # the first round warms up
        for name, fn in variants.items():
            if name in setups:
                setups[name]()
            start, start_cpu = time.perf_counter(), time.thread_time()
            result = fn()
            elapsed = (time.perf_counter() - start) * 1000.0
            if round_:
                cpu[name].append((time.thread_time() - start_cpu) * 1000.0)
            if name in ("session_capture", "planned_session_capture", "replanned_session_capture",
                        "grown_session_capture"):
                session = result[0]
                session.wait_verification()
                if round_:
                    verify_ms.append(session.verification_seconds * 1000.0)
            if round_:
                times[name].append(elapsed)
            del result
    ms = {name: median(values) for name, values in times.items()}
    base = ms["plain"]
    return [{
        "config": config.name, "allocator_tuned": allocator_tuned(), "n_layer": config.n_layer,
        "n_embd": config.n_embd, "seq_len": config.seq_len,
        "plan": ", ".join(sorted(plans)), "repeats": repeats,
        **{f"{name}_ms": round(value, 2) for name, value in ms.items()},
        "verify_in_background_ms": round(median(verify_ms), 2),
        "ratio_session_capture": round(ms["session_capture"] / base, 4),
        "ratio_planned_session_capture": round(ms["planned_session_capture"] / base, 4),
        "ratio_replanned_session_capture": round(ms["replanned_session_capture"] / base, 4),
        "ratio_grown_session_capture": round(ms["grown_session_capture"] / base, 4),
        "ratio_planned_real_verified_inline": round(ms["planned_real_verified_inline"] / base, 4),
        "ratio_plain_again": round(ms["plain_again"] / base, 4),
        "threads": torch.get_num_threads(),
        **{f"cpu_ratio_{name}": round(median(cpu[name]) / median(cpu["plain"]), 4) for name in variants
           if name != "plain"},
    }]


def tuned_session_rows(shape: str, repeats: int) -> list[dict]:
    """`session_rows` in a fresh process that opted in to the allocator tuning, as the app does
    (no rows when the child fails or transformers is missing)."""
    return in_opted_in_process("tfdebug.bench.session:session_rows", shape, repeats) or []


COLUMNS = ["config", "allocator_tuned", "plan", "plain_ms", "session_capture_ms", "ratio_session_capture",
           "cpu_ratio_session_capture",
           "planned_session_capture_ms", "ratio_planned_session_capture", "cpu_ratio_planned_session_capture",
           "replanned_session_capture_ms", "ratio_replanned_session_capture", "cpu_ratio_replanned_session_capture",
           "grown_session_capture_ms", "ratio_grown_session_capture", "cpu_ratio_grown_session_capture",
           "verify_in_background_ms",
           "planned_real_verified_inline_ms", "ratio_planned_real_verified_inline", "ratio_plain_again", "cpu_ratio_plain_again"]


def format_session(rows: list[dict]) -> list[str]:
    """The report's lines for the session section."""
    return ["", "A session's capture, what the user waits for (plan + captured forward; the check against the "
                "unmodified model runs after it in the background, its cost shown on its own), against the plain "
                "eager forward"] + table(rows, COLUMNS)
