# Temporal mean projection: each pixel's average brightness over the movie. Read in blocks of
# frames, so a movie streamed from its file is never held whole; integer pixels (a streamed
# movie's own values) count as fractions of their type's maximum, as a loaded movie's do.
# Accumulate in float64 so long movies do not lose precision.
projection_unit = float(np.iinfo(images.dtype).max) if np.issubdtype(images.dtype, np.integer) else 1.0
projection_block = int(np.clip(2 ** 24 // max(int(np.prod(images.shape[1:])), 1), 1, 256))
mean_image = np.zeros(images.shape[1:])
for start in range(0, len(images), projection_block):
    mean_image += np.asarray(images[start:start + projection_block], dtype=np.float64).sum(axis=0)
mean_image = (mean_image / max(len(images), 1) / projection_unit).astype(np.float32)
