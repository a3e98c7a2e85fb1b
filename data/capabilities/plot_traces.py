# Figure: ΔF/F traces stacked one per cell, detected events marked with dots.
from matplotlib.figure import Figure

max_rows = 30
n_rows = min(dff.shape[0], max_rows)
fig_traces = Figure(figsize=(9, 1.0 + 0.45 * max(n_rows, 1)), dpi=100)
ax = fig_traces.subplots()
step = float(np.nanpercentile(dff[:n_rows], 99.5)) if n_rows else 1.0
step = step if np.isfinite(step) and step > 0 else 1.0
frames = np.arange(dff.shape[1])
for i in range(n_rows):
    ax.plot(frames, dff[i] + i * step, lw=0.7, color="tab:blue")
marked = [e for e in events if e["cell"] < n_rows]
if marked:
    ax.plot(
        [e["frame"] for e in marked],
        [dff[e["cell"], e["frame"]] + e["cell"] * step for e in marked],
        "o", ms=3, color="tab:red", label=f"{len(events)} events",
    )
    ax.legend(loc="upper right", fontsize=8)
ax.set_xlabel("frame")
ax.set_ylabel("ΔF/F (offset per cell)")
title = "ΔF/F traces" + (f" (first {n_rows} of {dff.shape[0]} cells)" if dff.shape[0] > n_rows else "")
ax.set_title(title)
fig_traces.tight_layout()
