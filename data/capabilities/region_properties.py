# Shape and brightness of every segmented cell (skimage.measure.regionprops).
from skimage.measure import regionprops

cell_props = [
    {
        "cell": int(region.label) - 1,
        "area": int(region.area),
        "centroid": [round(float(region.centroid[0]), 2), round(float(region.centroid[1]), 2)],
        "eccentricity": round(float(region.eccentricity), 4),
        "equivalent_diameter": round(float(region.equivalent_diameter_area), 3),
        "mean_intensity": round(float(region.intensity_mean), 6),
    }
    for region in regionprops(cell_labels, intensity_image=mean_image)
]
cell_areas = [p["area"] for p in cell_props]
