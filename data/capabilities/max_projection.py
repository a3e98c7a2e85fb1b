# Temporal maximum projection: each pixel's brightest value over the movie. Read in blocks of
# frames, so a movie streamed from its file is never held whole; integer pixels (a streamed
# movie's own values) count as fractions of their type's maximum, as a loaded movie's do.
projection_block = int(np.clip(2 ** 24 // max(int(np.prod(images.shape[1:])), 1), 1, 256))
max_image = np.asarray(images[:projection_block]).max(axis=0)
for start in range(projection_block, len(images), projection_block):
    max_image = np.maximum(max_image, np.asarray(images[start:start + projection_block]).max(axis=0))
if np.issubdtype(max_image.dtype, np.integer):
    max_image = max_image.astype(np.float32) / np.float32(np.iinfo(images.dtype).max)
