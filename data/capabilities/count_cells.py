# Number of cells: the ROIs the classification labels as cells (iscell[:, 0]), not every
# candidate the segmentation proposed.
n_cells = int(np.asarray(iscell)[:, 0].sum()) if len(cell_centroids) else 0
