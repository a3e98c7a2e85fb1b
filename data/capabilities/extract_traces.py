# Per-cell fluorescence traces: the mean of each cell's ROI pixels in every frame
# (cells x frames), and their average over cells (the whole field if no cell was found).
n_frames = images.shape[0]
pixels = images.reshape(n_frames, -1)
flat_labels = cell_labels.ravel()
n_rois = int(flat_labels.max()) if flat_labels.size else 0
order = np.argsort(flat_labels, kind="stable")
bounds = np.searchsorted(flat_labels[order], np.arange(1, n_rois + 2))
roi_traces = np.zeros((n_rois, n_frames), dtype=np.float32)
for i in range(n_rois):
    idx = np.sort(order[bounds[i]:bounds[i + 1]])
    if idx.size:
        roi_traces[i] = pixels[:, idx].mean(axis=1)
mean_trace = roi_traces.mean(axis=0) if n_rois else pixels.mean(axis=1)
