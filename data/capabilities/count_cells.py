# Number of cells: the ROIs the classification labelled as cells (iscell). Counting every
# detected ROI over-counted by up to 10 of 15 on movies the segmentation was not tuned on.
n_cells = int(np.asarray(iscell)[:, 0].sum())
