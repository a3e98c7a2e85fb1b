# Local correlation image: each pixel's mean temporal correlation with its 8 neighbours.
# Active cells stand out even when dim; computed in chunks of frames to bound memory.
n_frames, height, width = images.shape
chunk = 128
total = np.zeros((height, width))
total_sq = np.zeros((height, width))
for start in range(0, n_frames, chunk):
    block = images[start:start + chunk].astype(np.float64)
    total += block.sum(axis=0)
    total_sq += (block * block).sum(axis=0)
mu = total / n_frames
sd = np.sqrt(np.maximum(total_sq / n_frames - mu * mu, 0.0))
sd[sd == 0] = np.inf
offsets = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
acc = np.zeros((height, width))
for start in range(0, n_frames, chunk):
    z = (images[start:start + chunk] - mu) / sd
    padded = np.pad(z, ((0, 0), (1, 1), (1, 1)))
    for dr, dc in offsets:
        acc += (z * padded[:, 1 + dr:1 + dr + height, 1 + dc:1 + dc + width]).sum(axis=0)
neighbours = np.pad(np.ones((height, width)), 1)
count = sum(
    neighbours[1 + dr:1 + dr + height, 1 + dc:1 + dc + width] for dr, dc in offsets
)
corr_image = (acc / (n_frames * count)).astype(np.float32)
