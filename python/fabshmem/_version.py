"""The version of the Python binding: the version of fabshmem it ships with."""
__version__ = "0.1.0"
