"""report.html with PNG plots from a results.json (matplotlib, Agg backend)."""
from __future__ import annotations

import html
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"fifo": "#888888", "fair": "#1f77b4", "eagle": "#d62728"}
ORDER = ("fifo", "fair", "eagle")


def _scheds(runs):
    present = {r["scheduler"] for r in runs}
    return [s for s in ORDER if s in present]


def _cdf(ax, values_by_sched, title):
    for sched, vals in values_by_sched.items():
        xs = sorted(vals)
        if not xs:
            continue
        ys = [(i + 1) / len(xs) for i in range(len(xs))]
        ax.step(xs, ys, where="post", label=f"{sched} (n={len(xs)})", color=COLORS.get(sched))
    ax.set_xscale("log")
    ax.set_xlabel("job completion time (s, log scale)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)


def _bars(ax, pcts_by_sched, title):
    scheds = list(pcts_by_sched)
    qs = ("p50", "p90", "p99")
    w = 0.8 / max(1, len(scheds))
    for i, s in enumerate(scheds):
        vals = [pcts_by_sched[s].get(q) or 0 for q in qs]
        xs = [j + i * w for j in range(len(qs))]
        bars = ax.bar(xs, vals, w, label=s, color=COLORS.get(s))
        for b, v in zip(bars, vals):
            ax.annotate(f"{v:.2f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks([j + w * (len(scheds) - 1) / 2 for j in range(len(qs))])
    ax.set_xticklabels(qs)
    ax.set_ylabel("seconds")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)


def _save(fig, d, name):
    path = os.path.join(d, name)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return name


def _mean_pcts(runs, cls):
    out = {}
    for q in ("p50", "p90", "p99"):
        vals = [r[cls][q] for r in runs if r.get(cls) and isinstance(r[cls].get(q), (int, float))]
        out[q] = sum(vals) / len(vals) if vals else None
    return out


def _groups(results):
    """(label, runs) groups: per ratio for the replay, per variant for the sort, else one."""
    runs = results["runs"]
    if results["scenario"] == "replay":
        ratios = sorted({r["ratio"] for r in runs})
        return [(f"ratio {x:g}", [r for r in runs if r["ratio"] == x]) for x in ratios]
    if results["scenario"] == "sort":
        vs = [v for v in ("alone", "under-tpch") if any(r.get("variant") == v for r in runs)]
        return [(v, [r for r in runs if r.get("variant") == v]) for v in vs]
    return [("", runs)]


def write_report(d: str, results: dict) -> str:
    images = []
    for label, runs in _groups(results):
        scheds = _scheds(runs)
        tag = label.replace(" ", "-").replace(".", "_") or "all"
        has_short = any((r.get("short") or {}).get("count") for r in runs)
        has_long = any((r.get("long") or {}).get("count") for r in runs)
        classes = [c for c, h in (("short", has_short), ("long", has_long)) if h]
        if not classes:
            continue
        fig, axes = plt.subplots(1, len(classes), figsize=(6 * len(classes), 4.2), squeeze=False)
        for ax, cls in zip(axes[0], classes):
            vals = {s: [x for r in runs if r["scheduler"] == s for x in (r.get("latencies") or {}).get(cls, [])]
                    for s in scheds}
            _cdf(ax, vals, f"{results['scenario']} {label}: {cls} jobs, CDF")
        images.append((f"CDF of job completion time {label}", _save(fig, d, f"cdf-{tag}.png")))
        fig, axes = plt.subplots(1, len(classes), figsize=(6 * len(classes), 4.2), squeeze=False)
        for ax, cls in zip(axes[0], classes):
            _bars(ax, {s: _mean_pcts([r for r in runs if r["scheduler"] == s], cls) for s in scheds},
                  f"{results['scenario']} {label}: {cls} jobs p50/p90/p99"
                  + (" (mean over runs)" if results["scenario"] == "replay" else ""))
        images.append((f"Percentiles {label}", _save(fig, d, f"pct-{tag}.png")))
    if results["scenario"] == "tpch":
        runs = results["runs"]
        scheds = _scheds(runs)
        fig, ax = plt.subplots(figsize=(12, 4.2))
        w = 0.8 / max(1, len(scheds))
        for i, s in enumerate(scheds):
            r = next(r for r in runs if r["scheduler"] == s)
            qs = r.get("queries") or []
            ax.bar([q["query"] + i * w for q in qs], [q["latency"] for q in qs], w,
                   label=f"{s} (batch {r.get('batch_seconds') or 0:.0f}s)", color=COLORS.get(s))
        ax.set_xticks([q + w * (len(scheds) - 1) / 2 for q in range(1, 23)])
        ax.set_xticklabels([f"Q{q}" for q in range(1, 23)], fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("latency (s, log scale)")
        ax.set_title("TPC-H query latency during the batch sort")
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
        images.append(("Per-query latency", _save(fig, d, "queries.png")))
    if results["scenario"] == "sort":
        runs = results["runs"]
        scheds = _scheds(runs)
        fig, ax = plt.subplots(figsize=(6, 4))
        w = 0.38
        for j, v in enumerate(("alone", "under-tpch")):
            vals = [next((r["wall_seconds"] or 0 for r in runs if r["scheduler"] == s and r.get("variant") == v), 0)
                    for s in scheds]
            ax.bar([i + j * w for i in range(len(scheds))], vals, w, label=v,
                   color=("#2ca02c" if v == "alone" else "#ff7f0e"))
        ax.set_xticks([i + w / 2 for i in range(len(scheds))])
        ax.set_xticklabels(scheds)
        ax.set_ylabel("sort time (s)")
        ax.set_title("Sort: alone and under the TPC-H stream")
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
        images.append(("Sort time", _save(fig, d, "sort.png")))
    path = os.path.join(d, "report.html")
    with open(path, "w") as f:
        f.write(_html(results, images))
    return path


def _fmt(x, nd=3):
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return html.escape(str(x))


def _html(results, images):
    tb = results.get("testbed", {})
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>eagle-spark benchmark: {e(results['scenario'])}</title>",
        "<style>body{font-family:sans-serif;max-width:1300px;margin:1em auto}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
        "text-align:right}th{background:#eee}.bad{color:#b00}.good{color:#070}</style></head><body>",
        f"<h1>eagle-spark benchmark: {e(results['scenario'])}</h1>",
        f"<p>Testbed: {tb.get('hosts')} hosts, {tb.get('slots')} slots, network "
        f"<b>{e(str(tb.get('network')))}</b>, mode {e(str(tb.get('mode')))}. {e(tb.get('note', ''))}</p>",
    ]
    if results.get("trace"):
        parts.append(f"<p>Trace {e(results['trace'])}, short/long cutoff {results.get('cutoff_s')} trace-seconds "
                     "(class from the workload definition).</p>")
    if results.get("workload"):
        parts.append(f"<p>Workload: <code>{e(json.dumps(results['workload']))}</code></p>")
    if results.get("summary"):
        parts.append("<h2>Summary (mean over seeds)</h2><table><tr><th>ratio</th><th>scheduler</th>"
                     "<th>runs</th><th>short p50</th><th>short p90</th><th>short p99</th>"
                     "<th>long p50</th><th>long p90</th><th>long p99</th></tr>")
        for row in results["summary"]:
            for s, v in row["schedulers"].items():
                parts.append(f"<tr><td>{row['ratio']:g}</td><td>{e(s)}</td><td>{v['runs']}</td>"
                             + "".join(f"<td>{_fmt(v[c][q])}</td>" for c in ("short", "long")
                                       for q in ("p50", "p90", "p99")) + "</tr>")
        parts.append("</table>")
        for row in results["summary"]:
            crit = row.get("criteria")
            if not crit:
                continue
            parts.append(f"<p>ratio {row['ratio']:g}: eagle/fifo short p99 = {_fmt(crit.get('short_p99_vs_fifo'))}, "
                         f"eagle/fair short p99 = {_fmt(crit.get('short_p99_vs_fair'))}, "
                         f"eagle/fifo long p50 = {_fmt(crit.get('long_p50_vs_fifo'))}. Targets: ")
            parts.append(", ".join(f"<span class='{'good' if ok else 'bad'}'>{e(k)}: {ok}</span>"
                                   for k, ok in crit["met"].items()) + "</p>")
    parts.append("<h2>Runs</h2><table><tr><th>scheduler</th><th>variant</th><th>short n</th><th>short p50</th>"
                 "<th>short p90</th><th>short p99</th><th>long n</th><th>long p50</th><th>long p90</th>"
                 "<th>long p99</th><th>wall s</th><th>correct</th><th>locality</th></tr>")
    for r in results["runs"]:
        variant = r.get("variant") or (f"ratio {r['ratio']:g} seed {r['seed']}" if "ratio" in r else "")
        loc = r.get("locality") or {}
        loc_s = ", ".join(f"{k.split('_')[0]} {v:.0%}" for k, v in loc.items() if v)
        sh, lo = r.get("short") or {}, r.get("long") or {}
        parts.append(f"<tr><td>{e(r['scheduler'])}</td><td>{e(variant)}</td><td>{sh.get('count', 0)}</td>"
                     + "".join(f"<td>{_fmt(sh.get(q))}</td>" for q in ("p50", "p90", "p99"))
                     + f"<td>{lo.get('count', 0)}</td>"
                     + "".join(f"<td>{_fmt(lo.get(q))}</td>" for q in ("p50", "p90", "p99"))
                     + f"<td>{_fmt(r.get('wall_seconds'), 1)}</td>"
                     f"<td class='{'good' if r.get('correct') else 'bad'}'>{r.get('correct')}</td>"
                     f"<td style='text-align:left'>{e(loc_s)}</td></tr>")
    parts.append("</table>")
    if results["scenario"] == "tpch":
        runs = results["runs"]
        parts.append("<h2>Query latency (s) and DuckDB check</h2><table><tr><th>query</th>"
                     + "".join(f"<th>{e(r['scheduler'])}</th>" for r in runs) + "</tr>")
        for q in range(1, 23):
            cells = []
            for r in runs:
                qq = next((x for x in r.get("queries") or [] if x["query"] == q), None)
                if qq is None:
                    cells.append("<td>–</td>")
                else:
                    cls = "good" if qq["ok"] else "bad"
                    mark = "✓" if qq["ok"] else "✗ " + e(str(qq.get("check")))
                    cells.append(f"<td class='{cls}'>{qq['latency']:.2f} {mark}</td>")
            parts.append(f"<tr><td>Q{q}</td>{''.join(cells)}</tr>")
        parts.append("<tr><td>batch sort</td>" + "".join(
            f"<td>{_fmt(r.get('batch_seconds'), 1)}</td>" for r in runs) + "</tr></table>")
    for title, img in images:
        parts.append(f"<h3>{e(title)}</h3><img src='{e(img)}' alt='{e(title)}'>")
    parts.append("</body></html>")
    return "\n".join(parts)


if __name__ == "__main__":
    # python -m bench.report target/bench/<scenario>  (re-render from results.json)
    d = sys.argv[1]
    with open(os.path.join(d, "results.json")) as f:
        print(write_report(d, json.load(f)))
