# Temporal mean projection: each pixel's average brightness over the movie.
# Accumulate in float64 so long movies do not lose precision.
mean_image = images.mean(axis=0, dtype=np.float64).astype(np.float32)
