from bench import progress


def test_fmt_seconds():
    assert [progress.fmt_seconds(s) for s in (0, 42.4, 59.6, 250, 3725)] == ["0s", "42s", "1m00s", "4m10s", "1h02m"]


def test_eta_from_the_mean_of_finished_steps():
    assert progress.eta(0, 3, 5) == "0/3 done, 5s elapsed"
    assert progress.eta(1, 3, 250) == "1/3 done, 4m10s elapsed, ETA 8m20s"
    assert progress.eta(3, 3, 750) == "3/3 done, 12m30s elapsed"


def test_steps_log_each_start_with_elapsed_and_eta():
    now = [100.0]
    lines = []
    s = progress.Steps(3, lines.append, "application", clock=lambda: now[0])
    s.start("fifo")
    now[0] += 60
    s.start("fair")
    now[0] += 120
    s.start("eagle")
    now[0] += 90
    s.finish()
    assert lines == [
        "application 1/3: fifo (0/3 done, 0s elapsed)",
        "application 2/3: fair (1/3 done, 1m00s elapsed, ETA 2m00s)",
        "application 3/3: eagle (2/3 done, 3m00s elapsed, ETA 1m30s)",
        "applications: 3/3 done, 4m30s elapsed",
    ]


def test_steps_with_a_minimum_interval_skip_quick_starts():
    now = [0.0]
    lines = []
    s = progress.Steps(5, lines.append, "query", every=10, clock=lambda: now[0])
    for dt in (0, 4, 4, 4, 20):      # starts at 0, 4, 8, 12, 32 s
        now[0] += dt
        s.start(f"at {now[0]:g}")
    assert [l.split(":")[0] for l in lines] == ["query 1/5", "query 4/5", "query 5/5"], lines
    assert lines[1] == "query 4/5: at 12 (3/5 done, 12s elapsed, ETA 8s)"
