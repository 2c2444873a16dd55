"""TileLang's tilelang.contrib names that its programs use: nvcc."""
