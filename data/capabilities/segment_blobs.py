# Cell segmentation by Laplacian-of-Gaussian blob detection on the background-subtracted
# mean image; each blob becomes a disk ROI (pixels shared by two disks go to the nearer cell).
from scipy import ndimage
from skimage.feature import blob_log

min_sigma, max_sigma = 1.5, 6.0   # expected cell radius / sqrt(2), in pixels
z_threshold = 4.0                  # LoG response in units of the image's robust noise
relative_threshold = 0.1           # and at least this fraction of the strongest response

img = mean_image.astype(np.float64)
flat = img - ndimage.gaussian_filter(img, 4 * max_sigma)
noise = 1.4826 * np.median(np.abs(flat - np.median(flat)))
z = flat / max(noise, 1e-12)
blobs = blob_log(
    np.clip(z, 0, None), min_sigma=min_sigma, max_sigma=max_sigma, num_sigma=10,
    threshold=z_threshold / 2, threshold_rel=relative_threshold, overlap=0.5,
)
markers = np.zeros(img.shape, dtype=np.int32)
radii = np.zeros(len(blobs) + 1)
for i, (r, c, s) in enumerate(blobs, start=1):
    markers[int(r), int(c)] = i
    radii[i] = max(np.sqrt(2) * s, 1.5)
if len(blobs):
    dist, (near_r, near_c) = ndimage.distance_transform_edt(markers == 0, return_indices=True)
    nearest = markers[near_r, near_c]
    cell_labels = np.where(dist <= radii[nearest], nearest, 0).astype(np.int32)
    weights = np.clip(flat, 0, None)
    centres = ndimage.center_of_mass(weights, cell_labels, np.arange(1, len(blobs) + 1))
    cell_centroids = [
        [round(float(r), 2), round(float(c), 2)] if np.isfinite(r) and np.isfinite(c)
        else [float(b[0]), float(b[1])]
        for (r, c), b in zip(centres, blobs)
    ]
else:
    cell_labels = markers
    cell_centroids = []
