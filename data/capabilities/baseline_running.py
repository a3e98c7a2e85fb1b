# Running baseline F0 per cell: a low percentile in a sliding window (~10 s at 10 Hz), which
# follows slow drift and bleaching; the trace is lightly smoothed first so noise does not
# drag the percentile down.
from scipy import ndimage

baseline_percentile_q = 10
window = int(min(roi_traces.shape[1], 101)) if roi_traces.size else 1
smooth = ndimage.uniform_filter1d(roi_traces.astype(np.float64), 5, axis=1, mode="nearest")
low = ndimage.percentile_filter(smooth, baseline_percentile_q, size=(1, window), mode="nearest")
baseline = ndimage.uniform_filter1d(low, window, axis=1, mode="nearest").astype(np.float32)
