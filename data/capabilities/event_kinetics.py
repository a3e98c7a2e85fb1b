# Kinetics of every detected event, in frames (interpolated between frames): rise time from
# 10% to 90% of the amplitude, and half-decay time from the peak until the lightly smoothed
# trace falls below half the amplitude. The decay is NaN for an event riding on an earlier
# transient, or cut short by the next event or the end of the recording. Medians summarise.
from scipy import ndimage

smooth = ndimage.gaussian_filter1d(dff.astype(np.float64), 1.0, axis=1, mode="nearest")
frames_by_cell = {}
for event in events:
    frames_by_cell.setdefault(event["cell"], []).append(int(event["frame"]))
next_event = {}
for cell, frames in frames_by_cell.items():
    frames = sorted(frames)
    for a, b in zip(frames, frames[1:] + [dff.shape[1]]):
        next_event[(cell, a)] = b
event_kinetics = []
for event in events:
    cell, peak = event["cell"], int(event["frame"])
    raw = dff[cell].astype(np.float64)
    before = raw[max(peak - 3, 0):peak]
    onset = float(np.median(before)) if before.size else 0.0
    amp = raw[peak] - onset
    rise = decay = float("nan")
    if amp > 0:
        lo, hi = onset + 0.1 * amp, onset + 0.9 * amp
        t_lo = t_hi = None
        for k in range(peak, max(peak - 10, 0), -1):
            a, b = raw[k - 1], raw[k]
            if t_hi is None and a < hi <= b:
                t_hi = k - 1 + (hi - a) / (b - a)
            if t_lo is None and a < lo <= b:
                t_lo = k - 1 + (lo - a) / (b - a)
            if t_lo is not None and t_hi is not None:
                break
        if t_lo is not None and t_hi is not None and t_hi >= t_lo:
            rise = float(t_hi - t_lo)
        half = onset + 0.5 * amp
        isolated = abs(onset) <= 0.25 * amp
        stop = next_event[(cell, peak)] if isolated else peak + 1
        after = np.concatenate([[raw[peak]], smooth[cell, peak + 1:stop]])
        below = np.flatnonzero(after < half)
        if below.size and below[0] > 0:
            k = int(below[0])
            a, b = after[k - 1], after[k]
            decay = float(k - 1 + (a - half) / (a - b))
    event_kinetics.append({"cell": cell, "frame": peak, "rise_frames": rise, "decay_frames": decay})
rises = [k["rise_frames"] for k in event_kinetics if np.isfinite(k["rise_frames"])]
decays = [k["decay_frames"] for k in event_kinetics if np.isfinite(k["decay_frames"])]
median_rise_frames = float(np.median(rises)) if rises else float("nan")
median_decay_frames = float(np.median(decays)) if decays else float("nan")
