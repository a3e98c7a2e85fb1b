# Number of cells: the ROIs the classification labelled as cells when it ran earlier in this
# session (iscell), else every detected ROI.
try:
    n_cells = int(np.asarray(iscell)[:, 0].sum()) if len(iscell) == len(cell_centroids) else int(len(cell_centroids))
except NameError:
    n_cells = int(len(cell_centroids))
