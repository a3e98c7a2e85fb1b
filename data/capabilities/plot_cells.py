# Figure: segmented cells outlined in colour on the mean image, numbered from 0.
from matplotlib.figure import Figure
from skimage.segmentation import find_boundaries

fig_cells = Figure(figsize=(6, 6), dpi=100)
ax = fig_cells.subplots()
lo, hi = np.percentile(mean_image, [1, 99.8])
ax.imshow(mean_image, cmap="gray", interpolation="nearest", vmin=lo, vmax=hi if hi > lo else lo + 1e-6)
edges = find_boundaries(cell_labels, mode="inner")
overlay = np.zeros((*cell_labels.shape, 4))
overlay[edges] = (1.0, 0.25, 0.1, 0.9)
ax.imshow(overlay, interpolation="nearest")
for i, (r, c) in enumerate(cell_centroids):
    ax.text(c, r, str(i), color="yellow", fontsize=7, ha="center", va="center")
ax.set_title(f"{len(cell_centroids)} cells on the mean image")
ax.set_axis_off()
fig_cells.subplots_adjust(0.02, 0.02, 0.98, 0.93)  # fixed margins: tight_layout measures every label
