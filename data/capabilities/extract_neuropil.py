# Fluorescence traces with neuropil subtraction. F: each ROI's lam-weighted mean over its own
# pixels, leaving out pixels shared with another ROI or within 1 px of one (when a third of the
# ROI remains; else only shared ones). Fneu: the mean of a
# surround ring that starts 2 px outside the cell and grows until it holds enough pixels,
# excluding every cell's pixels (and a 1 px margin around them). The corrected trace is
# roi_traces = F - r * Fneu with r = params["neuropil_coefficient"] (0.7 by default), so
# light from the neuropil around a cell does not become its events. Streamed in chunks of frames.
from scipy import ndimage, sparse

neuropil_coefficient = 0.7 if params.get("neuropil_coefficient") is None else float(params["neuropil_coefficient"])
inner_gap = 2          # px between a cell's edge and its ring
min_ring_pixels = 150  # the ring grows until it holds this many (or 6x the cell's pixels)
movie = images_registered
n_frames, height, width = movie.shape
n_rois = len(stat)
all_cells = np.zeros((height, width), dtype=bool)
for s in stat:
    all_cells[s["ypix"], s["xpix"]] = True
forbidden = ndimage.binary_dilation(all_cells, iterations=1)
rows, cols = np.mgrid[0:height, 0:width]
cell_w, ring_w = [], []
neuropil_masks = []
# Pixels a neighbour's soft edge reaches (within 1 px of another ROI) carry its light: touching
# cells 5 px apart showed each other's spikes as events (touching training seeds 1, 2, 10).
# A ROI found only in the mean image ("silent") takes no pixels from ROIs found by their activity:
# the saddle-like ones beside touching cells left those cells too few pixels of their own, whose
# traces then fell back to pixels their neighbour lights (touching seed 14).
reach = np.zeros((2, height, width), dtype=np.int32)  # [active ROIs, all ROIs]
shared = np.zeros((2, height, width), dtype=np.int32)
for s in stat:
    y0, x0 = max(int(s["ypix"].min()) - 1, 0), max(int(s["xpix"].min()) - 1, 0)
    box = np.zeros((int(s["ypix"].max()) + 2 - y0 + 1, int(s["xpix"].max()) + 2 - x0 + 1), dtype=bool)
    box[s["ypix"] - y0, s["xpix"] - x0] = True
    box = ndimage.binary_dilation(box)
    h, w = min(box.shape[0], height - y0), min(box.shape[1], width - x0)
    for k in ((1,) if s.get("silent") else (0, 1)):
        reach[k, y0:y0 + h, x0:x0 + w] += box[:h, :w]
        shared[k, s["ypix"], s["xpix"]] += 1
for s in stat:
    k = 1 if s.get("silent") else 0
    overlap = shared[k, s["ypix"], s["xpix"]] > 1
    own = ~overlap & (reach[k, s["ypix"], s["xpix"]] < 2)
    if own.sum() < max(4, len(s["ypix"]) // 3):
        own = ~overlap
    if not own.any():
        own = np.ones(len(s["ypix"]), dtype=bool)
    idx = s["ypix"][own].astype(np.int64) * width + s["xpix"][own]
    lam = np.asarray(s["lam"], dtype=np.float64)[own]
    cell_w.append((idx, lam / lam.sum()))
    inner = np.sqrt(s["npix"] / np.pi) + inner_gap
    need = max(min_ring_pixels, 6 * s["npix"])
    outer = inner + 3
    while True:  # grow the ring inside a window around the cell (whole-frame distances cost too much)
        half = int(np.ceil(outer)) + 1
        cy, cx = int(round(s["med"][0])), int(round(s["med"][1]))
        y0, y1, x0, x1 = max(cy - half, 0), min(cy + half + 1, height), max(cx - half, 0), min(cx + half + 1, width)
        dist = np.hypot(rows[y0:y1, x0:x1] - s["med"][0], cols[y0:y1, x0:x1] - s["med"][1])
        ring = (dist >= inner) & (dist < outer) & ~forbidden[y0:y1, x0:x1]
        if ring.sum() >= need or outer >= max(height, width):
            break
        outer += 2
    ry, rx = np.nonzero(ring)
    ridx = (ry + y0).astype(np.int64) * width + (rx + x0)
    neuropil_masks.append(ridx.astype(np.int32))
    ring_w.append((ridx, np.full(ridx.size, 1.0 / max(ridx.size, 1))))


def _gather(parts):
    # Every ROI's pixels back to back, and a ROI x gathered-pixel weight matrix: a block's weighted
    # sums are one gather of those columns and one sparse product (the ROI x whole-frame product
    # needs the whole block transposed and cast to float64 first: 8x slower on 512x512 frames).
    idx = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    w = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    roi = np.repeat(np.arange(len(parts)), [len(p[0]) for p in parts])
    return idx, sparse.csr_matrix((w, (roi, np.arange(idx.size))), shape=(n_rois, idx.size))


def _weighted_sums(block, gathered):
    idx, matrix = gathered
    return (matrix @ block[:, idx].T.astype(np.float64)).astype(np.float32)


cell_gather = _gather(cell_w)
ring_gather = _gather(ring_w)
F = np.zeros((n_rois, n_frames), dtype=np.float32)
Fneu = np.zeros((n_rois, n_frames), dtype=np.float32)
block_frames = int(np.clip(2 ** 24 // max(height * width, 1), 16, 256))  # 16 MB of pixels: 64 frames of 512x512
for start in range(0, n_frames, block_frames):
    block = np.asarray(movie[start:start + block_frames], dtype=np.float32).reshape(-1, height * width)
    F[:, start:start + len(block)] = _weighted_sums(block, cell_gather)
    Fneu[:, start:start + len(block)] = _weighted_sums(block, ring_gather)
roi_traces = (F - neuropil_coefficient * Fneu).astype(np.float32)
if n_rois:
    mean_trace = F.mean(axis=0)
else:
    mean_trace = np.array([float(np.asarray(movie[t]).mean()) for t in range(n_frames)], dtype=np.float32)
