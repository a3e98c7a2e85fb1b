# Cell or not, per ROI, from features a person would look at: skewness of the corrected trace
# (calcium transients make it positive; noise and neuropil do not), the detection score, the
# event rate, the correlation with a ROI closer than 1.2 diameters (a second ROI on one cell,
# left by imperfect registration, moves with it; touching cells fire independently),
# compactness, and size against the expected cell area (diffuse neuropil patches are large).
# The decision is a fixed logistic score, weights fitted by logistic regression on training
# movies (calcium_synth seeds 1-2, every kind) and rounded; tested on other seeds:
#   z = -3.5 + 5 skew + 2 log10(score / 60) + 1.75 min(events_per_min, 30) / 10
#       - 6 neighbour_corr - 1 max(compactness - 1.3, 0) - 4 max(size_ratio - 2.5, 0)
#   (score is 60, neutral, for a ROI found in the mean image; neighbour_corr leaves out the ROI's
#   own weaker twins below)
#       - 20 [a neighbour within 1.2 diameters correlates above 0.8 and scored higher]
#   and such a weaker twin is never a cell (z <= -10), however skewed its trace; nor is the weaker
#   of two ROIs closer than half a diameter (training seeds 1,2,5-8,10,14 of every kind: the two
#   such pairs of cells were one cell twice, drift_nonrigid s8 and touching s7; the closest two
#   true cells labelled cells were 0.6 diameters apart)
#       - 10 [no inferred event: the activity that found the ROI is indistinguishable from noise]
# A silent or dim cell is still a cell when the mean image shows it: a ROI that is not a residual
# of a neighbour -- isolated (no other ROI within 1.2 diameters) or owning a soma peak of the mean
# image (a local maximum at the cell scale within 0.3 diameters of its centre, and nearer to it
# than to any other ROI's) -- and not a weaker twin, whose lam-weighted brightness exceeds its
# surround by >= 4 noise units (isolated false ROIs on training movies stay below 1.5) and that
# is compact (<= 1.6: a dim cell's activity footprint is ragged) gets z = max(z, 1 + 0.25
# (contrast - 4)). Owning a peak, not only isolation, lets dim cells 6-8 px from a neighbour count:
# calcium_synth seeds 1-2 and 5-8 of every kind: 7 of 8 missed cells found, no false cell added.
# A ROI found in the mean image alone ("silent"), or with no clear spike, needs contrast >= 7.5: on
# cell-free fields with neuropil 0.2 (seeds 1-10) smooth neuropil bumps reached 5.6, while silent
# ROIs on true cells of training seeds 1-2, 5-8, 10, 14 of every kind had 9.9 or more.
# A silent ROI beside another ROI (within 1.2 diameters) that owns no soma peak needs a fitted soma
# brightness (segment_cells' soma_brightness) >= 0.4 of the typical active ROI's, else z -= 10 and no
# contrast rule: the saddle of two neighbours' overlapping edges is not a cell.
# A ROI the mean image does not show (contrast < 3) with at most 2 clear spikes gets z -= 10: on
# training movies no true cell had contrast below 5.3 (885 cells), while isolated neuropil patches
# that flickered once or twice (contrast 1-2.7) were taken for cells on neuropil_0.3 seeds 11, 13.
# iscell[i] = [label, probability], probability = 1 / (1 + exp(-z)), label = probability >=
# params["cell_threshold"] (0.5).
from scipy import ndimage

cell_threshold = float(params.get("cell_threshold") if params.get("cell_threshold") is not None else 0.5)
n_rois = len(stat)
n_frames = roi_traces.shape[1] if roi_traces.ndim == 2 else 0
expected_area = np.pi * (float(diameter_px) / 2.0) ** 2
# The event rate is per minute at the movie's frame rate (params["fs"], from the request, the API or
# the file); with none known it assumes 10 Hz, and every ROI's features say so (rate_fs_assumed).
rate_fs_assumed = params.get("fs") is None
frame_rate = 10.0 if rate_fs_assumed else float(params["fs"])
# Clear inferred spikes (above 2.5 noise units, adjacent frames merged), counted here rather than
# taken from `events`, so the event threshold a user sets reaches the decision only as OASIS's
# minimum spike size (at 2 the demo movie counted 16 of 15 through `events`).
clear_spikes = np.asarray(spks) > 2.5 * np.asarray(event_noise, dtype=np.float64)[:, None] if n_rois else np.zeros((0, 0), bool)
event_counts = (np.sum(clear_spikes[:, 1:] & ~clear_spikes[:, :-1], axis=1) + clear_spikes[:, 0]
                if n_rois and clear_spikes.shape[1] else np.zeros(n_rois, dtype=int))
cell_features = []
iscell = np.zeros((n_rois, 2), dtype=np.float32)
picture = np.asarray(mean_image, dtype=np.float64)
picture_noise = (1.4826 * np.median(np.abs(np.diff(picture - ndimage.gaussian_filter(picture, 10.0), axis=0)))
                 / np.sqrt(2) + 1e-12) if picture.size else 1.0
in_any_roi = np.zeros(picture.shape, dtype=bool)
for s in stat:
    in_any_roi[s["ypix"], s["xpix"]] = True
grid_rows, grid_cols = np.mgrid[0:picture.shape[0], 0:picture.shape[1]]
# Somata in the mean image: local maxima of its negative Laplacian of Gaussian at the soma scale
# (sigma = diameter / 2 sqrt 2), which keeps a dim soma on a bright neighbour's flank a peak of its
# own (a difference of Gaussians did not: dim_close seed 2 lost such a cell); each peak belongs to
# the ROI whose centre is nearest.
soma_image = -ndimage.gaussian_laplace(picture, float(diameter_px) / (2 * np.sqrt(2)))
peak_at = np.argwhere(ndimage.maximum_filter(soma_image, size=3) == soma_image) if picture.size else np.zeros((0, 2))
centres = np.array([s["med"] for s in stat], dtype=float).reshape(-1, 2)
peak_owner = (np.argmin(np.hypot(*(peak_at[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)), axis=1)
              if len(centres) and len(peak_at) else np.zeros(0, dtype=int))
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
    # a ROI found in the mean image has no activity score: the term is neutral (60) for it
    score = 60.0 if s.get("silent") else float(s.get("score", 60.0))
    # a second ROI on the same cell (a residual after imperfect registration) moves with it
    near = [j for j, o in enumerate(stat) if j != i and
            np.hypot(o["med"][0] - s["med"][0], o["med"][1] - s["med"][1]) < 1.2 * float(diameter_px)]
    corrs = [(float(np.nan_to_num(np.corrcoef(trace, roi_traces[j])[0, 1])), j) for j in near]
    # Two ROIs are one cell when their traces correlate above 0.8, or when they sit closer than half
    # a diameter (two somata cannot; non-rigid motion decorrelates a residual, so the correlation
    # misses it): only the stronger (higher score; earlier on a tie) stays, and the weaker never is a
    # cell. The stronger's neighbour correlation leaves out its own fragment: it lost a true cell for
    # correlating 0.35 with one (noise_0.15 seed 33).
    same_cell = [(c, j) for c, j in corrs if c > 0.8 or np.hypot(
        stat[j]["med"][0] - s["med"][0], stat[j]["med"][1] - s["med"][1]) < 0.5 * float(diameter_px)]
    weaker_twin = any((stat[j].get("score", 0.0), -j) > (s.get("score", 0.0), -i) for _, j in same_cell)
    fragments = {j for _, j in same_cell if (stat[j].get("score", 0.0), -j) < (s.get("score", 0.0), -i)}
    neighbour_corr = max((c for c, j in corrs if j not in fragments), default=0.0)
    rate = float(event_counts[i]) / max(n_frames / frame_rate, 1e-9) * 60.0
    z = (-3.5 + 5.0 * skew + 2.0 * np.log10(max(score, 1e-3) / 60.0) + 1.75 * min(rate, 30.0) / 10.0
         - 6.0 * neighbour_corr - 1.0 * max(compactness - 1.3, 0.0) - 4.0 * max(size_ratio - 2.5, 0.0)
         - 20.0 * weaker_twin - 10.0 * (event_counts[i] == 0))
    inside = float(np.average(picture[s["ypix"], s["xpix"]], weights=np.asarray(s["lam"], dtype=float)))
    to_centre = np.hypot(grid_rows - s["med"][0], grid_cols - s["med"][1])
    surround = (to_centre >= np.sqrt(len(ys) / np.pi) + 1) & (to_centre < np.sqrt(len(ys) / np.pi) + 4) & ~in_any_roi
    contrast = (inside - float(np.median(picture[surround]))) / picture_noise if surround.any() else 0.0
    isolated = not any(np.hypot(o["med"][0] - s["med"][0], o["med"][1] - s["med"][1]) < 1.2 * float(diameter_px)
                       for j, o in enumerate(stat) if j != i)
    own_peak = bool(peak_owner.size) and any(
        peak_owner[k] == i and np.hypot(py - s["med"][0], px - s["med"][1]) <= 0.3 * float(diameter_px)
        for k, (py, px) in enumerate(peak_at))
    # a ROI found in the mean image beside other ROIs is a soma of its own when the mean image has a
    # peak it owns or, fitted together with its neighbours, it is at least 0.4 as bright as the
    # typical active ROI (a dim cell is half as bright); the saddle of two neighbours' overlapping
    # edges is neither (tuning seeds: squeezed true cells 0.38-0.81, the 0.38 one owning a peak;
    # saddles 0.04-0.31)
    shows_itself = not s.get("silent") or isolated or own_peak or float(s.get("soma_brightness", 1.0)) >= 0.4
    # a ROI without a clear spike of its own is judged as one found in the mean image alone: a ragged
    # patch of moving neuropil that owned a mean-image peak (contrast 5.5) counted (drift_nonrigid s33)
    quiet = bool(s.get("silent")) or event_counts[i] == 0
    if (isolated or own_peak) and not weaker_twin and contrast >= (7.5 if quiet else 4.0) and compactness <= 1.6:
        z = max(z, 1.0 + 0.25 * (contrast - 4.0))
    if not shows_itself:
        z -= 10.0  # the saddle of two neighbours: its trace mixes theirs, so skewness says little
    if contrast < 3.0 and event_counts[i] <= 2:
        z -= 10.0  # neither the mean image shows it nor do repeated events: a flicker of neuropil
    if weaker_twin:
        z = min(z, -10.0)  # one cell, counted once: a fragment's skewness (6 on a 64x64 demo) outweighed -20
    probability = float(1.0 / (1.0 + np.exp(-z)))
    iscell[i] = (float(probability >= cell_threshold), probability)
    cell_features.append({"roi": i, "size_ratio": round(size_ratio, 3), "compactness": round(compactness, 3),
                          "skewness": round(skew, 3), "score": round(score, 2),
                          "events_per_min": round(rate, 3), "rate_fs": frame_rate, "rate_fs_assumed": rate_fs_assumed,
                          "neighbour_corr": round(neighbour_corr, 3),
                          "contrast": round(float(contrast), 2), "probability": round(probability, 4)})
