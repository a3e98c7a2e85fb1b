"""Data shipped with planexec (starter capabilities, papers, calibration pairs, eval suites).

Installed as `planexec.data`; read it through `planexec.datafiles.shipped`.
"""

if __name__ != "planexec.data":
    raise ImportError("the data folder is part of planexec: use planexec.datafiles.shipped()")
