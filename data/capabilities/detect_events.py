# Calcium transient detection: peaks of each cell's lightly smoothed ΔF/F whose height and
# prominence exceed multiples of the cell's robust noise level (MAD of frame-to-frame
# differences). Each event's frame is the raw ΔF/F maximum next to the peak; its amplitude is
# the rise above the level just before it.
from scipy import ndimage, signal

height_k = 3.5       # event height above the trace's median, in noise units
prominence_k = 3.0   # event prominence, in noise units
min_gap = 3          # frames between two events of one cell
smooth_sigma = 1.0   # frames
# White noise shrinks by this factor under a Gaussian filter of smooth_sigma frames.
shrink = 1.0 / np.sqrt(2.0 * np.sqrt(np.pi) * smooth_sigma)

events = []
event_noise = []
n_frames = dff.shape[1] if dff.ndim == 2 else 0
for cell in range(dff.shape[0]):
    raw = dff[cell].astype(np.float64)
    if n_frames < 3:
        event_noise.append(0.0)
        continue
    steps = np.diff(raw)
    sigma = 1.4826 * np.median(np.abs(steps - np.median(steps))) / np.sqrt(2.0)
    event_noise.append(float(sigma))
    trace = ndimage.gaussian_filter1d(raw, smooth_sigma, mode="nearest")
    level = np.median(trace)
    s = max(sigma * shrink, 1e-9)
    # Pad with the median level so a transient at the first or last frame can be a peak.
    padded = np.concatenate([[level], trace, [level]])
    peaks, _ = signal.find_peaks(
        padded, height=level + height_k * s, prominence=prominence_k * s, distance=min_gap
    )
    for p in peaks - 1:
        lo, hi = max(p - 1, 0), min(p + 2, n_frames)
        frame = lo + int(np.argmax(raw[lo:hi]))
        before = raw[max(frame - 3, 0):frame]
        amplitude = raw[frame] - (np.median(before) if before.size else level)
        events.append({"cell": cell, "frame": int(frame), "amplitude": round(float(amplitude), 4)})
n_transients = len(events)
