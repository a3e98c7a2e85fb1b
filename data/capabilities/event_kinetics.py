# Kinetics of every detected event: rise time (10% to 90% of the amplitude, before the peak)
# and half-decay time (peak until the trace falls below 50% of the amplitude), in frames,
# interpolated between frames; NaN where the trace ends first.
from scipy import ndimage

smooth = ndimage.gaussian_filter1d(dff.astype(np.float64), 1.0, axis=1, mode="nearest")
event_kinetics = []
for event in events:
    trace, peak = smooth[event["cell"]], int(event["frame"])
    onset_level = trace[max(peak - 4, 0):peak + 1].min()
    top = trace[peak]
    amp = top - onset_level
    rise = decay = float("nan")
    if amp > 0:
        lo, hi = onset_level + 0.1 * amp, onset_level + 0.9 * amp
        before = trace[max(peak - 10, 0):peak + 1]
        t_lo = t_hi = None
        for k in range(len(before) - 1, 0, -1):
            a, b = before[k - 1], before[k]
            if t_hi is None and a < hi <= b:
                t_hi = k - 1 + (hi - a) / (b - a)
            if t_lo is None and a < lo <= b:
                t_lo = k - 1 + (lo - a) / (b - a)
                break
        if t_lo is not None and t_hi is not None:
            rise = float(t_hi - t_lo)
        half = onset_level + 0.5 * amp
        after = trace[peak:]
        below = np.flatnonzero(after < half)
        if below.size:
            k = int(below[0])
            a, b = after[k - 1], after[k]
            decay = float(k - 1 + (a - half) / (a - b))
    event_kinetics.append(
        {"cell": event["cell"], "frame": peak, "rise_frames": rise, "decay_frames": decay}
    )
rises = [k["rise_frames"] for k in event_kinetics if np.isfinite(k["rise_frames"])]
decays = [k["decay_frames"] for k in event_kinetics if np.isfinite(k["decay_frames"])]
mean_rise_frames = float(np.mean(rises)) if rises else float("nan")
mean_decay_frames = float(np.mean(decays)) if decays else float("nan")
