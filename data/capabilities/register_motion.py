# Motion correction. Rigid: sub-pixel phase correlation of every frame against a reference
# built from the movie (the mean of the frames that agree best with a first average,
# re-estimated once after aligning them). Piecewise-rigid: the same per overlapping block,
# smoothed into a shift field, when blocks still disagree after the rigid pass (or when asked).
# reg_offsets[t] = (dy, dx) is where frame t's content sits relative to the reference; the
# correction moves it back. Frames whose correlation peak is far below the others' are flagged
# in bad_frames. With params["register"] None, frames are only moved when motion is detected
# (95th percentile displacement above 0.5 px); otherwise images_registered is images itself.
from scipy import ndimage

register_wanted = params.get("register")
nonrigid_wanted = params.get("nonrigid")
max_shift_frac = 0.15    # largest displacement searched, as a fraction of the smaller side
motion_px = 0.5          # displacement (95th percentile) above which motion counts as present
nonrigid_px = 0.55       # block disagreement (95th percentile) above which piecewise-rigid runs
n_frames, height, width = images.shape
chunk = int(np.clip(2 ** 23 // max(height * width, 1), 4, 128))  # frames per FFT batch (~130 MB complex)
max_shift = max(2, int(max_shift_frac * min(height, width)))


def _taper(h, w, edge):
    wy = np.minimum(1.0, np.minimum(np.arange(h) + 1, h - np.arange(h)) / edge)
    wx = np.minimum(1.0, np.minimum(np.arange(w) + 1, w - np.arange(w)) / edge)
    return np.outer(0.5 - 0.5 * np.cos(np.pi * wy), 0.5 - 0.5 * np.cos(np.pi * wx))


def _band(h, w):
    # Band-pass in the frequency domain: drop slow gradients (neuropil, > ~12 px) and pixel noise.
    ky = np.fft.fftfreq(h)[:, None]
    kx = np.fft.fftfreq(w)[None, :]
    k2 = (2 * np.pi) ** 2 * (ky ** 2 + kx ** 2)
    return np.exp(-k2 * 1.5 ** 2 / 2) * (1 - np.exp(-k2 * 12.0 ** 2 / 2))


def _spectrum(frames, taper, band):
    frames = np.asarray(frames, dtype=np.float32)
    frames = frames - frames.mean(axis=(1, 2), keepdims=True)
    return np.fft.fft2(frames * taper) * band


def _phase_shifts(frames, ref_fft, taper, limit, band):
    # Whitened cross-correlation; peak within +-limit, refined by a parabola in y and x.
    r = _spectrum(frames, taper, band) * ref_fft
    r /= np.abs(r) + 1e-6
    r *= band
    cc = np.fft.fftshift(np.fft.ifft2(r).real, axes=(1, 2))
    h, w = cc.shape[1:]
    cy, cx = h // 2, w // 2
    win = cc[:, cy - limit:cy + limit + 1, cx - limit:cx + limit + 1]
    flat = win.reshape(len(win), -1)
    idx = flat.argmax(axis=1)
    py, px = np.unravel_index(idx, win.shape[1:])
    peak = flat[np.arange(len(win)), idx]
    out = np.zeros((len(win), 2))
    for k in range(len(win)):
        y, x = int(py[k]), int(px[k])
        dy = _vertex(win[k, y - 1, x], win[k, y, x], win[k, y + 1, x]) if 0 < y < win.shape[1] - 1 else 0.0
        dx = _vertex(win[k, y, x - 1], win[k, y, x], win[k, y, x + 1]) if 0 < x < win.shape[2] - 1 else 0.0
        out[k] = (y - limit + dy, x - limit + dx)
    return out, peak


def _vertex(a, b, c):
    # Sub-pixel peak: the band-passed correlation peak is Gaussian-shaped, so fit a parabola to
    # the logarithm (exact for a Gaussian; a plain parabola pulls towards whole pixels).
    if a > 0 and b > 0 and c > 0:
        a, b, c = np.log(a), np.log(b), np.log(c)
    curve = a - 2 * b + c
    return float(np.clip(0.5 * (a - c) / curve, -0.5, 0.5)) if curve < 0 else 0.0


def _ref_fft(ref, taper, band):
    return np.conj(_spectrum(ref[None], taper, band)[0])


def _rigid(movie, taper, limit):
    # Reference: 2 passes over up to 100 evenly spaced frames.
    pick = np.unique(np.linspace(0, len(movie) - 1, min(len(movie), 100)).astype(int))
    sample = np.asarray(movie[pick], dtype=np.float32)
    ref = sample.mean(axis=0)
    band = _band(*ref.shape)
    for _ in range(2):
        shifts, peak = _all_shifts(sample, _ref_fft(ref, taper, band), taper, limit, band)
        best = np.argsort(peak)[::-1][: max(len(sample) // 2, 1)]
        ref = np.mean([ndimage.shift(sample[i], -shifts[i], order=1, mode="nearest") for i in best], axis=0)
    shifts, peaks = _all_shifts(movie, _ref_fft(ref, taper, band), taper, limit, band)
    shifts -= np.median(shifts, axis=0)  # the reference's own position is arbitrary
    return shifts, peaks, ref


def _all_shifts(movie, ref_fft, taper, limit, band):
    # In FFT batches of `chunk` frames, so memory does not grow with the number of frames.
    shifts = np.zeros((len(movie), 2))
    peaks = np.zeros(len(movie))
    for start in range(0, len(movie), chunk):
        shifts[start:start + chunk], peaks[start:start + chunk] = _phase_shifts(
            movie[start:start + chunk], ref_fft, taper, limit, band)
    return shifts, peaks


class LazyRegistered:
    # The registered movie as frames are read (a slice, index or index array on time, then on
    # y/x): for a movie streamed from its file, whose registered float32 copy would not fit.
    # Frames are divided by `unit` as read (float32, as load_stack scales a loaded movie).
    def __init__(self, source, correct, unit=1.0):
        self.source, self.correct, self.unit = source, correct, np.float32(unit)
        self.shape, self.ndim, self.dtype = tuple(source.shape), 3, np.dtype(np.float32)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        times = np.arange(self.shape[0])[key[0]]
        block = self.source[key[0]]
        # corrected in place: a copy of our own, never a view of the (memory-mapped) input
        frames = np.asarray(block, dtype=np.float32) if isinstance(self.source, LazyRegistered) else \
            np.array(block, dtype=np.float32)
        if self.unit != 1:
            frames /= self.unit
        if np.ndim(times) == 0:
            return self.correct(frames, int(times))[key[1:]]
        for i, t in enumerate(times):
            frames[i] = self.correct(frames[i], int(t))
        return frames[(slice(None),) + key[1:]]


# A movie streamed from disk arrives in its file's pixel type; it, and any movie whose float32
# copy exceeds 1 GB, is registered frame by frame as later steps read it. Integer pixels are
# read as fractions of their type's maximum, as a loaded movie is.
lazy = images.dtype != np.float32 or n_frames * height * width * 4 > 2 ** 30
source = images
if lazy:
    integer = np.issubdtype(images.dtype, np.integer)
    source = LazyRegistered(images, lambda frame, t: frame, float(np.iinfo(images.dtype).max) if integer else 1.0)


def _apply_rigid(movie, shifts):
    if lazy:
        return LazyRegistered(movie, lambda frame, t: ndimage.shift(frame, -shifts[t], order=1, mode="nearest")
                              if np.any(np.abs(shifts[t]) > 1e-3) else frame)
    out = np.empty(movie.shape, dtype=np.float32)
    for t in range(len(movie)):
        if np.any(np.abs(shifts[t]) > 1e-3):
            out[t] = ndimage.shift(np.asarray(movie[t], dtype=np.float32), -shifts[t], order=1, mode="nearest")
        else:
            out[t] = movie[t]
    return out


def _block_grid(h, w):
    size = max(24, min(h, w) // 3)
    ys = np.unique(np.linspace(0, h - size, max(2, int(np.ceil(2 * h / size)) - 1)).astype(int))
    xs = np.unique(np.linspace(0, w - size, max(2, int(np.ceil(2 * w / size)) - 1)).astype(int))
    return size, ys, xs


def _block_shifts(movie, ref, limit):
    size, ys, xs = _block_grid(*ref.shape)
    taper_b = _taper(size, size, max(size // 6, 2))
    band_b = _band(size, size)
    field = np.zeros((len(movie), len(ys), len(xs), 2))
    for i, y0 in enumerate(ys):
        for j, x0 in enumerate(xs):
            ref_fft = _ref_fft(ref[y0:y0 + size, x0:x0 + size], taper_b, band_b)
            for start in range(0, len(movie), chunk):
                block = np.asarray(movie[start:start + chunk, y0:y0 + size, x0:x0 + size])
                field[start:start + chunk, i, j], _ = _phase_shifts(block, ref_fft, taper_b, limit, band_b)
    centres_y = ys + size / 2.0
    centres_x = xs + size / 2.0
    return field, centres_y, centres_x


def _apply_field(movie, field, cy, cx):
    h, w = movie.shape[1:]
    rr, cc = np.mgrid[0:h, 0:w].astype(np.float32)
    # pixel position in block-index coordinates, for spline interpolation of the shift field
    fy = np.interp(np.arange(h), cy, np.arange(len(cy)))
    fx = np.interp(np.arange(w), cx, np.arange(len(cx)))
    gy, gx = np.meshgrid(fy, fx, indexing="ij")

    def correct(frame, t):
        dy = ndimage.map_coordinates(field[t, :, :, 0], [gy, gx], order=1, mode="nearest")
        dx = ndimage.map_coordinates(field[t, :, :, 1], [gy, gx], order=1, mode="nearest")
        return ndimage.map_coordinates(frame, [rr + dy, cc + dx], order=1, mode="nearest")

    if lazy:
        return LazyRegistered(movie, correct)
    out = np.empty(movie.shape, dtype=np.float32)
    for t in range(len(movie)):
        out[t] = correct(np.asarray(movie[t], dtype=np.float32), t)
    return out


taper = _taper(height, width, max(min(height, width) // 10, 2))
if register_wanted is False or n_frames < 2:
    reg_offsets = np.zeros((n_frames, 2), dtype=np.float32)
    reg_peaks = np.ones(n_frames)
else:
    reg_offsets, reg_peaks, reg_reference = _rigid(source, taper, max_shift)
# Estimation noise alone moves single frames; motion moves runs of frames, so look at a running median.
steady = ndimage.median_filter(reg_offsets, size=(5, 1), mode="nearest") if n_frames > 1 else reg_offsets
motion_detected = bool(np.percentile(np.hypot(*steady.T), 95) > motion_px) if n_frames > 1 else False
if register_wanted or (register_wanted is None and motion_detected):
    images_registered = _apply_rigid(source, reg_offsets)
    registered = "rigid"
else:
    images_registered = source
    registered = "none"
nonrigid_residual = 0.0
if n_frames > 1 and register_wanted is not False and nonrigid_wanted is not False and min(height, width) >= 48:
    ref = images_registered[np.unique(np.linspace(0, n_frames - 1, min(n_frames, 100)).astype(int))].mean(axis=0)
    # Blocks see few pixels, so judge the residual on averages of 5 consecutive frames.
    starts = np.unique(np.linspace(0, max(n_frames - 5, 0), min(max(n_frames // 5, 1), 60)).astype(int))
    groups = np.stack([np.asarray(images_registered[t:t + 5], dtype=np.float32).mean(axis=0) for t in starts])
    sample_field, _, _ = _block_shifts(groups, ref, max(2, max_shift // 2))
    nonrigid_residual = float(np.percentile(np.abs(sample_field - np.median(sample_field, axis=(1, 2), keepdims=True)), 95))
    if nonrigid_wanted or nonrigid_residual > nonrigid_px:
        block_field, block_cy, block_cx = _block_shifts(images_registered, ref, max(2, max_shift // 2))
        block_field = ndimage.gaussian_filter1d(block_field, 1.0, axis=0)  # shifts change smoothly in time
        images_registered = _apply_field(images_registered, block_field, block_cy, block_cx)
        registered = "piecewise-rigid" if registered == "none" else "rigid + piecewise-rigid"
peak_median = float(np.median(reg_peaks))
peak_mad = float(np.median(np.abs(reg_peaks - peak_median))) + 1e-9
bad_frames = (reg_peaks < peak_median - 6 * 1.4826 * peak_mad) | (np.hypot(*reg_offsets.T) >= max_shift - 0.5)
reg_offsets = np.asarray(reg_offsets, dtype=np.float32)
max_displacement = float(np.abs(reg_offsets).max()) if n_frames else 0.0
n_bad_frames = int(bad_frames.sum())
