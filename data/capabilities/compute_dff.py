# ΔF/F = (F - F0) / F0 per cell and frame.
floor = np.float32(1e-6)
dff = ((roi_traces - baseline) / np.maximum(baseline, floor)).astype(np.float32)
