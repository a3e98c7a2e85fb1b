# Cell segmentation by watershed: threshold the smoothed, background-subtracted mean image
# (Otsu), seed one marker per local maximum, and flood the inverted image within the mask.
from scipy import ndimage
from skimage.feature import peak_local_max
from skimage.filters import threshold_otsu
from skimage.segmentation import watershed

min_distance = 4      # pixels between two cell centres
min_area = 9          # smaller regions are noise

img = mean_image.astype(np.float64)
flat = ndimage.gaussian_filter(img - ndimage.gaussian_filter(img, 24.0), 1.0)
mask = flat > threshold_otsu(flat) if np.ptp(flat) > 0 else np.zeros(img.shape, bool)
regions, _ = ndimage.label(mask)
peaks = peak_local_max(flat, min_distance=min_distance, labels=regions, exclude_border=False)
markers = np.zeros(img.shape, dtype=np.int32)
markers[tuple(peaks.T)] = np.arange(1, len(peaks) + 1)
labels = watershed(-flat, markers, mask=mask) if len(peaks) else markers
areas = np.bincount(labels.ravel(), minlength=len(peaks) + 1)
keep = np.flatnonzero(areas >= min_area)
keep = keep[keep > 0]
relabel = np.zeros(len(areas), dtype=np.int32)
relabel[keep] = np.arange(1, len(keep) + 1)
cell_labels = relabel[labels]
centres = ndimage.center_of_mass(np.clip(flat, 0, None), cell_labels, np.arange(1, len(keep) + 1))
cell_centroids = [[round(float(r), 2), round(float(c), 2)] for r, c in centres]
