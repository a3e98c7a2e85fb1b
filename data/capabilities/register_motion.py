# Motion correction. Rigid: sub-pixel phase correlation of every frame against a reference
# built from the movie (the mean of the frames that agree best with a first average,
# re-estimated once after aligning them). Piecewise-rigid: the same per overlapping block,
# smoothed into a shift field, when blocks still disagree after the rigid pass (or when asked).
# reg_offsets[t] = (dy, dx) is where frame t's content sits relative to the reference; the
# correction moves it back. Frames whose correlation peak is far below the others' are flagged
# in bad_frames. With params["register"] None, frames are only moved when motion is detected
# (95th percentile displacement above 0.5 px); otherwise images_registered is images itself.
import scipy.fft
from scipy import ndimage

register_wanted = params.get("register")
nonrigid_wanted = params.get("nonrigid")
max_shift_frac = 0.15    # largest displacement searched, as a fraction of the smaller side
motion_px = 0.5          # displacement (95th percentile) above which motion counts as present
nonrigid_px = 0.33       # block disagreement (95th percentile) above which piecewise-rigid runs
group_frames = 20        # consecutive frames averaged per sample when judging that disagreement
nonrigid_passes = 3      # piecewise-rigid estimates, each on the movie the previous ones corrected
n_frames, height, width = images.shape
chunk = int(np.clip(2 ** 23 // max(height * width, 1), 4, 128))  # frames per FFT batch (~130 MB complex)
max_shift = max(2, int(max_shift_frac * min(height, width)))


def _taper(h, w, edge):
    wy = np.minimum(1.0, np.minimum(np.arange(h) + 1, h - np.arange(h)) / edge)
    wx = np.minimum(1.0, np.minimum(np.arange(w) + 1, w - np.arange(w)) / edge)
    return np.outer(0.5 - 0.5 * np.cos(np.pi * wy), 0.5 - 0.5 * np.cos(np.pi * wx))


def _band(h, w):
    # Band-pass on the half spectrum of rfft2: drop slow gradients (neuropil, > ~12 px) and pixel noise.
    ky = np.fft.fftfreq(h)[:, None]
    kx = np.fft.rfftfreq(w)[None, :]
    k2 = (2 * np.pi) ** 2 * (ky ** 2 + kx ** 2)
    return (np.exp(-k2 * 1.5 ** 2 / 2) * (1 - np.exp(-k2 * 12.0 ** 2 / 2))).astype(np.float32)


def _spectrum(frames, taper, band):
    # Real FFTs in single precision: half the spectrum, a quarter of the work of complex128.
    frames = np.asarray(frames, dtype=np.float32)
    frames = frames - frames.mean(axis=(1, 2), keepdims=True)
    return scipy.fft.rfft2(frames * taper, axes=(1, 2)) * band


def _phase_shifts(frames, ref_fft, taper, limit, band):
    # Whitened cross-correlation; peak within +-limit, refined by a log-parabola in y and x.
    r = _spectrum(frames, taper, band) * ref_fft
    r /= np.abs(r) + 1e-6
    r *= band
    h, w = taper.shape
    lags = np.arange(-limit, limit + 1)
    # The inverse FFT only where shifts are searched: over y, keep the rows of lags -limit..limit,
    # then over x for those rows alone (equal to irfft2's window, 40% less work at 512x512).
    rows = scipy.fft.ifft(r, axis=1)[:, lags % h]
    win = scipy.fft.irfft(rows, n=w, axis=2)[:, :, lags % w]
    flat = win.reshape(len(win), -1)
    idx = flat.argmax(axis=1)
    py, px = np.unravel_index(idx, win.shape[1:])
    k = np.arange(len(win))
    peak = flat[k, idx]
    side = win.shape[1] - 1
    inner_y = (py > 0) & (py < side)
    inner_x = (px > 0) & (px < side)
    yu, yd = np.clip(py - 1, 0, side), np.clip(py + 1, 0, side)
    xl, xr = np.clip(px - 1, 0, side), np.clip(px + 1, 0, side)
    dy = np.where(inner_y, _vertex(win[k, yu, px], peak, win[k, yd, px]), 0.0)
    dx = np.where(inner_x, _vertex(win[k, py, xl], peak, win[k, py, xr]), 0.0)
    return np.stack([py - limit + dy, px - limit + dx], axis=1).astype(np.float64), peak


def _vertex(a, b, c):
    # Sub-pixel peak: the band-passed correlation peak is Gaussian-shaped, so fit a parabola to
    # the logarithm where all three are positive (exact for a Gaussian; a plain parabola pulls
    # towards whole pixels).
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    positive = (a > 0) & (b > 0) & (c > 0)
    la, lb, lc = (np.where(positive, np.log(np.where(positive, v, 1.0)), v) for v in (a, b, c))
    curve = la - 2 * lb + lc
    safe = np.where(curve < 0, curve, -1.0)
    return np.where(curve < 0, np.clip(0.5 * (la - lc) / safe, -0.5, 0.5), 0.0)


def _shift_frame(frame, shift):
    # ndimage.shift(frame, -shift, order=1, mode="nearest"): bilinear, the edge repeated, as two
    # linear interpolations between slices of the edge-padded frame (a third faster than
    # ndimage's spline code; a streamed movie is moved again every time a later step reads it).
    h, w = frame.shape
    ky, kx = int(np.floor(shift[0])), int(np.floor(shift[1]))
    fy, fx = np.float32(shift[0] - ky), np.float32(shift[1] - kx)
    m = max(abs(ky), abs(kx)) + 1
    padded = np.pad(np.asarray(frame, dtype=np.float32), m, mode="edge")
    rows = padded[m + ky:m + ky + h] * (1 - fy)
    rows += padded[m + ky + 1:m + ky + 1 + h] * fy
    out = rows[:, m + kx:m + kx + w] * (1 - fx)
    out += rows[:, m + kx + 1:m + kx + 1 + w] * fx
    return out


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
        ref = np.mean([_shift_frame(sample[i], shifts[i]) for i in best], axis=0)
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
        return LazyRegistered(movie, lambda frame, t: _shift_frame(frame, shifts[t])
                              if np.any(np.abs(shifts[t]) > 1e-3) else frame)
    out = np.empty(movie.shape, dtype=np.float32)
    for t in range(len(movie)):
        if np.any(np.abs(shifts[t]) > 1e-3):
            out[t] = _shift_frame(movie[t], shifts[t])
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
    peaks = np.zeros((len(movie), len(ys), len(xs)))
    for i, y0 in enumerate(ys):
        for j, x0 in enumerate(xs):
            ref_fft = _ref_fft(ref[y0:y0 + size, x0:x0 + size], taper_b, band_b)
            for start in range(0, len(movie), chunk):
                block = np.asarray(movie[start:start + chunk, y0:y0 + size, x0:x0 + size])
                field[start:start + chunk, i, j], peaks[start:start + chunk, i, j] = _phase_shifts(block, ref_fft, taper_b, limit, band_b)
    centres_y = ys + size / 2.0
    centres_x = xs + size / 2.0
    return field, peaks, centres_y, centres_x


def _trusted(field, peaks):
    # A block with little structure (a correlation peak under half the typical one) gives a
    # shift that is noise, often whole pixels off: it takes the peak-weighted average of its
    # neighbours' shifts instead (normalized convolution over the block grid; 0 if none is trusted).
    weight = (peaks >= 0.5 * np.median(peaks)) * peaks
    spread = (0, 1.0, 1.0)
    total = ndimage.gaussian_filter(weight, spread, mode="nearest")
    filled = np.stack([ndimage.gaussian_filter(field[..., a] * weight, spread, mode="nearest") for a in range(2)], axis=-1)
    filled /= np.maximum(total, 1e-12)[..., None]
    filled[total < 1e-9] = 0.0
    trusted = (weight > 0)[..., None]
    return np.where(trusted, field, filled), weight > 0


def _interp_matrix(n, centres):
    # Linear interpolation weights from block centres to every pixel row (or column), n x blocks.
    pos = np.interp(np.arange(n), centres, np.arange(len(centres)))
    low = np.clip(np.floor(pos).astype(int), 0, len(centres) - 1)
    high = np.minimum(low + 1, len(centres) - 1)
    frac = pos - low
    m = np.zeros((n, len(centres)))
    m[np.arange(n), low] += 1 - frac
    m[np.arange(n), high] += frac
    return m


def _apply_field(movie, field, cy, cx):
    h, w = movie.shape[1:]
    rr, cc = np.mgrid[0:h, 0:w].astype(np.float32)
    my, mx = _interp_matrix(h, cy), _interp_matrix(w, cx)

    def correct(frame, t):
        dy = my @ field[t, :, :, 0] @ mx.T
        dx = my @ field[t, :, :, 1] @ mx.T
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
block_field = None
if n_frames > 1 and register_wanted is not False and min(height, width) >= 48:
    ref = images_registered[np.unique(np.linspace(0, n_frames - 1, min(n_frames, 100)).astype(int))].mean(axis=0)
    # Blocks see few pixels, so judge the residual on averages of consecutive frames: 20 of them
    # halve the estimation noise of 5 while a smooth warp survives the average (calcium_synth seeds
    # 1-8, 42, 44, 52, 56, p95 over 5 frames: noise_0.15 up to 0.43, drift_nonrigid down to 0.52,
    # so three drift_nonrigid movies at 0.52-0.54 stayed rigid and kept second ROIs on cells; over
    # 20: noise_0.15 <= 0.25, drift_rigid <= 0.12, drift_nonrigid >= 0.44)
    starts = np.unique(np.linspace(0, max(n_frames - group_frames, 0),
                                   min(max(n_frames // group_frames, 1), 60)).astype(int))
    groups = np.stack([np.asarray(images_registered[t:t + group_frames], dtype=np.float32).mean(axis=0)
                       for t in starts])
    sample_field, sample_peaks, _, _ = _block_shifts(groups, ref, max(2, max_shift // 2))
    sample_field, sample_trusted = _trusted(sample_field, sample_peaks)
    deviation = np.abs(sample_field - np.median(sample_field, axis=(1, 2), keepdims=True))[sample_trusted]
    nonrigid_residual = float(np.percentile(deviation, 95)) if deviation.size else 0.0
    if nonrigid_wanted is not False and (nonrigid_wanted or nonrigid_residual > nonrigid_px):
        # A tapered block pulls its shift estimate towards zero (by 10-30%), so the pass repeats on
        # the corrected movie and adds the residual; each block field moves the rigidly registered
        # movie once, so the movie is interpolated once.
        rigid_registered = images_registered
        for _pass in range(nonrigid_passes):
            residual, block_peaks, block_cy, block_cx = _block_shifts(images_registered, ref, max(2, max_shift // 2))
            residual, _ = _trusted(residual, block_peaks)
            residual = ndimage.gaussian_filter1d(residual, 1.0, axis=0)  # shifts change smoothly in time
            block_field = residual if block_field is None else block_field + residual
            images_registered = _apply_field(rigid_registered, block_field, block_cy, block_cx)
        registered = "piecewise-rigid" if registered == "none" else "rigid + piecewise-rigid"
peak_median = float(np.median(reg_peaks))
peak_mad = float(np.median(np.abs(reg_peaks - peak_median))) + 1e-9
bad_frames = (reg_peaks < peak_median - 6 * 1.4826 * peak_mad) | (np.hypot(*reg_offsets.T) >= max_shift - 0.5)
# Pixels near the edge that some frames do not see are filled by repeating the edge: the region
# every frame (but the 1% most displaced) covers is kept as valid_region = [y0, y1, x0, x1], as
# suite2p's yrange/xrange, so segmentation does not take edge artefacts for cells.
moved = np.zeros((n_frames, 2)) if registered == "none" else np.asarray(reg_offsets, dtype=np.float64)
if block_field is not None:
    moved = moved[:, None, None, :] + block_field
lo = np.minimum(np.percentile(moved.reshape(-1, 2), 1, axis=0), 0.0) if n_frames else np.zeros(2)
hi = np.maximum(np.percentile(moved.reshape(-1, 2), 99, axis=0), 0.0) if n_frames else np.zeros(2)
valid_region = [int(np.ceil(-lo[0])), height - int(np.ceil(hi[0])), int(np.ceil(-lo[1])), width - int(np.ceil(hi[1]))]
reg_offsets = np.asarray(reg_offsets, dtype=np.float32)
max_displacement = float(np.abs(reg_offsets).max()) if n_frames else 0.0
n_bad_frames = int(bad_frames.sum())
