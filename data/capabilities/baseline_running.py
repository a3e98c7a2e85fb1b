# Running baseline F0 per cell, following slow drift and bleaching: smooth the trace, take a
# sliding minimum then a sliding maximum over the same window (a morphological opening, as
# suite2p's "maximin" does; unbiased on monotone trends, unlike a running percentile), and
# smooth the result. The window (~10 s; frame rate from params["fs"], 10 Hz if unknown) must
# be longer than a transient.
from scipy import ndimage

window_s = 10.0
frame_rate = float(params.get("fs") or 10.0)
window = int(min(roi_traces.shape[1], max(11, int(window_s * frame_rate) + 1))) if roi_traces.size else 1
smooth = ndimage.gaussian_filter1d(roi_traces.astype(np.float64), 2.0, axis=1, mode="nearest")
low = ndimage.minimum_filter1d(smooth, window, axis=1, mode="nearest")
low = ndimage.maximum_filter1d(low, window, axis=1, mode="nearest")
baseline = ndimage.uniform_filter1d(low, max(window // 2, 1), axis=1, mode="nearest")
baseline = baseline.astype(np.float32)
