# Cell detection from activity, one cell at a time, so touching cells come apart: bin the
# registered movie in time, remove slow trends and smooth backgrounds (neuropil), scale every
# pixel by its noise, smooth at the cell scale, and score each pixel by its strong excursions.
# The best pixel seeds a cell: its active bins give a weighted footprint (lam), the footprint's
# time course is projected out of the movie, and the scores nearby are recomputed; a touching
# neighbour fires at other times, so it stays and is found next. Stops when no pixel scores
# above the threshold. Each ROI is a suite2p-style stat dict (ypix, xpix, lam, med, radius,
# npix, overlap); cell_labels and cell_centroids keep the older capabilities working. A ROI whose
# own time course never rises 4.5 noise units above its median is dropped; bright compact blobs
# of the mean image that no active ROI covers are added as silent cells ("silent": True).
from scipy import ndimage, sparse
from scipy.sparse import linalg as sparse_linalg
from skimage.feature import blob_log

diameter = params.get("diameter")
fs = float(params.get("fs") or 10.0)
tau = float(params.get("tau") or 1.0)
active_k = 3.0        # a bin is active when the smoothed, noise-scaled signal exceeds this
score_threshold = 12.0  # stop when the best pixel's score (sum of squared excess) falls below
min_peak_snr = 4.5    # a kept ROI's own time course rises this far above its median (noise units)
silent_contrast = 20.0  # a soma of the mean image this far above its noise (LoG units) may be a silent cell
# (training seeds 1-2 of every kind: true somata >= 38, neuropil structure <= 12, cell-free fields <= 8.2)
movie = images_registered
n_frames, height, width = movie.shape
# Memory stays bounded on large fields: at most 600 time bins and 256 MB of them (256 bins of
# 512x512), and frames read in blocks of 16 MB of pixels (64 frames of 512x512, 256 of 128x128).
max_bins = int(min(600, 2 ** 28 // max(4 * height * width, 1)))
block_frames = int(np.clip(2 ** 24 // max(height * width, 1), 16, 256))
mean_image = np.zeros((height, width))
for start in range(0, n_frames, block_frames):
    mean_image += np.asarray(movie[start:start + block_frames], dtype=np.float64).sum(axis=0)
mean_image = (mean_image / max(n_frames, 1)).astype(np.float32)

if diameter is None:
    # The typical blob scale of the background-subtracted mean image.
    flat = mean_image - ndimage.gaussian_filter(mean_image, 10.0)
    noise_img = 1.4826 * np.median(np.abs(flat - np.median(flat))) + 1e-12
    blobs = blob_log(np.clip(flat / noise_img, 0, None), min_sigma=1.0, max_sigma=10.0, num_sigma=19, threshold=1.0)
    diameter = float(np.clip(2 * np.sqrt(2) * np.median(blobs[:, 2]), 4.0, 60.0)) if len(blobs) else 8.0
diameter = float(diameter)
diameter_px = diameter

bin_size = max(1, int(round(fs * tau / 3)), int(np.ceil(n_frames / max_bins)))
n_bins = max(n_frames // bin_size, 1)
binned = np.zeros((n_bins, height, width), dtype=np.float32)
block_bins = min(64, max(1, block_frames // bin_size))
for b0 in range(0, n_bins, block_bins):
    b1 = min(b0 + block_bins, n_bins)
    block = np.asarray(movie[b0 * bin_size:b1 * bin_size], dtype=np.float32)
    binned[b0:b1] = block[: (b1 - b0) * bin_size].reshape(b1 - b0, bin_size, height, width).mean(axis=1)
# slow trends (bleaching) out in time, smooth backgrounds (neuropil) out in space
trend_sigma = max(3.0, 10.0 * fs / bin_size)
if n_bins <= 1000:
    # The trend filter is longer than the movie has bins: as a bins x bins matrix (the filter applied
    # to the identity) it is the same linear map, and one matrix product is ~30x faster.
    trend = ndimage.gaussian_filter1d(np.eye(n_bins, dtype=np.float32), trend_sigma, axis=0, mode="nearest")
    binned -= (trend @ binned.reshape(n_bins, -1)).reshape(binned.shape)
else:
    binned -= ndimage.gaussian_filter1d(binned, trend_sigma, axis=0, mode="nearest")
binned -= ndimage.gaussian_filter(binned, (0, diameter, diameter), mode="nearest")


def _by_rows(fn, movie, rows=32):
    # A per-pixel reduction over time, a band of rows at a time: its temporaries (diff, abs, the
    # median's partition) are a band, not three more binned movies (768 MB on 512x512).
    return np.concatenate([fn(movie[:, y0:y0 + rows]) for y0 in range(0, movie.shape[1], rows)], axis=0)


def _step_noise(block):
    return 1.4826 * np.median(np.abs(np.diff(block, axis=0)), axis=0) / np.sqrt(2)


step_noise = _by_rows(_step_noise, binned) if n_bins > 2 else np.ones((height, width))
binned /= np.maximum(step_noise, 1e-9)[None]
sig = max(diameter / 5.0, 0.7)


def _smooth(block):
    s = ndimage.gaussian_filter(block, (0, sig, sig), mode="nearest")
    return s


smooth = _smooth(binned)
smooth_noise = np.maximum(_by_rows(_step_noise, smooth), 1e-9)
smooth /= smooth_noise[None]
score = _by_rows(lambda block: (np.clip(block - active_k, 0, None) ** 2).sum(axis=0), smooth)
# seeds only where every frame sees the tissue (registration fills the rest by repeating the edge)
valid_y0, valid_y1, valid_x0, valid_x1 = valid_region
outside = np.ones((height, width), dtype=bool)
outside[valid_y0:valid_y1, valid_x0:valid_x1] = False
score[outside] = 0.0

half = int(np.ceil(diameter))
yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
min_area = max(4, int(0.35 * np.pi * (diameter / 2) ** 2))  # smaller: a fragment (noise, a residual)
max_area = int(3.0 * np.pi * (diameter / 2) ** 2)
stat = []
for _ in range(5000):
    peak = int(np.argmax(score))
    y, x = divmod(peak, width)
    seed_score = float(score[y, x])
    if seed_score < score_threshold:
        break
    y0, y1, x0, x1 = max(y - half, 0), min(y + half + 1, height), max(x - half, 0), min(x + half + 1, width)
    patch = binned[:, y0:y1, x0:x1]
    course = smooth[:, y, x]
    lam_map = None
    for _refine in range(3):
        active = course > max(active_k, 0.3 * course.max())
        if not active.any():
            break
        w = course[active]
        lam_map = np.tensordot(w, patch[active], axes=(0, 0)) / w.sum()
        keep = lam_map > 0.25 * lam_map.max()
        labels, _n = ndimage.label(keep)
        centre_label = labels[y - y0, x - x0]
        if centre_label == 0:
            lam_map = None
            break
        lam_map = np.where(labels == centre_label, lam_map, 0.0)
        course = np.tensordot(patch, lam_map, axes=([1, 2], [0, 1])) / (np.sqrt((lam_map ** 2).sum()) + 1e-12)
        course = course / (1.4826 * np.median(np.abs(np.diff(course))) / np.sqrt(2) + 1e-9)
    if lam_map is None or not (min_area <= np.count_nonzero(lam_map) <= max_area):
        score[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2] = 0.0  # not a cell-shaped source: skip its seed
        continue
    # project this source out of the binned movie and rescore the neighbourhood
    unit = lam_map / (np.sqrt((lam_map ** 2).sum()) + 1e-12)
    amplitude = np.tensordot(patch, unit, axes=([1, 2], [0, 1]))
    amp_noise = 1.4826 * np.median(np.abs(np.diff(amplitude))) / np.sqrt(2) + 1e-9
    peak_snr = float((amplitude.max() - np.median(amplitude)) / amp_noise)
    binned[:, y0:y1, x0:x1] -= amplitude[:, None, None] * unit[None]
    m = half + int(np.ceil(3 * sig))
    e0, e1, f0, f1 = max(y - m, 0), min(y + m + 1, height), max(x - m, 0), min(x + m + 1, width)
    local = _smooth(binned[:, e0:e1, f0:f1]) / smooth_noise[None, e0:e1, f0:f1]
    smooth[:, e0:e1, f0:f1] = local
    score[e0:e1, f0:f1] = (np.clip(local - active_k, 0, None) ** 2).sum(axis=0)
    score[outside] = 0.0
    ys, xs = np.nonzero(lam_map)
    lam = lam_map[ys, xs].astype(np.float64)
    ys, xs = ys + y0, xs + x0
    med = [float((ys * lam).sum() / lam.sum()), float((xs * lam).sum() / lam.sum())]
    if any(np.hypot(med[0] - s["med"][0], med[1] - s["med"][1]) < 0.3 * diameter for s in stat):
        continue  # the same cell found again (its residual): already counted
    if peak_snr < min_peak_snr:
        continue  # its own time course never rises clear of its noise: not kept (already projected out)
    stat.append({"ypix": ys.astype(np.int32), "xpix": xs.astype(np.int32), "lam": (lam / lam.sum()).astype(np.float32),
                 "med": [round(med[0], 2), round(med[1], 2)], "npix": int(len(ys)),
                 "radius": float(np.sqrt(len(ys) / np.pi)), "score": round(seed_score, 2), "peak_snr": round(peak_snr, 2)})

# Silent and dim cells: somata of the mean image that no active ROI covers. Somata are local
# maxima of the negative Laplacian of Gaussian at the soma scale (sigma = diameter / 2 sqrt 2):
# unlike a difference of Gaussians with a diameter-wide maximum filter, it keeps a dim soma on a
# bright neighbour's flank a peak of its own (dim_close seeds 3, 10, 14 lost such cells, their few
# dim transients scoring below the activity threshold once the bright neighbour was projected out).
# The footprint is the positive LoG response around the peak within half a diameter, so the
# neighbour's flank (negative there) does not pull its centre.
# Its noise is the mean image's pixel noise times the filter's L2 norm: the spread of the filtered
# image itself would measure the cells (or, on a field without cells, almost nothing).
# The active ROIs' somata are first fitted in the mean image and taken out of it, so a dim soma that
# overlaps a bright neighbour (no peak of its own in the mean image) is a peak of the residual
# (dim_close seed 3 lost such a cell: its activity went with the neighbour's projection).
# Each ROI is a soft-edged disk (edge 0.6 px, a blurred soma) at its centre, its radius (0.3-0.75
# diameters) fitted alone with a local constant background on the pixels within a diameter; then
# all brightnesses are fitted together with a smooth background (a Gaussian of 2 diameters of the
# residual), so two neighbours' overlapping edges are explained by both, not left as a saddle.
fit_half = int(np.ceil(diameter)) + 1


def _soma_disk(cy, cx):
    # (flat pixel indices, values) of the soft disk whose radius and centre (within 1 px of the
    # ROI's: an activity footprint can lean towards a neighbour) best fit the mean image there
    y0, y1 = max(int(round(cy)) - fit_half, 0), min(int(round(cy)) + fit_half + 1, height)
    x0, x1 = max(int(round(cx)) - fit_half, 0), min(int(round(cx)) + fit_half + 1, width)
    near = np.hypot(np.arange(y0, y1)[:, None] - cy, np.arange(x0, x1)[None, :] - cx) <= diameter
    values = mean_image[y0:y1, x0:x1][near].astype(np.float64)
    best = (np.inf, None)
    for dy, dx in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)):
        dist = np.hypot(np.arange(y0, y1)[:, None] - cy - dy, np.arange(x0, x1)[None, :] - cx - dx)
        for r in np.arange(0.3, 0.76, 0.05) * diameter:
            disk = 1.0 / (1.0 + np.exp(np.minimum((dist - r) / 0.6, 60.0)))
            design = np.stack([disk[near], np.ones(values.size)], axis=1)
            coef = np.linalg.lstsq(design, values, rcond=None)[0]
            sse = float(((design @ coef - values) ** 2).sum())
            if sse < best[0]:
                best = (sse, disk)
    ys, xs = np.nonzero(best[1] > 0.01)
    return (ys + y0) * width + xs + x0, best[1][ys, xs]


def _fit_somata(disks):
    # every disk's brightness at once, with a smooth background: (brightness, model image)
    if not disks:
        return np.zeros(0), np.zeros((height, width))
    matrix = sparse.csr_matrix((np.concatenate([v for _, v in disks]),
                                (np.concatenate([i for i, _ in disks]),
                                 np.repeat(np.arange(len(disks)), [len(i) for i, _ in disks]))),
                               shape=(height * width, len(disks)))
    target = mean_image.astype(np.float64)
    background = ndimage.gaussian_filter(target, 2 * diameter)
    for _ in range(3):
        brightness = np.clip(sparse_linalg.lsqr(matrix, (target - background).ravel())[0], 0, None)
        model = (matrix @ brightness).reshape(height, width)
        background = ndimage.gaussian_filter(target - model, 2 * diameter)
    return brightness, model


soma_disks = [_soma_disk(*s["med"]) for s in stat]
n_active = len(stat)
_brightness, model_image = _fit_somata(soma_disks)
soma_sigma = diameter / (2 * np.sqrt(2))
soma_image = -ndimage.gaussian_laplace(mean_image.astype(np.float64) - model_image, soma_sigma)
impulse = np.zeros((2 * int(4 * soma_sigma) + 1,) * 2)
impulse[impulse.shape[0] // 2, impulse.shape[1] // 2] = 1.0
pixel_noise = 1.4826 * np.median(np.abs(np.diff(mean_image.astype(np.float64), axis=0))) / np.sqrt(2)
soma_noise = pixel_noise * float(np.sqrt((ndimage.gaussian_laplace(impulse, soma_sigma) ** 2).sum())) + 1e-12
peaks = ndimage.maximum_filter(soma_image, size=3) == soma_image
for y, x in zip(*np.nonzero(peaks & ~outside & (soma_image > silent_contrast * soma_noise))):
    if min(y, x, height - 1 - y, width - 1 - x) < diameter / 2:
        continue  # a blob cut by the frame's edge: its shape cannot be judged
    if any(np.hypot(y - s["med"][0], x - s["med"][1]) < 0.5 * diameter for s in stat):
        continue  # an active ROI's own soma (or the saddle between two touching ones)
    d = np.hypot(np.arange(height)[:, None] - y, np.arange(width)[None, :] - x)
    blob, _n = ndimage.label((d <= diameter / 2) & (soma_image > 0))
    ys, xs = np.nonzero(blob == blob[y, x])
    if len(ys) < min_area:
        continue
    lam = soma_image[ys, xs]
    stat.append({"ypix": ys.astype(np.int32), "xpix": xs.astype(np.int32), "lam": (lam / lam.sum()).astype(np.float32),
                 "med": [round(float((ys * lam).sum() / lam.sum()), 2), round(float((xs * lam).sum() / lam.sum()), 2)],
                 "npix": int(len(ys)), "radius": float(np.sqrt(len(ys) / np.pi)), "score": 0.0, "peak_snr": 0.0,
                 "silent": True})
    soma_disks.append(_soma_disk(*stat[-1]["med"]))
# Each ROI's soma brightness in the mean image, fitted with all the others, relative to the typical
# active ROI's: a real soma squeezed between neighbours is as bright as a dim cell, the saddle of two
# neighbours' overlapping edges is not (classify_cells uses it for ROIs found in the mean image; true
# squeezed cells on tuning seeds 0.38-0.81, saddles 0.04-0.31). Below 0.2 such a ROI beside
# another is dropped here: its pixels would otherwise be taken from the neighbours' traces.
brightness, _model = _fit_somata(soma_disks)
typical = float(np.median(brightness[:n_active])) if n_active else 0.0
for s, b in zip(stat, brightness):
    s["soma_brightness"] = round(float(b / typical), 3) if typical > 0 else 0.0
stat = stat[:n_active] + [s for s in stat[n_active:] if s["soma_brightness"] >= 0.2 or not any(
    np.hypot(s["med"][0] - o["med"][0], s["med"][1] - o["med"][1]) < 1.2 * diameter for o in stat if o is not s)]

owners = np.zeros((height, width), dtype=np.int32)
for s in stat:
    owners[s["ypix"], s["xpix"]] += 1
cell_labels = np.zeros((height, width), dtype=np.int32)
best_lam = np.zeros((height, width), dtype=np.float32)
for i, s in enumerate(stat, start=1):
    s["overlap"] = owners[s["ypix"], s["xpix"]] > 1
    better = s["lam"] > best_lam[s["ypix"], s["xpix"]]
    cell_labels[s["ypix"][better], s["xpix"][better]] = i
    best_lam[s["ypix"][better], s["xpix"][better]] = s["lam"][better]
cell_centroids = [list(s["med"]) for s in stat]
# The time-binned movies (hundreds of MB on a large field) are needed by no later step; the last
# patch and course are views of them and the last block a read of the movie, so they go too.
patch = course = block = None
del binned, smooth
