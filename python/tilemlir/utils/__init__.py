"""TileLang's tilelang.utils names that its programs use (utils.tensor)."""
