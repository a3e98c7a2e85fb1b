# Gaussian smoothing in time and space; sigma in frames and pixels.
from scipy import ndimage

denoise_sigma = (1.0, 1.0, 1.0)
images_denoised = ndimage.gaussian_filter(images, sigma=denoise_sigma).astype(np.float32)
