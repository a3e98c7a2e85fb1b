# Summary of detected events: mean amplitude (ΔF/F; None, shown as n/a, when there are no
# events: an amplitude of 0 would claim something was measured), events per cell, and event
# rate per cell: events/s when the frame rate is known (params["fs"]), events per frame when
# it is not (a rate in Hz from an assumed frame rate would present a guess as a measurement).
n_rows, n_frames = (dff.shape[0], dff.shape[1]) if dff.ndim == 2 else (0, 0)
amplitudes = np.array([e["amplitude"] for e in events], dtype=np.float64)
mean_amplitude = float(amplitudes.mean()) if amplitudes.size else None
counts = np.bincount([e["cell"] for e in events], minlength=n_rows)[:n_rows]
events_per_cell = [int(c) for c in counts]
rate_known = params.get("fs") is not None
duration = n_frames / float(params["fs"]) if rate_known else float(n_frames)
event_rate = [round(c / max(duration, 1e-12), 6) for c in events_per_cell]
event_rate_unit = "events/s" if rate_known else "events/frame (frame rate unknown; pass --fs for events/s)"
mean_event_rate = round(float(np.mean(event_rate)), 6) if event_rate else None
