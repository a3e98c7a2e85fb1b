# Constant baseline F0 per cell: a low percentile of the lightly smoothed trace, repeated
# over all frames (for short recordings without drift).
from scipy import ndimage

baseline_percentile_q = 10
smooth = ndimage.uniform_filter1d(roi_traces.astype(np.float64), 5, axis=1, mode="nearest")
level = np.percentile(smooth, baseline_percentile_q, axis=1, keepdims=True) if smooth.size else smooth
baseline = np.broadcast_to(level, roi_traces.shape).astype(np.float32)
