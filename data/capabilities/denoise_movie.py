# Gaussian smoothing in time and space; sigma in frames and pixels. A movie streamed from its
# file (its own pixel type), or one whose float32 copy exceeds 1 GB, is smoothed as later steps
# read it: each block with the 4 sigma of frames around it, so it equals filtering the whole
# movie; integer pixels count as fractions of their type's maximum, as a loaded movie's do.
from scipy import ndimage

denoise_sigma = (1.0, 1.0, 1.0)


class LazyDenoised:
    # The smoothed movie as frames are read (a slice, index or index array on time, then on y/x).
    def __init__(self, source, unit):
        self.source, self.unit = source, np.float32(unit)
        self.shape, self.ndim, self.dtype = tuple(source.shape), 3, np.dtype(np.float32)
        self.halo = int(4.0 * denoise_sigma[0] + 0.5)  # gaussian_filter's reach in time (truncate=4)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        times = np.arange(self.shape[0])[key[0]]
        if np.ndim(times) == 0:
            return self.frames(int(times), int(times) + 1)[0][key[1:]]
        if times.size and np.all(np.diff(times) == 1):
            frames = self.frames(int(times[0]), int(times[-1]) + 1)
        elif times.size:  # scattered frames: each with its own neighbours, not the span between them
            frames = np.stack([self.frames(int(t), int(t) + 1)[0] for t in times])
        else:
            frames = np.zeros((0, *self.shape[1:]), dtype=np.float32)
        return frames[(slice(None),) + key[1:]]

    def frames(self, start, stop):
        # Frames start..stop smoothed, from the frames within reach of the filter around them.
        lo, hi = max(start - self.halo, 0), min(stop + self.halo, self.shape[0])
        block = np.array(self.source[lo:hi], dtype=np.float32)
        if self.unit != 1:
            block /= self.unit
        return ndimage.gaussian_filter(block, sigma=denoise_sigma)[start - lo:stop - lo]


if images.dtype != np.float32 or images.size * 4 > 2 ** 30:
    denoise_unit = float(np.iinfo(images.dtype).max) if np.issubdtype(images.dtype, np.integer) else 1.0
    images_denoised = LazyDenoised(images, denoise_unit)
else:
    images_denoised = ndimage.gaussian_filter(images, sigma=denoise_sigma).astype(np.float32)
