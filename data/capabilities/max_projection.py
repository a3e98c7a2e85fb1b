# Temporal maximum projection: each pixel's brightest value over the movie.
max_image = images.max(axis=0)
