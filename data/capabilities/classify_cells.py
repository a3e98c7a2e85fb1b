# Cell or not, per ROI, from features a person would look at: size relative to the expected
# cell area (fragments of noise or of a neighbour's residual are small), compactness (pixels'
# mean distance from the centroid against a disk's), skewness of the corrected trace (calcium
# transients make it positive), the detection score and the event rate. The decision is a
# fixed logistic score (weights chosen on training movies, documented here, tested):
#   z = 8 (size_ratio - 0.45) + 1.5 min(skew, 3) + 1.0 log10(score / 60) - 3 (compactness - 1.3)
# iscell[i] = [label, probability] with probability = 1 / (1 + exp(-z)) and label =
# probability >= params["cell_threshold"] (0.5).
cell_threshold = float(params.get("cell_threshold") if params.get("cell_threshold") is not None else 0.5)
n_rois = len(stat)
n_frames = roi_traces.shape[1] if roi_traces.ndim == 2 else 0
expected_area = np.pi * (float(cell_diameter) / 2.0) ** 2
frame_rate = float(params.get("fs") or 10.0)
event_counts = np.bincount([e["cell"] for e in events], minlength=n_rois)[:n_rois] if n_rois else np.zeros(0)
cell_features = []
iscell = np.zeros((n_rois, 2), dtype=np.float32)
for i, s in enumerate(stat):
    ys, xs = np.asarray(s["ypix"], dtype=float), np.asarray(s["xpix"], dtype=float)
    r = np.hypot(ys - s["med"][0], xs - s["med"][1])
    disk_mean_r = (2.0 / 3.0) * np.sqrt(len(ys) / np.pi)  # mean radius of a filled disk
    compactness = float(r.mean() / max(disk_mean_r, 1e-9))
    trace = roi_traces[i].astype(np.float64)
    centred = trace - trace.mean()
    sd = centred.std()
    skew = float((centred ** 3).mean() / sd ** 3) if sd > 0 else 0.0
    size_ratio = float(len(ys) / expected_area)
    score = float(s.get("score", 60.0))
    rate = float(event_counts[i]) / max(n_frames / frame_rate, 1e-9) * 60.0
    z = (8.0 * (size_ratio - 0.45) + 1.5 * min(skew, 3.0) + 1.0 * np.log10(max(score, 1e-3) / 60.0)
         - 3.0 * max(compactness - 1.3, 0.0))
    probability = float(1.0 / (1.0 + np.exp(-z)))
    iscell[i] = (float(probability >= cell_threshold), probability)
    cell_features.append({"roi": i, "size_ratio": round(size_ratio, 3), "compactness": round(compactness, 3),
                          "skewness": round(skew, 3), "score": round(score, 2),
                          "events_per_min": round(rate, 3), "probability": round(probability, 4)})
n_cells = int(iscell[:, 0].sum()) if n_rois else 0
