# Summary of detected events: mean amplitude (ΔF/F; None, shown as n/a, when there are no
# events: an amplitude of 0 would claim something was measured), events per cell, and event
# rate per cell in events per 100 frames.
n_rows, n_frames = (dff.shape[0], dff.shape[1]) if dff.ndim == 2 else (0, 0)
amplitudes = np.array([e["amplitude"] for e in events], dtype=np.float64)
mean_amplitude = float(amplitudes.mean()) if amplitudes.size else None
counts = np.bincount([e["cell"] for e in events], minlength=n_rows)[:n_rows]
events_per_cell = [int(c) for c in counts]
event_rate = [round(100.0 * c / max(n_frames, 1), 4) for c in events_per_cell]
