# Number of detected cells.
n_cells = int(len(cell_centroids))
