"""Jobs at exit: every running job is cancelled and joined within one bound, and the caller is told
whether one is still running (the application then leaves without finalising around it)."""

import threading

from tfdebug.ui.workers.jobs import Job, wait_for_all


def test_wait_for_all_cancels_joins_and_says_whether_one_is_left(qapp):
    cancelled = []

    def polite(job):
        while not job.cancelled:
            threading.Event().wait(0.01)
        cancelled.append(job.name)

    release = threading.Event()
    stuck = Job(lambda job: release.wait(30), name="stuck")  # native code that cannot look at `cancelled`
    for job in (Job(polite, name="polite"), stuck):
        job.start()
    try:
        assert wait_for_all(timeout=0.5) is False  # the stuck one outlived the bound
        assert cancelled == ["polite"] and stuck.cancelled and stuck.running
    finally:
        release.set()
    assert wait_for_all(timeout=10) is True and not stuck.running
