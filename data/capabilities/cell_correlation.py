# Pairwise Pearson correlation between cells' ΔF/F traces, and its mean over distinct pairs.
n_rows = dff.shape[0]
if n_rows >= 2:
    centred = dff - dff.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(centred, axis=1)
    norms[norms == 0] = np.inf
    unit = centred / norms[:, None]
    correlation_matrix = (unit @ unit.T).astype(np.float32)
    upper = correlation_matrix[np.triu_indices(n_rows, k=1)]
    mean_correlation = float(upper.mean())
else:
    correlation_matrix = np.ones((n_rows, n_rows), dtype=np.float32)
    mean_correlation = float("nan")
